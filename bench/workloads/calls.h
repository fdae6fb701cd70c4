/* calls.h — the tiny functions of the call-heavy workload (calls_ops.c). */
#ifndef CALLS_H
#define CALLS_H
unsigned op_add(unsigned a, unsigned b);
unsigned op_mix(unsigned h, unsigned x);
unsigned op_clamp(unsigned x, unsigned lo, unsigned hi);
unsigned op_odd(unsigned x);
#endif
