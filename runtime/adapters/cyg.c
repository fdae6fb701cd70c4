/* cyg.c — -finstrument-functions compatibility: __cyg_profile_func_enter/exit.
 *
 * The compiler passes the function's address. A process-wide open-addressing table maps
 * addresses to region handles: readers probe it without a lock (key published with a release
 * store after the value), misses take the registry lock, resolve the address through the ELF
 * symbols (symbols/), demangle, apply the run-time filter and insert. The table never
 * resizes: 2^18 slots (4 MiB of address space, touched only where used) hold ~190000
 * functions; past that, new functions are not recorded and one message says so. */
#include "cyg.h"
#include "../core/event.h"
#include "../core/log.h"
#include "../util/text.h"
#include "../core/registry.h"
#include "../core/rtfilter.h"
#include "../include/instr_abi.h"
#include "../symbols/symbols.h"
#include "../throttle/throttle.h"
#include "../util/addr_map.h"
#include "../util/pages.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default"), no_instrument_function))
#define BITS 18
#define MAX_FILL instr_addr_map_max_fill(BITS)

static instr_addr_map table; /* never grows: read without a lock (util/addr_map.h) */

static inline uint32_t find(uintptr_t a)
{
    instr_addr_slot *t = __atomic_load_n(&table.slots, __ATOMIC_ACQUIRE);
    if (__builtin_expect(!t, 0))
        return INSTR_HANDLE_UNREGISTERED;
    instr_addr_slot *s = instr_addr_map_probe(t, BITS, a);
    return s ? __atomic_load_n(&s->value, __ATOMIC_RELAXED) : INSTR_HANDLE_UNREGISTERED;
}

/* Cold like find's other callers, so that find stays compiled as it is for them (the paths
 * without plugins). */
__attribute__((cold)) uint32_t instr_cyg_handle(uintptr_t fn) { return find(fn); }

int instr_cyg_set_handle_locked(const void *addr, uint32_t h)
{
    instr_addr_slot *s = addr ? instr_addr_map_find(&table, (uintptr_t)addr) : NULL;
    if (!s)
        return 0;
    instr_addr_map_set(s, h);
    return 1;
}

__attribute__((noinline, cold)) static uint32_t resolve(uintptr_t a)
{
    if (!instr_events_wanted())
        return INSTR_HANDLE_EXCLUDED;
    if (!instr_core_registry_lock())
        return INSTR_HANDLE_UNREGISTERED; /* in a signal handler that interrupted the runtime */
    uint32_t h = find(a);
    if (h != INSTR_HANDLE_UNREGISTERED)
        goto out;
    if (table.fill >= MAX_FILL) {
        static int warned;
        if (!warned++)
            instr_warn("more than %u distinct functions: the ones after that are not recorded "
                       "(-finstrument-functions mode)", MAX_FILL);
        h = INSTR_HANDLE_EXCLUDED;
        goto out;
    }
    if (instr_addr_map_reserve(&table, BITS, BITS) != 0) {
        h = INSTR_HANDLE_EXCLUDED; /* no memory for the table */
        goto out;
    }
    instr_symbol sym;
    instr_symbols_lookup((const void *)a, &sym);
    char *demangled = instr_demangle(sym.mangled);
    const char *name = demangled ? demangled : sym.mangled;
    h = INSTR_HANDLE_EXCLUDED;
    if (instr_rtfilter_includes(name, sym.mangled, "")) {
        instr_region_info info = {.name = name, .mangled = sym.mangled, .file = "",
                                  .object = sym.object, .addr = (const void *)a,
                                  .source = INSTR_SOURCE_CYG};
        h = instr_registry_add_locked(&info);
        if (h == 0)
            h = INSTR_HANDLE_EXCLUDED;
    }
    if (instr_verbose >= 2) {
        char shown[512];
        instr_info(2, "cyg: %p is %s (%s) in %s", (void *)a,
                   instr_escaped(shown, sizeof shown, name),
                   h == INSTR_HANDLE_EXCLUDED ? "not recorded" : "recorded",
                   sym.object[0] ? sym.object : "?");
    }
    instr_mem_free(demangled);
    instr_addr_map_insert(&table, a, h, BITS, BITS); /* room reserved above */
out:
    instr_core_registry_unlock();
    return h;
}

__attribute__((noinline, cold)) static void enter_slow(uintptr_t fn, uint32_t h, uintptr_t sp)
{
    /* Not recording (disabled, ended, no directory): no lookup. */
    int st = instr_state_get();
    if (st != INSTR_STATE_RUNNING && st != INSTR_STATE_PAUSED && !instr_events_wanted())
        return;
    if (h == INSTR_HANDLE_UNREGISTERED)
        h = resolve(fn);
    if (__builtin_expect(instr_handle_throttling(h), 0)) {
        instr_throttle_enter(h & ~INSTR_HANDLE_THROTTLING);
        return;
    }
    if (h != INSTR_HANDLE_EXCLUDED && h != INSTR_HANDLE_UNREGISTERED) {
        if (!instr_event_enter_fast(h, sp))
            instr_event_enter_generic(h, sp);
        instr_event_key(h, fn);
    }
}

__attribute__((noinline, cold)) static void exit_slow(uint32_t h)
{
    if (__builtin_expect(instr_handle_throttling(h), 0))
        instr_throttle_exit(h & ~INSTR_HANDLE_THROTTLING);
    else if (h != INSTR_HANDLE_UNREGISTERED && h != INSTR_HANDLE_EXCLUDED)
        instr_event_exit_generic(h);
}

/* Past the cursor path: the table. */
__attribute__((noinline, cold)) static void enter_by_table(uintptr_t fn, uintptr_t sp)
{
    enter_slow(fn, find(fn), sp);
}

__attribute__((noinline, cold)) static void exit_by_table(uintptr_t fn)
{
    uint32_t h = find(fn);
    if (!instr_event_exit_fast(h))
        exit_slow(h);
}

/* A miss of the cursor path with metrics or plugins (instr_event_path_table,
 * core/event_path.h). */
void instr_cyg_enter_miss(void *fn, uintptr_t key, instr_pstate *s, uintptr_t sp)
{
    (void)fn, (void)s;
    enter_by_table(key, sp);
}

void instr_cyg_exit_miss(instr_pstate *s, uintptr_t key)
{
    (void)s;
    exit_by_table(key);
}

/* Fast path: a call path's node carries the function's address as its key (set by the slow
 * path on its first visit), so the address goes straight to the cursor, without the table
 * (with metrics or plugins: one jump by key, the table on a miss; event.h). */
EXPORT void __cyg_profile_func_enter(void *fn, void *site)
{
    (void)site;
    uintptr_t sp = INSTR_CALLER_SP();
    if (__builtin_expect(instr_event_enter_framed(1, (uintptr_t)fn, sp, fn), 1))
        return;
    enter_by_table((uintptr_t)fn, sp);
}

EXPORT void __cyg_profile_func_exit(void *fn, void *site)
{
    (void)site;
    if (__builtin_expect(instr_event_exit_framed(1, (uintptr_t)fn), 1))
        return;
    exit_by_table((uintptr_t)fn);
}

/* Throttling (sources.h). */
static int set_handle(const void *addr, uint32_t h, int final)
{
    (void)final;
    return instr_source_set_handle_in_registry(instr_cyg_set_handle_locked, addr, h);
}

const instr_source instr_cyg_source = {
    .id = INSTR_SOURCE_CYG, .name = "cyg", .set_handle = set_handle};
