/* addr_map.h — an address -> 32-bit value table (a function's address -> its region
 * handle), open addressing with linear probing over 2^bits slots, keys never removed.
 *
 * One writer at a time (the caller's lock) inserts; readers may probe without a lock, also
 * from a signal handler: an insertion stores the value first and then publishes the key
 * with a release store, which a reader loads with acquire. A table that grows frees its old
 * slots, so a table read without the lock is made with first_bits == max_bits (it never
 * grows; it only fills up to three quarters). Nothing here allocates on the read side. */
#ifndef INSTR_UTIL_ADDR_MAP_H
#define INSTR_UTIL_ADDR_MAP_H

#include "hash.h"

#include <stdint.h>

typedef struct instr_addr_slot {
    uintptr_t key; /* 0: empty */
    uint32_t value;
} instr_addr_slot;

typedef struct instr_addr_map {
    instr_addr_slot *slots; /* NULL until the first insertion; published with release */
    uint32_t bits;          /* 2^bits slots */
    uint32_t fill;
} instr_addr_map;

/* The slot of key in slots (2^bits of them), or NULL; without a lock. The slot's value is
 * what was stored before its key was published, or a later instr_addr_map_set(). Inline
 * with a constant `bits`, so that a caller's probe loop is what it would write itself. */
static inline instr_addr_slot *instr_addr_map_probe(instr_addr_slot *slots, unsigned bits,
                                                    uintptr_t key)
{
    for (uint32_t i = instr_hash_bits(key, bits);; i = (i + 1) & ((1u << bits) - 1)) {
        uintptr_t k = __atomic_load_n(&slots[i].key, __ATOMIC_ACQUIRE);
        if (k == key)
            return &slots[i];
        if (k == 0)
            return NULL;
    }
}

/* The slot of key (non-zero) in m, or NULL; without a lock when m never grows. */
static inline instr_addr_slot *instr_addr_map_find(instr_addr_map *m, uintptr_t key)
{
    instr_addr_slot *t = __atomic_load_n(&m->slots, __ATOMIC_ACQUIRE);
    return t ? instr_addr_map_probe(t, m->bits, key) : NULL;
}

/* The value of a slot found, replaced for later readers. */
static inline void instr_addr_map_set(instr_addr_slot *slot, uint32_t value)
{
    __atomic_store_n(&slot->value, value, __ATOMIC_RELEASE);
}

/* The most keys a table of 2^bits slots takes. */
static inline uint32_t instr_addr_map_max_fill(unsigned bits) { return (1u << bits) / 4 * 3; }

/* Room for one more key, under the writer's lock: the slots are allocated at 2^first_bits
 * and doubled when half full, up to 2^max_bits (at most 31), where they fill up to three
 * quarters. 0, or -1 when the table is full or out of memory. */
int instr_addr_map_reserve(instr_addr_map *m, unsigned first_bits, unsigned max_bits);

/* Inserts key (non-zero, not in m yet) with value, after instr_addr_map_reserve(): 0,
 * or -1 when that fails (nothing inserted). */
int instr_addr_map_insert(instr_addr_map *m, uintptr_t key, uint32_t value,
                          unsigned first_bits, unsigned max_bits);

#endif
