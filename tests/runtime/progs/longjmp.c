/* longjmp and siglongjmp into main from three instrumented frames, 2,000 times, between
 * ordinary calls: the runtime's stack must follow the real one, so the call tree stays as
 * deep as the program's (main;outer;middle;inner) and every count is exact. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdio.h>

#define NOINLINE __attribute__((noinline))
#define JUMPS 2000

static jmp_buf env;
static sigjmp_buf senv;
static volatile int sink;

NOINLINE void inner(int i)
{
    sink++;
    if (i % 2)
        siglongjmp(senv, 1);
    longjmp(env, 1);
}
NOINLINE void middle(int i) { inner(i); sink++; }
NOINLINE void outer(int i) { middle(i); sink++; }
NOINLINE void work(void) { sink++; }

int main(void)
{
    volatile int jumped = 0;
    for (volatile int i = 0; i < JUMPS; i++) {
        work();
        if (i % 2) {
            if (sigsetjmp(senv, 1) == 0)
                outer(i);
            else
                jumped++;
        } else {
            if (setjmp(env) == 0)
                outer(i);
            else
                jumped++;
        }
    }
    work();
    printf("jumped=%d sink=%d\n", jumped, sink);
    return 0;
}
