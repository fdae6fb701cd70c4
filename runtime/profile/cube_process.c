/* cube_process.c — profile.cubex of one process: the merged call tree (merge.c) as the
 * source of the CUBE4 writer (cube.h), one location per thread. */
#include "profile.h"
#include "cube.h"
#include "../core/event.h"
#include "../core/registry.h"
#include "../metrics/metrics.h"
#include "../throttle/throttle.h"
#include "../util/pages.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#ifndef INSTR_VERSION_STRING
#define INSTR_VERSION_STRING "unknown"
#endif

typedef struct process_src {
    const instr_run *run;
    const instr_mtree *t;
    uint32_t *shown; /* the accumulated metrics (those of profile.json), by index */
    const instr_profile_memory *mem; /* memory recording's, or NULL */
    const void **mem_thread;         /* its thread of each location */
    const instr_profile_io *io;      /* I/O recording's, or NULL */
    const void **io_thread;          /* its thread of each location */
    int32_t *first_sampled, *next_sampled; /* each node's sampled children (sampling) */
} process_src;

static int is_sampled(const instr_mtree *t, uint32_t i)
{
    const instr_region_info *r = instr_registry_get(t->nodes[i].region);
    return r && r->source == INSTR_SOURCE_SAMPLED;
}

static void region(const void *ctx, uint32_t i, instr_cube_region *out)
{
    (void)ctx;
    const instr_region_info *r = instr_registry_get(i + 1);
    *out = (instr_cube_region){r ? r->name : "?", r ? r->mangled : "", r ? r->file : "",
                               r ? instr_region_source_name(r->source) : "",
                               r ? r->line_begin : 0, r ? r->line_end : 0, NULL};
    /* Used by the writer before the next region is asked for. */
    static char throttled[128];
    instr_throttle_mark mark;
    if (instr_throttle_mark_of(i + 1, &mark)) {
        snprintf(throttled, sizeof throttled,
                 "throttled at visit %llu (mean inclusive time %llu ns, thread %u)",
                 (unsigned long long)mark.visit, (unsigned long long)mark.mean_ns, mark.location);
        out->descr = throttled;
    }
}

static void cnode(const void *ctx, uint32_t i, int32_t *parent, uint32_t *reg)
{
    const instr_mnode *mn = &((const process_src *)ctx)->t->nodes[i];
    *parent = mn->parent;
    *reg = mn->region - 1;
}

static void location(const void *ctx, uint32_t l, char *name, size_t size, uint32_t *rank)
{
    const process_src *p = ctx;
    const instr_location *loc = p->run->locations[l];
    snprintf(name, size, "thread %u%s", loc->id, loc->tid == p->run->pid ? " (main)" : "");
    *rank = loc->id;
}

static void metric(const void *ctx, uint32_t i, instr_cube_metric *out)
{
    const process_src *p = ctx;
    const instr_metric *m = &instr_metrics_sync[p->shown[i]];
    *out = (instr_cube_metric){m->name, m->unit, m->description, m->value_type, m->base,
                               m->exponent, INSTR_MROW_INCL * p->t->nm + p->shown[i]};
}

/* The call path's I/O on one thread, summed over the paradigms. */
static void io_cell(const instr_profile_io *io, const void *th, const instr_pnode *node,
                    uint64_t out[INSTR_CUBE_IO])
{
    instr_profile_io_totals t[INSTR_PROFILE_IO_PARADIGMS];
    io->cell(th, node, t);
    for (int k = 0; k < INSTR_PROFILE_IO_PARADIGMS; k++) {
        out[INSTR_CUBE_IO_OPS] += t[k].ops;
        out[INSTR_CUBE_IO_FAILED] += t[k].failed;
        out[INSTR_CUBE_IO_BYTES_READ] += t[k].bytes_read;
        out[INSTR_CUBE_IO_BYTES_WRITTEN] += t[k].bytes_written;
        out[INSTR_CUBE_IO_NS] += t[k].ns;
    }
}

static void row(const void *ctx, uint32_t i, instr_cube_cell *cells)
{
    const process_src *p = ctx;
    const instr_mnode *mn = &p->t->nodes[i];
    for (uint32_t k = 0; k < mn->nlocs; k++) {
        const instr_mloc *l = &mn->locs[k];
        if (l->location >= p->run->nlocations)
            continue;
        instr_cube_cell *c = &cells[l->location];
        *c = (instr_cube_cell){
            .visits = l->s.visits, .incl_ns = instr_profile_ns(l->s.incl),
            .min_incl_ns = instr_profile_min_ns(l->s.min_incl),
            .max_incl_ns = instr_profile_ns(l->s.max_incl), .m = l->m};
        const void *th = p->mem ? p->mem_thread[l->location] : NULL;
        if (th) {
            p->mem->cell(th, l->node, c->mem);
            if (mn->parent < 0)
                c->mem[INSTR_CUBE_HIGH_WATER] = p->mem->high_water(th);
        }
        th = p->io ? p->io_thread[l->location] : NULL;
        if (th)
            io_cell(p->io, th, l->node, c->io);
    }
    /* A sampled node's visits are its samples, those beneath it included: its own are what
     * its sampled children do not have. */
    if (!p->first_sampled || !is_sampled(p->t, i))
        return;
    for (uint32_t k = 0; k < mn->nlocs; k++)
        if (mn->locs[k].location < p->run->nlocations)
            cells[mn->locs[k].location].samples = mn->locs[k].s.visits;
    for (int32_t c = p->first_sampled[i]; c >= 0; c = p->next_sampled[c]) {
        const instr_mnode *cn = &p->t->nodes[c];
        for (uint32_t k = 0; k < cn->nlocs; k++)
            if (cn->locs[k].location < p->run->nlocations)
                cells[cn->locs[k].location].samples -= cn->locs[k].s.visits;
    }
}

int instr_profile_write_cube(instr_writer *f, const instr_run *run, const instr_mtree *t)
{
    char host[256] = "", name[64];
    gethostname(host, sizeof host - 1);
    snprintf(name, sizeof name, "process %d", run->pid);
    instr_cube_group group = {name, host, 0, 0, run->nlocations};
    process_src p = {run, t, instr_mem_calloc((size_t)t->nm + 1, sizeof *p.shown), NULL, NULL,
                     NULL, NULL, NULL, NULL};
    uint32_t nshown = 0;
    if (!p.shown)
        return -1;
    const instr_profile_memory *mem = instr_profile_memory_of();
    if (mem && mem->thread_of) {
        p.mem_thread = instr_mem_calloc((size_t)run->nlocations + 1, sizeof *p.mem_thread);
        if (!p.mem_thread) {
            instr_mem_free(p.shown);
            return -1;
        }
        p.mem = mem;
        for (uint32_t l = 0; l < run->nlocations; l++)
            p.mem_thread[l] = mem->thread_of(run->locations[l]->id);
    }
    const instr_profile_io *io = instr_profile_io_of();
    if (io && io->thread_of) {
        p.io_thread = instr_mem_calloc((size_t)run->nlocations + 1, sizeof *p.io_thread);
        if (!p.io_thread) {
            instr_mem_free(p.shown);
            instr_mem_free(p.mem_thread);
            return -1;
        }
        p.io = io;
        for (uint32_t l = 0; l < run->nlocations; l++)
            p.io_thread[l] = io->thread_of(run->locations[l]->id);
    }
    for (uint32_t i = 0; i < t->nm; i++)
        if (instr_profile_metric_shown(i))
            p.shown[nshown++] = i;
    int sampled = 0;
    for (uint32_t i = 0; i < t->n && !sampled; i++)
        sampled = is_sampled(t, i);
    if (sampled) {
        p.first_sampled = instr_mem_calloc((size_t)t->n, sizeof *p.first_sampled);
        p.next_sampled = instr_mem_calloc((size_t)t->n, sizeof *p.next_sampled);
        if (!p.first_sampled || !p.next_sampled) {
            instr_mem_free(p.first_sampled);
            instr_mem_free(p.next_sampled);
            instr_mem_free(p.shown);
            instr_mem_free(p.mem_thread);
            instr_mem_free(p.io_thread);
            return -1;
        }
        for (uint32_t i = 0; i < t->n; i++)
            p.first_sampled[i] = p.next_sampled[i] = -1;
        for (uint32_t i = t->n; i-- > 0;)
            if (t->nodes[i].parent >= 0 && is_sampled(t, i)) {
                p.next_sampled[i] = p.first_sampled[t->nodes[i].parent];
                p.first_sampled[t->nodes[i].parent] = (int32_t)i;
            }
    }
    instr_cube_src src = {
        .ctx = &p, .nregions = t->nregions, .region = region, .ncnodes = t->n, .cnode = cnode,
        .groups = &group, .ngroups = 1, .nlocs = run->nlocations, .location = location,
        .row = row, .messages = 0, .memory = p.mem != NULL, .samples = sampled, .nmetrics = nshown, .metric = metric, .creator = "instr " INSTR_VERSION_STRING,
    };
    src.io = p.io != NULL;
    int rc = instr_cube_write(f, &src);
    instr_mem_free(p.first_sampled);
    instr_mem_free(p.next_sampled);
    instr_mem_free(p.shown);
    instr_mem_free(p.mem_thread);
    instr_mem_free(p.io_thread);
    return rc;
}
