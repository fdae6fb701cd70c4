/* GOMP_* entry points beyond constructs.c that gcc 12 emits on the host, and the old
 * interface of gcc before 4.9, each with exactly known counts (check_openmp.py case
 * gomp_entries, gcc on GNU libgomp only: clang has no GOMP_parallel_start and, in clang 19,
 * no scope): GOMP_parallel_start/_end (called as old objects call them), host teams
 * (GOMP_teams_reg) with distribute, a doacross loop (GOMP_loop_doacross_static_start), scope,
 * and cancellation (GOMP_cancel, OMP_CANCELLATION=true) out of a static loop. The
 * "// @name" comments mark the lines the region names carry. */
#include <omp.h>
#include <stdio.h>

#define TEAMS 2
#define N 16
#define NOINLINE __attribute__((noinline))

void GOMP_parallel_start(void (*fn)(void *), void *data, unsigned num_threads);
void GOMP_parallel_end(void);

static volatile int sink;
NOINLINE void work(int i) { sink += i; }
NOINLINE static void old_body(void *data)
{
    (void)data;
    work(omp_get_thread_num());
}

int main(void)
{
    int cancelled = 0;
    GOMP_parallel_start(old_body, NULL, 0); // @old
    old_body(NULL);
    GOMP_parallel_end();
#pragma omp teams num_teams(TEAMS) thread_limit(1) // @teams
#pragma omp distribute // @distribute
    for (int i = 0; i < N; i++)
        work(i);
#pragma omp parallel reduction(+ : cancelled) // @parallel
    {
#pragma omp for ordered(1) schedule(static) // @doacross
        for (int i = 1; i < N; i++) {
#pragma omp ordered depend(sink : i - 1)
            work(i);
#pragma omp ordered depend(source)
        }
#pragma omp scope // @scope
        work(-1);
#pragma omp for schedule(static) // @cancel_for
        for (int i = 0; i < N; i++) {
#pragma omp cancel for if (i == 0)
            work(i);
        }
        cancelled += 1;
    }
    printf("cancelled %d\n", cancelled);
    return 0;
}
