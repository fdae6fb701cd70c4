/* write_json.c — profile.json, schema version 2 (docs/profile-format.md), of a process or a
 * job (write_json.h): what both have alike is written here, what tells them apart comes from
 * the source. */
#include "write_json.h"
#include "../core/config.h"
#include "../include/instr_abi.h"
#include "../metrics/metrics.h"
#include "../util/pages.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef INSTR_VERSION_STRING
#define INSTR_VERSION_STRING "unknown"
#endif

static uint64_t least(uint64_t v) { return v == UINT64_MAX ? 0 : v; }

/* The message fields of docs/mpi.md, each only where it is not zero. */
static void messages(instr_writer *f, const instr_msg_counts *m)
{
    const struct { const char *name; uint64_t v; } fields[] = {
        {"messages_sent", m->sent}, {"bytes_sent", m->bytes_sent},
        {"messages_received", m->received}, {"bytes_received", m->bytes_received},
        {"collectives", m->collectives}};
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
        if (fields[i].v)
            instr_wr_printf(f, ", \"%s\": %llu", fields[i].name, (unsigned long long)fields[i].v);
}

/* ", \"metrics\": {...}": the shown metrics' rows (INSTR_MROW_* order). */
static void metric_rows(instr_writer *f, const instr_json_src *src, const uint64_t *m)
{
    static const char *const rows[INSTR_MROWS] = {"inclusive", "exclusive", "min_inclusive",
                                                  "max_inclusive"};
    uint32_t n = src->nmetrics;
    if (!n)
        return;
    instr_wr_puts(f, ", \"metrics\": {");
    for (int r = 0; r < INSTR_MROWS; r++) {
        instr_wr_printf(f, "%s\"%s\": [", r ? ", " : "", rows[r]);
        int first = 1;
        for (uint32_t i = 0; i < n; i++) {
            instr_json_metric d;
            src->metric(src->ctx, i, &d);
            if (!d.shown)
                continue;
            instr_wr_puts(f, first ? "" : ", ");
            instr_metric_fprint(f, d.type, m ? m[r * n + i] : instr_metric_zero(d.type), 0);
            first = 0;
        }
        instr_wr_putc(f, ']');
    }
    instr_wr_putc(f, '}');
}

static void stats(instr_writer *f, const instr_json_src *src, const instr_json_stats *s)
{
    instr_wr_printf(f,
            "\"visits\": %llu, \"inclusive\": %llu, \"exclusive\": %llu, "
            "\"min_inclusive\": %llu, \"max_inclusive\": %llu, "
            "\"min_exclusive\": %llu, \"max_exclusive\": %llu",
            (unsigned long long)s->visits, (unsigned long long)s->incl,
            (unsigned long long)s->excl, (unsigned long long)least(s->min_incl),
            (unsigned long long)s->max_incl, (unsigned long long)least(s->min_excl),
            (unsigned long long)s->max_excl);
    messages(f, &s->msgs);
    metric_rows(f, src, s->metrics);
}

static void run(instr_writer *f, const instr_json_src *src)
{
    char exe[PATH_MAX] = "";
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) /* the main thread ended with pthread_exit: /proc/self is gone */
        n = readlink("/proc/thread-self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    instr_wr_puts(f, "  \"run\": {\n    \"program\": ");
    instr_wr_json_str(f, exe);
    src->run_head(f, src->ctx);
    instr_wr_puts(f, ",\n    \"instr_version\": ");
    instr_wr_json_str(f, INSTR_VERSION_STRING);
    instr_wr_printf(f, ", \"abi_version\": %d,\n    \"experiment_directory\": ", INSTR_ABI_VERSION);
    instr_wr_json_str(f, src->dir);
    instr_wr_puts(f, ",\n    \"configuration\": {");
    for (int i = 0; i < instr_config_count(); i++) {
        instr_wr_puts(f, i ? ", " : "");
        instr_wr_json_str(f, instr_config_name(i));
        instr_wr_puts(f, ": ");
        instr_wr_json_str(f, instr_config_value(i));
    }
    instr_wr_putc(f, '}');
    src->run_tail(f, src->ctx);
    instr_wr_puts(f, "\n  },\n");
}

static void metric_definitions(instr_writer *f, const instr_json_src *src)
{
    static const char *const types[] = {"uint64", "int64", "double"};
    instr_wr_puts(f, "  \"metrics\": [");
    int first = 1;
    for (uint32_t i = 0; i < src->nmetrics; i++) {
        instr_json_metric m;
        src->metric(src->ctx, i, &m);
        if (!m.shown)
            continue;
        instr_wr_printf(f, "%s\n    {\"name\": ", first ? "" : ",");
        instr_wr_json_str(f, m.name);
        instr_wr_puts(f, ", \"source\": ");
        instr_wr_json_str(f, m.source);
        instr_wr_puts(f, ", \"unit\": ");
        instr_wr_json_str(f, m.unit);
        instr_wr_printf(f, ", \"base\": %u, \"exponent\": %d, \"type\": \"%s\", \"mode\": "
                   "\"accumulated\", ",
                m.base, m.exponent, types[m.type]);
        if (m.synchronicity)
            instr_wr_printf(f, "\"synchronicity\": \"%s\", ", m.synchronicity);
        instr_wr_puts(f, "\"description\": ");
        instr_wr_json_str(f, m.description);
        instr_wr_putc(f, '}');
        first = 0;
    }
    instr_wr_puts(f, first ? "],\n" : "\n  ],\n");
}

static void regions(instr_writer *f, const instr_json_src *src)
{
    instr_wr_puts(f, "  \"regions\": [");
    for (uint32_t id = 1; id <= src->nregions; id++) {
        instr_json_region r;
        src->region(src->ctx, id, &r);
        instr_wr_printf(f, "%s\n    {\"id\": %u, \"name\": ", id > 1 ? "," : "", id);
        instr_wr_json_str(f, r.name);
        instr_wr_puts(f, ", \"mangled\": ");
        instr_wr_json_str(f, r.mangled);
        instr_wr_puts(f, ", \"file\": ");
        instr_wr_json_str(f, r.file);
        instr_wr_printf(f, ", \"line_begin\": %u, \"line_end\": %u, \"source\": ", r.line_begin,
                r.line_end);
        instr_wr_json_str(f, r.source);
        instr_wr_puts(f, ", \"object\": ");
        instr_wr_json_str(f, r.object);
        const instr_throttle_mark *t = r.throttled;
        if (t && r.throttled_ranks)
            instr_wr_printf(f, ", \"throttled\": {\"visit\": %llu, \"rank\": %d, \"location\": %u, "
                       "\"mean_inclusive_ns\": %llu, \"excluded\": %s, \"ranks\": %u}",
                    (unsigned long long)t->visit, r.throttled_rank, t->location,
                    (unsigned long long)t->mean_ns, t->excluded ? "true" : "false",
                    r.throttled_ranks);
        else if (t)
            instr_wr_printf(f, ", \"throttled\": {\"visit\": %llu, \"location\": %u, "
                       "\"mean_inclusive_ns\": %llu, \"excluded\": %s}",
                    (unsigned long long)t->visit, t->location,
                    (unsigned long long)t->mean_ns, t->excluded ? "true" : "false");
        instr_wr_putc(f, '}');
    }
    instr_wr_puts(f, "\n  ],\n");
}

/* The tree; the regions' message sums into rmsgs (NULL: not summed). */
static void tree(instr_writer *f, const instr_json_src *src, instr_msg_counts *rmsgs)
{
    instr_wr_puts(f, "  \"tree\": [");
    for (uint32_t i = 0; i < src->nnodes; i++) {
        instr_json_node n;
        src->node(src->ctx, i, &n);
        instr_wr_printf(f, "%s\n    {\"id\": %u, \"parent\": ", i ? "," : "", i);
        if (n.parent < 0)
            instr_wr_puts(f, "null");
        else
            instr_wr_printf(f, "%d", n.parent);
        instr_wr_printf(f, ", \"depth\": %u, \"region\": %u, ", n.depth, n.region);
        /* A frame seen by sampling (docs/sampling.md): its visits are its samples. */
        instr_json_region r;
        memset(&r, 0, sizeof r);
        if (n.region >= 1 && n.region <= src->nregions)
            src->region(src->ctx, n.region, &r);
        if (r.source && strcmp(r.source, "sampled") == 0)
            instr_wr_printf(f, "\"sampled\": true, \"samples\": %llu, ", (unsigned long long)n.s.visits);
        stats(f, src, &n.s);
        if (rmsgs && n.region <= src->nregions)
            instr_msg_counts_add(&rmsgs[n.region], &n.s.msgs);
        instr_wr_puts(f, ",\n     \"locations\": [");
        for (uint32_t k = 0; k < n.nlocs; k++) {
            uint32_t location;
            instr_json_stats s;
            src->node_location(src->ctx, i, k, &location, &s);
            instr_wr_printf(f, "%s{\"location\": %u, ", k ? ", " : "", location);
            stats(f, src, &s);
            instr_wr_putc(f, '}');
        }
        instr_wr_puts(f, "]}");
    }
    instr_wr_puts(f, "\n  ],\n");
}

static void flat(instr_writer *f, const instr_json_src *src, const instr_msg_counts *rmsgs)
{
    instr_wr_puts(f, "  \"flat\": [");
    int first = 1;
    for (uint32_t id = 1; id <= src->nregions; id++) {
        instr_json_stats s;
        src->flat(src->ctx, id, &s);
        if (!s.visits)
            continue;
        instr_wr_printf(f, "%s\n    {\"region\": %u, \"visits\": %llu, \"inclusive\": %llu, "
                   "\"exclusive\": %llu",
                first ? "" : ",", id, (unsigned long long)s.visits,
                (unsigned long long)s.incl, (unsigned long long)s.excl);
        if (rmsgs)
            messages(f, &rmsgs[id]);
        instr_wr_putc(f, '}');
        first = 0;
    }
    instr_wr_puts(f, "\n  ]");
}

int instr_json_write(instr_writer *f, const instr_json_src *src)
{
    instr_wr_puts(f, "{\n  \"format\": \"instr-profile\",\n  \"version\": 2,\n  \"time_unit\": \"ns\",\n");
    run(f, src);
    src->places(f, src->ctx);
    metric_definitions(f, src);
    regions(f, src);
    /* The flat profile's message counts; NULL: out of memory, the tree still has them. */
    instr_msg_counts *rmsgs = instr_mem_calloc((size_t)src->nregions + 1, sizeof *rmsgs);
    tree(f, src, rmsgs);
    flat(f, src, rmsgs);
    instr_mem_free(rmsgs);
    if (src->tail)
        src->tail(f, src->ctx);
    instr_wr_puts(f, "\n}\n");
    return f->err ? -1 : 0;
}
