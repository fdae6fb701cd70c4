/* trim.c — a program whose heap sits on glibc's trim threshold (tests/heap/check_heap.py).
 *
 * Every iteration allocates large temporaries from the top of the heap (each below the mmap
 * threshold, together well above the trim threshold) and one that is always mapped, plus
 * small blocks of which some stay alive in a ring; it frees the temporaries, so that glibc
 * shrinks the heap with brk and grows it again in the next iteration. A single block of
 * someone else's in the heap changes that pattern: where the top of the heap lies, when it
 * is trimmed, how many pages are faulted in again.
 *
 * The program marks its phases with write(2) on fd -1 (it fails with EBADF and does nothing
 * else; strace shows it): "main" when main begins, "begin" after one warm-up iteration (every
 * function visited once, so an instrumented run's first-visit work is behind it), "end" after
 * the measured iterations. It prints the minor page faults of the measured iterations. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define RING 512

static void *ring[RING];
static unsigned ring_at;
static volatile unsigned long sink;

static void marker(const char *what)
{
    char m[64];
    int n = snprintf(m, sizeof m, "instr-heap-test:%s", what);
    if (write(-1, m, (size_t)n) != -1)
        abort();
}

static long minor_faults(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_minflt;
}

NOINLINE static void touch(unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i += 512)
        p[i] = (unsigned char)i;
    sink += p[n / 2];
}

NOINLINE static void small_blocks(unsigned it)
{
    for (unsigned k = 0; k < 24; k++) {
        size_t n = 16 + (it * 7 + k * 13) % 200;
        unsigned char *p = malloc(n);
        touch(p, n);
        if (k % 4 == 0) { /* kept alive for a while */
            free(ring[ring_at % RING]);
            ring[ring_at++ % RING] = p;
        } else {
            free(p);
        }
    }
}

NOINLINE static void large_temporaries(unsigned it)
{
    enum { N = 6 };
    unsigned char *t[N];
    for (int k = 0; k < N; k++) {
        size_t n = (size_t)(60 + (it + (unsigned)k * 11) % 60) * 1024; /* 60-119 KiB */
        t[k] = malloc(n);
        touch(t[k], n);
    }
    /* Above the largest dynamic mmap threshold (32 MiB): mapped and unmapped every time,
     * without raising the thresholds, so the trim threshold stays at its 128 KiB. */
    size_t bn = (size_t)(33 + it % 2) << 20;
    unsigned char *big = malloc(bn);
    for (size_t i = 0; i < bn; i += 256 * 1024)
        big[i] = 1;
    sink += big[bn / 2];
    free(big);
    for (int k = N - 1; k >= 0; k--)
        free(t[k]);
}

NOINLINE static void iteration(unsigned it)
{
    small_blocks(it);
    large_temporaries(it);
}

int main(int argc, char **argv)
{
    unsigned iterations = argc > 1 ? (unsigned)atoi(argv[1]) : 200;
    marker("main");
    iteration(0);
    marker("begin");
    long before = minor_faults();
    for (unsigned it = 1; it <= iterations; it++)
        iteration(it);
    long faults = minor_faults() - before;
    marker("end");
    printf("minor faults %ld\n", faults);
    for (unsigned k = 0; k < RING; k++)
        free(ring[k]);
    return 0;
}
