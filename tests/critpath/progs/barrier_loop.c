/* barrier_loop.c — an imbalanced compute-then-barrier loop: every rank runs balanced_work,
 * the last rank also imbalance_work (as long again), then all meet in MPI_Barrier. The
 * critical path of useful computation is, per iteration, the longest rank's compute phase.
 * Each rank measures its own phases (CPU time, CLOCK_THREAD_CPUTIME_ID) and prints them at
 * the end, one line per phase: "phase <rank> <iteration> <balanced s> <imbalance s>", so that
 * the check (check_critpath.py) computes the path from what really happened on a loaded
 * machine.
 * With "ibarrier" as the second argument the ranks meet in MPI_Ibarrier + MPI_Wait instead,
 * and the slow rank changes every iteration (rank = iteration mod size), so that only a
 * path that follows the nonblocking barrier is the sum of the iterations' slowest phases. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ITERS 6

#include "cpu_work.h"

__attribute__((noinline)) void balanced_work(unsigned long n) { SPIN(n); }
__attribute__((noinline)) void imbalance_work(unsigned long n) { SPIN(n); }

int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 20000000ul;
    int nonblocking = argc > 2 && strcmp(argv[2], "ibarrier") == 0;
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double bal[ITERS], imb[ITERS];
    for (int it = 0; it < ITERS; it++) {
        double t0 = now();
        balanced_work(n);
        double t1 = now();
        if (rank == (nonblocking ? it % size : size - 1))
            imbalance_work(n);
        double t2 = now();
        bal[it] = t1 - t0;
        imb[it] = t2 - t1;
        if (nonblocking) {
            MPI_Request r;
            MPI_Ibarrier(MPI_COMM_WORLD, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        } else {
            MPI_Barrier(MPI_COMM_WORLD);
        }
    }
    MPI_Finalize();
    /* After MPI_Finalize, where the path ends: writing to a pipe is not part of it. */
    for (int it = 0; it < ITERS; it++)
        printf("phase %d %d %.9f %.9f\n", rank, it, bal[it], imb[it]);
    return 0;
}
