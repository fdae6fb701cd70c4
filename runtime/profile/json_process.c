/* json_process.c — a process's profile.json: its run, threads, regions and merged call tree
 * as the source of the one profile.json writer (write_json.h). */
#include "write_json.h"
#include "../core/clock.h"
#include "../core/config.h"
#include "../core/event.h"
#include "../core/registry.h"
#include "../metrics/metrics.h"
#include "../util/utc.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct process_src {
    const instr_run *run;
    const instr_mtree *t;
    instr_throttle_mark mark; /* the latest region's (region's out->throttled points here) */
} process_src;

static void iso(instr_writer *f, time_t t)
{
    char buf[INSTR_UTC_ISO_SIZE];
    instr_wr_json_str(f, instr_utc_iso(buf, t));
}

static void command_line(instr_writer *f)
{
    instr_wr_putc(f, '[');
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        char buf[8192];
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (n > 0) {
            buf[n] = '\0';
            int first = 1;
            for (char *p = buf; p < buf + n; p += strlen(p) + 1) {
                if (!first)
                    instr_wr_puts(f, ", ");
                instr_wr_json_str(f, p);
                first = 0;
            }
        }
    }
    instr_wr_putc(f, ']');
}

static void run_head(instr_writer *f, const void *ctx)
{
    const instr_run *run = ((const process_src *)ctx)->run;
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    instr_wr_puts(f, ",\n    \"command_line\": ");
    command_line(f);
    instr_wr_printf(f, ",\n    \"pid\": %d, \"parent_pid\": %d, \"fork_of\": ", run->pid, run->ppid);
    if (run->fork_of)
        instr_wr_printf(f, "%d", run->fork_of);
    else
        instr_wr_puts(f, "null");
    instr_wr_puts(f, ",\n    \"hostname\": ");
    instr_wr_json_str(f, host);
    instr_wr_puts(f, ",\n    \"start\": ");
    iso(f, run->wall_start);
    instr_wr_puts(f, ", \"end\": ");
    iso(f, run->wall_end);
    instr_wr_printf(f, ",\n    \"duration\": %llu,\n    \"timer\": ",
            (unsigned long long)instr_clock_to_ns(run->t_end - run->t_start));
    instr_wr_json_str(f, instr_clock_name());
    instr_wr_printf(f, ", \"timer_frequency_hz\": %.0f, \"timer_resolution_ns\": %.1f, "
               "\"timer_cost_ns\": %.1f",
            instr_clock_hz(), instr_clock_resolution_ns(), instr_clock_cost_ns());
}

static void run_tail(instr_writer *f, const void *ctx)
{
    const process_src *p = ctx;
    instr_wr_printf(f,
            ",\n    \"dropped_call_paths\": %llu, \"unmatched_exits\": %llu, "
            "\"closed_at_end\": %llu, \"closed_after_longjmp\": %llu, "
            "\"events_dropped_in_handlers\": %llu,\n    \"folded_max_depth\": %u, "
            "\"folded_paths_shortened\": %llu",
            (unsigned long long)p->t->dropped, (unsigned long long)p->run->unmatched_exits,
            (unsigned long long)p->run->closed_at_end, (unsigned long long)p->t->resynced,
            (unsigned long long)p->run->dropped_in_handlers, instr_cfg.folded_max_depth,
            (unsigned long long)instr_profile_folded_shortened(p->t, instr_cfg.folded_max_depth));
}

static void places(instr_writer *f, const void *ctx)
{
    const instr_run *run = ((const process_src *)ctx)->run;
    instr_wr_printf(f, "  \"location_groups\": [{\"id\": 0, \"kind\": \"process\", "
               "\"name\": \"process %d\", \"pid\": %d}],\n", run->pid, run->pid);
    instr_wr_puts(f, "  \"locations\": [");
    for (uint32_t i = 0; i < run->nlocations; i++) {
        const instr_location *l = run->locations[i];
        instr_wr_printf(f, "%s\n    {\"id\": %u, \"group\": 0, \"kind\": \"thread\", "
                   "\"name\": \"thread %u%s\", \"tid\": %d, \"end\": \"%s\"}",
                i ? "," : "", l->id, l->id, l->tid == run->pid ? " (main)" : "", l->tid,
                l->ended == INSTR_LOC_THREAD_EXIT ? "thread-exit" : "program-end");
    }
    instr_wr_puts(f, "\n  ],\n");
}

static void metric(const void *ctx, uint32_t i, instr_json_metric *out)
{
    (void)ctx;
    const instr_metric *m = &instr_metrics_sync[i];
    *out = (instr_json_metric){m->name, m->source, m->unit, m->description, m->base,
                               m->value_type, m->exponent,
                               m->synchronicity == INSTR_METRIC_SYNC ? "synchronous"
                                                                     : "strictly-synchronous",
                               instr_profile_metric_shown(i)};
}

static void region(const void *ctx, uint32_t h, instr_json_region *out)
{
    process_src *p = (process_src *)ctx;
    const instr_region_info *r = instr_registry_get(h);
    *out = (instr_json_region){r->name, r->mangled, r->file,
                               instr_region_source_name(r->source), r->object, r->line_begin,
                               r->line_end, NULL, 0, 0};
    if (instr_throttle_mark_of(h, &p->mark))
        out->throttled = &p->mark;
}

static void stats_of(const instr_pstats *s, const uint64_t *m, instr_json_stats *out)
{
    *out = (instr_json_stats){s->visits, instr_profile_ns(s->incl), instr_profile_ns(s->excl),
                              instr_profile_min_ns(s->min_incl), instr_profile_ns(s->max_incl),
                              instr_profile_min_ns(s->min_excl), instr_profile_ns(s->max_excl),
                              {0}, m};
}

static void node(const void *ctx, uint32_t i, instr_json_node *out)
{
    const instr_mnode *mn = &((const process_src *)ctx)->t->nodes[i];
    *out = (instr_json_node){mn->parent, mn->depth, mn->region, mn->nlocs, {0}};
    stats_of(&mn->s, mn->m, &out->s);
    for (uint32_t k = 0; k < mn->nlocs; k++)
        instr_profile_messages_of(mn->locs[k].node, &out->s.msgs);
}

static void node_location(const void *ctx, uint32_t i, uint32_t k, uint32_t *location,
                          instr_json_stats *out)
{
    const instr_mloc *l = &((const process_src *)ctx)->t->nodes[i].locs[k];
    *location = l->location;
    stats_of(&l->s, l->m, out);
    instr_profile_messages_of(l->node, &out->msgs);
}

static void flat(const void *ctx, uint32_t h, instr_json_stats *out)
{
    const instr_flat *fl = &((const process_src *)ctx)->t->flat[h];
    *out = (instr_json_stats){fl->visits, instr_profile_ns(fl->incl), instr_profile_ns(fl->excl),
                              0, 0, 0, 0, {0}, NULL};
}

static void tail(instr_writer *f, const void *ctx)
{
    const process_src *p = ctx;
    const instr_profile_memory *m = instr_profile_memory_of();
    if (m)
        m->json(f, p->run, p->t);
    const instr_profile_io *io = instr_profile_io_of();
    if (io)
        io->json(f, p->run, p->t);
}

int instr_profile_write_json(instr_writer *f, const instr_run *run, const instr_mtree *t)
{
    process_src p = {run, t, {0}};
    instr_json_src src = {
        .ctx = &p, .dir = run->dir, .run_head = run_head, .run_tail = run_tail,
        .places = places, .nmetrics = t->nm, .metric = metric, .nregions = t->nregions,
        .region = region, .nnodes = t->n, .node = node, .node_location = node_location,
        .flat = flat, .tail = tail,
    };
    return instr_json_write(f, &src);
}

/* Who counts messages (profile.h); set once, before the first count, on some thread. */
static instr_profile_messages_fn messages_fn;

void instr_profile_set_messages(instr_profile_messages_fn fn)
{
    __atomic_store_n(&messages_fn, fn, __ATOMIC_RELEASE);
}

void instr_profile_messages_of(const instr_pnode *n, instr_msg_counts *to)
{
    instr_profile_messages_fn fn = __atomic_load_n(&messages_fn, __ATOMIC_ACQUIRE);
    if (fn)
        fn(n, to);
}

/* Memory recording's writers (profile.h); set once, before the first event. */
static const instr_profile_memory *memory_writers;

void instr_profile_set_memory(const instr_profile_memory *m)
{
    __atomic_store_n(&memory_writers, m, __ATOMIC_RELEASE);
}

const instr_profile_memory *instr_profile_memory_of(void)
{
    return __atomic_load_n(&memory_writers, __ATOMIC_ACQUIRE);
}

/* I/O recording's writers (profile.h); set once, at start-up. */
static const instr_profile_io *io_writers;

void instr_profile_set_io(const instr_profile_io *w)
{
    __atomic_store_n(&io_writers, w, __ATOMIC_RELEASE);
}

const instr_profile_io *instr_profile_io_of(void)
{
    return __atomic_load_n(&io_writers, __ATOMIC_ACQUIRE);
}
