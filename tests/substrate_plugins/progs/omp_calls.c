/* omp_calls: one parallel region of 3 threads; a static loop of 30 iterations gives each
 * thread exactly 10 calls of work(). */
#include <omp.h>
#include <stdio.h>

static volatile int sink;

__attribute__((noinline)) static void work(int i) { sink += i; }

int main(void)
{
#pragma omp parallel for num_threads(3) schedule(static)
    for (int i = 0; i < 30; i++)
        work(i);
    printf("sink=%d\n", sink);
    return 0;
}
