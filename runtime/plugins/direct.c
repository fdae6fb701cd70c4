/* direct.c — the plugins alone on the core's stack (INSTR_FAST_TABLE with the plugins'
 * substrate the only one that wants enter/exit, INSTR_ENABLE_PROFILING=0; core/event.h).
 *
 * The hooks and cyg jump through instr_event_path_table (core/event_path.h) to these functions,
 * which take the generic path's steps on the location's own stack of region handles
 * (core/stack_path.h) and then
 * call the plugins' null-terminated lists directly, with the TSC: no dispatch table, no
 * plugins' substrate in between. Reentrant plugins (INSTR_SUBSTRATE_PLUGIN_REENTRANT) are
 * called without the busy flag, after the stack's steps. Everything unusual (the thread's
 * first event, a full stack, pause, an exit that is not the innermost open region's, a
 * signal handler inside the runtime) is a miss: the adapter's slow path, the generic path.
 *
 * By key (-finstrument-functions' addresses) the region is the one the adapter's address
 * table has (instr_cyg_handle, core/event_path.h); a function it does not know yet misses.
 *
 * Hot: no locks, no allocation, no system call. */
#include "substrate_plugins.h"
#include "../core/stack_path.h"
#include "../profile/cct.h"

static int slot; /* the plugins' substrate's */
/* The list's function when it has one, else NULL. */
static instr_cct_plugin_fn one_enter, one_exit;

/* The plugins' functions (`one`, else every function of the list; with `single`, a constant,
 * `one` without a test: every list has one function), called with the location's busy flag
 * set; with `reent` (a constant: every plugin is reentrant, INSTR_SUBSTRATE_PLUGIN_REENTRANT)
 * without it, as the event's last step: the stack is consistent by then, and a signal
 * handler's events during the call are recorded as at any other instant. */
static inline __attribute__((always_inline)) void call(instr_location *loc, int single, int reent,
                                                       instr_cct_plugin_fn one,
                                                       const instr_cct_plugin_fn *list,
                                                       uint32_t region, uint64_t t)
{
    struct instr_substrate_location *l = loc->sub[slot];
    if (!reent) {
        loc->busy = 1;
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
    }
    if (__builtin_expect(l != NULL, 1)) {
        if (single || __builtin_expect(one != NULL, 1))
            one(l, t, region, NULL);
        else
            instr_cct_plugins_each(list, l, region, t, NULL);
    }
    if (!reent) {
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        loc->busy = 0;
    }
}

/* 1 when the enter of region was recorded here. */
static inline __attribute__((always_inline)) int try_enter(int single, int reent,
                                                           uint32_t region)
{
    instr_location *loc = instr_tls_loc;
    if (__builtin_expect(!instr_stack_push(loc, region), 0))
        return 0;
    call(loc, single, reent, one_enter, instr_plugins_enter_list, region, instr_clock_tsc());
    return 1;
}

/* 1 when the exit of region, the innermost open one, was recorded here. */
static inline __attribute__((always_inline)) int try_exit(int single, int reent,
                                                          uint32_t region)
{
    instr_location *loc = instr_tls_loc;
    uint32_t d = instr_stack_top_is(loc, region);
    if (__builtin_expect(d == 0, 0))
        return 0;
    uint64_t t = instr_clock_tsc();
    instr_loc_set_depth(loc, d - 1);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    call(loc, single, reent, one_exit, instr_plugins_exit_list, region, t);
    return 1;
}

/* The four functions instr_event_path_table gets, for any lists (`single` 0) or one function per
 * list (1), for plugins that are reentrant (`reent` 1) or not. */
#define DIRECT_ENTRY_POINTS(suffix, single, reent)                                          \
    static inline __attribute__((always_inline)) int try_enter##suffix(uint32_t h)          \
    {                                                                                       \
        return try_enter(single, reent, h);                                                 \
    }                                                                                       \
    static inline __attribute__((always_inline)) int try_exit##suffix(uint32_t h)           \
    {                                                                                       \
        return try_exit(single, reent, h);                                                  \
    }                                                                                       \
    INSTR_STACK_PATH_ENTRY_POINTS(suffix, try_enter##suffix, try_exit##suffix)

DIRECT_ENTRY_POINTS(_lists, 0, 0)
DIRECT_ENTRY_POINTS(_one, 1, 0)
DIRECT_ENTRY_POINTS(_lists_r, 0, 1)
DIRECT_ENTRY_POINTS(_one_r, 1, 1)

void instr_plugins_direct_on(void)
{
    slot = instr_substrate_slot(&instr_plugins_substrate);
    const instr_substrate_region_fn *in = instr_plugins_enter_list, *out = instr_plugins_exit_list;
    one_enter = in[0] && !in[1] ? in[0] : NULL;
    one_exit = out[0] && !out[1] ? out[0] : NULL;
    int reent = instr_plugins_reentrant;
    if (one_enter && one_exit)
        instr_event_path_set(reent ? &ops_one_r : &ops_one);
    else
        instr_event_path_set(reent ? &ops_lists_r : &ops_lists);
}
