/* cct_counts.c — the cursor path with counts: the profile (and perhaps the trace) with
 * run-time throttling armed (INSTR_FAST_TABLE with the counting substrate; core/event.h,
 * cct.h).
 *
 * While throttling (the substrate with INSTR_SUBSTRATE_COUNTS) rides before the profile, and
 * the trace perhaps after it, and the timer is the TSC, the cursor stays the thread's only
 * stack: every node points to its region's counts on the thread (instr_rcount, cursor.h),
 * which an enter and an exit update inline (the open frames, the outermost frames' time,
 * and `left`, the exits until throttling looks at the region again: its threshold of
 * visits, then every exit while the region is above its time per visit). Only when `left`
 * runs out does an exit call the substrate (instr_cct_counts_reached); the cursor's slow
 * paths (cct.c) update the counts of the frames they open and close. So throttling decides
 * at the same exits, from the same counts, as on the generic path (docs/runtime.md,
 * "Throttling").
 *
 * Hot: no locks, no allocation, no system call (the counts are made with the node, on the
 * slow path). */
#include "profile.h"
#include "../core/clock.h"
#include "../core/event.h"
#include "../core/record.h"

void instr_cct_path_counts(int records)
{
#ifdef INSTR_RT_HAVE_TRACE
    if (records) {
        instr_event_path_set(&instr_cct_counts_trace_ops);
        return;
    }
#else
    (void)records;
#endif
    instr_event_path_set(&instr_cct_counts_ops);
}

/* The node n, instr_cct_next's: its frame claimed (the cursor first), its time, its enter
 * counted. */
static inline __attribute__((always_inline)) void enter_node(instr_pstate *s, instr_pnode *n,
                                                             uintptr_t sp)
{
    instr_cct_claim(s, n, sp);
    n->t_enter = instr_clock_tsc();
    instr_rcount_enter(n->rc);
}

/* The node's statistics and its exit counted, the parent made the cursor. */
static inline __attribute__((always_inline)) void exit_steps(instr_pstate *s, instr_pnode *n,
                                                             uint64_t t)
{
    instr_pnode *parent = n->parent;
    instr_rcount_exit(n->rc, instr_cct_close_in(n, parent, t));
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    s->cursor = parent;
}

/* An exit whose counts ran out: its steps, then throttling's look at the counts (out of
 * line, so that the common exit tests `left` where it counts it down). */
static __attribute__((noinline, cold)) void exit_reached(instr_pstate *s, instr_pnode *n)
{
    uint64_t t = instr_clock_tsc();
    exit_steps(s, n, t);
    instr_cct_counts_reached(s, n, t);
}

static inline __attribute__((always_inline)) void exit_node(instr_pstate *s, instr_pnode *n)
{
    if (__builtin_expect(instr_rcount_left(n->rc), 0)) {
        exit_reached(s, n);
        return;
    }
    exit_steps(s, n, instr_clock_tsc());
}

/* By key (cyg), a node's key stays its function's address when throttling changes the
 * function's handle, which only the adapter's table has: the node matches only while the
 * table still gives its region (one lookup). */
#define KEY_STILL_REGION(n, what) ((n)->region == instr_cyg_handle(what))
#define COUNTS_ENTRY_POINTS(prefix, enter_node, exit_node)                              \
    INSTR_CCT_MODE_ENTRY_POINTS_KEYED(prefix, enter_node, exit_node, KEY_STILL_REGION)

COUNTS_ENTRY_POINTS(counts, enter_node, exit_node)

#ifdef INSTR_RT_HAVE_TRACE
/* With the trace's records too (cct_trace.c's steps): the cursor taken while the record is
 * appended. */
static inline __attribute__((always_inline)) void enter_node_rec(instr_pstate *s,
                                                                 instr_pnode *n, uintptr_t sp)
{
    s->cursor = &s->busy;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    n->child_ticks = 0;
    n->sp = sp;
    uint64_t t = instr_clock_tsc();
    n->t_enter = t;
    instr_rcount_enter(n->rc);
    instr_record_append(s->rec, (uint32_t)INSTR_TREC_ENTER << INSTR_TREC_KIND_SHIFT | n->region, t);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    s->cursor = n;
}

static inline __attribute__((always_inline)) void exit_steps_rec(instr_pstate *s,
                                                                 instr_pnode *n, uint64_t t)
{
    instr_pnode *parent = n->parent;
    s->cursor = &s->busy;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    instr_rcount_exit(n->rc, instr_cct_close_in(n, parent, t));
    instr_record_append(s->rec, (uint32_t)INSTR_TREC_LEAVE << INSTR_TREC_KIND_SHIFT | n->region, t);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    s->cursor = parent;
}

static __attribute__((noinline, cold)) void exit_reached_rec(instr_pstate *s, instr_pnode *n)
{
    uint64_t t = instr_clock_tsc();
    exit_steps_rec(s, n, t);
    instr_cct_counts_reached(s, n, t);
}

static inline __attribute__((always_inline)) void exit_node_rec(instr_pstate *s, instr_pnode *n)
{
    if (__builtin_expect(instr_rcount_left(n->rc), 0)) {
        exit_reached_rec(s, n);
        return;
    }
    exit_steps_rec(s, n, instr_clock_tsc());
}

COUNTS_ENTRY_POINTS(counts_trace, enter_node_rec, exit_node_rec)
#endif
