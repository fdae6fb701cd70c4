/* constructs.c — the time per OpenMP construct (bench/openmp/run.py): an empty parallel region
 * of 2 threads (fork and join), a barrier, a critical section; printed in ns. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static volatile int sink;

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 20000;
    double t0 = omp_get_wtime();
    for (int i = 0; i < n; i++) {
#pragma omp parallel num_threads(2)
        sink++;
    }
    double t1 = omp_get_wtime();
#pragma omp parallel num_threads(2)
    for (int i = 0; i < n; i++) {
#pragma omp barrier
    }
    double t2 = omp_get_wtime();
#pragma omp parallel num_threads(2)
    for (int i = 0; i < n; i++) {
#pragma omp critical
        sink++;
    }
    double t3 = omp_get_wtime();
    printf("fork_join_ns %.1f\nbarrier_ns %.1f\ncritical_ns %.1f\n", (t1 - t0) * 1e9 / n,
           (t2 - t1) * 1e9 / n, (t3 - t2) * 1e9 / n);
    return 0;
}
