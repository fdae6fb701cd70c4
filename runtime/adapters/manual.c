/* manual.c — the manual API of include/instr.h: named regions, pause and resume.
 *
 * Names map to region handles through a table keyed by content (guarded by the registry
 * lock) and a small per-thread cache keyed by the string's address that is confirmed with
 * strcmp, so string literals cost a compare and reused buffers stay correct. */
#include "../core/event.h"
#include "../core/registry.h"
#include "../core/rtfilter.h"
#include "../include/instr_abi.h"
#include "../util/pages.h"

#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))
#define CACHE 32
#define EXCLUDED INSTR_HANDLE_EXCLUDED

typedef struct named {
    const char *name; /* the registry's copy, or our own for excluded names */
    uint32_t handle;
    struct named *next;
} named;

static named *buckets[1024];
static _Thread_local struct { const char *ptr; const named *e; } cache[CACHE]
    __attribute__((tls_model("initial-exec")));

static uint32_t hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static const named *lookup(const char *name)
{
    uint32_t slot = (uint32_t)(((uintptr_t)name >> 3) % CACHE);
    const named *e = cache[slot].e;
    if (cache[slot].ptr == name && e && strcmp(e->name, name) == 0)
        return e;
    if (!instr_events_wanted())
        return NULL;
    uint32_t b = hash(name) % (sizeof buckets / sizeof *buckets);
    instr_registry_lock();
    for (e = buckets[b]; e; e = e->next)
        if (strcmp(e->name, name) == 0)
            break;
    if (!e) {
        named *n = instr_mem_calloc(1, sizeof *n);
        if (n) {
            uint32_t h = EXCLUDED;
            if (instr_rtfilter_includes(name, name, "")) {
                instr_region_info info = {.name = name, .mangled = name, .file = "",
                                          .object = "", .source = INSTR_SOURCE_MANUAL};
                h = instr_registry_add_locked(&info);
                if (h == 0)
                    h = EXCLUDED;
            }
            const instr_region_info *r = h != EXCLUDED ? instr_registry_get(h) : NULL;
            n->name = r ? r->name : instr_mem_strdup(name);
            n->handle = h;
            if (!n->name) {
                instr_mem_free(n);
                n = NULL;
            } else {
                n->next = buckets[b];
                buckets[b] = n;
            }
        }
        e = n;
    }
    instr_registry_unlock();
    if (e) {
        cache[slot].ptr = name;
        cache[slot].e = e;
    }
    return e;
}

EXPORT void instr_region_begin(const char *name)
{
    if (!name)
        return;
    const named *e = lookup(name);
    if (e && e->handle != EXCLUDED)
        instr_event_enter(e->handle);
}

EXPORT void instr_region_end(const char *name)
{
    if (!name)
        return;
    const named *e = lookup(name);
    if (e && e->handle != EXCLUDED)
        instr_event_exit(e->handle);
}

EXPORT void instr_pause(void)
{
    if (!instr_events_wanted())
        return;
    int expected = INSTR_STATE_RUNNING;
    /* Paused frames need the generic path's marks: every thread leaves the cursor path at its
     * next event (core.c). */
    __atomic_store_n(&instr_fast, INSTR_FAST_OFF, __ATOMIC_RELEASE);
    instr_event_path_misses();
    __atomic_compare_exchange_n(&instr_state, &expected, INSTR_STATE_PAUSED, 0, __ATOMIC_ACQ_REL,
                                __ATOMIC_ACQUIRE);
}

EXPORT void instr_resume(void)
{
    int expected = INSTR_STATE_PAUSED;
    __atomic_compare_exchange_n(&instr_state, &expected, INSTR_STATE_RUNNING, 0,
                                __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

EXPORT int instr_is_recording(void)
{
    return instr_events_wanted() && instr_state_get() == INSTR_STATE_RUNNING;
}
