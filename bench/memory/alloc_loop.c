/* alloc_loop.c — cost per allocation (bench/memory/memory_cost.sh): N pairs of malloc(64)
 * and free in one instrumented function, timed with CLOCK_MONOTONIC. Prints
 * ns_per_pair=<ns>. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void *volatile sink;

__attribute__((noinline)) static void pairs(long n)
{
    for (long i = 0; i < n; i++) {
        void *p = malloc(64);
        sink = p;
        free(p);
    }
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 10000000;
    pairs(n / 10); /* warm-up */
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    pairs(n);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
    printf("ns_per_pair=%.2f\n", ns / (double)n);
    return 0;
}
