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
static void messages(FILE *f, const instr_msg_counts *m)
{
    const struct { const char *name; uint64_t v; } fields[] = {
        {"messages_sent", m->sent}, {"bytes_sent", m->bytes_sent},
        {"messages_received", m->received}, {"bytes_received", m->bytes_received},
        {"collectives", m->collectives}};
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
        if (fields[i].v)
            fprintf(f, ", \"%s\": %llu", fields[i].name, (unsigned long long)fields[i].v);
}

/* ", \"metrics\": {...}": the shown metrics' rows (INSTR_MROW_* order). */
static void metric_rows(FILE *f, const instr_json_src *src, const uint64_t *m)
{
    static const char *const rows[INSTR_MROWS] = {"inclusive", "exclusive", "min_inclusive",
                                                  "max_inclusive"};
    uint32_t n = src->nmetrics;
    if (!n)
        return;
    fputs(", \"metrics\": {", f);
    for (int r = 0; r < INSTR_MROWS; r++) {
        fprintf(f, "%s\"%s\": [", r ? ", " : "", rows[r]);
        int first = 1;
        for (uint32_t i = 0; i < n; i++) {
            instr_json_metric d;
            src->metric(src->ctx, i, &d);
            if (!d.shown)
                continue;
            fputs(first ? "" : ", ", f);
            instr_metric_fprint(f, d.type, m ? m[r * n + i] : instr_metric_zero(d.type), 0);
            first = 0;
        }
        fputc(']', f);
    }
    fputc('}', f);
}

static void stats(FILE *f, const instr_json_src *src, const instr_json_stats *s)
{
    fprintf(f,
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

static void run(FILE *f, const instr_json_src *src)
{
    char exe[PATH_MAX] = "";
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) /* the main thread ended with pthread_exit: /proc/self is gone */
        n = readlink("/proc/thread-self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    fputs("  \"run\": {\n    \"program\": ", f);
    instr_json_str(f, exe);
    src->run_head(f, src->ctx);
    fputs(",\n    \"instr_version\": ", f);
    instr_json_str(f, INSTR_VERSION_STRING);
    fprintf(f, ", \"abi_version\": %d,\n    \"experiment_directory\": ", INSTR_ABI_VERSION);
    instr_json_str(f, src->dir);
    fputs(",\n    \"configuration\": {", f);
    for (int i = 0; i < instr_config_count(); i++) {
        fputs(i ? ", " : "", f);
        instr_json_str(f, instr_config_name(i));
        fputs(": ", f);
        instr_json_str(f, instr_config_value(i));
    }
    fputc('}', f);
    src->run_tail(f, src->ctx);
    fputs("\n  },\n", f);
}

static void metric_definitions(FILE *f, const instr_json_src *src)
{
    static const char *const types[] = {"uint64", "int64", "double"};
    fputs("  \"metrics\": [", f);
    int first = 1;
    for (uint32_t i = 0; i < src->nmetrics; i++) {
        instr_json_metric m;
        src->metric(src->ctx, i, &m);
        if (!m.shown)
            continue;
        fprintf(f, "%s\n    {\"name\": ", first ? "" : ",");
        instr_json_str(f, m.name);
        fputs(", \"source\": ", f);
        instr_json_str(f, m.source);
        fputs(", \"unit\": ", f);
        instr_json_str(f, m.unit);
        fprintf(f, ", \"base\": %u, \"exponent\": %d, \"type\": \"%s\", \"mode\": "
                   "\"accumulated\", ",
                m.base, m.exponent, types[m.type]);
        if (m.synchronicity)
            fprintf(f, "\"synchronicity\": \"%s\", ", m.synchronicity);
        fputs("\"description\": ", f);
        instr_json_str(f, m.description);
        fputc('}', f);
        first = 0;
    }
    fputs(first ? "],\n" : "\n  ],\n", f);
}

static void regions(FILE *f, const instr_json_src *src)
{
    fputs("  \"regions\": [", f);
    for (uint32_t id = 1; id <= src->nregions; id++) {
        instr_json_region r;
        src->region(src->ctx, id, &r);
        fprintf(f, "%s\n    {\"id\": %u, \"name\": ", id > 1 ? "," : "", id);
        instr_json_str(f, r.name);
        fputs(", \"mangled\": ", f);
        instr_json_str(f, r.mangled);
        fputs(", \"file\": ", f);
        instr_json_str(f, r.file);
        fprintf(f, ", \"line_begin\": %u, \"line_end\": %u, \"source\": ", r.line_begin,
                r.line_end);
        instr_json_str(f, r.source);
        fputs(", \"object\": ", f);
        instr_json_str(f, r.object);
        const instr_throttle_mark *t = r.throttled;
        if (t && r.throttled_ranks)
            fprintf(f, ", \"throttled\": {\"visit\": %llu, \"rank\": %d, \"location\": %u, "
                       "\"mean_inclusive_ns\": %llu, \"excluded\": %s, \"ranks\": %u}",
                    (unsigned long long)t->visit, r.throttled_rank, t->location,
                    (unsigned long long)t->mean_ns, t->excluded ? "true" : "false",
                    r.throttled_ranks);
        else if (t)
            fprintf(f, ", \"throttled\": {\"visit\": %llu, \"location\": %u, "
                       "\"mean_inclusive_ns\": %llu, \"excluded\": %s}",
                    (unsigned long long)t->visit, t->location,
                    (unsigned long long)t->mean_ns, t->excluded ? "true" : "false");
        fputc('}', f);
    }
    fputs("\n  ],\n", f);
}

/* The tree; the regions' message sums into rmsgs (NULL: not summed). */
static void tree(FILE *f, const instr_json_src *src, instr_msg_counts *rmsgs)
{
    fputs("  \"tree\": [", f);
    for (uint32_t i = 0; i < src->nnodes; i++) {
        instr_json_node n;
        src->node(src->ctx, i, &n);
        fprintf(f, "%s\n    {\"id\": %u, \"parent\": ", i ? "," : "", i);
        if (n.parent < 0)
            fputs("null", f);
        else
            fprintf(f, "%d", n.parent);
        fprintf(f, ", \"depth\": %u, \"region\": %u, ", n.depth, n.region);
        /* A frame seen by sampling (docs/sampling.md): its visits are its samples. */
        instr_json_region r;
        memset(&r, 0, sizeof r);
        if (n.region >= 1 && n.region <= src->nregions)
            src->region(src->ctx, n.region, &r);
        if (r.source && strcmp(r.source, "sampled") == 0)
            fprintf(f, "\"sampled\": true, \"samples\": %llu, ", (unsigned long long)n.s.visits);
        stats(f, src, &n.s);
        if (rmsgs && n.region <= src->nregions)
            instr_msg_counts_add(&rmsgs[n.region], &n.s.msgs);
        fputs(",\n     \"locations\": [", f);
        for (uint32_t k = 0; k < n.nlocs; k++) {
            uint32_t location;
            instr_json_stats s;
            src->node_location(src->ctx, i, k, &location, &s);
            fprintf(f, "%s{\"location\": %u, ", k ? ", " : "", location);
            stats(f, src, &s);
            fputc('}', f);
        }
        fputs("]}", f);
    }
    fputs("\n  ],\n", f);
}

static void flat(FILE *f, const instr_json_src *src, const instr_msg_counts *rmsgs)
{
    fputs("  \"flat\": [", f);
    int first = 1;
    for (uint32_t id = 1; id <= src->nregions; id++) {
        instr_json_stats s;
        src->flat(src->ctx, id, &s);
        if (!s.visits)
            continue;
        fprintf(f, "%s\n    {\"region\": %u, \"visits\": %llu, \"inclusive\": %llu, "
                   "\"exclusive\": %llu",
                first ? "" : ",", id, (unsigned long long)s.visits,
                (unsigned long long)s.incl, (unsigned long long)s.excl);
        if (rmsgs)
            messages(f, &rmsgs[id]);
        fputc('}', f);
        first = 0;
    }
    fputs("\n  ]", f);
}

int instr_json_write(FILE *f, const instr_json_src *src)
{
    fputs("{\n  \"format\": \"instr-profile\",\n  \"version\": 2,\n  \"time_unit\": \"ns\",\n", f);
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
    fputs("\n}\n", f);
    return ferror(f) ? -1 : 0;
}
