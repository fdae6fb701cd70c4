/* omp_calls: one parallel region of 3 threads; a static loop of 30 iterations gives each
 * thread exactly 10 calls of work(). Then one thread creates 4 explicit tasks (task_work()
 * each), and every thread takes an OpenMP lock once. */
#include <omp.h>
#include <stdio.h>

static int sink; /* atomic: threads add to it, and a lost update would change the output */

__attribute__((noinline)) static void work(int i) { __atomic_fetch_add(&sink, i, __ATOMIC_RELAXED); }
__attribute__((noinline)) static void task_work(int i) { __atomic_fetch_add(&sink, i, __ATOMIC_RELAXED); }

int main(void)
{
    omp_lock_t lock;
    omp_init_lock(&lock);
#pragma omp parallel num_threads(3)
    {
#pragma omp for schedule(static)
        for (int i = 0; i < 30; i++)
            work(i);
#pragma omp single
        for (int k = 1; k <= 4; k++) {
#pragma omp task firstprivate(k)
            task_work(k);
        }
        omp_set_lock(&lock);
        __atomic_fetch_add(&sink, 1, __ATOMIC_RELAXED);
        omp_unset_lock(&lock);
    }
    omp_destroy_lock(&lock);
    printf("sink=%d\n", __atomic_load_n(&sink, __ATOMIC_RELAXED));
    return 0;
}
