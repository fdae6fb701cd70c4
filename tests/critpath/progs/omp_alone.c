/* omp_alone.c — a program of OpenMP threads alone (no MPI): its critical path is written at
 * the end of the process. Each of ITERS parallel regions has two compute phases separated by
 * `#pragma omp barrier`: the last thread is slow in phase A, thread 0 in phase B, so the path
 * is, per region, the slowest thread of A plus the slowest of B (the barrier moves it from
 * the last thread to thread 0, the join back to the master). Every thread measures its
 * phases in CPU time; printed at the end: "phase <iteration> <thread> <A> <B>"
 * (check_critpath.py). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ITERS 3
#define THREADS_MAX 64

#include "cpu_work.h"

__attribute__((noinline)) void phase_work(unsigned long n) { SPIN(n); }
__attribute__((noinline)) void slow_work(unsigned long n) { SPIN(n); }

int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 20000000ul;
    static double ph[ITERS][THREADS_MAX][2];
    int nthreads = 1;
    for (int it = 0; it < ITERS; it++) {
#pragma omp parallel
        {
            int t = omp_get_thread_num(), nt = omp_get_num_threads();
            if (t == 0)
                nthreads = nt;
            double t0 = now();
            phase_work(n / 2);
            if (t == nt - 1)
                slow_work(n);
            double t1 = now();
#pragma omp barrier
            double t2 = now();
            phase_work(n / 2);
            if (t == 0)
                slow_work(n);
            double t3 = now();
            if (t < THREADS_MAX) {
                ph[it][t][0] = t1 - t0;
                ph[it][t][1] = t3 - t2;
            }
        }
    }
    for (int it = 0; it < ITERS; it++)
        for (int t = 0; t < nthreads && t < THREADS_MAX; t++)
            printf("phase %d %d %.9f %.9f\n", it, t, ph[it][t][0], ph[it][t][1]);
    return 0;
}
