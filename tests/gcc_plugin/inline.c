/* inline.c — C program for the placement tests (docs/gcc-plugin.md, "Where the hooks end
 * up"): functions GCC inlines, an IPA clone, recursion. With -fplugin-arg-instr-inline=after
 * (the default) an inlined copy keeps no hook call; with inline=before every copy keeps its
 * hooks. The plain VISITS lines are the source-level call counts (inline=before, and
 * inline=after at -O0 where nothing but always_inline is inlined); VISITS[after-O2] lines and
 * the like override them for that placement and level. VISITS 0: never entered.
 *
 * CFLAGS --param=ipa-cp-eval-threshold=1  (at -O3 GCC 12 then clones scaled())
 * SYMBOL[O3] scaled.constprop.0  (the clone keeps scaled's own hooks and counts for it)
 *
 * VISITS 1 main
 * VISITS 1 loop
 * VISITS 100 small
 * VISITS[after-O2] 0 small
 * VISITS[after-O3] 0 small
 * VISITS 15 forced
 * VISITS[after] 0 forced
 * VISITS 1 use_scaled
 * VISITS 2 scaled
 * VISITS 15 fib
 * VISITS[after-O2] 8 fib
 * VISITS[after-O3] 8 fib
 * VISITS 4 clamp
 * VISITS[after-O2] 0 clamp
 * VISITS[after-O3] 0 clamp
 */
#include <stdio.h>

#define NOINLINE __attribute__((noinline))

/* inlined into loop() at -O2/-O3 */
static inline int small(int x) { return x * 3 + 1; }

/* inlined everywhere, at every level (-O0 too) */
static inline __attribute__((always_inline)) int forced(int x) { return x - 1; }

/* several returns; called only from main. Without the plugin GCC inlines it there; so it
 * does with inline=after (no call counts), while the hooks of inline=before kept it out of
 * line. */
static inline int clamp(int x)
{
    if (x < 0)
        return 0;
    if (x > 10)
        return 10;
    return x;
}

NOINLINE int loop(int n)
{
    int s = 0;
    for (int i = 0; i < n; ++i)
        s += small(i);
    return s;
}

/* called twice with k == 3: ipa-cp makes scaled.constprop.0 (the CFLAGS above) */
static NOINLINE int scaled(int x, int k)
{
    int s = 0;
    for (int i = 0; i < x; ++i)
        s += i * k + forced(i);
    return s;
}

/* the calls of scaled() that ipa-cp specialises (not from main: GCC sees no hot calls there) */
NOINLINE int use_scaled(int a) { return scaled(a + 5, 3) + scaled(a + 7, 3); }

/* recursion: only the out-of-line frames count (inline=after at -O2/-O3: GCC inlines one
 * level into each frame, as without the plugin; gprof of a -pg build shows 1+7 calls) */
NOINLINE int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

int main(int argc, char **argv)
{
    (void)argv;
    int s = loop(100) + forced(argc);
    s += use_scaled(argc);
    s += fib(clamp(argc + 4)) + clamp(-argc) + clamp(argc + 20) + clamp(argc);
    printf("s=%d\n", s);
    return 0;
}
