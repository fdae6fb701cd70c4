/* sort.c — a stable merge sort over a buffer from the runtime's pages (sort.h). */
#include "sort.h"
#include "pages.h"

#include <stdlib.h>
#include <string.h>

typedef int (*cmp_fn)(const void *, const void *);

/* Short runs: insertion, with one element of scratch. */
static void insertion(char *a, char *one, size_t n, size_t size, cmp_fn cmp)
{
    for (size_t i = 1; i < n; i++) {
        size_t j = i;
        memcpy(one, a + i * size, size);
        while (j > 0 && cmp(a + (j - 1) * size, one) > 0) {
            memcpy(a + j * size, a + (j - 1) * size, size);
            j--;
        }
        if (j != i)
            memcpy(a + j * size, one, size);
    }
}

static void merge_sort(char *a, char *tmp, size_t n, size_t size, cmp_fn cmp)
{
    if (n <= 8) {
        insertion(a, tmp, n, size, cmp);
        return;
    }
    size_t h = n / 2;
    merge_sort(a, tmp, h, size, cmp);
    merge_sort(a + h * size, tmp, n - h, size, cmp);
    char *l = a, *le = a + h * size, *r = le, *re = a + n * size, *o = tmp;
    if (cmp(le - size, r) <= 0)
        return; /* already in order */
    while (l < le && r < re) {
        if (cmp(r, l) < 0) { /* equal elements keep their order: the left one first */
            memcpy(o, r, size);
            r += size;
        } else {
            memcpy(o, l, size);
            l += size;
        }
        o += size;
    }
    memcpy(o, l, (size_t)(le - l));
    o += le - l;
    memcpy(o, r, (size_t)(re - r));
    memcpy(a, tmp, n * size);
}

void instr_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n < 2 || size == 0)
        return;
    char *tmp = instr_mem_alloc(n * size);
    if (!tmp) {
        qsort(base, n, size, cmp); /* out of memory: glibc then sorts in place */
        return;
    }
    merge_sort(base, tmp, n, size, cmp);
    instr_mem_free(tmp);
}
