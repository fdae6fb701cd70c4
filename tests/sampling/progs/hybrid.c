/* hybrid.c — hot work the hooks do not see, under three instrumented parents:
 *   phase_excluded: most of its time in excluded_kernel, which the spec (hybrid.spec) or
 *                   -finstrument-functions-exclude-function-list leaves out;
 *   phase_inlined:  most of its time in inlined_kernel, a static function with one call site
 *                   that -O2 inlines into it;
 *   phase_libm:     most of its time in libm (sin, exp).
 * Each parent also does a share of work of its own, so that the shares are not all 100 %.
 * Usage: hybrid [scale] [threads] [fork|exit]: scale multiplies the work; with threads > 1
 * the phases also run on that many threads; with "fork", a child runs phase_libm too; with
 * "exit", main returns while the other threads still work (they are never joined). */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static _Thread_local volatile double sink; /* per thread: no data race between them */
static long scale = 1;

__attribute__((noinline)) double excluded_kernel(long n)
{
    double s = 0;
    for (long i = 0; i < n; i++)
        s += (double)(i % 7) * 0.5 + (double)(i & 3);
    return s;
}

__attribute__((noinline)) void phase_excluded(void)
{
    double s = 0;
    for (long i = 0; i < 20000000 * scale; i++) /* own work: a quarter */
        s += (double)(i % 5) * 0.25;
    s += excluded_kernel(60000000 * scale);
    sink = s;
}

static double inlined_kernel(long n)
{
    double s = 1;
    for (long i = 0; i < n; i++)
        s = s * 0.999999 + (double)(i % 11);
    return s;
}

__attribute__((noinline)) void phase_inlined(void)
{
    double s = 0;
    for (long i = 0; i < 15000000 * scale; i++) /* own work */
        s += (double)(i % 13) * 0.125;
    s += inlined_kernel(45000000 * scale);
    sink = s;
}

__attribute__((noinline)) void phase_libm(void)
{
    double s = 0;
    for (long i = 0; i < 8000000 * scale; i++) /* own work */
        s += (double)(i % 9) * 0.5;
    for (long i = 0; i < 6000000 * scale; i++)
        s += sin((double)i * 1e-3) + exp((double)(i % 100) * 1e-2);
    sink = s;
}

static void *worker(void *arg)
{
    (void)arg;
    phase_excluded();
    phase_inlined();
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        scale = atol(argv[1]);
    int threads = argc > 2 ? atoi(argv[2]) : 1;
    int do_fork = argc > 3 && strcmp(argv[3], "fork") == 0;
    int leave = argc > 3 && strcmp(argv[3], "exit") == 0;
    pthread_t t[16];
    int started = 0;
    for (int i = 1; i < threads && i < 16; i++)
        started += pthread_create(&t[started], NULL, worker, NULL) == 0;
    if (do_fork) {
        pid_t p = fork();
        if (p == 0) {
            phase_libm();
            exit(0);
        }
        if (p > 0)
            waitpid(p, NULL, 0);
    }
    if (leave) {
        phase_libm();
        printf("%g\n", sink);
        return 0;
    }
    phase_excluded();
    phase_inlined();
    phase_libm();
    for (int i = 0; i < started; i++)
        pthread_join(t[i], NULL);
    printf("%g\n", sink);
    return 0;
}
