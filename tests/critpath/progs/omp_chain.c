/* omp_chain.c — a chain through the threads of an OpenMP team by mutual exclusion: a loop of
 * 8 iterations over the team, schedule(static, 1), whose body runs stage_work inside
 * `#pragma omp ordered`. Each iteration waits for the previous one (on another thread) to
 * leave the ordered region, so the critical path of useful computation is the sum of all
 * stages, not one thread's share. Each stage's CPU time is printed after MPI_Finalize:
 * "phase <iteration> <seconds>" (check_critpath.py). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define STAGES 8

#include "cpu_work.h"

__attribute__((noinline)) void stage_work(unsigned long n) { SPIN(n); }

int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 20000000ul;
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    double st[STAGES];
#pragma omp parallel for ordered schedule(static, 1)
    for (int i = 0; i < STAGES; i++) {
#pragma omp ordered
        {
            double t0 = now();
            stage_work(n);
            st[i] = now() - t0;
        }
    }
    MPI_Finalize();
    for (int i = 0; i < STAGES; i++)
        printf("phase %d %.9f\n", i, st[i]);
    return 0;
}
