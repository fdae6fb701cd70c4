/* tree.c — a call tree whose shape the report test knows: every call path takes a fixed
 * amount of work (no clock involved) and a few per cent of the run at least, so the icicle
 * graph draws each one as a frame of its own.
 *   main ─ setup
 *        ├ solve ─ kernel
 *        │       └ exchange
 *        └ (2 threads) worker ─ kernel
 * 7 call paths; 3 locations. */
#include <pthread.h>
#include <stdio.h>

#define NOINLINE __attribute__((noinline))

static volatile unsigned long sink;

__attribute__((no_instrument_function)) static NOINLINE void spin(unsigned long n)
{
    for (unsigned long i = 0; i < n; i++)
        sink += i;
}

NOINLINE void kernel(unsigned long n) { spin(n); }
NOINLINE void exchange(void) { spin(3000000); }
NOINLINE void setup(void) { spin(4000000); }

NOINLINE void solve(void)
{
    for (int it = 0; it < 4; it++) {
        kernel(2000000);
        exchange();
    }
}

NOINLINE void *worker(void *arg)
{
    kernel((unsigned long)arg);
    return NULL;
}

int main(void)
{
    pthread_t t[2];
    setup();
    for (long i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, (void *)(6000000ul + 3000000ul * (unsigned long)i));
    solve();
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    printf("tree: done\n");
    return 0;
}
