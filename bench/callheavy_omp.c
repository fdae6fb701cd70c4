/* callheavy_omp.c — callheavy.c's loop inside an OpenMP parallel region: one tiny function
 * called N times by every thread of the team, so that its calls are made where an OpenMP
 * runtime with OMPT (LLVM's libomp) has started instr's OMPT tool, inside an implicit task.
 * Prints the time per loop iteration of the master thread in nanoseconds, measured around
 * its loop only. Usage: callheavy_omp [N] (OMP_NUM_THREADS: the team) */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) int leaf(int x)
{
    __asm__ volatile("" : "+r"(x)); /* keep the call and its argument real */
    return x + 1;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 20000000L;
    int sum = 0;
    double ns = 0;
#pragma omp parallel reduction(+ : sum)
    {
        int s = 0;
        for (long i = 0; i < n / 10; i++) /* warm-up: caches, first registration */
            s = leaf(s);
        double t0 = now();
        for (long i = 0; i < n; i++)
            s = leaf(s);
        double t1 = now();
        if (omp_get_thread_num() == 0)
            ns = (t1 - t0) / (double)n;
        sum += s;
    }
    printf("ns_per_call=%.3f checksum=%d\n", ns, sum);
    return 0;
}
