/* jobdb_hash.h — the hashes of the job database's definition tables and the sameness of two
 * regions, shared by their building (jobdb_defs.c) and the union's lookups (jobdb_union.c).
 * Internal to the job database's core. */
#ifndef INSTR_RT_JOBDB_HASH_H
#define INSTR_RT_JOBDB_HASH_H

#include "jobdb.h"
#include "../util/hash.h"

#include <stdint.h>

static inline uint64_t str_hash(const char *s)
{
    /* Not FNV-1a's own offset basis (a digit short), kept: the table's layout stays as it was. */
    return instr_hash_mix(instr_fnv1a_str(1469598103934665603ull, s));
}

static inline uint64_t region_hash_rec(const instr_jdb_region *r)
{
    return instr_hash_mix(((uint64_t)r->name << 32 | r->mangled) ^ instr_hash_mix((uint64_t)r->file << 32 | r->paradigm));
}

static inline int same_region(const instr_jdb_region *a, const instr_jdb_region *b)
{
    return a->name == b->name && a->mangled == b->mangled && a->file == b->file &&
           a->paradigm == b->paradigm;
}

/* Rebuilds the region and path tables (freed, their caps 0) from d's ids: 0, or -1 without
 * memory. jobdb_defs.c. */
int instr_jdb_defs_rehash_ids(instr_jdb_defs *d);

#endif
