/* signals.c — an instrumented signal handler at 1 kHz (SIGALRM or SIGPROF) that interrupts
 * instrumented code, the trace's buffer appends, its chunk switches and its conversions.
 * Usage: trace_signals alrm|prof [CALLS]. Prints how many calls of work it made (CALLS or
 * more) and how many times the handler ran: the trace must hold exactly that many work and
 * three times as many inner calls, and every handler call either
 * recorded or counted as dropped. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#define NOINLINE __attribute__((noinline))

static volatile sig_atomic_t ticks;
static volatile unsigned long sink;

NOINLINE void tick(void) { sink++; }

NOINLINE void on_signal(int sig)
{
    (void)sig;
    tick();
    ticks++;
}

NOINLINE void inner(long i) { sink += (unsigned long)i; }

NOINLINE void work(long i)
{
    inner(i);
    inner(i + 1);
    inner(i + 2);
}

int main(int argc, char **argv)
{
    int prof = argc > 1 && strcmp(argv[1], "prof") == 0;
    long n = argc > 2 ? atol(argv[2]) : 1000000;
    /* The handler's functions run once before the timer: the first call of a function
     * registers its region, which takes the registry's lock and allocates (cyg mode,
     * runtime/adapters/cyg.c); a handler doing that while the interrupted code holds the same
     * lock would hang, which is not the trace's to test here. The trace holds one more call of
     * each than the printed count. */
    on_signal(0);
    ticks = 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    sigaction(prof ? SIGPROF : SIGALRM, &sa, NULL);
    struct itimerval on = {{0, 1000}, {0, 1000}}, off = {{0, 0}, {0, 0}};
    setitimer(prof ? ITIMER_PROF : ITIMER_REAL, &on, NULL);
    /* At least n calls, and on until the handler ran a few times: the direct trace path can
     * be done with n calls before the kernel's tick charged a millisecond of CPU time. */
    long i = 0;
    for (; i < n || (ticks < 3 && i < 1000 * n); i++)
        work(i);
    setitimer(prof ? ITIMER_PROF : ITIMER_REAL, &off, NULL);
    printf("work %ld handler %d\n", i, (int)ticks);
    return 0;
}
