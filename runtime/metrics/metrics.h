/* metrics.h — the run's metrics: sources (rusage, perf, PAPI, metric plugins) switched on by
 * INSTR_METRIC_* variables, and the per-thread array of the values of the synchronous ones.
 *
 * The model (docs/metrics.md): the metric set is fixed at start-up. Every strictly
 * synchronous and synchronous metric has an index in a dense per-thread array of 64-bit
 * values; the metrics substrate (the first in the dispatch order) refreshes that array at
 * every enter and exit of the thread, before the other substrates see the event, so the
 * profile (and later substrate plugins) read the values of that instant. Asynchronous
 * metrics have no index: their timestamped values go to the trace at the end (ASYNC_EVENT
 * plugins hand theirs over at the starting thread's events as well).
 *
 * When no metric is on, the substrate is not active: events keep their inline paths and
 * cost not one instruction more. */
#ifndef INSTR_RT_METRICS_H
#define INSTR_RT_METRICS_H

#include "../core/substrate.h"
#include "../include/instr_metric_plugin.h"

#include "../util/writer.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* One metric of the run. */
typedef struct instr_metric {
    char *name, *description, *unit;
    uint32_t base;
    int32_t exponent;
    uint32_t value_type, mode, semantics, synchronicity, scope;
    const char *source; /* "rusage", "perf", "papi" or the plugin's name */
} instr_metric;

/* One counter read by one call: a strictly synchronous plugin's (instr_metric_reader). */
typedef struct instr_metric_getter {
    uint64_t (*get)(int32_t id); /* the plugin's get_current_value */
    int32_t id;                  /* the thread's counter */
    uint32_t index;              /* in the values array */
} instr_metric_getter;

/* All counters of one source read by one call: a plugin's get_current_values, into
 * values[first .. first + n). */
typedef struct instr_metric_getmany {
    void (*get)(const int32_t *ids, uint32_t n, uint64_t *values);
    const int32_t *ids;
    uint32_t n, first;
} instr_metric_getmany;

/* A source of metrics: its operations and its instance data. */
typedef struct instr_metric_source instr_metric_source;
typedef struct instr_metric_source_ops {
    /* Per location, on its own thread: the thread's state (NULL: its values stay 0). */
    void *(*thread_begin)(instr_metric_source *src);
    /* Hot path: the thread's current values into out[0 .. src->n). t: now, in ticks. */
    void (*read)(instr_metric_source *src, void *thread, uint64_t *out, uint64_t t);
    /* Optional: a source whose values are calls of the plugin lists them, for the cursor
     * path to call directly instead of read: either one call for all (fills *many, whose
     * first is relative to the source, returns 0) or one getter per counter (at most src->n
     * into out, indices relative to the source; returns how many; a counter without one
     * keeps its value 0). */
    uint32_t (*getters)(instr_metric_source *src, void *thread, instr_metric_getter *out,
                        instr_metric_getmany *many);
    /* Optional (synchronous plugins): 1 when the read at time t brought values (the plugin
     * was asked), 0 when its minimum interval had not passed. NULL: every read does. */
    int (*fresh)(instr_metric_source *src, void *thread, uint64_t t);
    /* Asynchronous metrics: hand their values to `put` (metric index among the run's
     * asynchronous metrics, time, value), at the end. NULL: none. */
    void (*collect)(instr_metric_source *src,
                    void (*put)(void *arg, uint32_t async_index, uint64_t t, uint64_t v),
                    void *arg);
    /* Optional (ASYNC_EVENT plugins): the values collected so far, to `put` as above, at an
     * event (time t) of the thread that started the measurement; the source keeps to its
     * own least interval between two hand-overs. Never at the same time as `collect` or
     * another hand-over (metrics.c). NULL: values at the end only. */
    void (*at_event)(instr_metric_source *src, uint64_t t,
                     void (*put)(void *arg, uint32_t async_index, uint64_t t, uint64_t v),
                     void *arg);
    /* At the end, after everything was read (NULL: nothing to do). The source's data stays:
     * a thread the program did not join may still read until it sees the end. */
    void (*finish)(instr_metric_source *src);
} instr_metric_source_ops;

struct instr_metric_source {
    const instr_metric_source_ops *ops;
    void *ctx;
    uint32_t first, n;           /* its synchronous metrics: values[first .. first+n) */
    uint32_t async_first, async_n; /* its asynchronous metrics among instr_metrics_async */
};

/* The run's synchronous metrics, by index in the value array, and the asynchronous ones. */
extern instr_metric *instr_metrics_sync;
extern uint32_t instr_metrics_nsync;
extern instr_metric *instr_metrics_async;
extern uint32_t instr_metrics_nasync;

/* Sources add their metrics while the substrate starts (metrics.c): returns the new metric's
 * copy (strings copied), or NULL when out of memory. */
instr_metric *instr_metrics_add(const instr_metric *m);
/* A built-in source's counter: uint64, accumulated since the start, strictly synchronous,
 * per thread, base 10 (rusage, perf, PAPI). */
instr_metric *instr_metrics_add_counter(const char *name, const char *description,
                                        const char *unit, const char *source);
/* One value in text by its type, in a field of `width` (0: as short as it goes; profile.json,
 * profile.txt, the job profile). */
void instr_metric_fprint(instr_writer *f, uint32_t type, uint64_t v, int width);
/* Registers a source whose metrics were just added (first/n and async_first/async_n are
 * filled in from what it added since instr_metrics_source_begin). */
void instr_metrics_source_begin(void);
int instr_metrics_source_end(const instr_metric_source_ops *ops, void *ctx);

/* The built-in sources: parse the variable's value, add their metrics and register. A name
 * that is unknown or unavailable gets one line naming the variable, the name and why. */
void instr_metrics_rusage_init(const char *var, const char *spec);
void instr_metrics_perf_init(const char *var, const char *spec);
void instr_metrics_papi_init(const char *var, const char *spec);
/* INSTR_METRIC_PLUGINS. */
void instr_metrics_plugins_init(const char *var, const char *list);
/* An MPI job's MPI_Init: this process's rank in the job and on its host. Per-host metrics
 * are recorded by host rank 0, once metrics by rank 0; before (and outside a job) every
 * process is responsible. Calls the asynchronous plugins' start synchronize. */
void instr_metrics_elect(int world_rank, int host_rank);

/* Splits a comma-separated list: calls fn for every non-empty item (blanks around it
 * trimmed). */
void instr_metrics_each_item(const char *list, void (*fn)(void *arg, const char *item),
                             void *arg);

/* The substrate (before the recording substrates in the dispatch order,
 * runtime/compose/compose.c). */
extern const instr_substrate instr_metrics_substrate;
/* 1 when the substrate takes part in events (after its init): a synchronous metric is on, or
 * an ASYNC_EVENT plugin hands its values over at events of a traced run. 0: events keep the
 * paths they have without metrics. */
int instr_metrics_at_events(void);

/* A substrate that records the synchronous metrics' values at every event (the trace,
 * trace/metric_events.c) asks for them at its init: then, at every event of a location,
 * put(data, index, value) for each value read, `data` being the location's data of `sub`. */
typedef void (*instr_metric_value_put)(void *data, uint32_t index, uint64_t value);
void instr_metrics_record_values(const instr_substrate *sub, instr_metric_value_put put);
/* 1 when the metrics substrate itself has work at events beyond reading the synchronous
 * metrics (ASYNC_EVENT plugins hand their values over at the starting thread's events of a
 * traced run): then the substrate must see every event (the generic path). */
int instr_metrics_hands_over_at_events(void);

/* A thread's metric readings, flat (the cursor path with metrics, profile/cct_metrics.c):
 * strictly synchronous plugins are called directly (get_current_values once for all their
 * counters, else get_current_value per counter), the other sources (rusage, perf, PAPI,
 * synchronous plugins) read through their read operation. */
typedef struct instr_metric_reader {
    const instr_metric_getmany *one;  /* the only call when that is all (else NULL) */
    const instr_metric_getmany *many; /* nmany sources read by one call each */
    uint32_t nmany;
    uint32_t ng;
    const instr_metric_getter *g; /* ng getters, then one whose get is NULL */
    uint32_t nread;    /* sources read through their read operation (instr_metrics_read_sources) */
    void *thread;      /* the metrics substrate's per-thread data */
    int all_uint64;    /* every metric is of type uint64: the profile's sums need no type */
    int flat;          /* all_uint64 and nread 0: the cursor path's own loops serve */
} instr_metric_reader;

/* The sources read through their read operation, into out (indices of the values array), at
 * t (ticks). */
void instr_metrics_read_sources(const instr_metric_reader *r, uint64_t *out, uint64_t t);
/* The cursor path with metrics and records (profile/cct_metrics.c) records the values itself:
 * put(data, index, value) for each of `values` (the reader's thread's, read at t through r,
 * as instr_metrics_read reads them) that the trace takes at that event: every strictly
 * synchronous metric, a synchronous plugin's only when it was asked at t. */
void instr_metrics_put_read(const instr_metric_reader *r, const uint64_t *values,
                            uint64_t t, instr_metric_value_put put, void *data);

/* A flat reader's plugins' calls, each (metrics.c). Out of line, so that the usual case, one
 * plugin that answers in one call, keeps few registers across its call. */
void instr_metrics_read_calls(const instr_metric_reader *r, uint64_t *out)
    __attribute__((visibility("hidden")));

/* Every synchronous metric's value now into out[0 .. instr_metrics_nsync), by a flat reader
 * (r->flat): the paths that read the metrics themselves (profile/cct_metrics.c,
 * trace_direct.c). With one plugin that answers in one call, a jump to it. */
static inline __attribute__((always_inline)) void instr_metrics_read_flat(
    const instr_metric_reader *r, uint64_t *out)
{
    const instr_metric_getmany *one = r->one;
    if (__builtin_expect(one != NULL, 1))
        one->get(one->ids, one->n, out + one->first);
    else
        instr_metrics_read_calls(r, out);
}

/* Every synchronous metric's value now into out[0 .. instr_metrics_nsync). */
static inline void instr_metrics_read(const instr_metric_reader *r, uint64_t *out, uint64_t t)
{
    for (uint32_t i = 0; i < r->nmany; i++)
        r->many[i].get(r->many[i].ids, r->many[i].n, out + r->many[i].first);
    for (const instr_metric_getter *g = r->g; g->get; g++)
        out[g->index] = g->get(g->id);
    if (__builtin_expect(r->nread != 0, 0))
        instr_metrics_read_sources(r, out, t);
}

/* The reader of `loc` (made at its start, on its thread), or NULL when no metric is on. */
instr_metric_reader *instr_metrics_reader_of(instr_location *loc);
/* 1 when r is the calling thread's (only its own thread can read its counters). */
int instr_metrics_reader_own(const instr_metric_reader *r);

/* The values of the strictly synchronous and synchronous metrics of `loc` as last read (on
 * the generic path at its latest enter or exit; on the cursor path with metrics, where the
 * values go straight to the profile's nodes, at its latest slow path), and their count; NULL
 * and 0 when no metric is on or the location has none. */
uint64_t *instr_metrics_values_of(instr_location *loc, uint32_t *n);
/* The location data of the substrate that records the values at every event (the trace,
 * instr_metrics_record_values) of loc, or NULL. */
void *instr_metrics_values_target(instr_location *loc);
#ifdef INSTR_RT_HAVE_TRACE
/* The metrics and the trace alone on the core's stack (trace_direct.c): sets
 * instr_event_path_table to its functions. */
void instr_metrics_trace_direct_on(void);
#endif
/* The same for the calling thread (for substrates that receive events of their own
 * thread). */
const uint64_t *instr_metrics_thread_values(uint32_t *n);

/* The asynchronous metrics' values, handed over at events (ASYNC_EVENT) and collected at
 * the end (before the trace is written), in time order once the end sorted them. */
typedef struct instr_metric_async_value {
    uint64_t t, value;
    uint32_t metric; /* index in instr_metrics_async */
} instr_metric_async_value;
typedef struct instr_metric_async_values {
    instr_metric_async_value *v;
    size_t n, cap, lost;
} instr_metric_async_values;
extern instr_metric_async_values instr_metrics_async_values;

/* Value arithmetic by type: the difference now - then, added to acc. */
static inline uint64_t instr_metric_add_delta(uint32_t type, uint64_t acc, uint64_t now,
                                              uint64_t then)
{
    if (__builtin_expect(type == INSTR_METRIC_DOUBLE, 0)) {
        double a, x, y;
        memcpy(&a, &acc, sizeof a);
        memcpy(&x, &now, sizeof x);
        memcpy(&y, &then, sizeof y);
        a += x - y;
        memcpy(&acc, &a, sizeof a);
        return acc;
    }
    return acc + (now - then); /* uint64 and int64 alike (two's complement) */
}

/* a < b by type. */
static inline int instr_metric_less(uint32_t type, uint64_t a, uint64_t b)
{
    if (type == INSTR_METRIC_DOUBLE) {
        double x, y;
        memcpy(&x, &a, sizeof x);
        memcpy(&y, &b, sizeof y);
        return x < y;
    }
    if (type == INSTR_METRIC_INT64)
        return (int64_t)a < (int64_t)b;
    return a < b;
}

/* Zero of the type. */
static inline uint64_t instr_metric_zero(uint32_t type)
{
    return type == INSTR_METRIC_DOUBLE ? instr_metric_value_of_double(0.0) : 0;
}

/* acc + v and acc - v by type. */
static inline uint64_t instr_metric_sum(uint32_t type, uint64_t acc, uint64_t v)
{
    return instr_metric_add_delta(type, acc, v, instr_metric_zero(type));
}

static inline uint64_t instr_metric_diff(uint32_t type, uint64_t acc, uint64_t v)
{
    return instr_metric_add_delta(type, instr_metric_zero(type), acc, v);
}

#endif
