/* metrics.c — the run's metric set and the metrics substrate: reads the values of the
 * synchronous metrics at every enter and exit of a thread, before the other substrates see
 * the event (it is first in the dispatch order), takes the values ASYNC_EVENT plugins hand
 * over at the events of the thread that started the measurement, and collects the
 * asynchronous metrics' values at the end for the trace. */
#include "metrics.h"
#include "../core/config.h"
#include "../core/core.h"
#include "../core/log.h"
#ifdef INSTR_RT_HAVE_TRACE
#include "../util/array.h"
#include "../util/pages.h"
#include "../util/sort.h"
#endif

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

instr_metric *instr_metrics_sync;
uint32_t instr_metrics_nsync;
instr_metric *instr_metrics_async;
uint32_t instr_metrics_nasync;

#define MAX_SOURCES 32
static instr_metric_source sources[MAX_SOURCES];
static uint32_t nsources;
static uint32_t begin_sync, begin_async;
/* Sources that hand values over at events (ops->at_event), and the thread that takes them:
 * the one that started the measurement, where asynchronous plugins added their counters. */
static uint32_t nat_event;
static int start_tid;
/* 1 while values are handed over (at an event or at the end): one at a time, and a signal
 * handler's event meanwhile does not wait. */
static int handing;

/* Per location. */
typedef struct metrics_loc {
    uint64_t *values;
    void *threads[MAX_SOURCES];
    instr_location *loc;
    instr_metric_reader reader;
    instr_metric_getter *getters;
    instr_metric_getmany *many;
    uint8_t by_read[MAX_SOURCES]; /* read through ops->read on the cursor path */
    int hands_over; /* the starting thread of a traced run with ASYNC_EVENT plugins */
} metrics_loc;

/* The substrate that records the values at every event (the trace, trace/metric_events.c),
 * which asked for them at its init (instr_metrics_record_values), its slot once known, else
 * -1, and how it takes a value. */
static const instr_substrate *values_sub;
static instr_metric_value_put values_put;
static int values_slot = -1;

void instr_metrics_record_values(const instr_substrate *sub, instr_metric_value_put put)
{
    values_put = put;
    __atomic_store_n(&values_sub, sub, __ATOMIC_RELEASE);
}

static _Thread_local metrics_loc *tls_metrics __attribute__((tls_model("initial-exec")));

static char *dup_or_empty(const char *s) { return instr_mem_strdup(s ? s : ""); }

instr_metric *instr_metrics_add(const instr_metric *m)
{
    int sync = m->synchronicity == INSTR_METRIC_STRICTLY_SYNC ||
               m->synchronicity == INSTR_METRIC_SYNC;
    instr_metric **list = sync ? &instr_metrics_sync : &instr_metrics_async;
    uint32_t *n = sync ? &instr_metrics_nsync : &instr_metrics_nasync;
    instr_metric *grown = instr_mem_realloc(*list, (*n + 1) * sizeof *grown);
    if (!grown)
        return NULL;
    *list = grown;
    instr_metric *c = &grown[*n];
    *c = *m;
    c->name = dup_or_empty(m->name);
    c->description = dup_or_empty(m->description);
    c->unit = dup_or_empty(m->unit);
    if (!c->name || !c->description || !c->unit) {
        instr_mem_free(c->name);
        instr_mem_free(c->description);
        instr_mem_free(c->unit);
        return NULL;
    }
    if (c->base != 2)
        c->base = 10;
    ++*n;
    return c;
}

instr_metric *instr_metrics_add_counter(const char *name, const char *description,
                                        const char *unit, const char *source)
{
    instr_metric m = {
        .name = (char *)name,
        .description = (char *)description,
        .unit = (char *)unit,
        .base = 10,
        .value_type = INSTR_METRIC_UINT64,
        .mode = INSTR_METRIC_ACCUMULATED,
        .semantics = INSTR_METRIC_START,
        .synchronicity = INSTR_METRIC_STRICTLY_SYNC,
        .scope = INSTR_METRIC_PER_THREAD,
        .source = source,
    };
    return instr_metrics_add(&m);
}

void instr_metric_fprint(instr_writer *f, uint32_t type, uint64_t v, int width)
{
    if (type == INSTR_METRIC_DOUBLE) {
        double d;
        memcpy(&d, &v, sizeof d);
        if (width)
            instr_wr_printf(f, "%*.6g", width, d);
        else
            instr_wr_printf(f, "%.17g", d);
    } else if (type == INSTR_METRIC_INT64) {
        instr_wr_printf(f, "%*lld", width, (long long)v);
    } else {
        instr_wr_printf(f, "%*llu", width, (unsigned long long)v);
    }
}

void instr_metrics_source_begin(void)
{
    begin_sync = instr_metrics_nsync;
    begin_async = instr_metrics_nasync;
}

int instr_metrics_source_end(const instr_metric_source_ops *ops, void *ctx)
{
    if (nsources == MAX_SOURCES) {
        instr_warn("more than %d metric sources: the later ones are left out", MAX_SOURCES);
        instr_metrics_nsync = begin_sync;
        instr_metrics_nasync = begin_async;
        return -1;
    }
    if (ops->at_event)
        nat_event++;
    sources[nsources++] = (instr_metric_source){
        .ops = ops,
        .ctx = ctx,
        .first = begin_sync,
        .n = instr_metrics_nsync - begin_sync,
        .async_first = begin_async,
        .async_n = instr_metrics_nasync - begin_async,
    };
    return 0;
}

void instr_metrics_each_item(const char *list, void (*fn)(void *arg, const char *item),
                             void *arg)
{
    const char *p = list;
    while (p && *p) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        while (len && (*p == ' ' || *p == '\t')) {
            p++;
            len--;
        }
        while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
            len--;
        if (len) {
            char *item = instr_mem_strndup(p, len);
            if (item) {
                fn(arg, item);
                instr_mem_free(item);
            }
        }
        p = e ? e + 1 : NULL;
    }
}

static const char *nonempty_env(const char *name)
{
    const char *v = instr_env(name);
    return v && *v ? v : NULL;
}

static int wanted(void)
{
    return nonempty_env("INSTR_METRIC_RUSAGE") || nonempty_env("INSTR_METRIC_PERF") ||
           nonempty_env("INSTR_METRIC_PAPI") || nonempty_env("INSTR_METRIC_PLUGINS");
}

/* Once per run: what the profile and the trace will and will not show. */
static void say_where_values_go(void)
{
    for (uint32_t i = 0; i < instr_metrics_nsync; i++) {
        const instr_metric *m = &instr_metrics_sync[i];
        instr_info(1, "metric %s (%s, %s): on", m->name, m->source, m->unit);
        if (m->mode == INSTR_METRIC_ABSOLUTE && instr_cfg.enable_profiling)
            instr_warn("metric %s (%s) gives absolute values: the profile sums only "
                       "accumulated metrics, so it is recorded in the trace only "
                       "(INSTR_ENABLE_TRACING=1)",
                       m->name, m->source);
    }
    if (instr_metrics_nasync)
        instr_warn("%u asynchronous metric%s (%s%s): recorded in the trace only%s",
                   instr_metrics_nasync, instr_metrics_nasync == 1 ? "" : "s",
                   instr_metrics_async[0].name, instr_metrics_nasync > 1 ? ", ..." : "",
                   instr_cfg.enable_tracing ? "" : "; this run writes no trace "
                                                   "(INSTR_ENABLE_TRACING=1 does)");
}

/* ASYNC_EVENT values matter for the trace only. */
static int hands_over_at_events(void) { return nat_event > 0 && instr_cfg.enable_tracing; }

int instr_metrics_at_events(void) { return instr_metrics_nsync > 0 || hands_over_at_events(); }

int instr_metrics_hands_over_at_events(void) { return hands_over_at_events(); }

static int init(void)
{
    const char *v;
    start_tid = (int)gettid();
    if ((v = nonempty_env("INSTR_METRIC_RUSAGE")))
        instr_metrics_rusage_init("INSTR_METRIC_RUSAGE", v);
    if ((v = nonempty_env("INSTR_METRIC_PERF")))
        instr_metrics_perf_init("INSTR_METRIC_PERF", v);
    if ((v = nonempty_env("INSTR_METRIC_PAPI")))
        instr_metrics_papi_init("INSTR_METRIC_PAPI", v);
    if ((v = nonempty_env("INSTR_METRIC_PLUGINS")))
        instr_metrics_plugins_init("INSTR_METRIC_PLUGINS", v);
    if (instr_metrics_nsync == 0 && instr_metrics_nasync == 0) {
        instr_warn("no metric is recorded: none of the INSTR_METRIC_* settings named an "
                   "available metric (see the lines above)");
        return -1;
    }
    say_where_values_go();
    return 0;
}

static void read_all(metrics_loc *s, uint64_t t)
{
    for (uint32_t i = 0; i < nsources; i++) {
        const instr_metric_source *src = &sources[i];
        if (src->n && s->threads[i])
            src->ops->read(&sources[i], s->threads[i], s->values + src->first, t);
    }
}

void instr_metrics_read_sources(const instr_metric_reader *r, uint64_t *out, uint64_t t)
{
    metrics_loc *s = r->thread;
    for (uint32_t i = 0; i < nsources; i++)
        if (s->by_read[i])
            sources[i].ops->read(&sources[i], s->threads[i], out + sources[i].first, t);
}

__attribute__((noinline)) void instr_metrics_read_calls(const instr_metric_reader *r,
                                                       uint64_t *out)
{
    for (const instr_metric_getmany *m = r->many, *end = m + r->nmany; m < end; m++)
        m->get(m->ids, m->n, out + m->first);
    for (const instr_metric_getter *g = r->g; g->get; g++)
        out[g->index] = g->get(g->id);
}

/* The flat reader of a location: one call or getters where a source has them, else its
 * read. */
static void reader_init(metrics_loc *s)
{
    instr_metric_reader *r = &s->reader;
    r->thread = s;
    r->all_uint64 = 1;
    for (uint32_t i = 0; i < instr_metrics_nsync; i++)
        if (instr_metrics_sync[i].value_type != INSTR_METRIC_UINT64)
            r->all_uint64 = 0;
    s->getters = instr_mem_calloc(instr_metrics_nsync + 1, sizeof *s->getters); /* NULL-terminated */
    s->many = instr_mem_calloc(nsources ? nsources : 1, sizeof *s->many);
    for (uint32_t i = 0; i < nsources; i++) {
        const instr_metric_source *src = &sources[i];
        if (!src->n || !s->threads[i])
            continue;
        if (!src->ops->getters || !s->getters || !s->many) {
            s->by_read[i] = 1;
            r->nread++;
            continue;
        }
        instr_metric_getmany many = {0};
        uint32_t k = src->ops->getters(&sources[i], s->threads[i], s->getters + r->ng, &many);
        if (many.get) {
            many.first += src->first;
            s->many[r->nmany++] = many;
        }
        for (uint32_t j = 0; j < k; j++)
            s->getters[r->ng + j].index += src->first;
        r->ng += k;
    }
    static const instr_metric_getter none = {0};
    r->g = s->getters ? s->getters : &none;
    r->many = s->many;
    r->flat = r->all_uint64 && r->nread == 0;
    r->one = r->nmany == 1 && r->ng == 0 ? r->many : NULL;
}

instr_metric_reader *instr_metrics_reader_of(instr_location *loc)
{
    int slot = instr_substrate_slot(&instr_metrics_substrate);
    metrics_loc *s = slot >= 0 && loc ? loc->sub[slot] : NULL;
    return s ? &s->reader : NULL;
}

int instr_metrics_reader_own(const instr_metric_reader *r) { return r->thread == tls_metrics; }

/* On the location's own thread. */
static void *location_begin(instr_location *loc)
{
    (void)loc;
    metrics_loc *s = instr_mem_calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->values = instr_mem_calloc(instr_metrics_nsync ? instr_metrics_nsync : 1, sizeof *s->values);
    if (!s->values) {
        instr_mem_free(s);
        return NULL;
    }
    for (uint32_t i = 0; i < nsources; i++)
        s->threads[i] = sources[i].ops->thread_begin ? sources[i].ops->thread_begin(&sources[i])
                                                     : NULL;
    read_all(s, 0);
    reader_init(s);
    s->loc = loc;
    s->hands_over = hands_over_at_events() && (int)gettid() == start_tid;
    static int once;
    const instr_substrate *vs = __atomic_load_n(&values_sub, __ATOMIC_ACQUIRE);
    if (vs && !__atomic_exchange_n(&once, 1, __ATOMIC_ACQ_REL))
        __atomic_store_n(&values_slot, instr_substrate_slot(vs), __ATOMIC_RELEASE);
    tls_metrics = s;
    return s;
}

static void put_async(void *arg, uint32_t index, uint64_t t, uint64_t v);
instr_metric_async_values instr_metrics_async_values;

/* ASYNC_EVENT plugins' values so far, at an event of the starting thread (each plugin keeps
 * to its least interval). Skipped while another hand-over runs (a signal handler's event in
 * the middle of one). */
static void hand_over(uint64_t t)
{
    if (__atomic_exchange_n(&handing, 1, __ATOMIC_ACQUIRE))
        return;
    for (uint32_t i = 0; i < nsources; i++)
        if (sources[i].ops->at_event)
            sources[i].ops->at_event(&sources[i], t, put_async, &instr_metrics_async_values);
    __atomic_store_n(&handing, 0, __ATOMIC_RELEASE);
}

/* The values read at an event, passed on per counter; a synchronous plugin's only where it
 * was asked (its fresh operation). */
static void put_fresh(metrics_loc *s, const uint64_t *values, uint64_t t,
                      instr_metric_value_put put, void *data)
{
    for (uint32_t i = 0; i < nsources; i++) {
        instr_metric_source *src = &sources[i];
        if (!src->n || (src->ops->fresh && (!s->threads[i] ||
                                            !src->ops->fresh(src, s->threads[i], t))))
            continue;
        for (uint32_t k = src->first; k < src->first + src->n; k++)
            put(data, k, values[k]);
    }
}

/* Hot path (the generic path, which is taken whenever a metric is on). */
static void on_event(void *data, uint32_t region, uint64_t t)
{
    (void)region;
    metrics_loc *s = data;
    if (__builtin_expect(s == NULL, 0))
        return;
    read_all(s, t);
    if (__builtin_expect(s->hands_over, 0))
        hand_over(t);
    int slot = __atomic_load_n(&values_slot, __ATOMIC_RELAXED);
    void *tl = slot >= 0 ? s->loc->sub[slot] : NULL;
    if (!tl)
        return;
    /* A synchronous plugin's values only where it was asked (trace/metric_events.c). */
    put_fresh(s, s->values, t, values_put, tl);
}

void instr_metrics_put_read(const instr_metric_reader *r, const uint64_t *values, uint64_t t,
                            instr_metric_value_put put, void *data)
{
    /* As on_event: a synchronous plugin's values only where it was asked. */
    put_fresh(r->thread, values, t, put, data);
}

/* A forked child writes no trace: its thread hands nothing over (the values would only pile
 * up). */
static void fork_child(void *data, uint64_t t)
{
    (void)t;
    metrics_loc *s = data;
    if (s)
        s->hands_over = 0;
}

uint64_t *instr_metrics_values_of(instr_location *loc, uint32_t *n)
{
    int slot = instr_substrate_slot(&instr_metrics_substrate);
    metrics_loc *s = slot >= 0 && loc ? loc->sub[slot] : NULL;
    *n = s ? instr_metrics_nsync : 0;
    return s ? s->values : NULL;
}

void *instr_metrics_values_target(instr_location *loc)
{
    int slot = __atomic_load_n(&values_slot, __ATOMIC_RELAXED);
    return slot >= 0 && loc ? loc->sub[slot] : NULL;
}

const uint64_t *instr_metrics_thread_values(uint32_t *n)
{
    metrics_loc *s = tls_metrics;
    *n = s ? instr_metrics_nsync : 0;
    return s ? s->values : NULL;
}

/* ---- the end: asynchronous values for the trace, then every source finishes ---- */

static void put_async(void *arg, uint32_t index, uint64_t t, uint64_t v)
{
    instr_metric_async_values *a = arg;
    if (instr_array_grow(&a->v, &a->cap, a->n + 1, sizeof *a->v, 1024) != 0) {
        a->lost++;
        return;
    }
    a->v[a->n++] = (instr_metric_async_value){t, v, index};
}

static int by_time(const void *x, const void *y)
{
    const instr_metric_async_value *a = x, *b = y;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    return a->metric < b->metric ? -1 : a->metric > b->metric;
}

static int write_end(const instr_run *run, char *files, size_t size)
{
    (void)run;
    (void)files;
    (void)size;
    instr_metric_async_values *a = &instr_metrics_async_values;
    /* A hand-over at an event of a thread still running ends in a moment; one that a
     * termination signal interrupted on this very thread never does: its plugins' values
     * are then left (the array may be half-grown). */
    int got = 0;
    for (int waited = 0; !(got = !__atomic_exchange_n(&handing, 1, __ATOMIC_ACQUIRE)) &&
                         waited < 1000; waited++) {
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    if (!got) {
        instr_warn("the values of asynchronous metrics were being handed over when the "
                   "measurement ended (a signal interrupted it): they are not in the trace");
        a->n = 0;
    }
    for (uint32_t i = 0; got && i < nsources; i++)
        if (sources[i].async_n && sources[i].ops->collect)
            sources[i].ops->collect(&sources[i], put_async, a);
    if (a->n)
        instr_sort(a->v, a->n, sizeof *a->v, by_time);
    if (a->lost)
        instr_warn("out of memory: %zu value(s) of asynchronous metrics were lost", a->lost);
    for (uint32_t i = 0; i < nsources; i++)
        if (sources[i].ops->finish)
            sources[i].ops->finish(&sources[i]);
    return 0;
}

const instr_substrate instr_metrics_substrate = {
    .name = "metrics",
    .wanted = wanted,
    .init = init,
    .at_events = instr_metrics_at_events,
    .fast_paths = INSTR_SUBSTRATE_CURSOR_BEFORE,
    .location_begin = location_begin,
    .enter = on_event,
    .exit = on_event,
    .fork_child = fork_child,
    .write = write_end,
};
