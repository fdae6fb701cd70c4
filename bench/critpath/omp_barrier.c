/* omp_barrier.c — the cost of the critical path at an OpenMP barrier (bench/critpath/run.py):
 * one MPI process, a team of OMP_NUM_THREADS threads passing n `#pragma omp barrier`s with
 * no work between them. Prints "ompbarrier_us <microseconds per barrier>". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 20000;
    MPI_Init(&argc, &argv);
    double t0 = 0, t1 = 0;
#pragma omp parallel
    {
#pragma omp barrier
#pragma omp master
        t0 = now();
        for (int i = 0; i < n; i++) {
#pragma omp barrier
        }
#pragma omp master
        t1 = now();
    }
    MPI_Finalize();
    printf("ompbarrier_us %.3f\n", 1e6 * (t1 - t0) / n);
    return 0;
}
