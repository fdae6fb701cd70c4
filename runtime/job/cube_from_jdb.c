/* cube_from_jdb.c — the job's profile.cubex above INSTR_JOB_PROFILE_MAX_RANKS, where the
 * merged profile (model.h) holds only the sums over ranks: the regions, call paths and metric
 * definitions come from it, every rank's values from the job database's rows
 * (profile.jdb, jdb_view.h), read call path by call path as the CUBE writer
 * (../profile/cube.h) asks for them.
 *
 * What is held in memory is bounded by the call tree and the locations, never by their
 * product: per rank where its rows are and a cursor into them, per location its rank, per
 * path of the database its node (and back), and the writer's one row of cells (one per
 * location). A call path's values on a rank are found by the cursor (the writer's
 * depth-first order is the database's path order, so the EXCLUSIVE metrics read every rank's
 * rows front to back) or by a binary search of the rank's rows (the INCLUSIVE metrics' wide
 * order). The file itself is, as CUBE4 is, one value per call path and location per metric. */
#include "outputs.h"
#include "jdb_view.h"
#include "jobdb.h"
#include "../profile/cube.h"
#include "../core/log.h"
#include "../util/pages.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef INSTR_VERSION_STRING
#define INSTR_VERSION_STRING "unknown"
#endif

enum { C_VISITS, C_INCL, C_INCL_MIN, C_INCL_MAX, C_BS, C_BR, C_MS, C_MR, C_N };
#define IO_COLS (INSTR_JDB_IO_PARADIGMS * INSTR_JDB_IO_FIGURES)

typedef struct jdb_src {
    const instr_job *j;
    const jdb_view *v;
    uint32_t nranks, nlocs;
    uint32_t *first_loc;   /* per rank its first location; nthreads from the index */
    uint32_t *loc_rank;    /* per location its rank */
    uint64_t *cursor;      /* per rank: the row after the last one found */
    uint32_t *first_path, *next_path; /* per node its database paths (collapsed regions) */
    int32_t col[C_N], io[IO_COLS], mem[INSTR_JDB_MEM_FIGURES];
    uint32_t nmetrics;
    uint32_t *metric;      /* the job's metrics that have a column, and their columns */
    int32_t *metric_col;
    int32_t *first_sampled, *next_sampled;
} jdb_src;

static const unsigned char *rank_rows(const jdb_src *s, uint32_t r, uint64_t *n)
{
    const unsigned char *e = s->v->p + s->v->index + 32ull * r;
    *n = instr_jdb_rd64(e + 8);
    return s->v->p + instr_jdb_rd64(e);
}

static uint32_t row_path(const unsigned char *row) { return instr_jdb_rd32(row); }

/* The first of rank r's rows with path p (its threads' rows follow), or UINT64_MAX. */
static uint64_t find_rows(jdb_src *s, uint32_t r, uint32_t p)
{
    uint64_t n, rs = s->v->rowsize;
    const unsigned char *rows = rank_rows(s, r, &n);
    uint64_t c = s->cursor[r];
    if (c < n && row_path(rows + c * rs) == p)
        return c;
    uint64_t lo = 0, hi = n;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (row_path(rows + mid * rs) < p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && row_path(rows + lo * rs) == p ? lo : UINT64_MAX;
}

static uint64_t val(const unsigned char *vals, int32_t c)
{
    return c < 0 ? 0 : instr_jdb_rd64(vals + 8ull * (uint32_t)c);
}

static int is_sampled(const instr_job *j, uint32_t i)
{
    uint32_t r = j->nodes[i].region;
    return r >= 1 && r <= j->nregions && j->regions[r - 1].source &&
           strcmp(j->regions[r - 1].source, "sampled") == 0;
}

/* Node i's values on every location into cells; with samples_only, its visits taken from the
 * cells' samples instead (a sampled child's, beneath a sampled node). */
static void node_cells(jdb_src *s, uint32_t i, instr_cube_cell *cells, int samples_only)
{
    const instr_job *j = s->j;
    uint64_t rs = s->v->rowsize;
    for (uint32_t p = s->first_path[i]; p != UINT32_MAX; p = s->next_path[p]) {
        for (uint32_t r = 0; r < s->nranks; r++) {
            if (!j->groups[r].present)
                continue;
            uint64_t k = find_rows(s, r, p), n;
            if (k == UINT64_MAX)
                continue;
            const unsigned char *rows = rank_rows(s, r, &n);
            uint32_t nloc = s->first_loc[r + 1] - s->first_loc[r];
            for (; k < n && row_path(rows + k * rs) == p; k++) {
                const unsigned char *row = rows + k * rs, *v = row + 8;
                uint32_t t = instr_jdb_rd32(row + 4);
                if (t >= nloc)
                    continue;
                instr_cube_cell *c = &cells[s->first_loc[r] + t];
                uint64_t visits = val(v, s->col[C_VISITS]);
                if (samples_only) {
                    c->samples -= visits;
                    continue;
                }
                uint64_t mn = val(v, s->col[C_INCL_MIN]), mx = val(v, s->col[C_INCL_MAX]);
                if (visits && (!c->visits || mn < c->min_incl_ns))
                    c->min_incl_ns = mn;
                if (mx > c->max_incl_ns)
                    c->max_incl_ns = mx;
                c->visits += visits;
                c->incl_ns += val(v, s->col[C_INCL]);
                c->bytes_sent += val(v, s->col[C_BS]);
                c->bytes_received += val(v, s->col[C_BR]);
                c->messages_sent += val(v, s->col[C_MS]);
                c->messages_received += val(v, s->col[C_MR]);
                for (int f = 0; f < IO_COLS; f++)
                    c->io[f % INSTR_JDB_IO_FIGURES] += val(v, s->io[f]);
                for (int f = 0; f < INSTR_JDB_MEM_FIGURES; f++)
                    c->mem[f] += val(v, s->mem[f]);
                /* the process's high-water mark at the root call paths of its first thread */
                if (j->nodes[i].parent < 0 && t == 0 && j->groups[r].has_memory)
                    c->mem[INSTR_CUBE_HIGH_WATER] = j->groups[r].mem.high_water;
                /* the metrics' columns are read in place: rows are 8-byte aligned */
                if (s->nmetrics)
                    c->m = (const uint64_t *)(const void *)v;
            }
            s->cursor[r] = k;
        }
    }
}

static void cube_row(const void *ctx, uint32_t i, instr_cube_cell *cells)
{
    jdb_src *s = (jdb_src *)ctx;
    node_cells(s, i, cells, 0);
    if (!s->first_sampled || !is_sampled(s->j, i))
        return;
    /* A sampled node's visits are its samples, those beneath it included: its own are what
     * its sampled children do not have. */
    for (uint32_t l = 0; l < s->nlocs; l++)
        cells[l].samples = cells[l].visits;
    for (int32_t c = s->first_sampled[i]; c >= 0; c = s->next_sampled[c])
        node_cells(s, (uint32_t)c, cells, 1);
}

static void cube_region(const void *ctx, uint32_t i, instr_cube_region *out)
{
    const jregion *r = &((const jdb_src *)ctx)->j->regions[i];
    *out = (instr_cube_region){r->name, r->mangled, r->file, r->source, r->line_begin,
                               r->line_end, NULL};
}

static void cube_cnode(const void *ctx, uint32_t i, int32_t *parent, uint32_t *region)
{
    const jnode *n = &((const jdb_src *)ctx)->j->nodes[i];
    *parent = n->parent;
    *region = n->region - 1;
}

static void cube_location(const void *ctx, uint32_t l, char *name, size_t size, uint32_t *rank)
{
    const jdb_src *s = ctx;
    uint32_t r = s->loc_rank[l];
    *rank = l - s->first_loc[r];
    snprintf(name, size, "rank %u thread %u", r, *rank);
}

static void cube_metric(const void *ctx, uint32_t i, instr_cube_metric *out)
{
    const jdb_src *s = ctx;
    const instr_job_metrics *jm = &s->j->metrics;
    uint32_t k = s->metric[i];
    *out = (instr_cube_metric){jm->name[k], jm->unit[k], jm->description[k], jm->type[k],
                               jm->base[k], jm->exponent[k], (uint32_t)s->metric_col[i]};
}

static void src_free(jdb_src *s)
{
    instr_mem_free(s->first_loc);
    instr_mem_free(s->loc_rank);
    instr_mem_free(s->cursor);
    instr_mem_free(s->first_path);
    instr_mem_free(s->next_path);
    instr_mem_free(s->metric);
    instr_mem_free(s->metric_col);
    instr_mem_free(s->first_sampled);
    instr_mem_free(s->next_sampled);
}

/* Everything but the values; 0, or -1 (what into *why). */
static int src_init(jdb_src *s, const instr_job *j, const jdb_view *v, const char **why)
{
    memset(s, 0, sizeof *s);
    s->j = j;
    s->v = v;
    s->nranks = v->nranks;
    *why = "memory ran out";
    if (j->ngroups != v->nranks || j->npath_node != v->npaths) {
        *why = "it does not match the job profile read from it";
        return -1;
    }
    if (v->rows % 8 || v->rowsize % 8) {
        *why = "its rows are not 8-byte aligned";
        return -1;
    }
    s->first_loc = instr_mem_calloc((size_t)v->nranks + 1, sizeof *s->first_loc);
    s->cursor = instr_mem_calloc((size_t)v->nranks + 1, sizeof *s->cursor);
    s->first_path = instr_mem_alloc(((size_t)j->n + 1) * sizeof *s->first_path);
    s->next_path = instr_mem_alloc(((size_t)v->npaths + 1) * sizeof *s->next_path);
    s->metric = instr_mem_alloc(((size_t)j->metrics.n + 1) * sizeof *s->metric);
    s->metric_col = instr_mem_alloc(((size_t)j->metrics.n + 1) * sizeof *s->metric_col);
    if (!s->first_loc || !s->cursor || !s->first_path || !s->next_path || !s->metric ||
        !s->metric_col)
        return -1;
    uint64_t nlocs = 0;
    for (uint32_t r = 0; r < v->nranks; r++) {
        const unsigned char *e = v->p + v->index + 32ull * r;
        uint64_t off = instr_jdb_rd64(e), n = instr_jdb_rd64(e + 8);
        s->first_loc[r] = (uint32_t)nlocs;
        if (!j->groups[r].present)
            continue;
        if (off < v->rows || off % 8 || !instr_jdb_view_inside(v, off, n, v->rowsize)) {
            *why = "a rank's rows lie outside the file";
            return -1;
        }
        nlocs += instr_jdb_rd32(e + 16);
        if (nlocs >= UINT32_MAX) {
            *why = "it has too many threads";
            return -1;
        }
    }
    s->first_loc[v->nranks] = (uint32_t)nlocs;
    s->nlocs = (uint32_t)nlocs;
    s->loc_rank = instr_mem_alloc((size_t)(nlocs + 1) * sizeof *s->loc_rank);
    if (!s->loc_rank)
        return -1;
    for (uint32_t r = 0; r < v->nranks; r++)
        for (uint32_t l = s->first_loc[r]; l < s->first_loc[r + 1]; l++)
            s->loc_rank[l] = r;
    /* Per node its paths, in path order (a node has one but where regions collapsed). */
    for (uint32_t i = 0; i < j->n; i++)
        s->first_path[i] = UINT32_MAX;
    for (uint32_t p = v->npaths; p-- > 0;) {
        uint32_t i = j->path_node[p];
        if (i >= j->n) {
            *why = "it does not match the job profile read from it";
            return -1;
        }
        s->next_path[p] = s->first_path[i];
        s->first_path[i] = p;
    }
    static const char *const names[C_N] = {"visits", "time_incl", "time_incl_min",
                                           "time_incl_max", "bytes_sent", "bytes_received",
                                           "messages_sent", "messages_received"};
    for (int k = 0; k < C_N; k++)
        s->col[k] = instr_jdb_view_col(v, names[k], "");
    for (int p = 0; p < INSTR_JDB_IO_PARADIGMS; p++)
        for (int f = 0; f < INSTR_JDB_IO_FIGURES; f++) {
            char name[INSTR_JDB_REC_NAME];
            instr_jdb_io_column(p, f, name, NULL, NULL);
            s->io[INSTR_JDB_IO_FIGURES * p + f] = instr_jdb_view_col(v, name, "");
        }
    for (int f = 0; f < INSTR_JDB_MEM_FIGURES; f++) {
        char name[INSTR_JDB_REC_NAME];
        instr_jdb_mem_column(f, name, NULL, NULL);
        s->mem[f] = instr_jdb_view_col(v, name, "");
    }
    for (uint32_t k = 0; k < j->metrics.n; k++) {
        int32_t c = instr_jdb_view_col(v, j->metrics.name[k], "");
        if (c >= 0) {
            s->metric[s->nmetrics] = k;
            s->metric_col[s->nmetrics++] = c;
        }
    }
    int sampled = 0;
    for (uint32_t i = 0; i < j->n && !sampled; i++)
        sampled = is_sampled(j, i);
    if (sampled) {
        s->first_sampled = instr_mem_alloc(((size_t)j->n + 1) * sizeof *s->first_sampled);
        s->next_sampled = instr_mem_alloc(((size_t)j->n + 1) * sizeof *s->next_sampled);
        if (!s->first_sampled || !s->next_sampled)
            return -1;
        for (uint32_t i = 0; i < j->n; i++)
            s->first_sampled[i] = s->next_sampled[i] = -1;
        for (uint32_t i = j->n; i-- > 0;)
            if (j->nodes[i].parent >= 0 && is_sampled(j, i)) {
                s->next_sampled[i] = s->first_sampled[j->nodes[i].parent];
                s->first_sampled[j->nodes[i].parent] = (int32_t)i;
            }
    }
    return 0;
}

int instr_job_cube_jdb(instr_writer *f, const instr_job *j, const char *dir)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/profile.jdb", dir);
    jdb_view v;
    const char *why = instr_jdb_view_map(&v, path);
    if (why) {
        instr_warn("job profile: cannot read the job database %s again for profile.cubex: %s",
                   path, why);
        return -1;
    }
    jdb_src s;
    instr_cube_group *groups = instr_mem_calloc((size_t)v.nranks + 1, sizeof *groups);
    char (*names)[32] = instr_mem_calloc((size_t)v.nranks + 1, sizeof *names);
    int rc = -1;
    if (src_init(&s, j, &v, &why) != 0 || !groups || !names) {
        instr_warn("job profile: profile.cubex cannot be written from the job database %s: %s",
                   path, groups && names ? why : "memory ran out");
        goto out;
    }
    uint32_t ng = 0;
    int io = 0, memory = 0;
    for (uint32_t r = 0; r < v.nranks; r++) {
        const jgroup *g = &j->groups[r];
        if (!g->present)
            continue;
        snprintf(names[ng], sizeof names[ng], "MPI Rank %u", r); /* as Score-P */
        groups[ng] = (instr_cube_group){names[ng], g->host, (int)r, s.first_loc[r],
                                        s.first_loc[r + 1] - s.first_loc[r]};
        ng++;
        io |= g->has_io;
        memory |= g->has_memory;
    }
    for (int k = 0; k < IO_COLS; k++)
        io |= s.io[k] >= 0;
    for (int k = 0; k < INSTR_JDB_MEM_FIGURES; k++)
        memory |= s.mem[k] >= 0;
    instr_cube_src src = {
        .ctx = &s, .nregions = j->nregions, .region = cube_region, .ncnodes = j->n,
        .cnode = cube_cnode, .groups = groups, .ngroups = ng, .nlocs = s.nlocs,
        .location = cube_location, .row = cube_row, .messages = 1,
        .samples = s.first_sampled != NULL, .io = io, .memory = memory,
        .nmetrics = s.nmetrics, .metric = cube_metric, .creator = "instr " INSTR_VERSION_STRING,
    };
    rc = instr_cube_write(f, &src);
out:
    src_free(&s);
    instr_mem_free(groups);
    instr_mem_free(names);
    instr_jdb_view_unmap(&v);
    return rc;
}
