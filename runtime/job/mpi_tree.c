/* mpi_tree.c — the job's binomial tree (mpi_tree.h). */
#include "../mpi/mpi_wrap.h"
#include "mpi_tree.h"
#include "../util/pages.h"

#include <string.h>

#define CHUNK (1 << 20)
/* The pieces of a buffer of len bytes: its length word, then at most 1 MiB each. */
static int pieces(uint64_t len) { return 1 + (int)((len + CHUNK - 1) / CHUNK); }

void instr_job_tree_send(const void *b, uint64_t len, int to, int tag, MPI_Comm comm)
{
    const void *buf[1] = {b};
    uint64_t lens[1] = {len};
    int dest[1] = {to};
    instr_job_tree_send_many(buf, lens, dest, 1, tag, comm);
}

void instr_job_tree_send_many(const void *const *b, const uint64_t *len, const int *to, int n,
                              int tag, MPI_Comm comm)
{
    int total = 0;
    for (int i = 0; i < n; i++)
        total += pieces(len[i]);
    MPI_Request inline_req[8], *req = total <= 8 ? inline_req : instr_mem_alloc(sizeof *req * (size_t)total);
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (req)
            PMPI_Isend(&len[i], 1, MPI_UINT64_T, to[i], tag, comm, &req[k++]);
        else
            PMPI_Send(&len[i], 1, MPI_UINT64_T, to[i], tag, comm);
        for (uint64_t o = 0; o < len[i]; o += CHUNK) {
            const unsigned char *p = (const unsigned char *)b[i] + o;
            int m = (int)(len[i] - o < CHUNK ? len[i] - o : CHUNK);
            if (req)
                PMPI_Isend(p, m, MPI_BYTE, to[i], tag, comm, &req[k++]);
            else
                PMPI_Send(p, m, MPI_BYTE, to[i], tag, comm);
        }
    }
    /* the receivers, woken: their messages are there to be matched */
    for (int i = 0; i < n; i++)
        if (i == 0 || to[i] != to[i - 1])
            instr_mpi_ring(to[i]);
    if (req) {
        instr_mpi_waitall_patient(k, req);
        if (req != inline_req)
            instr_mem_free(req);
    }
}

void *instr_job_tree_recv(uint64_t *len, int from, int tag, MPI_Comm comm)
{
    MPI_Request r;
    PMPI_Irecv(len, 1, MPI_UINT64_T, from, tag, comm, &r);
    instr_mpi_waitall_patient(1, &r);
    unsigned char *b = *len ? instr_mem_alloc(*len) : NULL;
    static unsigned char sink[CHUNK];
    int n = pieces(*len) - 1, k = 0;
    MPI_Request inline_req[8], *req = n <= 8 ? inline_req : (b ? instr_mem_alloc(sizeof *req * (size_t)n) : NULL);
    for (uint64_t o = 0; o < *len; o += CHUNK) {
        int m = (int)(*len - o < CHUNK ? *len - o : CHUNK);
        if (b && req)
            PMPI_Irecv(b + o, m, MPI_BYTE, from, tag, comm, &req[k++]);
        else /* without memory: taken into the sink, one after the other */
            PMPI_Recv(b ? b + o : sink, m, MPI_BYTE, from, tag, comm, MPI_STATUS_IGNORE);
    }
    if (k)
        instr_mpi_waitall_patient(k, req);
    if (req && req != inline_req)
        instr_mem_free(req);
    instr_mpi_ring(from); /* the sender, woken: its sends are complete when it tests them */
    return b;
}

int instr_job_tree_span(int rank, int size)
{
    if (rank == 0)
        return size;
    int low = rank & -rank;
    return rank + low <= size ? low : size - rank;
}

int instr_job_tree_parent(int rank) { return rank == 0 ? -1 : rank - (rank & -rank); }

int instr_job_tree_children(int rank, int size, int *child)
{
    int n = 0;
    uint32_t limit = rank == 0 ? UINT32_MAX : (uint32_t)(rank & -rank);
    for (uint32_t step = 1; step < limit && (uint64_t)rank + step < (uint64_t)size; step <<= 1)
        child[n++] = rank + (int)step;
    return n;
}

void instr_job_tree_reduce(int rank, int size, MPI_Comm comm, int tag,
                           instr_job_tree_merge_fn merge, instr_job_tree_pack_fn pack,
                           void *ctx)
{
    int child[32], n = instr_job_tree_children(rank, size, child);
    for (int i = 0; i < n; i++) {
        uint64_t len = 0;
        void *b = instr_job_tree_recv(&len, child[i], tag, comm);
        merge(ctx, b, len);
        instr_mem_free(b);
    }
    if (rank != 0) {
        const void *b = NULL;
        uint64_t len = 0;
        pack(ctx, &b, &len);
        instr_job_tree_send(b, b ? len : 0, instr_job_tree_parent(rank), tag, comm);
    }
}

void *instr_job_tree_bcast(void *b, uint64_t *len, int rank, int size, MPI_Comm comm, int tag)
{
    if (rank != 0)
        b = instr_job_tree_recv(len, instr_job_tree_parent(rank), tag, comm);
    int child[32], n = instr_job_tree_children(rank, size, child);
    /* the largest subtree first: it has the most rounds left */
    const void *bufs[32];
    uint64_t lens[32];
    int to[32];
    for (int i = 0; i < n; i++) {
        bufs[i] = b;
        lens[i] = b ? *len : 0;
        to[i] = child[n - 1 - i];
    }
    instr_job_tree_send_many(bufs, lens, to, n, tag, comm);
    return b;
}

static void combine(uint64_t *into, const uint64_t *from, const unsigned char *ops, int n)
{
    for (int i = 0; i < n; i++) {
        double a, b;
        memcpy(&a, &into[i], 8);
        memcpy(&b, &from[i], 8);
        switch (ops[i]) {
        case INSTR_JOB_SUM: into[i] += from[i]; break;
        case INSTR_JOB_MAX: into[i] = from[i] > into[i] ? from[i] : into[i]; break;
        case INSTR_JOB_MIN: into[i] = from[i] < into[i] ? from[i] : into[i]; break;
        case INSTR_JOB_FSUM: a += b; memcpy(&into[i], &a, 8); break;
        case INSTR_JOB_FMAX: if (b > a) into[i] = from[i]; break;
        }
    }
}

struct small_ctx {
    uint64_t *v;
    const unsigned char *ops;
    int n;
};

static void small_merge(void *ctx, const void *buf, uint64_t len)
{
    struct small_ctx *c = ctx;
    if (buf && len == 8ull * (uint64_t)c->n)
        combine(c->v, buf, c->ops, c->n);
}

static void small_pack(void *ctx, const void **buf, uint64_t *len)
{
    struct small_ctx *c = ctx;
    *buf = c->v;
    *len = 8ull * (uint64_t)c->n;
}

void instr_job_tree_allreduce(uint64_t *v, const unsigned char *ops, int n, int to_all, int rank,
                              int size, MPI_Comm comm, int tag)
{
    struct small_ctx c = {v, ops, n};
    instr_job_tree_reduce(rank, size, comm, tag, small_merge, small_pack, &c);
    if (!to_all)
        return;
    uint64_t len = 8ull * (uint64_t)n;
    void *b = instr_job_tree_bcast(rank == 0 ? v : NULL, &len, rank, size, comm, tag);
    if (rank != 0) {
        if (b && len == 8ull * (uint64_t)n)
            memcpy(v, b, len);
        instr_mem_free(b);
    }
}
