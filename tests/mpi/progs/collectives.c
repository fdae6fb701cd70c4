/* collectives.c — every blocking collective once per round, two nonblocking ones, and
 * communicator/group management; rank 0 prints what came out. tests/mpi/check_mpi.py knows
 * the exact number of calls. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define ROUNDS 3

__attribute__((noinline)) static long round_of_collectives(MPI_Comm comm, int round)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    long acc = 0;
    int x = rank + round, y = 0;
    int *all = calloc((size_t)size, sizeof *all), *other = calloc((size_t)size, sizeof *other);
    MPI_Barrier(comm);
    MPI_Bcast(&x, 1, MPI_INT, 0, comm);
    acc += x;
    MPI_Reduce(&rank, &y, 1, MPI_INT, MPI_SUM, 0, comm);
    acc += y;
    MPI_Allreduce(&rank, &y, 1, MPI_INT, MPI_MAX, comm);
    acc += y;
    MPI_Gather(&rank, 1, MPI_INT, all, 1, MPI_INT, 0, comm);
    for (int i = 0; i < size; i++)
        acc += rank == 0 ? all[i] : 0;
    MPI_Scatter(all, 1, MPI_INT, &y, 1, MPI_INT, 0, comm);
    acc += y;
    MPI_Allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, comm);
    for (int i = 0; i < size; i++)
        all[i] += round;
    MPI_Alltoall(all, 1, MPI_INT, other, 1, MPI_INT, comm);
    acc += other[size - 1];
    MPI_Scan(&rank, &y, 1, MPI_INT, MPI_SUM, comm);
    acc += y;
    MPI_Reduce_scatter_block(all, &y, 1, MPI_INT, MPI_SUM, comm);
    acc += y;
    MPI_Request rq[2];
    int b = round, s = 0;
    MPI_Ibcast(&b, 1, MPI_INT, 0, comm, &rq[0]);
    MPI_Iallreduce(&rank, &s, 1, MPI_INT, MPI_SUM, comm, &rq[1]);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
    acc += b + s;
    free(all);
    free(other);
    return acc;
}

int main(int argc, char **argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long acc = 0;
    for (int r = 0; r < ROUNDS; r++)
        acc += round_of_collectives(MPI_COMM_WORLD, r);

    /* Communicators and groups: even/odd halves, and the first half through a group. */
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    acc += round_of_collectives(half, 7);
    MPI_Group world, first;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int range[1][3] = {{0, size / 2 - 1, 1}};
    MPI_Group_range_incl(world, 1, range, &first);
    MPI_Comm firstc;
    MPI_Comm_create(MPI_COMM_WORLD, first, &firstc);
    if (firstc != MPI_COMM_NULL) {
        acc += round_of_collectives(firstc, 11);
        MPI_Comm_free(&firstc);
    }
    MPI_Group_free(&first);
    MPI_Group_free(&world);
    MPI_Comm_free(&half);

    long total = 0;
    MPI_Reduce(&acc, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("ranks %d total %ld\n", size, total);
    int finalized = 0;
    MPI_Finalize();
    MPI_Finalized(&finalized);
    if (rank == 0)
        printf("finalized %d\n", finalized);
    return 0;
}
