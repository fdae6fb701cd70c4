/* stack_path.h — the paths that keep the generic path's own stack of region handles
 * (event.h) but call their substrates directly, through instr_event_path_table
 * (event_path.h): the substrate plugins alone (plugins/direct.c), the metrics with the trace
 * (metrics/trace_direct.c). The same stack, the same order of stores against signal
 * handlers, the same busy flag as the generic path, which is where every event goes that
 * such a path does not take (a miss): the thread's first event, a full stack, an exit that is
 * not the innermost open region's, a signal handler inside the runtime.
 *
 * No test of the run's state: these functions are in the table only while it is running.
 * instr_pause and the end set the table to the misses before the state leaves
 * INSTR_STATE_RUNNING (and the flag off: the path is never taken again), and before the start
 * no thread has a location, whose absence is a miss. An event that still saw the table
 * before belongs to the time before, as with the flag (event_path.h).
 *
 * Hot: inlined into those paths' functions. */
#ifndef INSTR_RT_STACK_PATH_H
#define INSTR_RT_STACK_PATH_H

#include "event.h"
#include "event_path.h"

/* A region's handle, not a function not seen yet (0), excluded (UINT32_MAX) or draining
 * (throttling's bit, 0x80000000, throttle/throttle.h): region handles are 1 .. 0x7fffffff,
 * one compare. */
static inline int instr_stack_recorded(uint32_t h) { return h - 1u < 0x7fffffffu; }

/* 1 when region's frame was pushed onto loc's stack (the generic path's steps before its
 * substrates); 0: a miss, nothing done. */
static inline __attribute__((always_inline)) int instr_stack_push(instr_location *loc,
                                                                  uint32_t region)
{
    if (__builtin_expect(!loc || loc->busy, 0))
        return 0;
    uint32_t d = instr_loc_depth(loc);
    if (__builtin_expect(d == loc->cap, 0))
        return 0;
    /* Depth first: a handler arriving in between pushes above this frame, not onto it. */
    instr_loc_set_depth(loc, d + 1);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    instr_loc_set_frame(loc, d, region);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    return 1;
}

/* loc's depth when region's frame is its innermost open one (the caller reads the clock,
 * then pops it: instr_loc_set_depth(loc, depth - 1)); 0: a miss. */
static inline __attribute__((always_inline)) uint32_t instr_stack_top_is(instr_location *loc,
                                                                         uint32_t region)
{
    uint32_t d;
    if (__builtin_expect(!loc || loc->busy || (d = instr_loc_depth(loc)) == 0 ||
                             instr_loc_frame(loc, d - 1) != region, 0))
        return 0;
    return d;
}

/* The four functions instr_event_path_table gets for a path whose try_enter(region) and
 * try_exit(region) return 1 when they recorded the event: by the hooks' handle; by the
 * function's address (-finstrument-functions) with its handle from the adapter's table. A
 * miss goes to the adapter's slow path. */
#define INSTR_STACK_PATH_ENTRY_POINTS(suffix, try_enter, try_exit)                         \
    static void enter_region##suffix(INSTR_PATH_ENTER_ARGS)                                 \
    {                                                                                      \
        uint32_t h = (uint32_t)what;                                                       \
        if (__builtin_expect(!instr_stack_recorded(h) || !try_enter(h), 0))                \
            instr_hooks_enter_miss(ctx, what, s, sp);                                      \
    }                                                                                      \
    static void exit_region##suffix(INSTR_PATH_EXIT_ARGS)                                   \
    {                                                                                      \
        if (__builtin_expect(!try_exit((uint32_t)what), 0))                                \
            instr_hooks_exit_miss(s, what);                                                \
    }                                                                                      \
    static void enter_key##suffix(INSTR_PATH_ENTER_ARGS)                                    \
    {                                                                                      \
        uint32_t h = instr_cyg_handle(what);                                               \
        if (__builtin_expect(!instr_stack_recorded(h) || !try_enter(h), 0))                \
            instr_cyg_enter_miss(ctx, what, s, sp);                                        \
    }                                                                                      \
    static void exit_key##suffix(INSTR_PATH_EXIT_ARGS)                                      \
    {                                                                                      \
        uint32_t h = instr_cyg_handle(what);                                               \
        if (__builtin_expect(!instr_stack_recorded(h) || !try_exit(h), 0))                 \
            instr_cyg_exit_miss(s, what);                                                  \
    }                                                                                      \
    static const instr_event_path_ops ops##suffix = {                                      \
        .enter_key = enter_key##suffix,                                                    \
        .exit_key = exit_key##suffix,                                                      \
        .enter_region = enter_region##suffix,                                              \
        .exit_region = exit_region##suffix,                                                \
    };

#endif
