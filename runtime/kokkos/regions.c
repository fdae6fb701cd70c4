/* regions.c — Kokkos's regions in the registry (source "kokkos"). The display name is what
 * the program named (a kernel's label, a region's or section's name, a fence's name); the
 * canonical (mangled) name puts the kind in front ("Kokkos::parallel_for ComputeForces"),
 * so that a label used for two kinds gives two regions, the run-time filter can select by
 * kind and the trace knows the role (runtime/trace/defs.c).
 *
 * Kernel launches ask for their region each time: a per-thread cache keyed by the label's
 * address and confirmed with strcmp answers the repeated ones without the registry lock
 * (as manual.c does for instr_region_begin). */
#include "kokkos.h"
#include "../core/event.h"
#include "../core/region_table.h"
#include "../core/registry.h"
#include "../core/rtfilter.h"

#include <stdio.h>
#include <string.h>

#define CACHE 32
#define BUCKETS 1024
#define NAME_MAX_LEN 4096

static const char *const prefix[INSTR_KOKKOS_NKINDS] = {
    [INSTR_KOKKOS_FOR] = "Kokkos::parallel_for ",
    [INSTR_KOKKOS_REDUCE] = "Kokkos::parallel_reduce ",
    [INSTR_KOKKOS_SCAN] = "Kokkos::parallel_scan ",
    [INSTR_KOKKOS_REGION] = "Kokkos::Profiling::pushRegion ",
    [INSTR_KOKKOS_SECTION] = "Kokkos::Profiling::ProfilingSection ",
    [INSTR_KOKKOS_FENCE] = "Kokkos::fence ",
    [INSTR_KOKKOS_COPY] = "Kokkos::", /* the name says "deep_copy" already */
};

static instr_named_region *buckets[BUCKETS];
static instr_region_table table = {buckets, BUCKETS};
static _Thread_local struct { const char *ptr; const instr_named_region *e; } cache[CACHE]
    __attribute__((tls_model("initial-exec")));

/* With the registry lock held. */
static uint32_t add(int kind, const char *name, void *arg)
{
    (void)arg;
    char canonical[NAME_MAX_LEN];
    snprintf(canonical, sizeof canonical, "%s%s", prefix[kind], name);
    if (!instr_rtfilter_includes(name, canonical, ""))
        return 0;
    instr_region_info info = {.name = name, .mangled = canonical, .file = "", .object = "",
                              .source = INSTR_SOURCE_KOKKOS};
    return instr_registry_add_locked(&info);
}

uint32_t instr_kokkos_region(int kind, const char *name)
{
    if (kind < 0 || kind >= INSTR_KOKKOS_NKINDS)
        return 0;
    if (!name)
        name = "";
    uint32_t slot = (uint32_t)((((uintptr_t)name >> 3) + (uintptr_t)kind) % CACHE);
    const instr_named_region *e = cache[slot].e;
    if (cache[slot].ptr == name && e && e->kind == kind && strcmp(e->name, name) == 0)
        return e->handle;
    if (!instr_events_wanted())
        return 0;
    instr_registry_lock();
    e = instr_region_table_get_locked(&table, kind, name, add, NULL);
    instr_registry_unlock();
    if (!e)
        return 0;
    cache[slot].ptr = name;
    cache[slot].e = e;
    return e->handle;
}
