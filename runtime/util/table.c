/* table.c — see table.h. */
#include "table.h"
#include "pages.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int instr_table_grow(void *pslots, size_t *cap, size_t elem, size_t first, instr_slot_hash *hash,
                     instr_slot_live *live)
{
    size_t ncap = *cap ? 2 * *cap : first;
    if (ncap < *cap || ncap > SIZE_MAX / elem)
        return -1;
    unsigned char *old, *grown = instr_mem_calloc(ncap, elem);
    if (!grown)
        return -1;
    memcpy(&old, pslots, sizeof old); /* pslots is a T **: no access through a void ** */
    for (size_t i = 0; i < *cap; i++) {
        const unsigned char *s = old + i * elem;
        if (!live(s))
            continue;
        size_t j = hash(s) & (ncap - 1);
        while (live(grown + j * elem))
            j = (j + 1) & (ncap - 1);
        memcpy(grown + j * elem, s, elem);
    }
    instr_mem_free(old);
    memcpy(pslots, &grown, sizeof grown);
    *cap = ncap;
    return 0;
}

int instr_id_index_build(uint32_t **slots, uint32_t *cap, uint32_t ncap, uint32_t n,
                         instr_id_hash *hash, const void *ctx)
{
    uint32_t *t = instr_mem_calloc(ncap, sizeof *t);
    if (!t)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t s = hash(ctx, i) & (ncap - 1);
        while (t[s])
            s = (s + 1) & (ncap - 1);
        t[s] = i + 1;
    }
    instr_mem_free(*slots);
    *slots = t;
    *cap = ncap;
    return 0;
}
