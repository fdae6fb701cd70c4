/* own_thread.c — a thread of the runtime's own, started through the process's pthread_create
 * as the program's threads are: whatever interposes pthread_create before the C library sees
 * it too. ThreadSanitizer must (its runtime sets up every thread before the thread runs
 * instrumented code: a thread started with the C library's pthread_create directly crashed
 * at its first instrumented function), and so may a tool of the program's. The runtime's own
 * pthread_create, which comes in that chain, asks instr_own_thread_starting and leaves the
 * thread alone. */
#include "own_thread.h"

#include <pthread.h>
#include <signal.h>

static _Thread_local int starting __attribute__((tls_model("initial-exec")));

int instr_own_thread_start(pthread_t *t, void *(*fn)(void *), void *arg)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old); /* the new thread inherits this mask */
    starting = 1;
    int rc = pthread_create(t, NULL, fn, arg);
    starting = 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

int instr_own_thread_starting(void) { return starting; }
