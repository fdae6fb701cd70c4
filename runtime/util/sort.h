/* sort.h — qsort(3) without malloc: glibc's qsort takes its merge buffer from malloc for
 * arrays over 1 KiB, which would put the runtime's work into the program's heap; this one
 * takes it from the runtime's pages (pages.h). A stable merge sort, as glibc's is whenever
 * it has its buffer. */
#ifndef INSTR_UTIL_SORT_H
#define INSTR_UTIL_SORT_H

#include <stddef.h>

void instr_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

#endif
