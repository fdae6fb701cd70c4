/* cct_events.c — the cursor path with events: the profile with a substrate that rides on the
 * cursor with its own enter and exit (INSTR_FAST_TABLE with INSTR_SUBSTRATE_CURSOR_EVENTS: the
 * critical path; core/event.h, cct.h).
 *
 * While the profile and that substrate are the only ones that want enter/exit and the timer
 * is the TSC, the cursor stays the thread's only stack: every event of the cursor reads the
 * clock once, does the cursor's steps and the substrate's common case inline (its location
 * data begins with an instr_xcharge, core/xcharge.h), or else calls the substrate's enter or
 * exit directly (instr_pstate.xenter/xexit) with the same time and region, instead of the
 * generic path's core stack and dispatch tables. The cursor's slow paths (cct.c) call them
 * for every frame they open or close (a new call path, frames closed by longjmp, unbalanced
 * exits, the end of a thread or of the program), so the substrate sees the same balanced
 * events at the same times as on the generic path.
 *
 * The cursor is taken while the substrate's state changes, as the generic path sets its busy
 * flag around the substrates: a signal handler's events meanwhile are dropped and counted.
 *
 * Hot: no locks, no allocation, no system call here; the substrate's functions are hot-path
 * functions under the same rules (substrate.h). */
#include "profile.h"
#include "../core/clock.h"
#include "../core/event.h"
#include "../core/xcharge.h"

void instr_cct_path_events(void)
{
    instr_event_path_set(&instr_cct_events_ops);
}

/* The substrate's own enter or exit, for an event whose charge it does itself (it holds the
 * cursor's inline charge off, or no region or too many are open), then `after` made the
 * cursor: out of line, so that the common event saves no registers for a call. */
static __attribute__((noinline, cold)) void call_then(instr_pstate *s, instr_pnode *after,
                                                      int enter, uint32_t region, uint64_t t)
{
    if (enter)
        s->xenter(s->xdata, region, t);
    else
        s->xexit(s->xdata, region, t);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    s->cursor = after;
}

/* The node n, instr_cct_next's: the cursor taken (one store: busy is the state's first
 * member), n's open visit and its time, the substrate's enter (inline in its common case),
 * n made the cursor. */
static inline __attribute__((always_inline)) void enter_node(instr_pstate *s, instr_pnode *n,
                                                             uintptr_t sp)
{
    s->cursor = &s->busy;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    n->child_ticks = 0;
    n->sp = sp;
    uint64_t t = instr_clock_tsc();
    n->t_enter = t;
    instr_xcharge *x = s->xdata;
    uint32_t d = x->depth;
    if (__builtin_expect(!instr_xcharge_inline(x, d), 0)) {
        call_then(s, n, 1, n->region, t);
        return;
    }
    instr_xcharge_enter(x, d, n->region, t);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    s->cursor = n;
}

/* The cursor taken, the node's statistics, the substrate's exit (inline in its common
 * case), the parent made the cursor. */
static inline __attribute__((always_inline)) void exit_node(instr_pstate *s, instr_pnode *n)
{
    uint64_t t = instr_clock_tsc();
    instr_pnode *parent = n->parent;
    s->cursor = &s->busy;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    instr_cct_close_in(n, parent, t);
    instr_xcharge *x = s->xdata;
    uint32_t d = x->depth;
    if (__builtin_expect(!instr_xcharge_inline(x, d), 0)) {
        call_then(s, parent, 0, n->region, t);
        return;
    }
    instr_xcharge_exit(x, d, t);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    s->cursor = parent;
}

INSTR_CCT_MODE_ENTRY_POINTS(events, enter_node, exit_node)
