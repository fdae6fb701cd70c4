/* table.h — growing an open-addressing table whose slots are structs (linear probing over a
 * power-of-two number of them, an all-zero slot empty), for the tables that are only used
 * under their owner's lock or by one thread (address tables read without a lock:
 * addr_map.h). */
#ifndef INSTR_UTIL_TABLE_H
#define INSTR_UTIL_TABLE_H

#include <stddef.h>
#include <stdint.h>

/* The slot's hash (any bits; the table takes the low ones), and whether it holds an entry
 * to keep (not empty, not a tombstone). */
typedef size_t instr_slot_hash(const void *slot);
typedef int instr_slot_live(const void *slot);

/* *pslots (a T **, `elem` bytes a slot, *cap of them: 0 or a power of two) rebuilt with
 * twice as many slots (`first` when there were none), the live ones re-placed, tombstones
 * dropped. 0, or -1 with the table as it was (out of memory). */
int instr_table_grow(void *pslots, size_t *cap, size_t elem, size_t first, instr_slot_hash *hash,
                     instr_slot_live *live);

/* An index of ids (slots of id + 1, 0 free; linear probing over `ncap`, a power of two),
 * built anew for ids 0..n-1 whose hash `hash(ctx, id)` gives: *slots freed and replaced,
 * *cap = ncap. 0, or -1 with the index as it was (out of memory). */
typedef uint64_t instr_id_hash(const void *ctx, uint32_t id);
int instr_id_index_build(uint32_t **slots, uint32_t *cap, uint32_t ncap, uint32_t n,
                         instr_id_hash *hash, const void *ctx);

#endif
