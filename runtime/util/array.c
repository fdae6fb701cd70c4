/* array.c — see array.h. */
#include "array.h"
#include "pages.h"

#include <stdlib.h>
#include <string.h>

size_t instr_grown_cap(size_t cap, size_t need, size_t first, size_t max)
{
    if (need <= cap)
        return cap;
    if (need > max)
        return 0;
    size_t c = cap ? cap : (first ? first : 1);
    while (c < need)
        c = c > max / 2 ? max : 2 * c;
    return c;
}

/* max: the most elements the capacity may name. */
static int grow(void *pp, size_t *cap, size_t need, size_t elem, size_t first, size_t max)
{
    if (need <= *cap)
        return 0;
    size_t c = instr_grown_cap(*cap, need, first, max);
    if (!c)
        return -1;
    void *old;
    memcpy(&old, pp, sizeof old); /* pp is a T **: no access through a void ** */
    void *p = instr_mem_realloc(old, c * elem);
    if (!p)
        return -1;
    memcpy(pp, &p, sizeof p);
    *cap = c;
    return 0;
}

int instr_array_grow(void *pp, size_t *cap, size_t need, size_t elem, size_t first)
{
    return grow(pp, cap, need, elem, first, SIZE_MAX / elem);
}

int instr_array_grow32(void *pp, uint32_t *cap, size_t need, size_t elem, size_t first)
{
    size_t c = *cap, max = SIZE_MAX / elem;
    if (grow(pp, &c, need, elem, first, max < UINT32_MAX ? max : UINT32_MAX) != 0)
        return -1;
    *cap = (uint32_t)c;
    return 0;
}
