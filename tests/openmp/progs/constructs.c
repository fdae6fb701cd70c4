/* OpenMP constructs with exactly known counts per thread (run with OMP_NUM_THREADS=4):
 * check_openmp.py checks the profile and the trace against them. The "// @name" comments
 * mark the lines the region names must carry. */
#include <omp.h>
#include <stdio.h>

#define REGIONS 5
#define ITERS 64 /* per region, static schedule: ITERS / threads per thread */
#define TASKS 8  /* per region */

#define NOINLINE __attribute__((noinline))

static omp_lock_t lock;
static volatile int sink;

NOINLINE int leaf(int i) { return i % 7; }
NOINLINE int kernel(int i) { return leaf(i) + leaf(i + 1); }
NOINLINE int task_body(int i) { return leaf(i) + 1; }

int main(void)
{
    long sum = 0;
    int crit = 0, singles = 0, tasks = 0, locked = 0, masked = 0;
    omp_init_lock(&lock);
    for (int r = 0; r < REGIONS; r++) {
#pragma omp parallel reduction(+ : sum) // @parallel
        {
#pragma omp for schedule(static) // @for
            for (int i = 0; i < ITERS; i++)
                sum += kernel(i);
#pragma omp barrier // @barrier
#pragma omp critical // @critical
            crit++;
#pragma omp single // @single
            {
                for (int t = 0; t < TASKS; t++) {
#pragma omp task // @task
                    {
                        int v = task_body(t);
#pragma omp atomic
                        tasks += v > 0;
                    }
                }
#pragma omp taskwait // @taskwait
                singles++;
            }
#pragma omp masked // @masked
            masked++;
            omp_set_lock(&lock); // @lock
            locked++;
            omp_unset_lock(&lock);
        }
    }
    omp_destroy_lock(&lock);
    printf("sum %ld crit %d singles %d tasks %d locked %d masked %d\n", sum, crit, singles,
           tasks, locked, masked);
    return 0;
}
