/* callheavy.c — the call-heavy microbenchmark: one tiny function called N times from a loop.
 * Prints the time per loop iteration (one call) in nanoseconds, measured inside the program
 * around the loop only, so start-up and writing results do not count. Usage: callheavy [N] */
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
    int s = 0;
    for (long i = 0; i < n / 10; i++) /* warm-up: caches, first registration */
        s = leaf(s);
    double t0 = now();
    for (long i = 0; i < n; i++)
        s = leaf(s);
    double t1 = now();
    printf("ns_per_call=%.3f checksum=%d\n", (t1 - t0) / (double)n, s);
    return 0;
}
