/* path_map.c — see path_map.h. */
#include "path_map.h"
#include "../util/hash.h"
#include "../util/table.h"
#include "../util/pages.h"

#include <stdlib.h>

static uint64_t path_key(int32_t parent, uint32_t region)
{
    return ((uint64_t)(uint32_t)(parent + 1) << 32) | region;
}

static size_t slot_hash(const void *slot)
{
    return (size_t)instr_hash_mix(((const instr_path_slot *)slot)->key);
}

static int slot_live(const void *slot) { return ((const instr_path_slot *)slot)->key != 0; }

int64_t instr_path_map_slot(instr_path_map *m, int32_t parent, uint32_t region, int *found)
{
    if (2 * ((size_t)m->n + 1) > m->cap &&
        instr_table_grow(&m->slots, &m->cap, sizeof *m->slots, 1024, slot_hash, slot_live) != 0)
        return -1;
    instr_path_slot probe = {.key = path_key(parent, region)};
    size_t j = slot_hash(&probe) & (m->cap - 1);
    while (m->slots[j].key && m->slots[j].key != probe.key)
        j = (j + 1) & (m->cap - 1);
    *found = m->slots[j].key == probe.key;
    return (int64_t)j;
}

void instr_path_map_set(instr_path_map *m, uint32_t slot, int32_t parent, uint32_t region,
                        uint32_t val)
{
    m->slots[slot] = (instr_path_slot){path_key(parent, region), val};
    m->n++;
}

void instr_path_map_free(instr_path_map *m)
{
    instr_mem_free(m->slots);
    m->slots = NULL;
    m->cap = 0;
    m->n = 0;
}
