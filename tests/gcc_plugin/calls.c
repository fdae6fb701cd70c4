/* calls.c — C program for the GCC plugin tests: known visit counts, several returns, a
 * recursion, a function excluded by the spec (calls.spec), a static function and a small
 * inline function. Every VISITS line is checked against the hooks' counts (exact). */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

/* VISITS 6 leaf */
static NOINLINE int leaf(int x) { return x * 2 + 1; }

/* ABSENT excluded_fn (calls.spec: exclude function excluded_*) */
NOINLINE int excluded_fn(int x) { return leaf(x) - 1; }

/* VISITS 15 fib */
NOINLINE int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

/* VISITS 4 several_returns */
NOINLINE int several_returns(int x)
{
    if (x == 0)
        return 10;
    if (x == 1)
        return leaf(x);
    for (int i = 0; i < x; ++i)
        if (i * i > x)
            return i;
    return -1;
}

/* VISITS 3 tiny */
/* inline=before: every inlined copy keeps its hooks, so all 3 calls count. inline=after:
 * inlined into no_return_value (not counted); main runs once and GCC inlines nothing there
 * that grows it, so its 2 calls stay out of line and count. */
/* VISITS[after-O2] 2 tiny */
/* VISITS[after-O3] 2 tiny */
static inline int tiny(int x) { return x + 1; }

/* VISITS 2 no_return_value */
NOINLINE void no_return_value(int *p)
{
    if (!p)
        return;
    *p += tiny(*p);
}

/* VISITS 1 main */
int main(int argc, char **argv)
{
    (void)argv;
    int v = argc;
    no_return_value(&v);
    no_return_value(NULL);
    int s = 0;
    for (int i = 0; i < 4; ++i)
        s += several_returns(i);
    s += excluded_fn(3) + excluded_fn(4);
    s += tiny(1) + tiny(2);
    s += leaf(1) + leaf(2) + leaf(3);
    printf("fib(5)=%d v=%d s=%d\n", fib(5), v, s);
    return 3; /* the exit code must stay 3 */
}
