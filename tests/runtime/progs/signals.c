/* Instrumented SIGALRM and SIGPROF handlers at 1 kHz each while the program makes
 * 2,000,000 calls (half to inner, half to other): the interrupted code's counts must stay exact, the handlers' visits never
 * exceed their real calls. The handler calls are counted by the program and written to the
 * file named by argv[1] (stdout stays the same in every run). */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

#define NOINLINE __attribute__((noinline))
#define OUTER 20000
#define INNER 100

static volatile sig_atomic_t alarms, profs;
static volatile int sink;

NOINLINE void tick_body(void) { sink++; }
NOINLINE void on_alarm(int sig) { (void)sig; alarms++; tick_body(); }
NOINLINE void on_prof(int sig) { (void)sig; profs++; tick_body(); }
NOINLINE void inner(void) { sink++; }
NOINLINE void other(void) { sink++; }
/* Alternating callees: every call misses the cached child and takes the cursor's slow path,
 * so handlers also land there, where their events are dropped and counted. */
NOINLINE void work(void)
{
    for (int i = 0; i < INNER; i++) {
        if (i % 2)
            other();
        else
            inner();
    }
}

int main(int argc, char **argv)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_flags = SA_RESTART;
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, NULL);
    sa.sa_handler = on_prof;
    sigaction(SIGPROF, &sa, NULL);
    struct itimerval it = {{0, 1000}, {0, 1000}};
    setitimer(ITIMER_REAL, &it, NULL);
    setitimer(ITIMER_PROF, &it, NULL);
    for (int i = 0; i < OUTER; i++)
        work();
    struct itimerval off;
    memset(&off, 0, sizeof off);
    setitimer(ITIMER_REAL, &off, NULL);
    setitimer(ITIMER_PROF, &off, NULL);
    printf("calls=%d\n", OUTER * INNER);
    if (argc > 1) {
        FILE *f = fopen(argv[1], "w");
        if (f) {
            fprintf(f, "%d %d\n", (int)alarms, (int)profs);
            fclose(f);
        }
    }
    return 0;
}
