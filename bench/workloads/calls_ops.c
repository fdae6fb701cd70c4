/* calls_ops.c — the call-heavy workload's tiny functions. In their own translation unit so
 * that no compiler inlines them (no LTO): every use is a real call, as across the files of a
 * real code. Unsigned arithmetic: wrap-around is defined. */
#include "calls.h"

unsigned op_add(unsigned a, unsigned b)
{
    return a + b;
}

unsigned op_mix(unsigned h, unsigned x)
{
    return (h ^ x) * 16777619u;
}

unsigned op_clamp(unsigned x, unsigned lo, unsigned hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

unsigned op_odd(unsigned x)
{
    return x & 1u;
}
