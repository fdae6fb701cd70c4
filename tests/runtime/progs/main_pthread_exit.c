/* main ends with pthread_exit while two workers run; the process ends on the last of them,
 * which then runs the program's atexit handler (an instrumented function). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Atomic: under load the two workers can overlap, and a lost update would change the output
 * of the plain and the instrumented program alike, at random. */
static int sink;

__attribute__((noinline)) void task(int i) { __atomic_fetch_add(&sink, i, __ATOMIC_RELAXED); }

__attribute__((noinline)) void bye(void) { task(-1); }

static void at_end(void)
{
    bye();
    printf("bye sink %d\n", __atomic_load_n(&sink, __ATOMIC_RELAXED));
    fflush(stdout);
}

static void *worker(void *arg)
{
    int n = (int)(long)arg;
    struct timespec d = {0, 20000000L * n}; /* the second worker ends last */
    nanosleep(&d, NULL);
    for (int i = 0; i < 100; i++)
        task(i);
    return NULL;
}

int main(void)
{
    atexit(at_end);
    pthread_t t[2];
    for (long i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, (void *)(i + 1));
    task(0);
    pthread_exit(NULL);
}
