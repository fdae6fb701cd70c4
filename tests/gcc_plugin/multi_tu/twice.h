// An inline function that every object instruments with a descriptor of its own; at -O2 it
// is inlined into its callers, each copy with its own object's descriptor.
#ifndef TWICE_H
#define TWICE_H
inline int twice(int v) { return 2 * v + 1; }
int first(int n);
int second(int n);
#endif
