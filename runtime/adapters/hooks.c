/* hooks.c — ABI v1: __instr_enter/__instr_exit called by plugin-instrumented code with the
 * function's static descriptor (include/instr_abi.h).
 *
 * A descriptor is registered on its first enter: under the registry lock, the run-time filter
 * decides, and the handle is published with a release store (a region handle, or
 * INSTR_HANDLE_EXCLUDED which the plugin-inserted check reads before calling us). Afterwards
 * enter is one acquire load of the handle plus the event core's fast path. */
#include "../core/event.h"
#include "../core/registry.h"
#include "../core/rtfilter.h"
#include "../include/instr_abi.h"

#include <string.h>

#define EXPORT __attribute__((visibility("default")))

/* Out of line and cold: keeps the hooks' fast path free of the slow path's stack frame. */
__attribute__((noinline, cold)) static uint32_t register_region(struct instr_region *d)
{
    if (!instr_events_wanted())
        return INSTR_HANDLE_UNREGISTERED;
    instr_registry_lock();
    uint32_t h = __atomic_load_n(&d->handle, __ATOMIC_ACQUIRE);
    if (h == INSTR_HANDLE_UNREGISTERED) {
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
        __atomic_store_n(&d->handle, h, __ATOMIC_RELEASE);
    }
    instr_registry_unlock();
    return h;
}

EXPORT void __instr_enter(struct instr_region *d)
{
    uint32_t h = __atomic_load_n(&d->handle, __ATOMIC_ACQUIRE);
    if (__builtin_expect(h == INSTR_HANDLE_UNREGISTERED, 0)) {
        h = register_region(d);
        if (h == INSTR_HANDLE_UNREGISTERED)
            return;
    }
    if (h == INSTR_HANDLE_EXCLUDED)
        return;
    instr_event_enter(h);
}

EXPORT void __instr_exit(struct instr_region *d)
{
    uint32_t h = __atomic_load_n(&d->handle, __ATOMIC_ACQUIRE);
    if (h == INSTR_HANDLE_UNREGISTERED || h == INSTR_HANDLE_EXCLUDED)
        return;
    instr_event_exit(h);
}
