/* mpi_events: the MPI events of substrate plugin interface version 3 with known counts
 * (check_substrate.py, case mpi_events, 4 ranks). On every rank:
 *   - MPI_Comm_split of the world by rank parity (2 ranks each, key = rank), MPI_Comm_dup of
 *     the world: communicators 2 and 3 of the process; MPI_Comm_idup of the half, completed
 *     by MPI_Test: communicator 4;
 *   - non-blocking collectives, each completed by MPI_Wait: MPI_Ibarrier on the world,
 *     MPI_Iallreduce of one int on the half, MPI_Ibcast of 2 ints from rank 0 on the dup;
 *   - persistent requests: MPI_Send_init of 4 ints to the right neighbour (tag 7) and
 *     MPI_Recv_init from the left, started 3 times with MPI_Startall and completed by
 *     MPI_Waitall, then one MPI_Start each completed by MPI_Wait (receive first), then freed;
 *   - a blocking MPI_Allreduce of one int on the half (its Fortran handle written into
 *     half-<rank>.txt first);
 *   - an RMA window of 64 bytes over the half (MPI_Win_create), one fence, freed;
 *   - over the world, a window of 16 bytes from MPI_Win_allocate and a dynamic one
 *     (MPI_Win_create_dynamic), one fence each, freed in reverse order. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm half, dup;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm idup;
    MPI_Request r;
    MPI_Comm_idup(half, &idup, &r);
    for (int done = 0; !done;)
        MPI_Test(&r, &done, MPI_STATUS_IGNORE);

    MPI_Ibarrier(MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    int one = 1, sum = 0;
    MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, half, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    int two[2] = {rank == 0 ? 40 : 0, rank == 0 ? 2 : 0};
    MPI_Ibcast(two, 2, MPI_INT, 0, dup, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);

    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int out[4] = {rank, rank, rank, rank}, in[4] = {-1, -1, -1, -1};
    MPI_Request p[2];
    MPI_Recv_init(in, 4, MPI_INT, left, 7, MPI_COMM_WORLD, &p[0]);
    MPI_Send_init(out, 4, MPI_INT, right, 7, MPI_COMM_WORLD, &p[1]);
    for (int i = 0; i < 3; i++) {
        MPI_Startall(2, p);
        MPI_Waitall(2, p, MPI_STATUSES_IGNORE);
    }
    MPI_Start(&p[0]);
    MPI_Start(&p[1]);
    MPI_Wait(&p[0], MPI_STATUS_IGNORE);
    MPI_Wait(&p[1], MPI_STATUS_IGNORE);
    MPI_Request_free(&p[0]);
    MPI_Request_free(&p[1]);

    char path[64]; /* the half's Fortran handle, for the test (a version 2 plugin's comm) */
    snprintf(path, sizeof path, "half-%d.txt", rank);
    FILE *f = fopen(path, "w");
    if (f) {
        fprintf(f, "%d\n", (int)MPI_Comm_c2f(half));
        fclose(f);
    }
    int sum2 = 0;
    MPI_Allreduce(&one, &sum2, 1, MPI_INT, MPI_SUM, half);
    char mem[64];
    MPI_Win win;
    MPI_Win_create(mem, sizeof mem, 1, MPI_INFO_NULL, half, &win);
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    void *base = NULL;
    MPI_Win alloc, dyn;
    MPI_Win_allocate(16, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &alloc);
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dyn);
    MPI_Win_fence(0, alloc);
    MPI_Win_fence(0, dyn);
    MPI_Win_free(&dyn);
    MPI_Win_free(&alloc);

    if (sum != 2 || sum2 != 2 || two[0] + two[1] != 42 || in[0] != left)
        fprintf(stderr, "mpi_events: wrong results\n");
    int idup_size = 0;
    MPI_Comm_size(idup, &idup_size);
    if (idup_size != 2)
        fprintf(stderr, "mpi_events: wrong idup size %d\n", idup_size);
    MPI_Comm_free(&idup);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&half);
    if (rank == 0)
        printf("ok\n");
    MPI_Finalize();
    return 0;
}
