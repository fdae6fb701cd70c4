/* cct_metrics.c — the cursor path with metrics (INSTR_FAST_TABLE; core/event.h, cct.h).
 *
 * While the profile and the metrics substrate are the only substrates that want enter/exit,
 * the cursor stays the thread's only stack, as on the inline cursor path, and each event
 * costs one call here from the adapter's slow path: the cursor's steps, the clock, and the
 * metrics, read by calling the plugins directly (metrics.h, instr_metric_reader): a plugin's
 * get_current_values once for all its counters, or get_current_value per counter. At enter
 * they go to the node's enter row (with one such plugin, its call is the last step); at
 * exit to its exit row, whose differences to the enter row are added to the node's sums,
 * minimum and maximum (metric_sums.c has the node's rows). The clock is read before
 * the metrics at enter and after them at exit: a region's time holds its own two readings.
 *
 * Everything else (a new call path, unbalanced exits, longjmp, a signal handler inside a
 * slow path) takes the adapter's slow path, which ends in cct.c's slow paths, where the
 * metrics are read as well; so do sources the plugins' calls do not serve (rusage, perf,
 * PAPI, synchronous plugins) and metrics of other types than uint64, out of line here.
 *
 * With the trace as well (the cursor path with metrics and records, below): the same steps,
 * and each event's values and its Enter or Leave appended as the trace's records inline.
 *
 * Hot: no locks, no allocation, no system call (a plugin's getters must not make one either:
 * instr_metric_plugin.h). */
#include "profile.h"
#include "../core/clock.h"
#include "../core/event.h"
#include "../core/record.h"
#include "../metrics/metrics.h"

enum {
    INCL = INSTR_PNODE_M_INCL,
    ENTER = INSTR_PNODE_M_ENTER,
    MIN = INSTR_PNODE_M_MIN,
    MAX = INSTR_PNODE_M_MAX,
    EXIT = INSTR_PNODE_M_EXIT
};

/* A later visit's exit row (nm >= 1) into the node's sums, minimum and maximum; one pointer
 * walks all rows of the node. */
static inline __attribute__((always_inline)) void sums_add(uint64_t *m, size_t nm)
{
    uint64_t *v = m, *end = v + nm;
    do {
        uint64_t d = v[EXIT * nm] - v[ENTER * nm];
        v[INCL * nm] += d;
        if (d < v[MIN * nm])
            v[MIN * nm] = d;
        if (d > v[MAX * nm])
            v[MAX * nm] = d;
    } while (++v < end);
}

/* Sources read through their read operation, or types other than uint64; and substrate
 * plugins beside the metrics (s->ploc: the location's reader is a copy whose `flat` is 0,
 * cct_plugins.c, so that the flat path stays as it is without them), which see the values of
 * the node's rows. Into the node's own rows, never the location's values: a signal handler's
 * events in between touch other nodes only. */
__attribute__((noinline, cold)) static void enter_read(instr_pstate *s, instr_pnode *n)
{
    uint64_t t = instr_clock_tsc();
    uint64_t *m = n->m + ENTER * s->nm;
    n->t_enter = t;
    instr_metrics_read(s->mread, m, t);
    if (s->ploc)
        INSTR_CCT_PLUGINS_ENTER(s, n->region, t, m);
}

__attribute__((noinline, cold)) static void exit_read(instr_pstate *s, instr_pnode *n)
{
    uint64_t *now = n->m + EXIT * s->nm;
    instr_metrics_read(s->mread, now, instr_clock_tsc());
    uint64_t t = instr_clock_tsc();
    if (s->ploc)
        INSTR_CCT_PLUGINS_EXIT(s, n->region, t, now);
    instr_pnode_metrics_exit_at(n, s->nm, now);
    instr_cct_pop(s, n, t);
}

/* The first visit of a node: its least and greatest value are the visit's. */
__attribute__((noinline, cold)) static void exit_first(instr_pstate *s, instr_pnode *n)
{
    uint32_t nm = s->nm;
    uint64_t *m = n->m;
    instr_metrics_read_flat(s->mread, m + EXIT * nm);
    for (uint32_t i = 0; i < nm; i++) {
        uint64_t d = m[EXIT * nm + i] - m[ENTER * nm + i];
        m[INCL * nm + i] += d;
        m[MIN * nm + i] = m[MAX * nm + i] = d;
    }
    instr_cct_pop(s, n, instr_clock_tsc());
}

static inline __attribute__((always_inline)) void enter_node(instr_pstate *s, instr_pnode *n,
                                                             uintptr_t sp)
{
    instr_cct_claim(s, n, sp);
    const instr_metric_reader *r = s->mread;
    if (__builtin_expect(!r->flat, 0)) {
        enter_read(s, n);
        return;
    }
    n->t_enter = instr_clock_tsc();
    /* The last step: with one plugin that answers in one call, a jump to it. */
    instr_metrics_read_flat(r, n->m + ENTER * s->nm);
}

static inline __attribute__((always_inline)) void exit_node(instr_pstate *s, instr_pnode *n)
{
    const instr_metric_reader *r = s->mread;
    if (__builtin_expect(!r->flat, 0)) {
        exit_read(s, n);
        return;
    }
    if (__builtin_expect(n->s.visits == 0, 0)) {
        exit_first(s, n);
        return;
    }
    size_t nm = s->nm; /* at least 1 (s->mread is set) */
    instr_metrics_read_flat(r, n->m + EXIT * nm);
    sums_add(n->m, nm);
    instr_cct_pop(s, n, instr_clock_tsc());
}

INSTR_CCT_MODE_ENTRY_POINTS(metrics, enter_node, exit_node)

void instr_cct_path_metrics(void)
{
    instr_event_path_set(&instr_cct_metrics_ops);
}

#ifdef INSTR_RT_HAVE_TRACE
/* ---- with the trace's records too (the cursor path with metrics and records) ----
 *
 * The profile, the metrics substrate and the trace, nothing else, with the TSC: the steps
 * above, and each event's records appended inline (core/record.h) as the generic path gives
 * them to the trace (trace/metric_events.c): the values read at the event, then its Enter or
 * Leave at the node's time, reserved at once. The cursor is taken from the claim to the
 * append, as on the cursor path with records (cct_trace.c), so that a signal handler's
 * events meanwhile are dropped and counted. */

static void put_metric(void *rec, uint32_t index, uint64_t value)
{
    instr_record_append(rec, (uint32_t)INSTR_TREC_METRIC << INSTR_TREC_KIND_SHIFT | index, value);
}

void instr_cct_metrics_record(instr_pstate *s, const uint64_t *values, uint64_t t)
{
    instr_metrics_put_read(s->mread, values, t, put_metric, s->rec);
}

/* A reader that is not flat (sources read through their read operation, other types than
 * uint64): its values at t into the node's enter row, and those the trace takes at t (a
 * synchronous plugin's only where it was asked). The cursor is taken; n becomes it. */
__attribute__((noinline, cold)) static void enter_read_rec(instr_pstate *s, instr_pnode *n)
{
    uint64_t t = instr_clock_tsc();
    uint64_t *m = n->m + ENTER * s->nm;
    n->t_enter = t;
    instr_metrics_read(s->mread, m, t);
    instr_cct_metrics_record(s, m, t);
    instr_record_append(s->rec, (uint32_t)INSTR_TREC_ENTER << INSTR_TREC_KIND_SHIFT | n->region, t);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    s->cursor = n;
}

__attribute__((noinline, cold)) static void exit_read_rec(instr_pstate *s, instr_pnode *n)
{
    uint64_t *now = n->m + EXIT * s->nm;
    uint64_t t_read = instr_clock_tsc();
    instr_metrics_read(s->mread, now, t_read);
    uint64_t t = instr_clock_tsc();
    instr_pnode *parent = n->parent;
    instr_pnode_metrics_exit_at(n, s->nm, now);
    instr_cct_close_in(n, parent, t);
    instr_cct_metrics_record(s, now, t_read);
    instr_record_append(s->rec, (uint32_t)INSTR_TREC_LEAVE << INSTR_TREC_KIND_SHIFT | n->region, t);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    s->cursor = parent;
}

/* The first visit of a node, its exit row read: its least and greatest value are the
 * visit's. */
__attribute__((noinline, cold)) static void sums_first(uint64_t *m, uint32_t nm)
{
    for (uint32_t i = 0; i < nm; i++) {
        uint64_t d = m[EXIT * nm + i] - m[ENTER * nm + i];
        m[INCL * nm + i] += d;
        m[MIN * nm + i] = m[MAX * nm + i] = d;
    }
}

static inline __attribute__((always_inline)) void enter_node_rec(instr_pstate *s, instr_pnode *n,
                                                                 uintptr_t sp)
{
    const instr_metric_reader *r = s->mread;
    s->cursor = &s->busy;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    n->child_ticks = 0;
    n->sp = sp;
    if (__builtin_expect(!r->flat, 0)) {
        enter_read_rec(s, n);
        return;
    }
    n->t_enter = instr_clock_tsc();
    instr_metrics_read_flat(r, n->m + ENTER * s->nm);
    /* Every metric of a flat reader is strictly synchronous: all go to the trace. Read again
     * after the plugin's call, which keeps fewer registers across it. */
    uint32_t nm = s->nm;
    instr_record_append_values(s->rec, n->m + ENTER * nm, nm,
                               (uint32_t)INSTR_TREC_ENTER << INSTR_TREC_KIND_SHIFT | n->region,
                               n->t_enter);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    s->cursor = n;
}

static inline __attribute__((always_inline)) void exit_node_rec(instr_pstate *s, instr_pnode *n)
{
    const instr_metric_reader *r = s->mread;
    s->cursor = &s->busy;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (__builtin_expect(!r->flat, 0)) {
        exit_read_rec(s, n);
        return;
    }
    instr_metrics_read_flat(r, n->m + EXIT * s->nm);
    /* Read again after the plugin's call, which keeps fewer registers across it. */
    size_t nm = s->nm; /* at least 1 (s->mread is set) */
    uint64_t *now = n->m + EXIT * nm;
    if (__builtin_expect(n->s.visits == 0, 0)) {
        sums_first(n->m, (uint32_t)nm);
    } else {
        sums_add(n->m, nm);
    }
    uint64_t t = instr_clock_tsc();
    instr_pnode *parent = n->parent;
    instr_cct_close_in(n, parent, t);
    instr_record_append_values(s->rec, now, (uint32_t)nm,
                               (uint32_t)INSTR_TREC_LEAVE << INSTR_TREC_KIND_SHIFT | n->region, t);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    s->cursor = parent;
}

INSTR_CCT_MODE_ENTRY_POINTS(metrics_trace, enter_node_rec, exit_node_rec)

void instr_cct_path_metrics_trace(void)
{
    instr_event_path_set(&instr_cct_metrics_trace_ops);
}
#endif
