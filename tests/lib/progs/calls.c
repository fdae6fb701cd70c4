/* calls: main calls a() 3 times, each a() calls b() twice; with argument N > 0, N threads
 * each do the same in worker(). Built by tests/metrics and tests/substrate_plugins. Enter
 * counts per thread are exact: main 1 (or worker 1), a 3, b 6; so are the count metric
 * plugin's values: per visit, `events` inclusive is 2k + 1 for a region that makes k
 * instrumented calls. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

static int sink; /* atomic: threads add to it, and a lost update would change the output */

NOINLINE static void b(void) { __atomic_fetch_add(&sink, 1, __ATOMIC_RELAXED); }

NOINLINE static void a(void)
{
    b();
    b();
}

NOINLINE static void *worker(void *arg)
{
    for (int i = 0; i < 3; i++)
        a();
    return arg;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 0;
    for (int i = 0; i < 3; i++)
        a();
    pthread_t t[64];
    for (int i = 0; i < n && i < 64; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < n && i < 64; i++)
        pthread_join(t[i], NULL);
    printf("sink=%d\n", __atomic_load_n(&sink, __ATOMIC_RELAXED));
    return 0;
}
