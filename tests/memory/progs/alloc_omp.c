/* alloc_omp.c — known allocations on OpenMP threads (tests/memory/check.py): thread t of 4
 * allocates t + 1 blocks of 100 bytes in omp_worker (slots of its own: 4 t .. 4 t + t) and releases them; the master releases,
 * in omp_collect, the 4 blocks of 64 bytes the threads allocated in omp_give. */
#include <stdlib.h>

int omp_get_thread_num(void); /* not <omp.h>: clang's own may not be installed */

#define NOINLINE __attribute__((noinline))

static void *volatile keep[16];
static void *given[4];

NOINLINE void omp_worker(int t)
{
    for (int i = 0; i <= t; i++)
        keep[4 * t + i] = malloc(100);
    for (int i = 0; i <= t; i++)
        free(keep[4 * t + i]);
}

NOINLINE void omp_give(int t) { given[t] = malloc(64); }

NOINLINE void omp_collect(void)
{
    for (int t = 0; t < 4; t++)
        free(given[t]);
}

int main(void)
{
#pragma omp parallel num_threads(4)
    {
        int t = omp_get_thread_num();
        omp_worker(t);
        omp_give(t);
    }
    omp_collect();
    return 0;
}
