/* throttle.c — what INSTR_THROTTLE must handle (tests/throttle/check_throttle.py):
 *   tiny   called TINY_CALLS times, next to nothing per visit: throttled;
 *   heavy  sleeps at least 1.2 ms per visit (a sleep never ends early): never throttled at
 *          1 ms per visit;
 *   deep   a recursion DEPTH deep, called twice: throttled while DEPTH frames are open;
 *   gate   open on a second thread (waiting) while the main thread's calls throttle it.
 * "threads": THREADS threads call tiny THREAD_CALLS times each at once (several reach the
 * threshold at the same time; the region drains while the others still call it).
 * Usage: throttle [all|tiny N|threads]. Prints sink=... (the same with and without the runtime).
 *
 * With -DHAND_HOOKS the plugin's call sites are written out by hand (a test double of the
 * compiler plugin, for trees whose sanitizers keep the wrapper from building programs): each
 * function's descriptor in the instr_regions section, the handle checked before each hook,
 * as the plugins emit them; tiny gets a second descriptor, as a function instrumented in two
 * objects has with GCC, which throttling must exclude too (printed as copy=...). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))
#define TINY_CALLS 1000000
#define HEAVY_CALLS 250
#define DEPTH 1000
#define GATE_CALLS 5000
#define THREADS 4
#define THREAD_CALLS 200000

static atomic_int gate_open, gate_entered, callers_go;

#ifdef HAND_HOOKS
#include <instr_abi.h>
int tiny(int), heavy(int), deep(int), gate(int), main(int, char **);
static void *second(void *);
/* One array, so that the section holds the descriptors back to back (gcc -O2 would align
 * separate variables of this size to 32 bytes, leaving gaps the runtime would misread). */
enum { r_tiny, r_tiny_copy, r_heavy, r_deep, r_gate, r_main, r_second, r_count };
#define DESC(fn) {0, INSTR_REGION_ABI_BITS, #fn, #fn, "", 0, 0, (void *)fn}
__attribute__((section(INSTR_REGIONS_SECTION), used)) static struct instr_region descs[r_count] = {
    [r_tiny] = DESC(tiny),   [r_tiny_copy] = DESC(tiny), [r_heavy] = DESC(heavy),
    [r_deep] = DESC(deep),   [r_gate] = DESC(gate),      [r_main] = DESC(main),
    [r_second] = DESC(second),
};
#define ENTER(fn)                                                                           \
    do {                                                                                    \
        if (__atomic_load_n(&descs[r_##fn].handle, __ATOMIC_RELAXED) != INSTR_HANDLE_EXCLUDED) \
            __instr_enter(&descs[r_##fn]);                                                  \
    } while (0)
#define LEAVE(fn)                                                                           \
    do {                                                                                    \
        if (__atomic_load_n(&descs[r_##fn].handle, __ATOMIC_RELAXED) != INSTR_HANDLE_EXCLUDED) \
            __instr_exit(&descs[r_##fn]);                                                   \
    } while (0)
#else
#define ENTER(fn)
#define LEAVE(fn)
#endif

NOINLINE int tiny(int x)
{
    ENTER(tiny);
    __asm__ volatile("" : "+r"(x));
    LEAVE(tiny);
    return x + 1;
}

NOINLINE int heavy(int x)
{
    ENTER(heavy);
    struct timespec ts = {0, 1200000};
    while (nanosleep(&ts, &ts) != 0)
        ;
    LEAVE(heavy);
    return x + 2;
}

NOINLINE int deep(int n)
{
    ENTER(deep);
    int r = 1;
    if (n > 0) {
        r = deep(n - 1);
        __asm__ volatile("" : "+r"(r)); /* no tail recursion */
        r += 1;
    }
    LEAVE(deep);
    return r;
}

NOINLINE int gate(int wait)
{
    ENTER(gate);
    if (wait) {
        atomic_store(&gate_entered, 1);
        while (!atomic_load(&gate_open))
            ;
    }
    LEAVE(gate);
    return wait + 1;
}

static void *second(void *arg)
{
    ENTER(second);
    *(int *)arg = gate(1);
    LEAVE(second);
    return NULL;
}

static void *caller(void *arg)
{
    while (!atomic_load(&callers_go)) /* all start at once */
        ;
    long sink = 0;
    for (int i = 0; i < THREAD_CALLS; i++)
        sink += tiny(i);
    *(long *)arg = sink;
    return NULL;
}

int main(int argc, char **argv)
{
    ENTER(main);
    long sink = 0;
    if (argc > 2 && strcmp(argv[1], "tiny") == 0) {
        long n = atol(argv[2]);
        for (long i = 0; i < n; i++)
            sink += tiny((int)i);
        printf("sink=%ld\n", sink);
        LEAVE(main);
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "threads") == 0) {
        pthread_t t[THREADS];
        long sinks[THREADS];
        int n = 0;
        while (n < THREADS && pthread_create(&t[n], NULL, caller, &sinks[n]) == 0)
            n++;
        atomic_store(&callers_go, 1);
        for (int i = 0; i < n; i++) {
            pthread_join(t[i], NULL);
            sink += sinks[i];
        }
        printf("sink=%ld threads=%d\n", sink, n);
        LEAVE(main);
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
    if (pthread_create(&t, NULL, second, &got) != 0) {
        LEAVE(main);
        return 1;
    }
    while (!atomic_load(&gate_entered))
        ;
    for (int i = 0; i < GATE_CALLS; i++)
        sink += gate(0);
    atomic_store(&gate_open, 1);
    pthread_join(t, NULL);
    for (int i = 0; i < GATE_CALLS; i++)
        sink += gate(0);
    printf("sink=%ld got=%d\n", sink, got);
#ifdef HAND_HOOKS
    uint32_t copy = descs[r_tiny_copy].handle;
    printf("copy=%s\n", copy == INSTR_HANDLE_EXCLUDED        ? "excluded"
                        : copy == descs[r_tiny].handle ? "same"
                                                       : "other");
#endif
    LEAVE(main);
    return 0;
}
