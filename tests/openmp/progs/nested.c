/* Nested parallel regions with exactly known counts per thread (run with OMP_NUM_THREADS=4,
 * OMP_MAX_ACTIVE_LEVELS=2): an outer team of 2, each forking an inner team of 2, so 4 threads
 * run the inner region at once. The four inner threads meet in `rendezvous` every round, so
 * each round has 4 distinct threads in the inner teams and every thread's counts are exact.
 * check_openmp.py (case nested) checks that every thread's work sits below
 * main > outer parallel > implicit task > inner parallel > implicit task. */
#include <omp.h>
#include <stdio.h>

#define ROUNDS 3
#define CALLS 5 /* kernel calls per inner thread per round */
#define NOINLINE __attribute__((noinline))

static int arrived;
static volatile int sink;

NOINLINE void kernel(int i) { sink += i; }

NOINLINE void rendezvous(int round)
{
    __atomic_add_fetch(&arrived, 1, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&arrived, __ATOMIC_SEQ_CST) < 4 * (round + 1))
        ;
}

NOINLINE void inner(int round)
{
#pragma omp parallel num_threads(2) // @inner
    {
        rendezvous(round);
        for (int i = 0; i < CALLS; i++)
            kernel(i);
    }
}

int main(void)
{
    for (int r = 0; r < ROUNDS; r++) {
#pragma omp parallel num_threads(2) // @outer
        inner(r);
    }
    printf("rounds %d arrived %d\n", ROUNDS, arrived);
    return 0;
}
