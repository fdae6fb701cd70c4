/* write_json.c — profile.json, schema version 2 (docs/profile-format.md). */
#include "profile.h"
#include "job.h"
#include "../core/clock.h"
#include "../core/config.h"
#include "../core/event.h"
#include "../core/registry.h"
#include "../util/text.h"
#include "../metrics/metrics.h"
#include "../throttle/throttle.h"
#include "../include/instr_abi.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef INSTR_VERSION_STRING
#define INSTR_VERSION_STRING "unknown"
#endif

static void iso(FILE *f, time_t t)
{
    struct tm tm;
    char buf[32];
    gmtime_r(&t, &tm);
    strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    instr_json_str(f, buf);
}

static void stats(FILE *f, const instr_pstats *s)
{
    fprintf(f,
            "\"visits\": %llu, \"inclusive\": %llu, \"exclusive\": %llu, "
            "\"min_inclusive\": %llu, \"max_inclusive\": %llu, "
            "\"min_exclusive\": %llu, \"max_exclusive\": %llu",
            (unsigned long long)s->visits, (unsigned long long)instr_profile_ns(s->incl),
            (unsigned long long)instr_profile_ns(s->excl),
            (unsigned long long)instr_profile_min_ns(s->min_incl),
            (unsigned long long)instr_profile_ns(s->max_incl),
            (unsigned long long)instr_profile_min_ns(s->min_excl),
            (unsigned long long)instr_profile_ns(s->max_excl));
}

/* ", \"metrics\": {...}": the profiled metrics' rows (instr_profile_metric_columns). */
static void metric_rows(FILE *f, const instr_mtree *t, const uint64_t *m)
{
    static const char *const rows[INSTR_MROWS] = {"inclusive", "exclusive", "min_inclusive",
                                                  "max_inclusive"};
    if (!t->nm)
        return;
    fputs(", \"metrics\": {", f);
    for (int r = 0; r < INSTR_MROWS; r++) {
        fprintf(f, "%s\"%s\": [", r ? ", " : "", rows[r]);
        int first = 1;
        for (uint32_t i = 0; i < t->nm; i++) {
            if (!instr_profile_metric_shown(i))
                continue;
            uint32_t type = instr_metrics_sync[i].value_type;
            fputs(first ? "" : ", ", f);
            instr_metric_fprint(f, type, m ? m[r * t->nm + i] : instr_metric_zero(type), 0);
            first = 0;
        }
        fputc(']', f);
    }
    fputc('}', f);
}

static void metric_definitions(FILE *f, const instr_mtree *t)
{
    static const char *const types[] = {"uint64", "int64", "double"};
    fputs("  \"metrics\": [", f);
    int first = 1;
    for (uint32_t i = 0; i < t->nm; i++) {
        if (!instr_profile_metric_shown(i))
            continue;
        const instr_metric *m = &instr_metrics_sync[i];
        fprintf(f, "%s\n    {\"name\": ", first ? "" : ",");
        instr_json_str(f, m->name);
        fputs(", \"source\": ", f);
        instr_json_str(f, m->source);
        fputs(", \"unit\": ", f);
        instr_json_str(f, m->unit);
        fprintf(f, ", \"base\": %u, \"exponent\": %d, \"type\": \"%s\", \"mode\": "
                   "\"accumulated\", \"synchronicity\": \"%s\", \"description\": ",
                m->base, m->exponent, types[m->value_type],
                m->synchronicity == INSTR_METRIC_SYNC ? "synchronous" : "strictly-synchronous");
        instr_json_str(f, m->description);
        fputc('}', f);
        first = 0;
    }
    fputs(first ? "],\n" : "\n  ],\n", f);
}

static void command_line(FILE *f)
{
    fputc('[', f);
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
                    fputs(", ", f);
                instr_json_str(f, p);
                first = 0;
            }
        }
    }
    fputc(']', f);
}

static void run_meta(FILE *f, const instr_run *run, const instr_mtree *t)
{
    char exe[PATH_MAX] = "", host[256] = "";
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) /* the main thread ended with pthread_exit: /proc/self is gone */
        n = readlink("/proc/thread-self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    gethostname(host, sizeof host - 1);
    fputs("  \"run\": {\n    \"program\": ", f);
    instr_json_str(f, exe);
    fputs(",\n    \"command_line\": ", f);
    command_line(f);
    fprintf(f, ",\n    \"pid\": %d, \"parent_pid\": %d, \"fork_of\": ", run->pid, run->ppid);
    if (run->fork_of)
        fprintf(f, "%d", run->fork_of);
    else
        fputs("null", f);
    fputs(",\n    \"hostname\": ", f);
    instr_json_str(f, host);
    fputs(",\n    \"start\": ", f);
    iso(f, run->wall_start);
    fputs(", \"end\": ", f);
    iso(f, run->wall_end);
    fprintf(f, ",\n    \"duration\": %llu,\n    \"timer\": ",
            (unsigned long long)instr_clock_to_ns(run->t_end - run->t_start));
    instr_json_str(f, instr_clock_name());
    fprintf(f, ", \"timer_frequency_hz\": %.0f, \"timer_resolution_ns\": %.1f, "
               "\"timer_cost_ns\": %.1f,\n    \"instr_version\": ",
            instr_clock_hz(), instr_clock_resolution_ns(), instr_clock_cost_ns());
    instr_json_str(f, INSTR_VERSION_STRING);
    fprintf(f, ", \"abi_version\": %d,\n    \"experiment_directory\": ", INSTR_ABI_VERSION);
    instr_json_str(f, run->dir);
    fputs(",\n    \"configuration\": {", f);
    for (int i = 0; i < instr_config_count(); i++) {
        fputs(i ? ", " : "", f);
        instr_json_str(f, instr_config_name(i));
        fputs(": ", f);
        instr_json_str(f, instr_config_value(i));
    }
    fprintf(f,
            "},\n    \"dropped_call_paths\": %llu, \"unmatched_exits\": %llu, "
            "\"closed_at_end\": %llu, \"closed_after_longjmp\": %llu, "
            "\"events_dropped_in_handlers\": %llu,\n    \"folded_max_depth\": %u, "
            "\"folded_paths_shortened\": %llu\n  },\n",
            (unsigned long long)t->dropped, (unsigned long long)run->unmatched_exits,
            (unsigned long long)run->closed_at_end, (unsigned long long)t->resynced,
            (unsigned long long)run->dropped_in_handlers, instr_cfg.folded_max_depth,
            (unsigned long long)instr_profile_folded_shortened(t, instr_cfg.folded_max_depth));
}

int instr_profile_write_json(FILE *f, const instr_run *run, const instr_mtree *t)
{
    fputs("{\n  \"format\": \"instr-profile\",\n  \"version\": 2,\n  \"time_unit\": \"ns\",\n", f);
    run_meta(f, run, t);
    fprintf(f, "  \"location_groups\": [{\"id\": 0, \"kind\": \"process\", "
               "\"name\": \"process %d\", \"pid\": %d}],\n", run->pid, run->pid);
    fputs("  \"locations\": [", f);
    for (uint32_t i = 0; i < run->nlocations; i++) {
        const instr_location *l = run->locations[i];
        fprintf(f, "%s\n    {\"id\": %u, \"group\": 0, \"kind\": \"thread\", "
                   "\"name\": \"thread %u%s\", \"tid\": %d, \"end\": \"%s\"}",
                i ? "," : "", l->id, l->id, l->tid == run->pid ? " (main)" : "", l->tid,
                l->ended == INSTR_LOC_THREAD_EXIT ? "thread-exit" : "program-end");
    }
    fputs("\n  ],\n", f);
    metric_definitions(f, t);
    fputs("  \"regions\": [", f);
    for (uint32_t h = 1; h <= t->nregions; h++) {
        const instr_region_info *r = instr_registry_get(h);
        fprintf(f, "%s\n    {\"id\": %u, \"name\": ", h > 1 ? "," : "", h);
        instr_json_str(f, r->name);
        fputs(", \"mangled\": ", f);
        instr_json_str(f, r->mangled);
        fputs(", \"file\": ", f);
        instr_json_str(f, r->file);
        fprintf(f, ", \"line_begin\": %u, \"line_end\": %u, \"source\": \"%s\", \"object\": ",
                r->line_begin, r->line_end, instr_region_source_name(r->source));
        instr_json_str(f, r->object);
        instr_throttle_mark mark;
        if (instr_throttle_mark_of(h, &mark))
            fprintf(f, ", \"throttled\": {\"visit\": %llu, \"location\": %u, "
                       "\"mean_inclusive_ns\": %llu, \"excluded\": %s}",
                    (unsigned long long)mark.visit, mark.location,
                    (unsigned long long)mark.mean_ns, mark.excluded ? "true" : "false");
        fputc('}', f);
    }
    fputs("\n  ],\n  \"tree\": [", f);
    /* MPI message counts (job.h) per region for the flat profile; NULL: out of memory, the
     * tree still has them. */
    instr_job_msgs *rmsgs = calloc((size_t)t->nregions + 1, sizeof *rmsgs);
    for (uint32_t i = 0; i < t->n; i++) {
        const instr_mnode *mn = &t->nodes[i];
        fprintf(f, "%s\n    {\"id\": %u, \"parent\": ", i ? "," : "", i);
        if (mn->parent < 0)
            fputs("null", f);
        else
            fprintf(f, "%d", mn->parent);
        fprintf(f, ", \"depth\": %u, \"region\": %u, ", mn->depth, mn->region);
        stats(f, &mn->s);
        instr_job_msgs node_msgs = {0};
        for (uint32_t k = 0; k < mn->nlocs; k++)
            instr_job_messages_add(mn->locs[k].node, &node_msgs);
        instr_job_messages_json(f, &node_msgs);
        if (rmsgs && mn->region <= t->nregions) {
            instr_job_msgs *r = &rmsgs[mn->region];
            r->sent += node_msgs.sent;
            r->bytes_sent += node_msgs.bytes_sent;
            r->received += node_msgs.received;
            r->bytes_received += node_msgs.bytes_received;
            r->collectives += node_msgs.collectives;
        }
        metric_rows(f, t, mn->m);
        fputs(",\n     \"locations\": [", f);
        for (uint32_t k = 0; k < mn->nlocs; k++) {
            fprintf(f, "%s{\"location\": %u, ", k ? ", " : "", mn->locs[k].location);
            stats(f, &mn->locs[k].s);
            instr_job_msgs loc_msgs = {0};
            instr_job_messages_add(mn->locs[k].node, &loc_msgs);
            instr_job_messages_json(f, &loc_msgs);
            metric_rows(f, t, mn->locs[k].m);
            fputc('}', f);
        }
        fputs("]}", f);
    }
    fputs("\n  ],\n  \"flat\": [", f);
    int first = 1;
    for (uint32_t h = 1; h <= t->nregions; h++) {
        const instr_flat *fl = &t->flat[h];
        if (!fl->visits)
            continue;
        fprintf(f, "%s\n    {\"region\": %u, \"visits\": %llu, \"inclusive\": %llu, "
                   "\"exclusive\": %llu",
                first ? "" : ",", h, (unsigned long long)fl->visits,
                (unsigned long long)instr_profile_ns(fl->incl),
                (unsigned long long)instr_profile_ns(fl->excl));
        if (rmsgs)
            instr_job_messages_json(f, &rmsgs[h]);
        fputc('}', f);
        first = 0;
    }
    free(rmsgs);
    fputs("\n  ]\n}\n", f);
    return ferror(f) ? -1 : 0;
}
