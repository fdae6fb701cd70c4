/* plugin.c — INSTR_METRIC_PLUGINS: loads metric plugins (instr_metric_plugin.h) and makes
 * each a metric source.
 *
 * libinstr_metric_<name>.so is looked for in every directory of INSTR_PLUGIN_PATH (colon
 * separated), then by the dynamic linker (the library path). Every way a plugin can be bad
 * (not found, no entry point, another ABI version, missing callbacks, failed initialisation,
 * a specification that names nothing, a counter it cannot add) is said in one line naming
 * the variable and the value; the plugin or the metric is left out and the run goes on. */
#include "metrics.h"
#include "../core/clock.h"
#include "../core/config.h"
#include "../core/core.h"
#include "../core/log.h"
#include "../core/plugin_load.h"
#include "../util/text.h"
#include "../util/pages.h"

#include <ctype.h>
#include <stddef.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct plugin_ctx {
    char name[64];
    instr_metric_plugin_info info; /* the plugin's, version 1 ones completed with NULLs */
    char **metric;     /* names of its metrics, in the order of their indices */
    int32_t *async_id; /* asynchronous: the counter of each metric */
    uint32_t n;
    uint64_t delta_ticks; /* INSTR_METRIC_SYNC and ASYNC_EVENT: the least interval */
    int started, ended;   /* synchronize called at the start, at the end */
    int running;          /* asynchronous: the start's synchronize returned */
    int handed;           /* ASYNC_EVENT: values were handed over at an event, */
    uint64_t last_handed; /* at this time */
} plugin_ctx;

/* Per thread: the counters of this thread (strictly synchronous and synchronous). */
typedef struct plugin_thread {
    uint64_t last_asked;
    int asked;
    int all_added; /* every counter has its id here */
    int32_t id[];
} plugin_thread;

static uint64_t clock_for_plugins(void) { return instr_clock_now(); }

/* ---- which process records the per-host and once metrics ---- */

/* From MPI_Init of an MPI job (instr_metrics_elect); -1 before and outside one. */
static int elected_world = -1, elected_host = -1;
/* Asynchronous plugins whose start synchronize waits for MPI_Init. */
#define MAX_WAITING 32
static struct plugin_ctx *waiting[MAX_WAITING];
static uint32_t nwaiting;

static int responsible(uint32_t scope)
{
    if (scope == INSTR_METRIC_PER_HOST && elected_host >= 0)
        return elected_host == 0;
    if (scope == INSTR_METRIC_ONCE && elected_world >= 0)
        return elected_world == 0;
    return 1;
}

static void *thread_begin(instr_metric_source *src)
{
    plugin_ctx *c = src->ctx;
    if (!src->n)
        return NULL;
    plugin_thread *t = instr_mem_calloc(1, sizeof *t + src->n * sizeof t->id[0]);
    if (!t)
        return NULL;
    t->all_added = 1;
    for (uint32_t i = 0; i < src->n; i++) {
        t->id[i] = c->info.add_counter(c->metric[i]);
        t->all_added &= t->id[i] >= 0;
        if (t->id[i] < 0)
            instr_warn("INSTR_METRIC_PLUGINS=%s: the plugin cannot count %s on thread %d "
                       "(add_counter returned %d); its values stay 0 there",
                       c->name, c->metric[i], (int)gettid(), (int)t->id[i]);
    }
    /* The start's synchronize, after the counters of the first thread were added (the
     * header's promise): once, whichever thread comes first. */
    if (c->info.synchronize && !__atomic_exchange_n(&c->started, 1, __ATOMIC_ACQ_REL))
        c->info.synchronize(1, 0);
    return t;
}

static void read_strict(instr_metric_source *src, void *thread, uint64_t *out, uint64_t now)
{
    (void)now;
    const plugin_ctx *c = src->ctx;
    const plugin_thread *t = thread;
    if (c->info.get_current_values && t->all_added) {
        c->info.get_current_values(t->id, src->n, out);
        return;
    }
    for (uint32_t i = 0; i < src->n; i++)
        if (t->id[i] >= 0)
            out[i] = c->info.get_current_value(t->id[i]);
}

/* The cursor path's way to read the thread's counters (metrics.h, instr_metric_reader): one
 * call of get_current_values for all when the plugin has it and every counter was added,
 * else get_current_value per counter. */
static uint32_t getters(instr_metric_source *src, void *thread, instr_metric_getter *out,
                        instr_metric_getmany *many)
{
    const plugin_ctx *c = src->ctx;
    const plugin_thread *t = thread;
    if (c->info.get_current_values && t->all_added) {
        *many = (instr_metric_getmany){c->info.get_current_values, t->id, src->n, 0};
        return 0;
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < src->n; i++)
        if (t->id[i] >= 0)
            out[k++] = (instr_metric_getter){c->info.get_current_value, t->id[i], i};
    return k;
}

static void read_optional(instr_metric_source *src, void *thread, uint64_t *out, uint64_t now)
{
    const plugin_ctx *c = src->ctx;
    plugin_thread *t = thread;
    if (t->asked && now - t->last_asked < c->delta_ticks)
        return;
    t->asked = 1;
    t->last_asked = now;
    for (uint32_t i = 0; i < src->n; i++) {
        uint64_t v;
        if (t->id[i] >= 0 && c->info.get_optional_value(t->id[i], &v))
            out[i] = v;
    }
}

static int fresh_optional(instr_metric_source *src, void *thread, uint64_t now)
{
    (void)src;
    const plugin_thread *t = thread;
    return t->asked && t->last_asked == now;
}

/* The start's synchronize of an asynchronous plugin (once). */
static void start_sync(plugin_ctx *c)
{
    if (__atomic_exchange_n(&c->started, 1, __ATOMIC_ACQ_REL))
        return;
    if (c->info.synchronize)
        c->info.synchronize(responsible(c->info.scope), 0);
    __atomic_store_n(&c->running, 1, __ATOMIC_RELEASE);
}

static void end_sync(plugin_ctx *c)
{
    if (c->info.synchronicity >= INSTR_METRIC_ASYNC_EVENT)
        start_sync(c); /* MPI_Init never came */
    if (!c->ended && c->info.synchronize)
        c->info.synchronize(responsible(c->info.scope), 1);
    c->ended = 1;
}

void instr_metrics_elect(int world_rank, int host_rank)
{
    elected_world = world_rank;
    elected_host = host_rank;
    for (uint32_t i = 0; i < nwaiting; i++)
        start_sync(waiting[i]);
}

/* Every value the plugin collected since the last time, for each of its counters. */
static void take_values(instr_metric_source *src,
                        void (*put)(void *arg, uint32_t index, uint64_t t, uint64_t v),
                        void *arg)
{
    plugin_ctx *c = src->ctx;
    for (uint32_t i = 0; i < src->async_n; i++) {
        if (c->async_id[i] < 0)
            continue;
        instr_metric_timed_value *v = NULL;
        uint64_t n = c->info.get_all_values(c->async_id[i], &v);
        for (uint64_t k = 0; v && k < n; k++)
            put(arg, src->async_first + i, v[k].timestamp, v[k].value);
        free(v); /* the plugin's, from malloc (instr_metric_plugin.h) */
    }
}

static void collect(instr_metric_source *src,
                    void (*put)(void *arg, uint32_t index, uint64_t t, uint64_t v), void *arg)
{
    plugin_ctx *c = src->ctx;
    end_sync(c);
    if (!responsible(c->info.scope))
        return; /* another process of the host (or job) records them */
    take_values(src, put, arg);
}

/* ASYNC_EVENT: at an event of the starting thread, once delta_t passed since the last
 * hand-over; only between the start's synchronize (in an MPI job, at MPI_Init) and the
 * end's, and only where this process records the plugin's scope. */
static void at_event(instr_metric_source *src, uint64_t now,
                     void (*put)(void *arg, uint32_t index, uint64_t t, uint64_t v), void *arg)
{
    plugin_ctx *c = src->ctx;
    if (!__atomic_load_n(&c->running, __ATOMIC_ACQUIRE) || c->ended ||
        !responsible(c->info.scope) || (c->handed && now - c->last_handed < c->delta_ticks))
        return;
    c->handed = 1;
    c->last_handed = now;
    take_values(src, put, arg);
}

static void finish(instr_metric_source *src)
{
    plugin_ctx *c = src->ctx;
    end_sync(c);
    if (c->info.finalize)
        c->info.finalize();
    /* The object stays loaded: a thread the program did not join may still be inside it. */
}

static const instr_metric_source_ops strict_ops = {.thread_begin = thread_begin,
                                                   .read = read_strict,
                                                   .getters = getters,
                                                   .collect = collect,
                                                   .finish = finish};
static const instr_metric_source_ops optional_ops = {.thread_begin = thread_begin,
                                                     .read = read_optional,
                                                     .fresh = fresh_optional,
                                                     .collect = collect,
                                                     .finish = finish};
static const instr_metric_source_ops async_ops = {.collect = collect, .finish = finish};
static const instr_metric_source_ops async_event_ops = {
    .collect = collect, .at_event = at_event, .finish = finish};

/* Callbacks the plugin's synchronicity needs; NULL when all are there, else the first
 * missing one's name. */
static const char *missing_callback(const instr_metric_plugin_info *info)
{
    if (!info->initialize) return "initialize";
    if (!info->get_metric_properties) return "get_metric_properties";
    if (!info->add_counter) return "add_counter";
    switch (info->synchronicity) {
    case INSTR_METRIC_STRICTLY_SYNC: return info->get_current_value ? NULL : "get_current_value";
    case INSTR_METRIC_SYNC: return info->get_optional_value ? NULL : "get_optional_value";
    default: return info->get_all_values ? NULL : "get_all_values";
    }
}

/* The plugin allocated the list and its strings with malloc (instr_metric_plugin.h). */
static void free_properties(instr_metric_properties *props)
{
    for (instr_metric_properties *p = props; p && p->name; p++) {
        free((char *)p->name);
        free((char *)p->description);
        free((char *)p->unit);
    }
    free(props);
}

/* Adds the plugin's metrics; returns how many. */
static uint32_t add_metrics(plugin_ctx *c, const char *spec_var, const char *spec,
                            instr_metric_properties *props)
{
    const instr_metric_plugin_info *info = &c->info;
    int async = info->synchronicity >= INSTR_METRIC_ASYNC_EVENT;
    uint32_t count = 0;
    for (instr_metric_properties *p = props; p && p->name; p++)
        count++;
    c->metric = instr_mem_calloc(count ? count : 1, sizeof *c->metric);
    c->async_id = instr_mem_calloc(count ? count : 1, sizeof *c->async_id);
    if (!c->metric || !c->async_id)
        return 0;
    uint32_t n = 0;
    for (instr_metric_properties *p = props; p && p->name; p++) {
        if (p->value_type > INSTR_METRIC_DOUBLE || p->mode > INSTR_METRIC_ABSOLUTE ||
            p->semantics > INSTR_METRIC_NEXT) {
            instr_warn("%s=%s: metric %s has a value type, mode or semantics this runtime does "
                       "not know (%u, %u, %u); left out",
                       spec_var, spec, p->name, p->value_type, p->mode, p->semantics);
            continue;
        }
        int32_t id = -1;
        if (async && (id = info->add_counter(p->name)) < 0) {
            instr_warn("%s=%s: the plugin cannot count %s (add_counter returned %d); left out",
                       spec_var, spec, p->name, (int)id);
            continue;
        }
        instr_metric m = {
            .name = (char *)p->name,
            .description = (char *)p->description,
            .unit = (char *)p->unit,
            .base = p->base,
            .exponent = p->exponent,
            .value_type = p->value_type,
            .mode = p->mode,
            .semantics = p->semantics,
            .synchronicity = info->synchronicity,
            .scope = async ? info->scope : INSTR_METRIC_PER_THREAD,
            .source = c->name,
        };
        instr_metric *added = instr_metrics_add(&m);
        if (!added)
            continue;
        c->metric[n] = added->name;
        c->async_id[n] = id;
        n++;
    }
    return n;
}

static void load_one(void *arg, const char *name)
{
    const char *var = arg;
    char q[INSTR_QUOTE_SIZE];
    if (!instr_plugin_name_ok(var, name))
        return;
    uint32_t version;
    const instr_metric_plugin_info *given = instr_plugin_load(
        var, "metric", name, INSTR_METRIC_PLUGIN_ENTRY_NAME, INSTR_METRIC_PLUGIN_VERSION_MIN,
        INSTR_METRIC_PLUGIN_VERSION, &version);
    if (!given)
        return;
    /* A version 1 description ends after synchronize: only that much is read. */
    instr_metric_plugin_info full;
    memset(&full, 0, sizeof full);
    memcpy(&full, given,
           version == 1 ? offsetof(instr_metric_plugin_info, get_current_values) : sizeof full);
    const instr_metric_plugin_info *info = &full;
    const char *missing = missing_callback(info);
    if (info->synchronicity > INSTR_METRIC_ASYNC || info->scope > INSTR_METRIC_ONCE) {
        instr_warn("%s=%s: the plugin's synchronicity %u or scope %u is not one this runtime "
                   "knows; left out",
                   var, name, info->synchronicity, info->scope);
        return;
    }
    if (missing) {
        instr_warn("%s=%s: the plugin does not provide %s, which its synchronicity needs; "
                   "left out",
                   var, name, missing);
        return;
    }
    /* The specification variable: INSTR_METRIC_<NAME>, '-' as '_'. */
    char spec_var[80];
    instr_plugin_var(spec_var, sizeof spec_var, "METRIC_", name);
    const char *spec = instr_env(spec_var);
    if (!spec)
        spec = "";

    if (info->set_clock)
        info->set_clock(clock_for_plugins);
    int32_t rc = info->initialize();
    if (rc != 0) {
        instr_warn("%s=%s: the plugin failed to initialise (initialize returned %d); left out",
                   var, name, (int)rc);
        return;
    }
    plugin_ctx *c = instr_mem_calloc(1, sizeof *c);
    if (!c) {
        if (info->finalize)
            info->finalize();
        return;
    }
    snprintf(c->name, sizeof c->name, "%s", name);
    c->info = *info;
    if (info->synchronicity == INSTR_METRIC_SYNC ||
        info->synchronicity == INSTR_METRIC_ASYNC_EVENT) {
        double ticks = (double)info->delta_t * instr_clock_hz() / 1e9;
        c->delta_ticks = ticks > 0 ? (uint64_t)ticks : 0;
    }
    instr_metric_properties *props = info->get_metric_properties(spec);
    instr_metrics_source_begin();
    uint32_t n = props && props->name ? add_metrics(c, spec_var, instr_quote(q, spec), props) : 0;
    free_properties(props);
    if (n == 0) {
        instr_warn("%s=%s: %s=%s names no metric the plugin has (see docs/metrics.md and the "
                   "plugin's own documentation); left out",
                   var, name, spec_var, instr_quote(q, spec));
        if (info->finalize)
            info->finalize();
        instr_mem_free(c->metric);
        instr_mem_free(c->async_id);
        instr_mem_free(c);
        return;
    }
    const instr_metric_source_ops *ops = info->synchronicity == INSTR_METRIC_STRICTLY_SYNC
                                             ? &strict_ops
                                         : info->synchronicity == INSTR_METRIC_SYNC
                                             ? &optional_ops
                                         : info->synchronicity == INSTR_METRIC_ASYNC_EVENT
                                             ? &async_event_ops
                                             : &async_ops;
    if (instr_metrics_source_end(ops, c) != 0)
        return;
    /* Asynchronous plugins' counters are added by now: their start's synchronize, which
     * says whether this process records per-host and once metrics, comes now, or in an MPI
     * job at MPI_Init, when that is known (instr_metrics_elect; libinstr-rt-mpi defines
     * instr_mpi_adapter_loaded, as core/lifecycle.c checks). The synchronous ones' are added
     * per thread, and the start's synchronize follows the first thread's (thread_begin). */
    if (ops == &async_ops || ops == &async_event_ops) {
        if (instr_core_mpi_linked() && nwaiting < MAX_WAITING)
            waiting[nwaiting++] = c;
        else
            start_sync(c);
    }
    instr_info(1, "%s=%s: %u metric%s from %s", var, name, n, n == 1 ? "" : "s", spec_var);
}

void instr_metrics_plugins_init(const char *var, const char *list)
{
    instr_metrics_each_item(list, load_one, (void *)var);
}
