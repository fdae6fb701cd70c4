/* table.h — growing an open-addressing table whose slots are structs (linear probing over a
 * power-of-two number of them, an all-zero slot empty), for the tables that are only used
 * under their owner's lock or by one thread (address tables read without a lock:
 * addr_map.h). */
#ifndef INSTR_UTIL_TABLE_H
#define INSTR_UTIL_TABLE_H

#include <stddef.h>

/* The slot's hash (any bits; the table takes the low ones), and whether it holds an entry
 * to keep (not empty, not a tombstone). */
typedef size_t instr_slot_hash(const void *slot);
typedef int instr_slot_live(const void *slot);

/* *pslots (a T **, `elem` bytes a slot, *cap of them: 0 or a power of two) rebuilt with
 * twice as many slots (`first` when there were none), the live ones re-placed, tombstones
 * dropped. 0, or -1 with the table as it was (out of memory). */
int instr_table_grow(void *pslots, size_t *cap, size_t elem, size_t first, instr_slot_hash *hash,
                     instr_slot_live *live);

#endif
