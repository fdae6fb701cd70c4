/* cube_adaptor.c — the job's profile.cubex: the merged profile (model.h) as the source of
 * the CUBE writer (../profile/cube.h), machine > node (host) > process (rank) > thread. */
#include "outputs.h"
#include "../profile/cube.h"
#include "../util/pages.h"

#include <inttypes.h>
#include <stdlib.h>

#ifndef INSTR_VERSION_STRING
#define INSTR_VERSION_STRING "unknown"
#endif

static void cube_region(const void *ctx, uint32_t i, instr_cube_region *out)
{
    const jregion *r = &((const instr_job *)ctx)->regions[i];
    *out = (instr_cube_region){r->name, r->mangled, r->file, r->source, r->line_begin,
                               r->line_end, NULL};
    /* Used by the writer before the next region is asked for. */
    static char throttled[160];
    if (r->throttled_ranks) {
        snprintf(throttled, sizeof throttled,
                 "throttled at visit %" PRIu64 " (mean inclusive time %" PRIu64
                 " ns, rank %d thread %u; %u rank%s)",
                 r->throttled.visit, r->throttled.mean_ns, r->throttled_rank,
                 r->throttled.location, r->throttled_ranks, r->throttled_ranks == 1 ? "" : "s");
        out->descr = throttled;
    }
}

static void cube_cnode(const void *ctx, uint32_t i, int32_t *parent, uint32_t *region)
{
    const jnode *n = &((const instr_job *)ctx)->nodes[i];
    *parent = n->parent;
    *region = n->region - 1;
}

static void cube_location(const void *ctx, uint32_t l, char *name, size_t size, uint32_t *rank)
{
    const jlocation *loc = &((const instr_job *)ctx)->locs[l];
    snprintf(name, size, "rank %d thread %u", loc->rank, loc->id_in_rank);
    *rank = loc->id_in_rank;
}

static void cube_row(const void *ctx, uint32_t i, instr_cube_cell *cells)
{
    const instr_job *j = ctx;
    const jnode *n = &j->nodes[i];
    for (uint32_t k = 0; k < n->nlocs; k++) {
        const jstats *s = &n->locs[k].s;
        if (n->locs[k].location < j->nlocs)
            cells[n->locs[k].location] = (instr_cube_cell){
                s->t.visits, s->t.incl, s->t.min_incl == UINT64_MAX ? 0 : s->t.min_incl,
                s->t.max_incl, s->m.bytes_sent, s->m.bytes_received, s->m.sent, s->m.received,
                0, n->locs[k].m};
    }
}

static void cube_metric(const void *ctx, uint32_t i, instr_cube_metric *out)
{
    const instr_job_metrics *jm = &((const instr_job *)ctx)->metrics;
    *out = (instr_cube_metric){jm->name[i], jm->unit[i], jm->description[i], jm->type[i],
                               jm->base[i], jm->exponent[i], INSTR_MROW_INCL * jm->n + i};
}

/* The ranks' locations are contiguous in j->locs (one blob each, added whole). */
int instr_job_cube(FILE *f, const instr_job *j)
{
    instr_cube_group *groups = instr_mem_calloc((size_t)j->ngroups + 1, sizeof *groups);
    char (*names)[32] = instr_mem_calloc((size_t)j->ngroups + 1, sizeof *names);
    if (!groups || !names) {
        instr_mem_free(groups);
        instr_mem_free(names);
        return -1;
    }
    uint32_t ng = 0;
    for (uint32_t g = 0; g < j->ngroups; g++) {
        const jgroup *jg = &j->groups[g];
        if (!jg->present)
            continue;
        uint32_t first = 0, n = 0;
        while (first < j->nlocs && j->locs[first].rank != jg->rank)
            first++;
        while (first + n < j->nlocs && j->locs[first + n].rank == jg->rank)
            n++;
        snprintf(names[ng], sizeof names[ng], "rank %d", jg->rank);
        groups[ng] = (instr_cube_group){names[ng], jg->host, jg->rank, first, n};
        ng++;
    }
    instr_cube_src src = {
        .ctx = j, .nregions = j->nregions, .region = cube_region, .ncnodes = j->n,
        .cnode = cube_cnode, .groups = groups, .ngroups = ng, .nlocs = j->nlocs,
        .location = cube_location, .row = cube_row, .messages = 1,
        .nmetrics = j->metrics.n, .metric = cube_metric,
        .creator = "instr " INSTR_VERSION_STRING,
    };
    int rc = instr_cube_write(f, &src);
    instr_mem_free(groups);
    instr_mem_free(names);
    return rc;
}
