/* json_adaptor.c — the job's profile.json: the merged profile (model.h) as the source of the
 * one profile.json writer (../profile/write_json.h), with one location group per rank. */
#include "outputs.h"
#include "../profile/write_json.h"

#include <inttypes.h>

typedef struct job_src {
    const instr_job *j;
    int nranks;
} job_src;

static void run_head(instr_writer *f, const void *ctx)
{
    const instr_job *j = ((const job_src *)ctx)->j;
    instr_wr_printf(f, ",\n    \"duration\": %" PRIu64 ", \"timer\": ", j->duration);
    instr_wr_json_str(f, j->timer);
    instr_wr_printf(f, ", \"timer_frequency_hz\": %.0f", j->hz);
}

static void run_tail(instr_writer *f, const void *ctx)
{
    const instr_job *j = ((const job_src *)ctx)->j;
    int nranks = ((const job_src *)ctx)->nranks;
    instr_wr_printf(f, ",\n    \"mpi\": {\"ranks\": %d, \"ranks_merged\": [", nranks);
    int first = 1;
    for (uint32_t i = 0; i < j->ngroups; i++)
        if (j->groups[i].present) {
            instr_wr_printf(f, "%s%d", first ? "" : ", ", j->groups[i].rank);
            first = 0;
        }
    instr_wr_puts(f, "], \"ranks_missing\": [");
    first = 1;
    for (int r = 0; r < nranks; r++) {
        int present = 0;
        for (uint32_t i = 0; i < j->ngroups; i++)
            present |= j->groups[i].rank == r && j->groups[i].present;
        if (!present) {
            instr_wr_printf(f, "%s%d", first ? "" : ", ", r);
            first = 0;
        }
    }
    instr_wr_printf(f, "], \"complete\": %s%s},\n", j->failed ? "false" : "true",
            j->summary ? ", \"summary_over_ranks\": true" : "");
    instr_wr_printf(f, "    \"dropped_call_paths\": %" PRIu64 ", \"unmatched_exits\": %" PRIu64
               ", \"closed_at_end\": %" PRIu64,
            j->dropped, j->unmatched, j->closed);
}

static void places(instr_writer *f, const void *ctx)
{
    const instr_job *j = ((const job_src *)ctx)->j;
    instr_wr_puts(f, "  \"location_groups\": [");
    int first = 1;
    for (uint32_t i = 0; i < j->ngroups; i++) {
        const jgroup *g = &j->groups[i];
        if (!g->present)
            continue;
        instr_wr_printf(f, "%s\n    {\"id\": %d, \"kind\": \"process\", \"name\": \"rank %d\", "
                   "\"rank\": %d, \"pid\": %d, \"hostname\": ",
                first ? "" : ",", g->rank, g->rank, g->rank, g->pid);
        instr_wr_json_str(f, g->host);
        instr_wr_putc(f, '}');
        first = 0;
    }
    instr_wr_puts(f, "\n  ],\n  \"locations\": [");
    for (uint32_t i = 0; i < j->nlocs; i++) {
        const jlocation *l = &j->locs[i];
        instr_wr_printf(f, "%s\n    {\"id\": %u, \"group\": %d, \"kind\": \"thread\", "
                   "\"name\": \"rank %d thread %u\", \"tid\": %d, \"rank_location\": %u, "
                   "\"end\": \"%s\"}",
                i ? "," : "", i, l->rank, l->rank, l->id_in_rank, l->tid, l->id_in_rank, l->end);
    }
    instr_wr_puts(f, "\n  ],\n");
}

static void metric(const void *ctx, uint32_t i, instr_json_metric *out)
{
    const instr_job_metrics *jm = &((const job_src *)ctx)->j->metrics;
    *out = (instr_json_metric){jm->name[i], jm->source[i], jm->unit[i], jm->description[i],
                               jm->base[i], jm->type[i], jm->exponent[i], NULL, 1};
}

static void region(const void *ctx, uint32_t id, instr_json_region *out)
{
    const jregion *r = &((const job_src *)ctx)->j->regions[id - 1];
    *out = (instr_json_region){r->name, r->mangled, r->file, r->source, r->object,
                               r->line_begin, r->line_end,
                               r->throttled_ranks ? &r->throttled : NULL, r->throttled_ranks,
                               r->throttled_rank};
}

static void stats_of(const jstats *s, const uint64_t *m, instr_json_stats *out)
{
    *out = (instr_json_stats){s->t.visits, s->t.incl, s->t.excl, s->t.min_incl, s->t.max_incl,
                              s->t.min_excl, s->t.max_excl, s->m, m};
}

static void node(const void *ctx, uint32_t i, instr_json_node *out)
{
    const jnode *n = &((const job_src *)ctx)->j->nodes[i];
    *out = (instr_json_node){n->parent, n->depth, n->region, n->nlocs, {0}};
    stats_of(&n->s, n->m, &out->s);
}

static void node_location(const void *ctx, uint32_t i, uint32_t k, uint32_t *location,
                          instr_json_stats *out)
{
    const jloc *l = &((const job_src *)ctx)->j->nodes[i].locs[k];
    *location = l->location;
    stats_of(&l->s, l->m, out);
}

/* Visits and exclusive over all call paths of the region, inclusive over outermost ones. */
static void flat(const void *ctx, uint32_t r, instr_json_stats *out)
{
    const instr_job *j = ((const job_src *)ctx)->j;
    *out = (instr_json_stats){0};
    for (uint32_t i = 0; i < j->n; i++) {
        const jnode *mn = &j->nodes[i];
        if (mn->region != r)
            continue;
        out->visits += mn->s.t.visits;
        out->excl += mn->s.t.excl;
        int outer = 1;
        for (int32_t p = mn->parent; p >= 0 && outer; p = j->nodes[p].parent)
            outer = j->nodes[p].region != r;
        if (outer)
            out->incl += mn->s.t.incl;
    }
}

static void tail(instr_writer *f, const void *ctx)
{
    instr_job_memory_json(f, ((const job_src *)ctx)->j);
    instr_job_io_json(f, ((const job_src *)ctx)->j);
}

void instr_job_json(instr_writer *f, const instr_job *j, const char *dir, int nranks)
{
    job_src js = {j, nranks};
    instr_json_src src = {
        .ctx = &js, .dir = dir, .run_head = run_head, .run_tail = run_tail, .places = places,
        .nmetrics = j->metrics.n, .metric = metric, .nregions = j->nregions, .region = region,
        .nnodes = j->n, .node = node, .node_location = node_location, .flat = flat,
        .tail = tail,
    };
    instr_json_write(f, &src);
}
