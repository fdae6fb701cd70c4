/* jobdb_local.c — this process's part of the job database from its profile (jobdb_local.h).
 * The values are those of the rank's own profile.json: per location and node its visits,
 * times in ns and metric rows; the message counts per node are the job's (messages.c). */
#include "jobdb_local.h"
#include "messages.h"
#include "../profile/profile.h"
#include "../core/clock.h"
#include "../core/event.h"
#include "../core/registry.h"
#include "../metrics/metrics.h"
#include "../throttle/throttle.h"
#include "../util/pages.h"

#include <stdlib.h>
#include <string.h>

static uint32_t paradigm_of(int source)
{
    switch (source) {
    case INSTR_SOURCE_HOOKS:
    case INSTR_SOURCE_CYG:
    case INSTR_SOURCE_XRAY:
        return INSTR_JDB_PARADIGM_USER;
    case INSTR_SOURCE_MPI:
        return INSTR_JDB_PARADIGM_MPI;
    case INSTR_SOURCE_OPENMP:
        return INSTR_JDB_PARADIGM_OPENMP;
    case INSTR_SOURCE_MANUAL:
        return INSTR_JDB_PARADIGM_MANUAL;
    default:
        return INSTR_JDB_PARADIGM_OTHER;
    }
}

/* The database's region of registry handle h; INSTR_JDB_NONE without memory. */
static uint32_t region_of(instr_jdb_defs *d, uint32_t h)
{
    const instr_region_info *r = instr_registry_get(h);
    instr_jdb_region x = {0};
    if (r) {
        x.name = instr_jdb_str(d, r->name);
        x.mangled = instr_jdb_str(d, r->mangled);
        x.file = instr_jdb_str(d, r->file);
        x.object = instr_jdb_str(d, r->object);
        x.line_begin = r->line_begin;
        x.line_end = r->line_end;
        x.paradigm = paradigm_of(r->source);
        x.flags = ((uint32_t)r->source + 1) << INSTR_JDB_REGION_SOURCE_SHIFT &
                  INSTR_JDB_REGION_SOURCE_MASK;
        instr_throttle_mark mark;
        if (instr_throttle_mark_of(h, &mark))
            x.flags |= INSTR_JDB_REGION_THROTTLED;
    } else {
        x.name = instr_jdb_str(d, "?");
        x.paradigm = INSTR_JDB_PARADIGM_OTHER;
    }
    if (x.name == INSTR_JDB_NONE || x.mangled == INSTR_JDB_NONE || x.file == INSTR_JDB_NONE ||
        x.object == INSTR_JDB_NONE)
        return INSTR_JDB_NONE;
    return instr_jdb_region_id(d, &x);
}

/* A metric's column `<name><suffix>`; INSTR_JDB_NONE without memory. */
static uint32_t metric_column(instr_jdb_defs *d, const instr_metric *m, const char *suffix,
                              uint32_t flags)
{
    uint32_t kind = m->value_type == INSTR_METRIC_DOUBLE ? INSTR_JDB_KIND_DOUBLE
                                                         : INSTR_JDB_KIND_UINT;
    size_t l = strlen(m->name), s = strlen(suffix);
    char *name = instr_mem_alloc(l + s + 1);
    if (!name)
        return INSTR_JDB_NONE;
    memcpy(name, m->name, l);
    memcpy(name + l, suffix, s + 1);
    uint32_t c = instr_jdb_column_id(d, name, m->unit, kind, flags);
    instr_mem_free(name);
    return c;
}

/* The columns after the seven: per shown metric its inclusive and exclusive sums (*metrics:
 * the first); then the extremes of one visit, which the job's profile.json shows
 * (*extremes: the first of time_incl_min, time_incl_max, time_excl_min, time_excl_max, then
 * per shown metric `<metric>:min_incl`, `<metric>:max_incl`); last `collectives`, the
 * collective operations taken part in (docs/mpi.md). */
static int more_columns(instr_jdb_defs *d, uint32_t *metrics, uint32_t *extremes,
                        uint32_t *collectives)
{
    *metrics = d->ncol;
    for (uint32_t i = 0; i < instr_metrics_nsync; i++)
        if (instr_profile_metric_shown(i) &&
            (metric_column(d, &instr_metrics_sync[i], "", INSTR_JDB_COLUMN_INCLUSIVE) ==
                 INSTR_JDB_NONE ||
             metric_column(d, &instr_metrics_sync[i], ":excl", 0) == INSTR_JDB_NONE))
            return -1;
    *extremes = d->ncol;
    static const char *const times[] = {"time_incl_min", "time_incl_max", "time_excl_min",
                                        "time_excl_max"};
    for (int k = 0; k < 4; k++)
        if (instr_jdb_column_id(d, times[k], "ns", INSTR_JDB_KIND_TIME, 0) == INSTR_JDB_NONE)
            return -1;
    for (uint32_t i = 0; i < instr_metrics_nsync; i++)
        if (instr_profile_metric_shown(i) &&
            (metric_column(d, &instr_metrics_sync[i], ":min_incl", 0) == INSTR_JDB_NONE ||
             metric_column(d, &instr_metrics_sync[i], ":max_incl", 0) == INSTR_JDB_NONE))
            return -1;
    *collectives = instr_jdb_column_id(d, "collectives", "", INSTR_JDB_KIND_COUNT, 0);
    return *collectives == INSTR_JDB_NONE ? -1 : 0;
}

/* I/O recording's columns (INSTR_IO, docs/io.md; jobdb.h), after `collectives` when it
 * recorded: the call path's own figures. The first's id, or INSTR_JDB_NONE without memory. */
#define IO_FIGURES INSTR_JDB_IO_FIGURES
_Static_assert(INSTR_JDB_IO_PARADIGMS == INSTR_PROFILE_IO_PARADIGMS,
               "the database's I/O paradigms are the profile's");
static uint32_t io_columns(instr_jdb_defs *d)
{
    uint32_t first = d->ncol;
    for (int p = 0; p < INSTR_JDB_IO_PARADIGMS; p++)
        for (int k = 0; k < IO_FIGURES; k++) {
            char name[INSTR_JDB_REC_NAME];
            const char *unit;
            uint32_t kind;
            instr_jdb_io_column(p, k, name, &unit, &kind);
            if (instr_jdb_column_id(d, name, unit, kind, 0) == INSTR_JDB_NONE)
                return INSTR_JDB_NONE;
        }
    return first;
}

static void io_row(uint64_t *v, uint32_t icol, const instr_profile_io *io, const void *th,
                   const instr_pnode *n)
{
    instr_profile_io_totals t[INSTR_PROFILE_IO_PARADIGMS];
    io->cell(th, n, t);
    for (int p = 0; p < INSTR_PROFILE_IO_PARADIGMS; p++) {
        uint64_t *c = v + icol + IO_FIGURES * p;
        c[0] = t[p].ops;
        c[1] = t[p].failed;
        c[2] = t[p].bytes_read;
        c[3] = t[p].bytes_written;
        c[4] = t[p].ns;
    }
}

/* Memory recording's columns (INSTR_MEMORY=1, docs/memory.md; jobdb.h), after the I/O
 * ones when it recorded: the call path's own counts. The first's id, or INSTR_JDB_NONE
 * without memory. */
static uint32_t memory_columns(instr_jdb_defs *d)
{
    uint32_t first = d->ncol;
    for (int k = 0; k < INSTR_JDB_MEM_FIGURES; k++) {
        char name[INSTR_JDB_REC_NAME];
        const char *unit;
        uint32_t kind;
        instr_jdb_mem_column(k, name, &unit, &kind);
        if (instr_jdb_column_id(d, name, unit, kind, 0) == INSTR_JDB_NONE)
            return INSTR_JDB_NONE;
    }
    return first;
}

static int node_row(instr_jdb_local *out, const instr_pnode *n, uint32_t path, uint32_t thread,
                    uint32_t mcol, uint32_t xcol, uint32_t ccol, uint64_t *mrows,
                    uint32_t nm)
{
    uint64_t *v = instr_jdb_rows_add(&out->rows, path, thread);
    if (!v)
        return -1;
    v[INSTR_JDB_COL_VISITS] = n->s.visits;
    v[INSTR_JDB_COL_TIME_INCL] = instr_profile_ns(n->s.incl);
    v[INSTR_JDB_COL_TIME_EXCL] = instr_profile_ns(n->s.excl);
    uint64_t msg[5] = {0, 0, 0, 0, 0};
    instr_job_messages_of(n, msg);
    v[INSTR_JDB_COL_BYTES_SENT] = msg[0];
    v[INSTR_JDB_COL_BYTES_RECEIVED] = msg[1];
    v[INSTR_JDB_COL_MESSAGES_SENT] = msg[2];
    v[INSTR_JDB_COL_MESSAGES_RECEIVED] = msg[3];
    v[ccol] = msg[4];
    v[xcol] = instr_profile_min_ns(n->s.min_incl);
    v[xcol + 1] = instr_profile_ns(n->s.max_incl);
    v[xcol + 2] = instr_profile_min_ns(n->s.min_excl);
    v[xcol + 3] = instr_profile_ns(n->s.max_excl);
    if (!nm)
        return 0;
    if (n->m)
        instr_pnode_metrics_rows(n, nm, mrows);
    uint32_t c = mcol, x = xcol + 4;
    for (uint32_t i = 0; i < nm; i++) {
        if (!instr_profile_metric_shown(i))
            continue;
        uint32_t type = instr_metrics_sync[i].value_type;
        uint64_t zero = instr_metric_zero(type);
        v[c++] = n->m ? mrows[INSTR_MROW_INCL * nm + i] : zero;
        v[c++] = n->m ? mrows[INSTR_MROW_EXCL * nm + i] : zero;
        v[x++] = n->m ? mrows[INSTR_MROW_MIN * nm + i] : zero;
        v[x++] = n->m ? mrows[INSTR_MROW_MAX * nm + i] : zero;
    }
    return 0;
}

int instr_jdb_local_build(const instr_run *run, instr_jdb_local *out)
{
    memset(out, 0, sizeof *out);
    int slot = instr_substrate_slot(&instr_profile_substrate);
    if (slot < 0 || instr_jdb_defs_init(&out->defs) != 0)
        return -1;
    out->nthreads = run->nlocations;
    out->duration_ns = instr_clock_to_ns(run->t_end - run->t_start);
    uint32_t mcol = 0, xcol = 0, ccol = 0, nreg = instr_registry_count();
    uint32_t *regs = instr_mem_alloc(((size_t)nreg + 2) * sizeof *regs);
    uint64_t *mrows = instr_mem_alloc(INSTR_MROWS * ((size_t)instr_metrics_nsync + 1) * sizeof *mrows);
    int rc = -1;
    if (!regs || !mrows || instr_jdb_base_columns(&out->defs) != 0 ||
        more_columns(&out->defs, &mcol, &xcol, &ccol) != 0)
        goto done;
    const instr_profile_io *io = instr_profile_io_of();
    uint32_t icol = INSTR_JDB_NONE;
    if (io && io->thread_of && (icol = io_columns(&out->defs)) == INSTR_JDB_NONE)
        goto done;
    const instr_profile_memory *mem = instr_profile_memory_of();
    uint32_t memcol = INSTR_JDB_NONE;
    if (mem && mem->thread_of && (memcol = memory_columns(&out->defs)) == INSTR_JDB_NONE)
        goto done;
    out->rows.ncols = out->defs.ncol;
    for (uint32_t h = 0; h <= nreg + 1; h++)
        regs[h] = INSTR_JDB_NONE;
    for (uint32_t i = 0; i < run->nlocations; i++) {
        instr_pstate *ps = run->locations[i]->sub[slot];
        if (!ps)
            continue;
        const void *io_th = icol != INSTR_JDB_NONE ? io->thread_of(run->locations[i]->id) : NULL;
        const void *mem_th =
            memcol != INSTR_JDB_NONE ? mem->thread_of(run->locations[i]->id) : NULL;
        /* Pre-order: a parent's path id (kept in its `merged`, free once the profile is
         * written) is known before its children. */
        instr_pnode *root = &ps->root;
        for (instr_pnode *n = root->child; n; n = instr_pnode_next(root, n)) {
            uint32_t h = n->region <= nreg ? n->region : nreg + 1;
            if (regs[h] == INSTR_JDB_NONE && (regs[h] = region_of(&out->defs, h)) == INSTR_JDB_NONE)
                goto done;
            uint32_t parent = n->parent == root ? INSTR_JDB_NONE : n->parent->merged;
            uint32_t path = instr_jdb_path_id(&out->defs, parent, regs[h]);
            if (path == INSTR_JDB_NONE ||
                node_row(out, n, path, i, mcol, xcol, ccol, mrows, ps->nm) != 0)
                goto done;
            if (io_th)
                io_row(instr_jdb_row(&out->rows, out->rows.n - 1) + 1, icol, io, io_th, n);
            if (mem_th)
                mem->cell(mem_th, n, instr_jdb_row(&out->rows, out->rows.n - 1) + 1 + memcol);
            n->merged = path;
        }
    }
    instr_jdb_rows_sort(&out->rows);
    rc = 0;
done:
    instr_mem_free(regs);
    instr_mem_free(mrows);
    if (rc != 0)
        instr_jdb_local_free(out);
    return rc;
}
