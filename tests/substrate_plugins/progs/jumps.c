/* jumps: the unusual ways out of a frame, for the plugins' balance on every path. main calls
 * outer() 3 times; outer calls middle, middle inner, and inner longjmps back into outer (the
 * exits of inner and middle never run); a() raises SIGUSR1 twice, whose handler calls
 * handler_work(); then deep1 -> deep2 -> deep3 calls exit() with three frames open (and main).
 * Enter counts: main 1, outer 3, middle 3, inner 3, a 1, on_usr1 2, handler_work 2, deep1..3
 * 1 each. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

static volatile int sink;
static jmp_buf back;

NOINLINE static void inner(void)
{
    sink++;
    longjmp(back, 1);
}

NOINLINE static void middle(void)
{
    inner();
    sink++;
}

NOINLINE static void outer(void)
{
    if (setjmp(back) == 0)
        middle();
    sink++;
}

NOINLINE static void handler_work(void) { sink++; }

static void on_usr1(int sig)
{
    (void)sig;
    handler_work();
}

NOINLINE static void a(void)
{
    raise(SIGUSR1);
    raise(SIGUSR1);
}

NOINLINE static void deep3(void)
{
    printf("sink=%d\n", sink);
    fflush(stdout);
    exit(0);
}

NOINLINE static void deep2(void)
{
    deep3();
    sink++;
}

NOINLINE static void deep1(void)
{
    deep2();
    sink++;
}

int main(void)
{
    struct sigaction sa = {.sa_handler = on_usr1};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
    for (int i = 0; i < 3; i++)
        outer();
    a();
    deep1();
    return 1;
}
