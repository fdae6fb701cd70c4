/* throttle_mpi.c — every rank calls tiny TINY_CALLS times between MPI_Init and MPI_Finalize
 * (tests/throttle/check_throttle.py, case mpi): each rank throttles it, and the job's merged
 * profile says so. */
#include <mpi.h>
#include <stdio.h>

#define TINY_CALLS 100000

__attribute__((noinline)) int tiny(int x)
{
    __asm__ volatile("" : "+r"(x));
    return x + 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    long sink = 0, total = 0;
    for (int i = 0; i < TINY_CALLS; i++)
        sink += tiny(i);
    MPI_Reduce(&sink, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("sink=%ld\n", total);
    MPI_Finalize();
    return 0;
}
