/* compose.c — the composition unit: the substrates and event sources this runtime has, and
 * the choice of each event path (core/compose.h; docs/architecture.md, "Composition").
 *
 * The one place that knows every substrate and source by name. A substrate joins with one
 * line in `substrates` below, a source that offers operations with one line in `sources`;
 * the event core reads both through instr_runtime_composition and knows neither. The event
 * path is chosen from the fast paths the active substrates declare (instr_substrate
 * .fast_paths), never by who they are. */
#include "../core/compose.h"
#include "../core/clock.h"
#include "../core/core.h"
#include "../core/log.h"
#include "../adapters/cyg.h"
#include "../adapters/hooks.h"
#include "../critpath/critpath.h"
#include "../kokkos/kokkos.h"
#include "../openacc/openacc.h"
#include "../metrics/metrics.h"
#include "../plugins/substrate_plugins.h"
#include "../profile/profile.h"
#ifdef INSTR_RT_HAVE_SAMPLING
#include "../sampling/sampling.h"
#endif
#include "../throttle/throttle.h"
#ifdef INSTR_RT_HAVE_TRACE
#include "../trace/trace.h"
#endif
#include "../../xray_adapter/xray_report.h"
#include "../../xray_adapter/xray_throttle.h"

/* The substrates, in dispatch order. The metrics substrate comes before the ones that record
 * events: it reads the metric values of an event before the others see it (active only when
 * a metric is on, so the inline paths stay as they are otherwise). */
static const instr_substrate *const substrates[] = {
    /* Throttling counts an event before anyone records it (active only with INSTR_THROTTLE
     * set; it keeps every event on the generic path). */
    &instr_throttle_substrate,
    &instr_metrics_substrate,
#ifdef INSTR_RT_HAVE_SAMPLING
    /* INSTR_SAMPLING=1 only; no events: before the profile, whose trees its end fills in. */
    &instr_sampling_substrate,
#endif
    &instr_profile_substrate,
#ifdef INSTR_RT_HAVE_TRACE
    &instr_trace_substrate,
#endif
    &instr_plugins_substrate, /* INSTR_SUBSTRATE_PLUGINS; not active without a plugin */
    &instr_xray_substrate, /* no events: writes xray.txt when the program has XRay */
    &instr_critpath_substrate, /* INSTR_CRITICAL_PATH=1 only */
};
_Static_assert(sizeof substrates / sizeof *substrates <= INSTR_MAX_SUBSTRATES,
               "INSTR_MAX_SUBSTRATES (core/substrate.h) must hold every substrate");

/* The event sources that offer operations to others (core/sources.h). */
static const instr_source *const sources[] = {
    &instr_hooks_source,
    &instr_cyg_source,
    &instr_xray_source,
    &instr_kokkos_source, /* start: names the runtime for Kokkos (docs/kokkos.md) */
    &instr_openacc_source, /* start: registers for OpenACC's events (docs/openacc.md) */
};

static unsigned paths_of(const instr_dispatch *d) { return instr_active[d->slot]->fast_paths; }

/* 1 when the dispatch table tab (n entries) holds one substrate with `flag` and nothing else. */
static int alone(const instr_dispatch *tab, unsigned n, unsigned flag)
{
    return n == 1 && (paths_of(&tab[0]) & flag);
}

/* 1 when the dispatch table tab (n entries) holds the cursor's substrate and nothing else but
 * one that rides before it and one that rides after it (their order in `substrates`): the
 * cursor path with extras can serve its events. */
static int cursor_with_extras(const instr_dispatch *tab, unsigned n)
{
    unsigned i = 0;
    if (i < n && (paths_of(&tab[i]) & INSTR_SUBSTRATE_CURSOR_BEFORE))
        i++;
    if (i == n || !(paths_of(&tab[i]) & INSTR_SUBSTRATE_CURSOR))
        return 0;
    i++;
    if (i < n && (paths_of(&tab[i]) & INSTR_SUBSTRATE_CURSOR_AFTER))
        i++;
    return i == n;
}

/* 1 when the dispatch table tab (n entries) holds the cursor's substrate and then the
 * records' substrate, nothing else. */
static int cursor_with_records(const instr_dispatch *tab, unsigned n)
{
    return n == 2 && (paths_of(&tab[0]) & INSTR_SUBSTRATE_CURSOR) &&
           (paths_of(&tab[1]) & INSTR_SUBSTRATE_RECORDS);
}

/* 1 when the dispatch table tab (n entries) holds the metrics (the one that rides before the
 * cursor), the cursor's substrate and then the records' substrate, nothing else. */
static int cursor_with_metrics_records(const instr_dispatch *tab, unsigned n)
{
    return n == 3 && (paths_of(&tab[0]) & INSTR_SUBSTRATE_CURSOR_BEFORE) &&
           cursor_with_records(tab + 1, 2);
}

/* 1 when the dispatch table tab (n entries) holds the metrics and then the records'
 * substrate, nothing else (the trace with metrics, without the profile). */
static int metrics_with_records(const instr_dispatch *tab, unsigned n)
{
    return n == 2 && (int)tab[0].slot == instr_substrate_slot(&instr_metrics_substrate) &&
           (paths_of(&tab[1]) & INSTR_SUBSTRATE_RECORDS);
}

/* 1 when the dispatch table tab (n entries) holds the counting substrate, the cursor's and
 * perhaps then the records' substrate, nothing else; *records: with the records'. */
static int cursor_with_counts(const instr_dispatch *tab, unsigned n, int *records)
{
    if (n < 2 || n > 3 || !(paths_of(&tab[0]) & INSTR_SUBSTRATE_COUNTS) ||
        !(paths_of(&tab[1]) & INSTR_SUBSTRATE_CURSOR))
        return 0;
    *records = n == 3;
    return n == 2 || (paths_of(&tab[2]) & INSTR_SUBSTRATE_RECORDS);
}

/* 1 when the dispatch table tab (n entries) holds the cursor's substrate and then one with
 * its own events on the cursor, nothing else. */
static int cursor_with_events(const instr_dispatch *tab, unsigned n)
{
    return n == 2 && (paths_of(&tab[0]) & INSTR_SUBSTRATE_CURSOR) &&
           (paths_of(&tab[1]) & INSTR_SUBSTRATE_CURSOR_EVENTS);
}

/* 1 when every entry of the table (perhaps none) is a substrate with `flag`. */
static int only(const instr_dispatch *tab, unsigned n, unsigned flag)
{
    return n <= 1 && (n == 0 || (paths_of(&tab[0]) & flag));
}

static void choose_paths(void)
{
    int rec_in = 0, rec_out = 0;
    /* The cursor's substrate alone: the cursor is the stack and events take the inline
     * cursor path (event.h); with another timer than the TSC, the same cursor out of line. */
    if (alone(instr_enter_tab, instr_n_enter, INSTR_SUBSTRATE_CURSOR) &&
        alone(instr_exit_tab, instr_n_exit, INSTR_SUBSTRATE_CURSOR)) {
        /* The framed sources jump to the cursor's steps with that clock (profile/cct_clock.c);
         * the others take the core's slow path, which does the same. */
        if (!instr_clock_use_tsc)
            instr_cct_path_clock();
        __atomic_store_n(&instr_fast, instr_clock_use_tsc ? INSTR_FAST_INLINE : INSTR_FAST_CURSOR,
                         __ATOMIC_RELEASE);
    }
    /* The cursor with the metrics, substrate plugins or both, with the TSC: the cursor path
     * with metrics, which also calls the plugins (profile/cct_metrics.c). */
    else if (instr_clock_use_tsc && cursor_with_extras(instr_enter_tab, instr_n_enter) &&
             cursor_with_extras(instr_exit_tab, instr_n_exit)) {
        int metrics = (paths_of(&instr_enter_tab[0]) & INSTR_SUBSTRATE_CURSOR_BEFORE) ||
                      (paths_of(&instr_exit_tab[0]) & INSTR_SUBSTRATE_CURSOR_BEFORE);
        int plugins = instr_substrate_slot(&instr_plugins_substrate) >= 0;
        /* Plugins without metrics: the plugins' own functions (cct_plugins.c), without a
         * test of the lists when each has one function, and called last when they are
         * reentrant. */
        if (!metrics)
            instr_cct_path_plugins(instr_plugins_enter_list[0] && !instr_plugins_enter_list[1] &&
                                       instr_plugins_exit_list[0] && !instr_plugins_exit_list[1],
                                   instr_plugins_reentrant);
        else
            instr_cct_path_metrics();
        instr_info(1, "events: the profile's cursor path with %s%s",
                   metrics && plugins ? "metrics and substrate plugins"
                                      : metrics ? "metrics" : "substrate plugins",
                   plugins && instr_plugins_reentrant ? " (reentrant)" : "");
        __atomic_store_n(&instr_fast, INSTR_FAST_TABLE, __ATOMIC_RELEASE);
    }
#ifdef INSTR_RT_HAVE_TRACE
    /* The metrics, the cursor and the records (the profile and the trace with synchronous
     * metrics) with the TSC, when the metrics substrate has nothing else to do at events:
     * the cursor path with metrics and records, which appends the values and the events
     * itself (profile/cct_metrics.c). */
    else if (instr_clock_use_tsc && cursor_with_metrics_records(instr_enter_tab, instr_n_enter) &&
             cursor_with_metrics_records(instr_exit_tab, instr_n_exit) &&
             !instr_metrics_hands_over_at_events()) {
        instr_cct_path_metrics_trace();
        instr_info(1, "events: the profile's cursor path with metrics and the trace's records");
        __atomic_store_n(&instr_fast, INSTR_FAST_TABLE, __ATOMIC_RELEASE);
    }
    /* The cursor and the records (the profile and the trace), with any timer: the cursor path
     * with records, which appends the records itself (profile/cct_trace.c). */
    else if (cursor_with_records(instr_enter_tab, instr_n_enter) &&
             cursor_with_records(instr_exit_tab, instr_n_exit)) {
        instr_cct_path_trace();
        instr_info(1, "events: the profile's cursor path with the trace's records, timer %s",
                   instr_clock_name());
        __atomic_store_n(&instr_fast, INSTR_FAST_TABLE, __ATOMIC_RELEASE);
    }
    /* The metrics and the records (the trace with synchronous metrics, without the profile)
     * with the TSC, when the metrics substrate has nothing else to do at events: the core's
     * stack, and the metrics and the records directly (metrics/trace_direct.c). */
    else if (instr_clock_use_tsc && metrics_with_records(instr_enter_tab, instr_n_enter) &&
             metrics_with_records(instr_exit_tab, instr_n_exit) &&
             !instr_metrics_hands_over_at_events()) {
        instr_metrics_trace_direct_on();
        instr_info(1, "events: the metrics and the trace's records on the core's stack");
        __atomic_store_n(&instr_fast, INSTR_FAST_TABLE, __ATOMIC_RELEASE);
    }
#endif
    /* The counting substrate (throttling) before the cursor, perhaps with the records after
     * it, with the TSC: the cursor path with counts (profile/cct_counts.c). */
    else if (instr_clock_use_tsc && cursor_with_counts(instr_enter_tab, instr_n_enter, &rec_in) &&
             cursor_with_counts(instr_exit_tab, instr_n_exit, &rec_out) && rec_in == rec_out) {
        instr_cct_path_counts(rec_in);
        instr_info(1, "events: the profile's cursor path with throttling's counts%s",
                   rec_in ? " and the trace's records" : "");
        __atomic_store_n(&instr_fast, INSTR_FAST_TABLE, __ATOMIC_RELEASE);
    }
    /* The cursor and a substrate with its own events on it (the critical path) with the TSC:
     * the cursor path with events, which calls that substrate's enter and exit itself
     * (profile/cct_events.c). */
    else if (instr_clock_use_tsc && cursor_with_events(instr_enter_tab, instr_n_enter) &&
             cursor_with_events(instr_exit_tab, instr_n_exit)) {
        instr_cct_path_events();
        instr_info(1, "events: the profile's cursor path with the critical path's events");
        __atomic_store_n(&instr_fast, INSTR_FAST_TABLE, __ATOMIC_RELEASE);
    }
    /* Substrate plugins alone with the TSC: the adapters' slow paths call them directly, on
     * the core's stack (plugins/direct.c). */
    else if (instr_clock_use_tsc &&
             only(instr_enter_tab, instr_n_enter, INSTR_SUBSTRATE_DIRECT_ALONE) &&
             only(instr_exit_tab, instr_n_exit, INSTR_SUBSTRATE_DIRECT_ALONE)) {
        instr_plugins_direct_on();
        instr_info(1, "events: substrate plugins alone, called directly");
        __atomic_store_n(&instr_fast, INSTR_FAST_TABLE, __ATOMIC_RELEASE);
    }
#ifdef INSTR_RT_HAVE_TRACE
    /* The records' substrate (the trace) alone: the sources append its records directly
     * (event.h), inline with the TSC; with another timer, the hooks through the jump table and
     * the other sources through their slow paths, with that clock. */
    else if (alone(instr_enter_tab, instr_n_enter, INSTR_SUBSTRATE_RECORDS) &&
             alone(instr_exit_tab, instr_n_exit, INSTR_SUBSTRATE_RECORDS)) {
        int expected = INSTR_FAST_OFF;
        int flag = instr_clock_use_tsc ? INSTR_FAST_TRACE : INSTR_FAST_TRACE_CLOCK;
        /* The hooks' way there first: with the flag still off, a thread is not on the direct
         * path (instr_tls_trace is NULL) and its events take the slow path from there. */
        instr_event_path_set(&(instr_event_path_ops){
            .enter_key = instr_cyg_enter_miss,
            .exit_key = instr_cyg_exit_miss,
            .enter_region = instr_clock_use_tsc ? instr_hooks_trace_enter
                                                : instr_hooks_trace_enter_clock,
            .exit_region = instr_clock_use_tsc ? instr_hooks_trace_exit
                                               : instr_hooks_trace_exit_clock,
        });
        if (instr_core_direct_allowed())
            __atomic_compare_exchange_n(&instr_fast, &expected, flag, 0, __ATOMIC_SEQ_CST,
                                        __ATOMIC_SEQ_CST);
        if (!instr_core_direct_allowed()) /* refused meanwhile */
            instr_core_direct_off();
        if (__atomic_load_n(&instr_fast, __ATOMIC_SEQ_CST) != flag)
            instr_event_path_misses();
        else
            instr_info(1, "events: the trace's records appended by the sources, timer %s",
                       instr_clock_name());
    }
#endif
}

const instr_composition instr_runtime_composition = {
    .substrates = substrates,
    .nsubstrates = sizeof substrates / sizeof *substrates,
    .sources = sources,
    .nsources = sizeof sources / sizeof *sources,
    .choose_paths = choose_paths,
#ifdef INSTR_RT_HAVE_SAMPLING
    .started = instr_sampling_started,
#endif
};
