/* alloc_c.c — known allocations per function (tests/memory/check.py has the numbers): the C
 * malloc family, realloc growing and shrinking, a known leak, threads of which one
 * releases what another allocated, and a signal handler that allocates (raised where the
 * program is outside the allocator: recorded like any call). */
#define _DEFAULT_SOURCE /* posix_memalign under -std=c11, with signal()'s BSD semantics (the handler stays) */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

static void *volatile keep[64];

NOINLINE void c_malloc(void)
{
    for (int i = 0; i < 10; i++)
        keep[i] = malloc(100);
    for (int i = 0; i < 10; i++)
        free(keep[i]);
}

NOINLINE void c_calloc(void)
{
    keep[0] = calloc(8, 16);
    free(keep[0]);
}

NOINLINE void c_aligned(void)
{
    void *p = NULL;
    if (posix_memalign(&p, 64, 200) != 0)
        abort();
    keep[0] = p;
    keep[1] = aligned_alloc(128, 256);
    free(keep[0]);
    free(keep[1]);
}

NOINLINE void c_realloc(void)
{
    char *p = realloc(NULL, 10);   /* an allocation of 10 */
    p = realloc(p, 1000);          /* grows: releases 10, allocates 1000 */
    p = realloc(p, 5);             /* shrinks: releases 1000, allocates 5 */
    keep[0] = p;
    free(p);                       /* releases 5 */
}

NOINLINE void c_leak(void)
{
    keep[40] = malloc(4000);
    keep[41] = malloc(3000);
}

NOINLINE void *producer(void *arg)
{
    void **slots = arg;
    for (int i = 0; i < 5; i++)
        slots[i] = malloc(512);
    return NULL;
}

NOINLINE void consumer(void **slots)
{
    for (int i = 0; i < 5; i++)
        free(slots[i]);
}

NOINLINE void c_threads(void)
{
    static void *slots[5];
    pthread_t t;
    pthread_create(&t, NULL, producer, slots);
    pthread_join(t, NULL);
    consumer(slots);
}

NOINLINE void on_signal(int sig)
{
    (void)sig;
    void *p = malloc(48);
    keep[50] = p;
    free(p);
}

NOINLINE void c_signal(void)
{
    signal(SIGUSR1, on_signal);
    for (int i = 0; i < 3; i++)
        raise(SIGUSR1);
}

int main(void)
{
    c_malloc();
    c_calloc();
    c_aligned();
    c_realloc();
    c_leak();
    c_threads();
    c_signal();
    printf("done\n");
    return 0;
}
