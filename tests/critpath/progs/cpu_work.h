/* cpu_work.h — what the critical-path test programs share: work whose length is set by an
 * iteration count, and the thread's CPU time to measure it with. */
#ifndef CRITPATH_CPU_WORK_H
#define CRITPATH_CPU_WORK_H

#include <time.h>

static volatile unsigned long sink;

/* The thread's CPU time: what the check compares with INSTR_CRITICAL_PATH_CLOCK=cpu, so that
 * waiting for a core on a loaded machine is in neither. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A macro, not a function: the time is the exclusive time of the region that runs it. */
#define SPIN(n)                                                                              \
    do {                                                                                     \
        unsigned long x_ = sink;                                                             \
        for (unsigned long i_ = 0; i_ < (n); i_++)                                           \
            x_ = x_ * 6364136223846793005ul + 1442695040888963407ul;                         \
        sink = x_;                                                                           \
    } while (0)

#endif
