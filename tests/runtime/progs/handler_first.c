/* A SIGUSR1 handler whose functions run for the first time inside the handler, which
 * interrupts malloc (tests/lib/malloc_reentry_double.c raises the signal from inside the
 * allocator for a request of 12345 bytes). Nothing on the handler's path may allocate. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

static volatile sig_atomic_t handled;
static volatile int sink;
static char *volatile kept; /* the allocation escapes: no compiler elides it */

NOINLINE void first_in_handler(void) { sink++; }
NOINLINE void on_usr1(int sig)
{
    (void)sig;
    handled++;
    first_in_handler();
}

NOINLINE void work(int i)
{
    kept = malloc(i == 500 ? 12345 : 64);
    free(kept);
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sigaction(SIGUSR1, &sa, NULL);
    for (int i = 0; i < 1000; i++)
        work(i);
    printf("handled=%d\n", (int)handled);
    return 0;
}
