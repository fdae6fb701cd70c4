/* ending.c — the process ends while other threads are inside instrumented code.
 * Usage: trace_ending return|exit|quick_exit|detached. Four threads call nested instrumented
 * functions without end; then main returns (return), a worker calls exit() (exit), main calls
 * quick_exit() (quick_exit), or main returns while the four are detached (detached). Every
 * way, the trace must read back complete and properly nested. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))
#define THREADS 4

static volatile unsigned long sink;
static volatile int started;
static const char *how = "return";

/* some work of its own, so that the trace stays small */
NOINLINE void leaf(long i)
{
    /* relaxed atomic: the threads share sink, and a race of the program's own would hide the
     * runtime's under ThreadSanitizer */
    for (int k = 0; k < 2000; k++)
        __atomic_fetch_add(&sink, (unsigned long)(i + k), __ATOMIC_RELAXED);
}

NOINLINE void mid(long i)
{
    leaf(i);
    leaf(i + 1);
}

NOINLINE void top(long i)
{
    mid(i);
    leaf(i);
}

static void pause_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

NOINLINE void *spin(void *arg)
{
    long id = (long)arg;
    for (long i = 0;; i++) {
        top(i);
        if (i == 0) {
            /* all four have called top() before anyone ends the process */
            __atomic_add_fetch(&started, 1, __ATOMIC_SEQ_CST);
            while (__atomic_load_n(&started, __ATOMIC_SEQ_CST) < THREADS)
                pause_ms(1);
        }
        if (id == 0 && i == 2000 && strcmp(how, "exit") == 0) {
            printf("worker exits\n");
            fflush(stdout);
            exit(0);
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    how = argc > 1 ? argv[1] : "return";
    pthread_t t[THREADS];
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    if (strcmp(how, "detached") == 0)
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    for (long i = 0; i < THREADS; i++)
        pthread_create(&t[i], &attr, spin, (void *)i);
    while (__atomic_load_n(&started, __ATOMIC_SEQ_CST) < THREADS)
        pause_ms(1);
    if (strcmp(how, "exit") == 0) {
        for (;;)
            pause_ms(1000); /* the worker ends the process */
    }
    pause_ms(10);
    printf("main ends (%s)\n", how);
    fflush(stdout);
    if (strcmp(how, "quick_exit") == 0)
        quick_exit(0);
    return 0;
}
