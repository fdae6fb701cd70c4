/* The constructs beyond constructs.c, with exactly known counts (run with OMP_NUM_THREADS=4;
 * check_openmp.py case more): host teams with distribute, taskloop, ordered, an atomic that
 * libomp implements with a lock (long double), master and masked, single. The "// @name"
 * comments mark the lines the region names carry. */
#include <omp.h>
#include <stdio.h>

#define TEAMS 2
#define N 16
#define NOINLINE __attribute__((noinline))

static volatile int sink;
NOINLINE void work(int i) { sink += i; }

int main(void)
{
    int distributed = 0, ordered = 0, looped = 0, masters = 0, maskeds = 0, singles = 0;
    long double acc = 0;
#pragma omp teams num_teams(TEAMS) thread_limit(1) reduction(+ : distributed) // @teams
#pragma omp distribute // @distribute
    for (int i = 0; i < N; i++) {
        work(i);
        distributed++;
    }
#pragma omp parallel reduction(+ : ordered, masters, maskeds, singles) // @parallel
    {
#pragma omp for ordered schedule(static, 1) // @for
        for (int i = 0; i < N; i++) {
#pragma omp ordered // @ordered
            ordered++;
        }
#pragma omp atomic // @atomic
        acc += 1.0L;
#pragma omp master // @master
        masters++;
#pragma omp masked // @masked
        maskeds++;
#pragma omp single // @single
        {
            singles++;
#pragma omp taskloop num_tasks(4) // @taskloop
            for (int i = 0; i < N; i++) {
                work(i);
#pragma omp atomic
                looped++;
            }
        }
    }
    printf("distributed %d ordered %d atomic %d masters %d maskeds %d singles %d looped %d\n",
           distributed, ordered, (int)acc, masters, maskeds, singles, looped);
    return 0;
}
