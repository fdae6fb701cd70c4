/* omp_critical.c — critical sections on the critical path: one MPI process, a team whose
 * threads each do some work of their own (longer the higher the thread number) and then
 * work inside `#pragma omp critical`, twice. The critical sections serialise the team: each
 * one starts after the one before it released the mutex, so the path runs from thread to
 * thread through the hand-overs (tests/critpath, case oracle_omp_critical, against the
 * trace's replay). */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cpu_work.h"

__attribute__((noinline)) void own_work(unsigned long n) { SPIN(n); }
__attribute__((noinline)) void critical_work(unsigned long n) { SPIN(n); }

int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 20000000ul;
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
#pragma omp parallel
    {
        int t = omp_get_thread_num();
        for (int round = 0; round < 2; round++) {
            own_work(n / 8 * (unsigned long)(t + 1));
#pragma omp critical
            critical_work(n / 2);
        }
    }
    MPI_Finalize();
    printf("done\n");
    return 0;
}
