/* region_table.h — regions of an event source by name: the registry handle each name got at
 * its first lookup, found again by content. The sources that name their regions at run time
 * (Kokkos's kernels, OpenACC's constructs) keep one table each in front of a per-thread cache
 * of their own; the table is guarded by the registry lock. */
#ifndef INSTR_CORE_REGION_TABLE_H
#define INSTR_CORE_REGION_TABLE_H

#include <stdint.h>

typedef struct instr_named_region {
    char *name; /* the table's copy */
    int kind;   /* the source's own distinction (Kokkos: the construct), 0 where none */
    uint32_t handle; /* 0: excluded or not registered */
    struct instr_named_region *next;
} instr_named_region;

typedef struct instr_region_table {
    instr_named_region **buckets; /* nbuckets of them, zeroed */
    uint32_t nbuckets;
} instr_region_table;

/* Registers a new name (with the registry lock held): its handle, or 0 to record nothing. */
typedef uint32_t (*instr_region_table_add_fn)(int kind, const char *name, void *arg);

/* The entry of (kind, name), made with add(kind, name, arg) at its first lookup; NULL when
 * out of memory. Call with the registry lock held (instr_registry_lock). */
const instr_named_region *instr_region_table_get_locked(instr_region_table *t, int kind,
                                                        const char *name,
                                                        instr_region_table_add_fn add,
                                                        void *arg);

#endif
