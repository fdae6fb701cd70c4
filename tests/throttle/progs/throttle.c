/* throttle.c — what INSTR_THROTTLE must handle (tests/throttle/check_throttle.py):
 *   tiny   called TINY_CALLS times, next to nothing per visit: throttled;
 *   heavy  sleeps at least 1.2 ms per visit (a sleep never ends early): never throttled at
 *          1 ms per visit;
 *   deep   a recursion DEPTH deep, called twice: throttled while DEPTH frames are open;
 *   gate   open on a second thread (waiting) while the main thread's calls throttle it.
 * Usage: throttle [all|tiny N]. Prints sink=... (the same with and without the runtime). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))
#define TINY_CALLS 100000
#define HEAVY_CALLS 250
#define DEPTH 1000
#define GATE_CALLS 5000

static atomic_int gate_open, gate_entered;

NOINLINE int tiny(int x)
{
    __asm__ volatile("" : "+r"(x));
    return x + 1;
}

NOINLINE int heavy(int x)
{
    struct timespec ts = {0, 1200000};
    while (nanosleep(&ts, &ts) != 0)
        ;
    return x + 2;
}

NOINLINE int deep(int n)
{
    if (n == 0)
        return 1;
    int r = deep(n - 1);
    __asm__ volatile("" : "+r"(r)); /* no tail recursion */
    return r + 1;
}

NOINLINE int gate(int wait)
{
    if (wait) {
        atomic_store(&gate_entered, 1);
        while (!atomic_load(&gate_open))
            ;
    }
    return wait + 1;
}

static void *second(void *arg)
{
    *(int *)arg = gate(1);
    return NULL;
}

int main(int argc, char **argv)
{
    long sink = 0;
    if (argc > 2 && strcmp(argv[1], "tiny") == 0) {
        long n = atol(argv[2]);
        for (long i = 0; i < n; i++)
            sink += tiny((int)i);
        printf("sink=%ld\n", sink);
        return 0;
    }
    for (int i = 0; i < TINY_CALLS; i++)
        sink += tiny(i);
    for (int i = 0; i < HEAVY_CALLS; i++)
        sink += heavy(i);
    sink += deep(DEPTH);
    sink += deep(DEPTH);
    int got = 0;
    pthread_t t;
    if (pthread_create(&t, NULL, second, &got) != 0)
        return 1;
    while (!atomic_load(&gate_entered))
        ;
    for (int i = 0; i < GATE_CALLS; i++)
        sink += gate(0);
    atomic_store(&gate_open, 1);
    pthread_join(t, NULL);
    for (int i = 0; i < GATE_CALLS; i++)
        sink += gate(0);
    printf("sink=%ld got=%d\n", sink, got);
    return 0;
}
