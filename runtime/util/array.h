/* array.h — growable arrays: the one place that doubles a capacity.
 *
 * The array is any T *p with a capacity beside it; the helpers realloc it so that `need`
 * elements fit, doubling the capacity from `first` (the capacity of a new array) until they
 * do. On failure the array and its capacity are left as they were, so the caller drops only
 * what it wanted to add. Not for the hot path or a signal handler: realloc. */
#ifndef INSTR_UTIL_ARRAY_H
#define INSTR_UTIL_ARRAY_H

#include <stddef.h>
#include <stdint.h>

/* The capacity at least `need` reached by doubling `cap` (0: from `first`, at least 1);
 * `cap` itself when need fits already; 0 when it would pass `max`. */
size_t instr_grown_cap(size_t cap, size_t need, size_t first, size_t max);

/* *pp (a T **, elements of `elem` bytes, capacity *cap) grown so that `need` elements fit:
 * 0, or -1 with nothing changed (out of memory, or the size would overflow). */
int instr_array_grow(void *pp, size_t *cap, size_t need, size_t elem, size_t first);
/* The same for a uint32_t capacity (kept at most UINT32_MAX). */
int instr_array_grow32(void *pp, uint32_t *cap, size_t need, size_t elem, size_t first);

#endif
