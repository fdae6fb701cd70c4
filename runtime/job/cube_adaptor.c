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

#include <string.h>

/* The writer's source: the job, and each node's sampled children when the job sampled. */
typedef struct job_src {
    const instr_job *j;
    int32_t *first_sampled, *next_sampled;
} job_src;

static int is_sampled(const instr_job *j, uint32_t i)
{
    uint32_t r = j->nodes[i].region;
    return r >= 1 && r <= j->nregions && j->regions[r - 1].source &&
           strcmp(j->regions[r - 1].source, "sampled") == 0;
}

static void cube_region(const void *ctx, uint32_t i, instr_cube_region *out)
{
    const jregion *r = &((const job_src *)ctx)->j->regions[i];
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
    const jnode *n = &((const job_src *)ctx)->j->nodes[i];
    *parent = n->parent;
    *region = n->region - 1;
}

static void cube_location(const void *ctx, uint32_t l, char *name, size_t size, uint32_t *rank)
{
    const jlocation *loc = &((const job_src *)ctx)->j->locs[l];
    snprintf(name, size, "rank %d thread %u", loc->rank, loc->id_in_rank);
    *rank = loc->id_in_rank;
}

static void cube_row(const void *ctx, uint32_t i, instr_cube_cell *cells)
{
    const job_src *p = ctx;
    const instr_job *j = p->j;
    const jnode *n = &j->nodes[i];
    for (uint32_t k = 0; k < n->nlocs; k++) {
        const jstats *s = &n->locs[k].s;
        if (n->locs[k].location < j->nlocs)
            cells[n->locs[k].location] = (instr_cube_cell){
                s->t.visits, s->t.incl, s->t.min_incl == UINT64_MAX ? 0 : s->t.min_incl,
                s->t.max_incl, s->m.bytes_sent, s->m.bytes_received, s->m.sent, s->m.received,
                0, n->locs[k].m, {0}, {0}};
    }
    /* Memory recording: the call path's counts per thread; each rank's high-water mark
     * (its process's) at the root call paths of its first thread. */
    for (uint32_t k = 0; k < n->nlocs; k++) {
        uint32_t l = n->locs[k].location;
        if (l >= j->nlocs)
            continue;
        for (int f = 0; n->locs[k].mem && f < INSTR_CUBE_HIGH_WATER; f++)
            cells[l].mem[f] = n->locs[k].mem[f];
        for (uint32_t g = 0; n->parent < 0 && j->locs[l].id_in_rank == 0 && g < j->ngroups; g++)
            if (j->groups[g].rank == j->locs[l].rank && j->groups[g].has_memory)
                cells[l].mem[INSTR_CUBE_HIGH_WATER] = j->groups[g].mem.high_water;
    }
    for (uint32_t k = 0; k < n->nlocs; k++) {
        const instr_profile_io_totals *io = n->locs[k].io;
        uint64_t *c = n->locs[k].location < j->nlocs ? cells[n->locs[k].location].io : NULL;
        for (int p = 0; io && c && p < INSTR_PROFILE_IO_PARADIGMS; p++) {
            c[INSTR_CUBE_IO_OPS] += io[p].ops;
            c[INSTR_CUBE_IO_FAILED] += io[p].failed;
            c[INSTR_CUBE_IO_BYTES_READ] += io[p].bytes_read;
            c[INSTR_CUBE_IO_BYTES_WRITTEN] += io[p].bytes_written;
            c[INSTR_CUBE_IO_NS] += io[p].ns;
        }
    }
    /* A sampled node's visits are its samples, those beneath it included: its own are what
     * its sampled children do not have. */
    if (!p->first_sampled || !is_sampled(j, i))
        return;
    for (uint32_t k = 0; k < n->nlocs; k++)
        if (n->locs[k].location < j->nlocs)
            cells[n->locs[k].location].samples = n->locs[k].s.t.visits;
    for (int32_t c = p->first_sampled[i]; c >= 0; c = p->next_sampled[c]) {
        const jnode *cn = &j->nodes[c];
        for (uint32_t k = 0; k < cn->nlocs; k++)
            if (cn->locs[k].location < j->nlocs)
                cells[cn->locs[k].location].samples -= cn->locs[k].s.t.visits;
    }
}

static void cube_metric(const void *ctx, uint32_t i, instr_cube_metric *out)
{
    const instr_job_metrics *jm = &((const job_src *)ctx)->j->metrics;
    *out = (instr_cube_metric){jm->name[i], jm->unit[i], jm->description[i], jm->type[i],
                               jm->base[i], jm->exponent[i], INSTR_MROW_INCL * jm->n + i};
}

/* The ranks' locations are contiguous in j->locs (one blob each, added whole). */
int instr_job_cube(instr_writer *f, const instr_job *j)
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
        snprintf(names[ng], sizeof names[ng], "MPI Rank %d", jg->rank); /* as Score-P */
        groups[ng] = (instr_cube_group){names[ng], jg->host, jg->rank, first, n};
        ng++;
    }
    job_src p = {j, NULL, NULL};
    int sampled = 0, io = 0, memory = 0;
    for (uint32_t g = 0; g < j->ngroups; g++) {
        io |= j->groups[g].present && j->groups[g].has_io;
        memory |= j->groups[g].present && j->groups[g].has_memory;
    }
    for (uint32_t i = 0; i < j->n && !io; i++)
        for (uint32_t k = 0; k < j->nodes[i].nlocs && !io; k++)
            io = j->nodes[i].locs[k].io != NULL;
    for (uint32_t i = 0; i < j->n && !sampled; i++)
        sampled = is_sampled(j, i);
    if (sampled) {
        p.first_sampled = instr_mem_calloc((size_t)j->n + 1, sizeof *p.first_sampled);
        p.next_sampled = instr_mem_calloc((size_t)j->n + 1, sizeof *p.next_sampled);
        if (!p.first_sampled || !p.next_sampled) {
            instr_mem_free(p.first_sampled);
            instr_mem_free(p.next_sampled);
            instr_mem_free(groups);
            instr_mem_free(names);
            return -1;
        }
        for (uint32_t i = 0; i < j->n; i++)
            p.first_sampled[i] = p.next_sampled[i] = -1;
        for (uint32_t i = j->n; i-- > 0;)
            if (j->nodes[i].parent >= 0 && is_sampled(j, i)) {
                p.next_sampled[i] = p.first_sampled[j->nodes[i].parent];
                p.first_sampled[j->nodes[i].parent] = (int32_t)i;
            }
    }
    instr_cube_src src = {
        .ctx = &p, .nregions = j->nregions, .region = cube_region, .ncnodes = j->n,
        .cnode = cube_cnode, .groups = groups, .ngroups = ng, .nlocs = j->nlocs,
        .location = cube_location, .row = cube_row, .messages = 1, .samples = sampled,
        .nmetrics = j->metrics.n, .metric = cube_metric,
        .creator = "instr " INSTR_VERSION_STRING,
    };
    src.io = io;
    src.memory = memory;
    int rc = instr_cube_write(f, &src);
    instr_mem_free(p.first_sampled);
    instr_mem_free(p.next_sampled);
    instr_mem_free(groups);
    instr_mem_free(names);
    return rc;
}
