/* omp_team.c — an OpenMP team with one slow thread in every MPI process: each iteration is
 * a parallel region of two compute phases separated by `#pragma omp barrier` and ended by
 * the region's join, then an MPI_Barrier. On one rank per iteration (iteration mod ranks),
 * the last thread also runs imbalance_work in phase A, and thread 1 (0 in a team of two or
 * one) in phase B: the path goes from one thread to another at the barrier (and to the
 * master at the join). The critical path of useful computation is, per iteration, the
 * longest rank's sum of its slowest thread in A and its slowest thread in B. Every thread measures its own
 * phases (CPU time) and the program prints them after MPI_Finalize, one line per thread and
 * iteration: "phase <rank> <iteration> <thread> <A balanced> <A imbalance> <B balanced>
 * <B imbalance>" (check_critpath.py). */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ITERS 4
#define THREADS_MAX 64

#include "cpu_work.h"

static unsigned long spin(unsigned long x, unsigned long n)
{
    for (unsigned long i = 0; i < n; i++)
        x = x * 6364136223846793005ul + 1442695040888963407ul;
    return x;
}

__attribute__((noinline)) void balanced_work(unsigned long n) { sink += spin(sink, n); }
__attribute__((noinline)) void imbalance_work(unsigned long n) { sink += spin(sink, n); }

int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 20000000ul;
    int rank, size, provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static double ph[ITERS][THREADS_MAX][4];
    int nthreads = 1;
    for (int it = 0; it < ITERS; it++) {
#pragma omp parallel
        {
            int t = omp_get_thread_num(), nt = omp_get_num_threads();
            if (t == 0)
                nthreads = nt;
            double t0 = now();
            balanced_work(n);
            double t1 = now();
            int slow = rank == it % size;
            if (slow && t == nt - 1)
                imbalance_work(n);
            double t2 = now();
#pragma omp barrier
            double t3 = now();
            balanced_work(n / 2);
            double t4 = now();
            if (slow && t == (nt > 2 ? 1 : 0))
                imbalance_work(n);
            double t5 = now();
            if (t < THREADS_MAX) {
                ph[it][t][0] = t1 - t0;
                ph[it][t][1] = t2 - t1;
                ph[it][t][2] = t4 - t3;
                ph[it][t][3] = t5 - t4;
            }
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    for (int it = 0; it < ITERS; it++)
        for (int t = 0; t < nthreads && t < THREADS_MAX; t++)
            printf("phase %d %d %d %.9f %.9f %.9f %.9f\n", rank, it, t, ph[it][t][0],
                   ph[it][t][1], ph[it][t][2], ph[it][t][3]);
    return 0;
}
