/* cct_metrics.c — the cursor path with metrics (INSTR_FAST_METRICS; core/event.h, cct.h).
 *
 * While the profile and the metrics substrate are the only substrates that want enter/exit,
 * the cursor stays the thread's only stack, as on the inline cursor path, and each event
 * costs one call here from the adapter's slow path: the cursor's steps, the clock, and the
 * metrics, read by calling each strictly synchronous plugin's getter directly (metrics.h,
 * instr_metric_reader): at enter into the node's enter words, at exit straight into the
 * visit's differences, sums, minimum and maximum (metric_sums.c has the node's layout).
 * Everything else (a new call path, unbalanced exits, longjmp, a signal handler inside a
 * slow path) takes the adapter's slow path, which ends in cct.c's slow paths, where the
 * metrics are read as well; so do sources without getters (rusage, perf, PAPI, synchronous
 * plugins) and metrics of other types than uint64, out of line.
 *
 * Hot: no locks, no allocation, no system call (a plugin's getter must not make one either:
 * instr_metric_plugin.h). */
#include "profile.h"
#include "../core/clock.h"
#include "../core/event.h"
#include "../metrics/metrics.h"

enum {
    INCL = INSTR_PNODE_M_INCL,
    ENTER = INSTR_PNODE_M_ENTER,
    MIN = INSTR_PNODE_M_MIN,
    MAX = INSTR_PNODE_M_MAX,
    F = INSTR_PNODE_M_FIELDS
};

/* Sources without getters, or other types: through the values array. */
__attribute__((noinline, cold)) static void enter_read(instr_pstate *s, instr_pnode *n)
{
    instr_metrics_read(s->mread, s->mvals, instr_clock_tsc());
    instr_pnode_metrics_enter(s, n);
    n->t_enter = instr_clock_tsc();
}

__attribute__((noinline, cold)) static void exit_read(instr_pstate *s, instr_pnode *n)
{
    instr_metrics_read(s->mread, s->mvals, instr_clock_tsc());
    instr_pnode_metrics_exit(s, n);
    instr_cct_pop(s, n, instr_clock_tsc());
}

/* The first visit of a node: its minimum is the visit's difference, whatever it is. */
__attribute__((noinline, cold)) static void exit_first(instr_pstate *s, instr_pnode *n)
{
    uint64_t *m = n->m;
    for (const instr_metric_getter *g = s->mread->g; g->get; g++) {
        uint64_t *v = m + g->index * F;
        uint64_t d = g->get(g->id) - v[ENTER];
        v[INCL] += d;
        v[MIN] = v[MAX] = d;
    }
    instr_cct_pop(s, n, instr_clock_tsc());
}

/* The clock is read after the metrics at enter and at exit: a region's time holds one
 * reading of the metrics (its exit's), as a callee's holds one of its parent's. */
static inline __attribute__((always_inline)) void enter_node(instr_pstate *s, instr_pnode *n)
{
    const instr_metric_reader *r = s->mread;
    if (__builtin_expect(!r->flat, 0)) {
        enter_read(s, n);
        return;
    }
    uint64_t *m = n->m;
    for (const instr_metric_getter *g = r->g; g->get; g++)
        m[g->index * F + ENTER] = g->get(g->id);
    n->t_enter = instr_clock_tsc();
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
    uint64_t *m = n->m;
    for (const instr_metric_getter *g = r->g; g->get; g++) {
        uint64_t v = g->get(g->id);
        uint64_t *w = m + g->index * F;
        uint64_t d = v - w[ENTER];
        w[INCL] += d;
        if (d < w[MIN])
            w[MIN] = d;
        if (d > w[MAX])
            w[MAX] = d;
    }
    instr_cct_pop(s, n, instr_clock_tsc());
}

void instr_cct_metrics_enter_key(uintptr_t key, uintptr_t sp, instr_cct_enter_miss miss)
{
    instr_pstate *s = instr_tls_cct;
    instr_pnode *n = instr_cct_push(s, 1, key, sp);
    if (__builtin_expect(!n, 0)) {
        miss(key, sp);
        return;
    }
    enter_node(s, n);
}

void instr_cct_metrics_exit_key(uintptr_t key, instr_cct_exit_miss miss)
{
    instr_pstate *s = instr_tls_cct;
    instr_pnode *n = instr_cct_top(s, 1, key);
    if (__builtin_expect(!n, 0)) {
        miss(key);
        return;
    }
    exit_node(s, n);
}

void instr_cct_metrics_enter_region(uintptr_t region, uintptr_t sp, instr_cct_enter_miss miss)
{
    instr_pstate *s = instr_tls_cct;
    instr_pnode *n = instr_cct_push(s, 0, region, sp);
    if (__builtin_expect(!n, 0)) {
        miss(region, sp);
        return;
    }
    enter_node(s, n);
}

void instr_cct_metrics_exit_region(uintptr_t region, instr_cct_exit_miss miss)
{
    instr_pstate *s = instr_tls_cct;
    instr_pnode *n = instr_cct_top(s, 0, region);
    if (__builtin_expect(!n, 0)) {
        miss(region);
        return;
    }
    exit_node(s, n);
}
