/* Constructs that gcc computes inline, with no call of GNU libgomp: loops with a static
 * schedule (the default, schedule(static), schedule(static, chunk), each with and without
 * nowait, collapse, combined with parallel), master, masked and single. check_openmp.py case
 * gomp_static compares their call tree under gcc on libgomp (recorded through the GCC
 * plugin's markers, runtime/gomp/constructs.c) with clang on libomp (OMPT) at 1, 2 and 4
 * threads; case static_gcc checks gcc's own names and counts. The "// @name" comments mark
 * the lines the region names carry. */
#include <omp.h>
#include <stdio.h>

#define REGIONS 3
#define N 24
#define NOINLINE __attribute__((noinline))

static volatile int sink;
NOINLINE void work(int i) { sink += i; }

int main(void)
{
    int masters = 0, maskeds = 0, singles = 0;
    for (int r = 0; r < REGIONS; r++) {
#pragma omp parallel reduction(+ : masters, maskeds, singles) // @parallel
        {
#pragma omp for // @default
            for (int i = 0; i < N; i++)
                work(i);
#pragma omp for schedule(static) nowait // @nowait
            for (int i = 0; i < N; i++)
                work(i);
#pragma omp for schedule(static, 2) // @chunk
            for (int i = 0; i < N; i++)
                work(i);
#pragma omp for schedule(static, 5) nowait // @chunk_nowait
            for (int i = 0; i < N; i++)
                work(i);
#pragma omp barrier // @barrier
#pragma omp for collapse(2) // @collapse
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 6; j++)
                    work(i * j);
#pragma omp master // @master
            {
                masters++;
                work(-1);
            }
#pragma omp masked filter(1) // @masked
            {
                maskeds++;
                work(-2);
            }
#pragma omp single // @single
            {
                singles++;
                work(-3);
            }
#pragma omp single nowait // @single_nowait
            work(-4);
            work(-5);
        }
#pragma omp parallel for // @parallel_for
        for (int i = 0; i < N; i++)
            work(i);
    }
    printf("masters %d maskeds %d singles %d\n", masters, maskeds, singles);
    return 0;
}
