/* path_map.c — see path_map.h. */
#include "path_map.h"

#include <stdlib.h>

static uint64_t path_key(int32_t parent, uint32_t region)
{
    return ((uint64_t)(uint32_t)(parent + 1) << 32) | region;
}

static uint32_t mix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return (uint32_t)k;
}

static int grow(instr_path_map *m)
{
    uint32_t cap = m->cap ? 2 * m->cap : 1024;
    uint64_t *keys = calloc(cap, sizeof *keys);
    uint32_t *vals = calloc(cap, sizeof *vals);
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return -1;
    }
    for (uint32_t i = 0; i < m->cap; i++) {
        if (!m->keys[i])
            continue;
        uint32_t j = mix(m->keys[i]) & (cap - 1);
        while (keys[j])
            j = (j + 1) & (cap - 1);
        keys[j] = m->keys[i];
        vals[j] = m->vals[i];
    }
    free(m->keys);
    free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->cap = cap;
    return 0;
}

int64_t instr_path_map_slot(instr_path_map *m, int32_t parent, uint32_t region, int *found)
{
    if (2 * (m->n + 1) > m->cap && grow(m) != 0)
        return -1;
    uint64_t key = path_key(parent, region);
    uint32_t j = mix(key) & (m->cap - 1);
    while (m->keys[j] && m->keys[j] != key)
        j = (j + 1) & (m->cap - 1);
    *found = m->keys[j] == key;
    return j;
}

void instr_path_map_set(instr_path_map *m, uint32_t slot, int32_t parent, uint32_t region,
                        uint32_t val)
{
    m->keys[slot] = path_key(parent, region);
    m->vals[slot] = val;
    m->n++;
}

void instr_path_map_free(instr_path_map *m)
{
    free(m->keys);
    free(m->vals);
    m->keys = NULL;
    m->vals = NULL;
    m->cap = m->n = 0;
}
