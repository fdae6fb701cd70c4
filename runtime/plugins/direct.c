/* direct.c — the plugins alone on the core's stack (INSTR_FAST_METRICS with the plugins'
 * substrate the only one that wants enter/exit, INSTR_ENABLE_PROFILING=0; core/event.h).
 *
 * The adapters' slow paths jump through instr_cct_extra (profile/cct.h) to these functions,
 * which take the generic path's steps on the location's own stack of region handles (the
 * same stack, the same order of stores against signal handlers, the same busy flag) and then
 * call the plugins' null-terminated lists directly, with the TSC: no dispatch table, no
 * plugins' substrate in between. Everything unusual (the thread's first event, a full stack,
 * pause, an exit that is not the innermost open region's, a signal handler inside the
 * runtime) is a miss: the adapter's slow path, the generic path.
 *
 * By key (-finstrument-functions' addresses) nothing is known without the adapter's table:
 * those events miss at once.
 *
 * Hot: no locks, no allocation, no system call. */
#include "substrate_plugins.h"
#include "../core/event.h"

static int slot; /* the plugins' substrate's */
/* The list's function when it has one, else NULL. */
static instr_cct_plugin_fn one_enter, one_exit;

/* The plugins' functions (`one`, else every function of the list), called with the
 * location's busy flag set. */
static inline void call(instr_location *loc, instr_cct_plugin_fn one,
                        const instr_cct_plugin_fn *list, uint32_t region, uint64_t t)
{
    struct instr_substrate_location *l = loc->sub[slot];
    loc->busy = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (__builtin_expect(l != NULL, 1)) {
        if (__builtin_expect(one != NULL, 1))
            one(l, t, region, NULL);
        else
            instr_cct_plugins_each(list, l, region, t, NULL);
    }
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    loc->busy = 0;
}

static void enter_region(uintptr_t what, uintptr_t sp, instr_cct_enter_miss miss)
{
    instr_location *loc = instr_tls_loc;
    uint32_t region = (uint32_t)what;
    if (__builtin_expect(!loc || loc->busy || loc->depth == loc->cap ||
                             instr_state_get() != INSTR_STATE_RUNNING, 0)) {
        miss(what, sp);
        return;
    }
    /* Depth first: a handler arriving in between pushes above this frame, not onto it. */
    uint32_t d = loc->depth;
    loc->depth = d + 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    loc->stack[d] = region;
    call(loc, one_enter, instr_plugins_enter_list, region, instr_clock_tsc());
}

static void exit_region(uintptr_t what, instr_cct_exit_miss miss)
{
    instr_location *loc = instr_tls_loc;
    uint32_t region = (uint32_t)what;
    if (__builtin_expect(!loc || loc->busy || loc->depth == 0 ||
                             loc->stack[loc->depth - 1] != region ||
                             instr_state_get() != INSTR_STATE_RUNNING, 0)) {
        miss(what);
        return;
    }
    uint64_t t = instr_clock_tsc();
    loc->depth--;
    call(loc, one_exit, instr_plugins_exit_list, region, t);
}

static void enter_key(uintptr_t key, uintptr_t sp, instr_cct_enter_miss miss) { miss(key, sp); }
static void exit_key(uintptr_t key, instr_cct_exit_miss miss) { miss(key); }

void instr_plugins_direct_on(void)
{
    slot = instr_substrate_slot(&instr_plugins_substrate);
    const instr_substrate_region_fn *in = instr_plugins_enter_list, *out = instr_plugins_exit_list;
    one_enter = in[0] && !in[1] ? in[0] : NULL;
    one_exit = out[0] && !out[1] ? out[0] : NULL;
    instr_cct_extra = (instr_cct_extra_ops){
        .enter_key = enter_key,
        .exit_key = exit_key,
        .enter_region = enter_region,
        .exit_region = exit_region,
    };
}
