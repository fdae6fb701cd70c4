/* registry.h — the region registry: one entry per region, named by a handle (1, 2, ...).
 *
 * Handles are what events carry; names are looked up only when results are written. Entries
 * never move once published (two-level table), so readers need no lock. Registration is rare
 * and serialised by one mutex, which the adapters also hold while they decide (resolve a
 * symbol, apply the run-time filter) so that every region is decided exactly once. */
#ifndef INSTR_RT_REGISTRY_H
#define INSTR_RT_REGISTRY_H

#include <stdint.h>

enum instr_region_source {
    INSTR_SOURCE_HOOKS,  /* ABI v1 descriptors from a compiler plugin */
    INSTR_SOURCE_CYG,    /* -finstrument-functions, name from ELF symbols */
    INSTR_SOURCE_MANUAL, /* instr_region_begin */
    INSTR_SOURCE_XRAY,
    INSTR_SOURCE_MPI,    /* libinstr-rt-mpi: MPI calls (runtime/mpi/) */
    INSTR_SOURCE_OPENMP, /* OpenMP constructs through OMPT (runtime/ompt/) */
    INSTR_SOURCE_SAMPLED, /* frames seen by sampling (runtime/sampling/), not instrumented */
    INSTR_SOURCE_MEMORY, /* the allocation functions memory recording traces (interpose/) */
    INSTR_SOURCE_KOKKOS, /* Kokkos kernels, regions, fences, deep copies (runtime/kokkos/) */
    INSTR_SOURCE_IO,     /* the I/O functions I/O recording traces (interpose/io.c) */
    INSTR_SOURCE_OPENACC /* OpenACC constructs (runtime/openacc/) */
};

typedef struct instr_region_info {
    const char *name;    /* display name, demangled */
    const char *mangled; /* linkage name */
    const char *file;    /* "" when unknown */
    const char *object;  /* executable or DSO path, "" when unknown */
    uint32_t line_begin, line_end;
    const void *addr;
    int source;
} instr_region_info;

/* 1 while the calling thread holds the registry lock: the runtime at work on it (naming a
 * region reads ELF files and debug information), whose allocations memory recording leaves
 * out (runtime/interpose/memory.c). */
extern _Thread_local int instr_registry_held __attribute__((tls_model("initial-exec")));
void instr_registry_lock(void);
void instr_registry_unlock(void);
/* 1 when the lock was free and is now held (callers that may hold other locks: throttling). */
int instr_registry_trylock(void);

/* With the lock held: copies the strings, returns the new handle, or 0 when full. */
uint32_t instr_registry_add_locked(const instr_region_info *info);
/* Any thread, no lock: the entry of a handle returned before, or NULL. */
const instr_region_info *instr_registry_get(uint32_t handle);
/* Called with the lock held after a region was added (substrate plugins' new_definition);
 * NULL: nobody listens. */
extern void (*instr_registry_on_add)(uint32_t handle);
/* Handles 1..count are valid. */
uint32_t instr_registry_count(void);
const char *instr_region_source_name(int source);

#endif
