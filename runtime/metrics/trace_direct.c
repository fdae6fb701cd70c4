/* trace_direct.c — the metrics and the trace alone on the core's stack (INSTR_FAST_TABLE with
 * the metrics substrate and the trace the only substrates that want enter/exit: the trace
 * with metrics and without the profile; core/event.h).
 *
 * The hooks and cyg jump through instr_event_path_table (core/event_path.h) to these
 * functions, which take the generic path's steps on the location's own stack of region
 * handles (core/stack_path.h) and then do what the two substrates do there, directly: the
 * metrics read by calling the plugins (instr_metrics_read_flat) into the location's values,
 * where the metrics substrate reads them, and those values and the event's Enter or Leave
 * appended to the trace's records at once (core/record.h), as trace/metric_events.c takes
 * them at every event: every metric of a flat reader is strictly synchronous. The busy flag
 * is set around both, as around the generic path's substrates: a signal handler's events
 * meanwhile are dropped and counted.
 *
 * A location whose reader is not flat (sources read through their read operation, other
 * types than uint64), or that lacks the metrics' or the trace's data, misses: every event of
 * it takes the generic path, with the same stack.
 *
 * Hot: no locks, no allocation, no system call (a plugin's getters must not make one either:
 * instr_metric_plugin.h). */
#include "metrics.h"
#include "../core/clock.h"
#include "../core/record.h"
#include "../core/stack_path.h"

#ifdef INSTR_RT_HAVE_TRACE
/* The calling thread's location and what its events need, taken at its first event here. */
typedef struct direct_loc {
    instr_location *loc;
    const instr_metric_reader *r;
    uint64_t *values;        /* the metrics substrate's values of the location */
    struct instr_tloc *rec;  /* the trace's location data */
    uint32_t nm;
} direct_loc;
/* Its loc is never NULL (before the first take, a location no thread has), so that a thread
 * without a location misses at the cache's compare, and a match names a location. */
static instr_location no_location;
static _Thread_local direct_loc tls_direct __attribute__((tls_model("initial-exec"))) = {
    .loc = &no_location};

/* 1 when loc's events can take this path (and tls_direct is loc's). */
__attribute__((noinline, cold)) static int take(instr_location *loc)
{
    if (!loc)
        return 0;
    const instr_metric_reader *r = instr_metrics_reader_of(loc);
    uint32_t nm = 0;
    uint64_t *values = instr_metrics_values_of(loc, &nm);
    struct instr_tloc *rec = instr_metrics_values_target(loc);
    if (!r || !r->flat || !values || !nm || !rec)
        return 0;
    tls_direct = (direct_loc){loc, r, values, rec, nm};
    return 1;
}

/* The event's values read and appended with its record w at t, loc's busy flag set around
 * both, as around the generic path's substrates. */
static inline __attribute__((always_inline)) void record(instr_location *loc, const direct_loc *c,
                                                         uint32_t w, uint64_t t)
{
    loc->busy = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    instr_metrics_read_flat(c->r, c->values);
    /* Read again after the plugin's call, which keeps fewer registers across it. */
    instr_record_append_values(c->rec, c->values, c->nm, w, t);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    loc->busy = 0;
}

/* 1 when the enter of region was recorded here. */
static inline __attribute__((always_inline)) int try_enter(uint32_t region)
{
    instr_location *loc = instr_tls_loc;
    const direct_loc *c = &tls_direct;
    if (__builtin_expect(c->loc != loc, 0) && !take(loc))
        return 0;
    if (!loc) /* never: the cache's loc is not NULL, nor is a location take() took */
        __builtin_unreachable();
    if (__builtin_expect(!instr_stack_push(loc, region), 0))
        return 0;
    uint64_t t = instr_clock_tsc();
    record(loc, c, (uint32_t)INSTR_TREC_ENTER << INSTR_TREC_KIND_SHIFT | region, t);
    return 1;
}

/* 1 when the exit of region, the innermost open one, was recorded here. */
static inline __attribute__((always_inline)) int try_exit(uint32_t region)
{
    instr_location *loc = instr_tls_loc;
    const direct_loc *c = &tls_direct;
    if (__builtin_expect(c->loc != loc, 0) && !take(loc))
        return 0;
    if (!loc) /* never, as above */
        __builtin_unreachable();
    uint32_t d = instr_stack_top_is(loc, region);
    if (__builtin_expect(d == 0, 0))
        return 0;
    uint64_t t = instr_clock_tsc();
    instr_loc_set_depth(loc, d - 1);
    record(loc, c, (uint32_t)INSTR_TREC_LEAVE << INSTR_TREC_KIND_SHIFT | region, t);
    return 1;
}

INSTR_STACK_PATH_ENTRY_POINTS(_trace, try_enter, try_exit)

void instr_metrics_trace_direct_on(void) { instr_event_path_set(&ops_trace); }
#endif
