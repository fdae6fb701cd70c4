/* path_map.h — (parent node, region) -> node index, the key of every call-tree merge.
 * Open addressing, grown at half full; used at the end of measurement (thread trees into the
 * process tree, ranks' trees into the job's), never on the hot path. */
#ifndef INSTR_RT_PATH_MAP_H
#define INSTR_RT_PATH_MAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct instr_path_slot {
    uint64_t key; /* (parent + 1) << 32 | region; 0 = empty */
    uint32_t val;
} instr_path_slot;

typedef struct instr_path_map {
    instr_path_slot *slots;
    size_t cap; /* 0 or a power of two */
    uint32_t n;
} instr_path_map;

/* The slot of (parent, region): *found says whether it holds that key already (its value is
 * then instr_path_map_val); otherwise the slot is where instr_path_map_set puts it. Grows the map
 * first when needed; -1 when out of memory. A parent < 0 is the root. */
int64_t instr_path_map_slot(instr_path_map *m, int32_t parent, uint32_t region, int *found);
/* Stores (parent, region) -> val in a slot instr_path_map_slot returned as not found. */
void instr_path_map_set(instr_path_map *m, uint32_t slot, int32_t parent, uint32_t region,
                        uint32_t val);
static inline uint32_t instr_path_map_val(const instr_path_map *m, int64_t slot)
{
    return m->slots[slot].val;
}
void instr_path_map_free(instr_path_map *m);

#endif
