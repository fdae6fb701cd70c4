/* calls.c — the call-heavy workload: many tiny functions (calls_ops.c, another translation
 * unit) called from loops, and two recursions (Fibonacci, a walk over an implicit binary
 * tree). About 2 million calls per repetition, almost no work in each: what an
 * instrumentation costs per call is nearly all this program's run time.
 * Usage: calls [REPETITIONS]; prints kernel_ns= (the measured part) and a checksum. */
#include "bench_clock.h"
#include "calls.h"

#include <stdio.h>
#include <stdlib.h>

static unsigned fib(unsigned n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

/* Node i has children 2i+1 and 2i+2; a call per node and one per missing child. */
static unsigned tree_walk(unsigned i, unsigned nodes)
{
    if (i >= nodes)
        return 0;
    unsigned h = op_mix(i, nodes);
    return h + tree_walk(2 * i + 1, nodes) + tree_walk(2 * i + 2, nodes);
}

static unsigned loop_ops(unsigned n)
{
    unsigned h = 2166136261u;
    for (unsigned i = 0; i < n; i++) {
        unsigned x = op_clamp(op_add(i, h & 7u), 3u, 1000000u);
        h = op_odd(x) ? op_mix(h, x) : op_add(h, x);
    }
    return h;
}

int main(int argc, char **argv)
{
    long reps = argc > 1 ? atol(argv[1]) : 1;
    unsigned sum = 0;
    double t0 = bench_now_ns();
    for (long r = 0; r < reps; r++) {
        sum += fib(24);
        sum += tree_walk(0, (1u << 17) - 1);
        sum += loop_ops(400000);
    }
    double t1 = bench_now_ns();
    printf("kernel_ns=%.0f checksum=%u\n", t1 - t0, sum);
    return 0;
}
