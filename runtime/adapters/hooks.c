/* hooks.c — ABI v1: __instr_enter/__instr_exit called by plugin-instrumented code with the
 * function's static descriptor (include/instr_abi.h).
 *
 * A descriptor compiled for another ABI version is refused before anything else of it is
 * read (abi.h): its handle becomes INSTR_HANDLE_EXCLUDED, so its hooks are no longer called.
 *
 * Every descriptor of the objects loaded at start-up is registered before main (the
 * descriptors are found through the objects' "instr_regions" sections); one of a library
 * dlopen'ed later on its first enter. Either way, under the registry lock, the run-time filter
 * decides, and the handle is published with a release store (a region handle, or
 * INSTR_HANDLE_EXCLUDED which the plugin-inserted check reads before calling us). Afterwards
 * enter is one acquire load of the handle plus the event core's fast path. */
#include "hooks.h"
#include "abi.h"
#include "../core/event.h"
#include "../core/log.h"
#include "../core/registry.h"
#include "../core/rtfilter.h"
#include "../include/instr_abi.h"
#include "../symbols/sections.h"
#include "../throttle/throttle.h"
#include "../util/addr_map.h"
#include "../util/array.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

/* One function may have several descriptors: the GCC plugin's are local to each object
 * (GCC cannot put COMDAT data in a named section), so an inline function instrumented in
 * three objects brings three. They share the function's address, which maps them onto one
 * region. Touched only under the registry lock, when a descriptor is first seen. */
typedef struct by_addr_slot {
    uint32_t handle; /* a region, or INSTR_HANDLE_EXCLUDED (or throttling, throttle.h) */
    uint32_t n;      /* descriptors of the function seen so far */
    struct instr_region *first;
    struct instr_region **more; /* the others (n - 1), so throttling can rewrite them all */
} by_addr_slot;

static instr_addr_map by_addr; /* the function's address -> its index in by_addr_slots */
static by_addr_slot *by_addr_slots;
static size_t by_addr_cap;

static by_addr_slot *by_addr_find(const void *a)
{
    instr_addr_slot *s = instr_addr_map_find(&by_addr, (uintptr_t)a);
    return s ? &by_addr_slots[s->value] : NULL;
}

/* Remembers a's handle and its descriptor d; a full or unallocatable table only costs the
 * merging (and the throttling of d). */
static void by_addr_put(const void *a, uint32_t handle, struct instr_region *d)
{
    uint32_t n = by_addr.fill;
    if (instr_array_grow(&by_addr_slots, &by_addr_cap, (size_t)n + 1, sizeof *by_addr_slots,
                         512) != 0 ||
        instr_addr_map_reserve(&by_addr, 10, 31) != 0)
        return;
    by_addr_slots[n] = (by_addr_slot){.handle = handle, .n = 1, .first = d};
    instr_addr_map_insert(&by_addr, (uintptr_t)a, n, 10, 31);
}

/* Another descriptor of the slot's function; without memory it is only left unthrottled. */
static void by_addr_add(by_addr_slot *slot, struct instr_region *d)
{
    uint32_t k = slot->n - 1; /* in `more` so far */
    size_t cap = k; /* `more` is full at 0, 1, 2, 4, ... */
    if ((k & (k - 1)) == 0 &&
        instr_array_grow(&slot->more, &cap, (size_t)k + 1, sizeof *slot->more, 1) != 0)
        return;
    slot->more[k] = d;
    slot->n++;
}

/* 1 when descriptor d of the function at addr is still there: a library dlclose'd since it
 * was registered took its descriptors with it (mincore: the pages are mapped, without a
 * lock, so also from an event in a signal handler; then the descriptor still names addr). */
static int still_there(const struct instr_region *d, const void *addr)
{
    static uintptr_t page;
    if (!page) {
        long ps = sysconf(_SC_PAGESIZE);
        page = ps > 0 ? (uintptr_t)ps : 4096;
    }
    uintptr_t lo = (uintptr_t)d & ~(page - 1), hi = ((uintptr_t)(d + 1) - 1) & ~(page - 1);
    unsigned char v[2];
    if (mincore((void *)lo, hi - lo + page, v) != 0)
        return 0;
    return __atomic_load_n(&d->addr, __ATOMIC_RELAXED) == addr;
}

int instr_hooks_set_handle_locked(const void *addr, uint32_t h)
{
    by_addr_slot *slot = addr ? by_addr_find(addr) : NULL;
    if (!slot)
        return 0;
    /* Copies registered later (a library dlopen'ed after this) come up with h. */
    slot->handle = h;
    if (still_there(slot->first, addr))
        __atomic_store_n(&slot->first->handle, h, __ATOMIC_RELEASE);
    for (uint32_t i = 0; i + 1 < slot->n; i++)
        if (still_there(slot->more[i], addr))
            __atomic_store_n(&slot->more[i]->handle, h, __ATOMIC_RELEASE);
    return 1;
}

/* With the registry lock held: decides d once (the run-time filter, or the handle of
 * another descriptor of the same function) and publishes its handle. */
static uint32_t decide_locked(struct instr_region *d)
{
    uint32_t h = __atomic_load_n(&d->handle, __ATOMIC_ACQUIRE);
    if (h != INSTR_HANDLE_UNREGISTERED)
        return h;
    if (!instr_abi_accepts(d)) {
        __atomic_store_n(&d->handle, INSTR_HANDLE_EXCLUDED, __ATOMIC_RELEASE);
        return INSTR_HANDLE_EXCLUDED;
    }
    by_addr_slot *same = d->addr ? by_addr_find(d->addr) : NULL;
    if (same) {
        h = same->handle;
        by_addr_add(same, d);
    } else {
        const char *name = d->name && *d->name ? d->name : (d->mangled ? d->mangled : "?");
        if (!instr_rtfilter_includes(name, d->mangled, d->file)) {
            h = INSTR_HANDLE_EXCLUDED;
        } else {
            instr_region_info info = {
                .name = name, .mangled = d->mangled, .file = d->file, .object = "",
                .line_begin = d->line_begin, .line_end = d->line_end, .addr = d->addr,
                .source = (d->flags & INSTR_REGION_XRAY) ? INSTR_SOURCE_XRAY : INSTR_SOURCE_HOOKS,
            };
            h = instr_registry_add_locked(&info);
            if (h == 0)
                h = INSTR_HANDLE_EXCLUDED; /* registry full: the region is not recorded */
        }
        if (d->addr)
            by_addr_put(d->addr, h, d);
    }
    __atomic_store_n(&d->handle, h, __ATOMIC_RELEASE);
    return h;
}

/* A descriptor first entered after start-up (a library dlopen'ed later). Out of line and
 * cold: keeps the hooks' fast path free of the slow path's stack frame. */
__attribute__((noinline, cold)) static uint32_t register_region(struct instr_region *d)
{
    if (!instr_events_wanted())
        return INSTR_HANDLE_UNREGISTERED;
    if (!instr_core_registry_lock())
        return INSTR_HANDLE_UNREGISTERED; /* in a signal handler that interrupted the runtime */
    uint32_t h = decide_locked(d);
    instr_core_registry_unlock();
    return h;
}

static void register_section(void *begin, size_t size, void *arg)
{
    unsigned *n = arg;
    struct instr_region *d = begin;
    /* The first descriptor's version says at start-up when the object is of another ABI. */
    if (size < 2 * sizeof(uint32_t) || !instr_abi_accepts(d))
        return;
    if (size % sizeof(struct instr_region) != 0)
        return; /* not ABI v1 descriptors: left to their first enter */
    struct instr_region *end = d + size / sizeof *d;
    for (; d < end; d++) {
        /* Another version's descriptors (objects of two versions linked into one) may have
         * another size: the walk stops there, the rest are decided on their first enter. */
        if (!instr_abi_accepts(d))
            return;
        if (!(d->flags & INSTR_REGION_XRAY) && decide_locked(d) != INSTR_HANDLE_EXCLUDED)
            (*n)++;
    }
}

/* Every descriptor of the objects loaded at start-up is decided before main, so that no
 * event of their functions ever registers: a signal handler's first call would otherwise
 * take the registry lock and reach malloc, possibly inside the malloc it interrupted.
 * XRay descriptors are named by the XRay adapter, which registers on first entry. */
void instr_hooks_register_loaded(void)
{
    unsigned n = 0;
    instr_registry_lock();
    int sections = instr_sections_each(INSTR_REGIONS_SECTION, register_section, &n);
    instr_registry_unlock();
    if (sections)
        instr_info(1, "hooks: %u instrumented function%s in %d object%s registered at start-up",
                   n, n == 1 ? "" : "s", sections, sections == 1 ? "" : "s");
}

/* Past the cursor path (a miss, another mode, or any handle that is not a region's); out of
 * line and cold, so that __instr_enter needs no stack frame of its own. */
__attribute__((noinline, cold)) static void enter_other(struct instr_region *d,
                                                        uint32_t h, uintptr_t sp)
{
    if (h == INSTR_HANDLE_UNREGISTERED) {
        h = register_region(d);
        if (h == INSTR_HANDLE_UNREGISTERED)
            return;
    }
    if (__builtin_expect(instr_handle_throttling(h), 0))
        instr_throttle_enter(h & ~INSTR_HANDLE_THROTTLING);
    else if (h != INSTR_HANDLE_EXCLUDED)
        instr_event_enter_generic(h, sp);
}

/* A miss of the cursor path with metrics or plugins (instr_event_path_table,
 * core/event_path.h; no node carries a handle that is not a region's, so those come here
 * too). */
void instr_hooks_enter_miss(void *d, uintptr_t h, instr_pstate *s, uintptr_t sp)
{
    (void)s;
    enter_other(d, (uint32_t)h, sp);
}

/* Fast path: the handle goes straight to the cursor, whose nodes never carry
 * INSTR_HANDLE_UNREGISTERED, INSTR_HANDLE_EXCLUDED or a throttled handle; those miss. */
EXPORT void __instr_enter(struct instr_region *d)
{
    uint32_t h = __atomic_load_n(&d->handle, __ATOMIC_ACQUIRE);
    uintptr_t sp = INSTR_CALLER_SP();
    if (__builtin_expect(instr_event_enter_framed(0, h, sp, d), 1))
        return;
    enter_other(d, h, sp);
}

__attribute__((noinline, cold)) static void exit_slow(uint32_t h)
{
    if (__builtin_expect(instr_handle_throttling(h), 0))
        instr_throttle_exit(h & ~INSTR_HANDLE_THROTTLING);
    else if (h != INSTR_HANDLE_UNREGISTERED && h != INSTR_HANDLE_EXCLUDED)
        instr_event_exit_generic(h);
}

void instr_hooks_exit_miss(instr_pstate *s, uintptr_t h)
{
    (void)s;
    exit_slow((uint32_t)h);
}

EXPORT void __instr_exit(struct instr_region *d)
{
    uint32_t h = __atomic_load_n(&d->handle, __ATOMIC_ACQUIRE);
    if (__builtin_expect(instr_event_exit_framed(0, h), 1))
        return;
    exit_slow(h);
}

#ifdef INSTR_RT_HAVE_TRACE
/* The direct trace path (INSTR_FAST_TRACE, through instr_event_path_table): the hooks' slow
 * path when the thread is not on it or the handle is not a region's. */
void instr_hooks_trace_enter(void *d, uintptr_t h, instr_pstate *s, uintptr_t sp)
{
    (void)s;
    if (__builtin_expect(!instr_event_trace_direct_in(INSTR_FAST_TRACE, (uint32_t)h, 0), 0))
        enter_other(d, (uint32_t)h, sp);
}

void instr_hooks_trace_exit(instr_pstate *s, uintptr_t h)
{
    (void)s;
    if (__builtin_expect(!instr_event_trace_direct_in(INSTR_FAST_TRACE, (uint32_t)h, 1), 0))
        exit_slow((uint32_t)h);
}

/* The same with another timer than the TSC (INSTR_FAST_TRACE_CLOCK). */
void instr_hooks_trace_enter_clock(void *d, uintptr_t h, instr_pstate *s, uintptr_t sp)
{
    (void)s;
    if (__builtin_expect(!instr_event_trace_direct_clock((uint32_t)h, 0), 0))
        enter_other(d, (uint32_t)h, sp);
}

void instr_hooks_trace_exit_clock(instr_pstate *s, uintptr_t h)
{
    (void)s;
    if (__builtin_expect(!instr_event_trace_direct_clock((uint32_t)h, 1), 0))
        exit_slow((uint32_t)h);
}
#endif

/* Throttling (sources.h). */
static int set_handle(const void *addr, uint32_t h, int final)
{
    (void)final;
    return instr_source_set_handle_in_registry(instr_hooks_set_handle_locked, addr, h);
}

const instr_source instr_hooks_source = {
    .id = INSTR_SOURCE_HOOKS,
    .name = "hooks",
    .set_handle = set_handle,
    .start = instr_hooks_register_loaded,
};

/* What instrumented objects refer to so that a link without the runtime says what to do
 * (instr_abi.h, INSTR_LINK_CHECK_SYMBOL). Here, beside the hooks: the member of
 * libinstr-rt.a that resolves one resolves the other. */
EXPORT const char
    __instr_compiled_with_instr_but_not_linked_with_it__link_through_instr_or_add_linstr_rt = 1;
