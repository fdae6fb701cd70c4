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
/* inline=after at -O2/-O3: GCC inlines fib into itself once per frame, as it does without
 * the plugin (gprof of a -pg build shows the same 1+7 calls): 8 frames stay out of line. */
/* VISITS[after-O2] 8 fib */
/* VISITS[after-O3] 8 fib */
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
 * inlined everywhere, as without the plugin, so no call counts and no body is emitted. */
/* VISITS[after-O2] 0 tiny */
/* VISITS[after-O3] 0 tiny */
static inline int tiny(int x) { return x + 1; }

/* VISITS 2 no_return_value */
/* inline=after at -O2/-O3: the call with a null pointer is inlined into main (it returns at
 * once), the other stays a call. */
/* VISITS[after-O2] 1 no_return_value */
/* VISITS[after-O3] 1 no_return_value */
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
