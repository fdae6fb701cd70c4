/* omp_tasks.c — explicit tasks on the critical path, one MPI process of 2 OpenMP threads.
 * The master creates tasks, and the path must go through the slowest chain of them to the
 * master when it waits for them:
 *
 *   wait    pre_work; task slow_task_work (2 units); task fast_task_work (1/2); own_work
 *           (1/4); taskwait; after_work. Path: pre + slow + after.
 *   group   pre_work; taskgroup { task { slow_task_work (2 units); task grandchild_work
 *           (1 unit), not waited for by its parent }; task fast_task_work }; after_work.
 *           Path: pre + slow + grandchild + after (the taskgroup waits for descendants).
 *   depend  pre_work; tasks a_work (1/2) depend(out: x), b_work (1) depend(in: x, out: y),
 *           c_work (1/2) depend(in: y); taskwait; after_work. Path: pre + a + b + c + after.
 *   undeferred  outside any parallel region (the tasks of the initial task run at once):
 *           pre_work; task slow_task_work (2); task if(0) fast_task_work (1/2); after_work,
 *           no taskwait. Path: pre + slow + fast + after (the creator continues after each).
 *
 * In wait and group the master waits until the slow task started on the other thread (so it
 * runs there, not in the master's wait), sleeping, so that the wait costs no CPU time; in
 * depend it waits so until a started there, and a waits so until the master created b and c.
 * Every phase is measured in CPU time and printed after MPI_Finalize: "phase <name> <thread>
 * <seconds>" (check_critpath.py). */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu_work.h"

__attribute__((noinline)) void pre_work(unsigned long n) { SPIN(n); }
__attribute__((noinline)) void own_work(unsigned long n) { SPIN(n); }
__attribute__((noinline)) void after_work(unsigned long n) { SPIN(n); }
__attribute__((noinline)) void slow_task_work(unsigned long n) { SPIN(n); }
__attribute__((noinline)) void fast_task_work(unsigned long n) { SPIN(n); }
__attribute__((noinline)) void grandchild_work(unsigned long n) { SPIN(n); }
__attribute__((noinline)) void a_work(unsigned long n) { SPIN(n); }
__attribute__((noinline)) void b_work(unsigned long n) { SPIN(n); }
__attribute__((noinline)) void c_work(unsigned long n) { SPIN(n); }

#define PHASES 16
static struct {
    const char *name;
    int thread;
    double s;
} ph[PHASES];
static int nph;
static volatile int started;

static void record(const char *name, double s)
{
    int i;
#pragma omp atomic capture
    i = nph++;
    if (i < PHASES) {
        ph[i].name = name;
        ph[i].thread = omp_get_thread_num();
        ph[i].s = s;
    }
}

#define TIMED(name, call)                                                                    \
    do {                                                                                     \
        double t0_ = now();                                                                  \
        call;                                                                                \
        record(name, now() - t0_);                                                           \
    } while (0)

/* Until the slow task started on the other thread: sleeping, not computing. */
static void await_start(void)
{
    struct timespec ms = {0, 1000000};
    for (int i = 0; i < 60000 && !__atomic_load_n(&started, __ATOMIC_ACQUIRE); i++)
        nanosleep(&ms, NULL);
}

static void mark_started(void) { __atomic_store_n(&started, 1, __ATOMIC_RELEASE); }

/* depend: until the master created b and c, sleeping as await_start. */
static volatile int created;

static void await_created(void)
{
    struct timespec ms = {0, 1000000};
    for (int i = 0; i < 60000 && !__atomic_load_n(&created, __ATOMIC_ACQUIRE); i++)
        nanosleep(&ms, NULL);
}

static void mark_created(void) { __atomic_store_n(&created, 1, __ATOMIC_RELEASE); }

static void wait_case(unsigned long n)
{
    TIMED("pre", pre_work(n));
#pragma omp task
    {
        mark_started();
        TIMED("slow", slow_task_work(2 * n));
    }
    await_start();
#pragma omp task
    TIMED("fast", fast_task_work(n / 2));
    TIMED("own", own_work(n / 4));
#pragma omp taskwait
    TIMED("after", after_work(n));
}

static void group_case(unsigned long n)
{
    TIMED("pre", pre_work(n));
#pragma omp taskgroup
    {
#pragma omp task
        {
            mark_started();
            TIMED("slow", slow_task_work(2 * n));
#pragma omp task
            TIMED("grandchild", grandchild_work(n));
        }
        await_start();
#pragma omp task
        TIMED("fast", fast_task_work(n / 2));
    }
    TIMED("after", after_work(n));
}

static void depend_case(unsigned long n)
{
    int x = 0, y = 0;
    TIMED("pre", pre_work(n));
#pragma omp task depend(out : x) shared(x)
    {
        /* libomp reports a dependence only on a predecessor not yet finished when its
         * successor is created (docs/critical-path.md, Limits): a starts on the other thread,
         * then begins its work once b and c exist, or a descheduled master could see it
         * finish first. */
        mark_started();
        await_created();
        TIMED("a", a_work(n / 2));
        x = 1;
    }
    /* Until a started on the other thread: otherwise the master, at its taskwait, could
     * take a itself before the thread that passive waiting put to sleep woke up. */
    await_start();
#pragma omp task depend(in : x) depend(out : y) shared(x, y)
    {
        TIMED("b", b_work(n));
        y = x + 1;
    }
#pragma omp task depend(in : y) shared(y)
    TIMED("c", c_work(n / 2));
    mark_created();
#pragma omp taskwait
    TIMED("after", after_work(n));
}

static void undeferred_case(unsigned long n)
{
    TIMED("pre", pre_work(n));
#pragma omp task
    TIMED("slow", slow_task_work(2 * n));
#pragma omp task if (0)
    TIMED("fast", fast_task_work(n / 2));
    TIMED("after", after_work(n));
}

int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 20000000ul;
    const char *mode = argc > 2 ? argv[2] : "wait";
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    if (strcmp(mode, "undeferred") == 0)
        undeferred_case(n);
    else
#pragma omp parallel
#pragma omp master
    {
        if (strcmp(mode, "group") == 0)
            group_case(n);
        else if (strcmp(mode, "depend") == 0)
            depend_case(n);
        else
            wait_case(n);
    }
    MPI_Finalize();
    for (int i = 0; i < nph && i < PHASES; i++)
        printf("phase %s %d %.9f\n", ph[i].name, ph[i].thread, ph[i].s);
    return 0;
}
