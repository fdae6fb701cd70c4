/* hot_mpi: every rank calls a tiny function 1.2 million times (a run dominated by its
 * instrumentation on every rank), then reduces the sum; rank 0 prints it. */
#include <mpi.h>
#include <stdio.h>

static volatile long sink;

__attribute__((noinline)) static long tiny(long i) { return i & 7; }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    long local = 0, total = 0;
    for (long i = 0; i < 1200000; i++)
        local += tiny(i);
    sink = local;
    MPI_Reduce(&local, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("total=%ld\n", total);
    MPI_Finalize();
    return 0;
}
