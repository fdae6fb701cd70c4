/* mpi_tree.c — the job's binomial reduction tree (mpi_tree.h). */
#include "../mpi/mpi_wrap.h"
#include "mpi_tree.h"
#include "../util/pages.h"

#define CHUNK (1 << 20)

void instr_job_tree_send(const void *b, uint64_t len, int to, int tag, MPI_Comm comm)
{
    PMPI_Send(&len, 1, MPI_UINT64_T, to, tag, comm);
    for (uint64_t o = 0; o < len; o += CHUNK)
        PMPI_Send((const unsigned char *)b + o, (int)(len - o < CHUNK ? len - o : CHUNK),
                  MPI_BYTE, to, tag, comm);
}

void *instr_job_tree_recv(uint64_t *len, int from, int tag, MPI_Comm comm)
{
    PMPI_Recv(len, 1, MPI_UINT64_T, from, tag, comm, MPI_STATUS_IGNORE);
    unsigned char *b = *len ? instr_mem_alloc(*len) : NULL;
    static unsigned char sink[CHUNK];
    for (uint64_t o = 0; o < *len; o += CHUNK)
        PMPI_Recv(b ? b + o : sink, (int)(*len - o < CHUNK ? *len - o : CHUNK), MPI_BYTE, from,
                  tag, comm, MPI_STATUS_IGNORE);
    return b;
}

int instr_job_tree_span(int rank, int size)
{
    if (rank == 0)
        return size;
    int low = rank & -rank;
    return rank + low <= size ? low : size - rank;
}

void instr_job_tree_reduce(int rank, int size, MPI_Comm comm, int tag,
                           instr_job_tree_merge_fn merge, instr_job_tree_pack_fn pack,
                           void *ctx)
{
    for (uint32_t k = 0; (1u << k) < (uint32_t)size; k++) {
        int step = 1 << k;
        if (rank % (2 * step) == step) {
            const void *b = NULL;
            uint64_t len = 0;
            pack(ctx, &b, &len);
            instr_job_tree_send(b, b ? len : 0, rank - step, tag, comm);
            return;
        }
        if (rank % (2 * step) == 0 && rank + step < size) {
            uint64_t len = 0;
            void *b = instr_job_tree_recv(&len, rank + step, tag, comm);
            merge(ctx, b, len);
            instr_mem_free(b);
        }
    }
}
