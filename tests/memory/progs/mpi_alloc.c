/* mpi_alloc.c — a job whose ranks allocate differently (tests/memory/check.py): rank r
 * allocates r + 1 blocks of 1000 bytes in rank_work, releases all but one. */
#include <mpi.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

static void *volatile keep[8];

NOINLINE void rank_work(int rank)
{
    for (int i = 0; i <= rank; i++)
        keep[i] = malloc(1000);
    for (int i = 1; i <= rank; i++)
        free(keep[i]);
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    rank_work(rank);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
