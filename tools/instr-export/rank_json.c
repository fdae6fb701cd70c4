/* rank_json.c — instr-export --json profile.jdb --rank N: one rank's profile.json made from
 * the job database on demand (docs/mpi.md), for a job whose ranks wrote no files of their
 * own: its call paths with one location per thread, the values of every column the database
 * holds for them, the flat profile per region. What only the rank's own file has (pid, host,
 * command line, thread names) is not in the database; run.from_job_database says so. */
#include "export.h"
#include "instr_analysis.h"
#include "json_str.h"

#include <inttypes.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The columns profile.json names on its own; any other column is a metric: NAME inclusive,
 * NAME:excl exclusive, NAME:min_incl and NAME:max_incl its extremes. */
static const struct { const char *col, *field; } fixed[] = {
    {"visits", "visits"},
    {"time_incl", "inclusive"},
    {"time_excl", "exclusive"},
    {"time_incl_min", "min_inclusive"},
    {"time_incl_max", "max_inclusive"},
    {"time_excl_min", "min_exclusive"},
    {"time_excl_max", "max_exclusive"},
    {"messages_sent", "messages_sent"},
    {"bytes_sent", "bytes_sent"},
    {"messages_received", "messages_received"},
    {"bytes_received", "bytes_received"},
    {"collectives", "collectives"},
};
enum { NFIXED = sizeof fixed / sizeof *fixed };
/* message fields: left out where zero, as in a rank's own profile.json */
static int omitted_when_zero(size_t f) { return f >= 7; }

static const char *const source_names[] = {"hooks", "cyg", "manual", "xray", "mpi", "openmp",
                                           "sampled", "memory", "kokkos", "io", "openacc"};

static const char *source_of(const instr_jdb_region *r)
{
    uint32_t s = (r->flags >> 8) & 0xfu; /* the runtime's source + 1; 0: unknown */
    return s >= 1 && s <= sizeof source_names / sizeof *source_names ? source_names[s - 1]
                                                                      : "unknown";
}

typedef struct metric {
    const char *name;
    long incl, excl, min_incl, max_incl; /* column indices, -1 when absent */
} metric;

typedef struct rank_rows {
    size_t n;         /* (path, thread) rows of the rank, ordered by path, then thread */
    uint32_t *path, *thread;
    double **v;       /* per column, n values */
} rank_rows;

static void value(FILE *out, double x, uint32_t kind)
{
    if (kind == INSTR_JDB_DOUBLE)
        fprintf(out, "%.17g", isfinite(x) ? x : 0.0);
    else
        fprintf(out, "%.0f", x);
}

/* The fields of row i (sum over rows [i, end) when end > i + 1: a node's sum over threads). */
static void fields(FILE *out, const instr_jdb *db, const rank_rows *rr, const long *fcol,
                   const metric *m, size_t nm, size_t i, size_t end)
{
    int first = 1;
    for (size_t f = 0; f < NFIXED; f++) {
        if (fcol[f] < 0)
            continue;
        double s = 0, lo = INFINITY, hi = 0;
        for (size_t k = i; k < end; k++) {
            double x = rr->v[fcol[f]][k];
            s += x;
            lo = x < lo ? x : lo;
            hi = x > hi ? x : hi;
        }
        if (strstr(fixed[f].col, "_min"))
            s = isfinite(lo) ? lo : 0;
        else if (strstr(fixed[f].col, "_max"))
            s = hi;
        if (omitted_when_zero(f) && s == 0)
            continue;
        fprintf(out, "%s\"%s\": %.0f", first ? "" : ", ", fixed[f].field, s);
        first = 0;
    }
    if (!nm)
        return;
    static const char *const parts[] = {"inclusive", "exclusive", "min_inclusive",
                                        "max_inclusive"};
    fprintf(out, ", \"metrics\": {");
    for (int p = 0; p < 4; p++) {
        fprintf(out, "%s\"%s\": [", p ? ", " : "", parts[p]);
        for (size_t j = 0; j < nm; j++) {
            long c = p == 0 ? m[j].incl : p == 1 ? m[j].excl : p == 2 ? m[j].min_incl
                                                                       : m[j].max_incl;
            double s = 0;
            instr_jdb_column col = {0};
            if (c >= 0) {
                instr_jdb_get_column(db, (uint32_t)c, &col);
                for (size_t k = i; k < end; k++)
                    s = p < 2 ? s + rr->v[c][k] : (k == i || (p == 2 ? rr->v[c][k] < s
                                                                    : rr->v[c][k] > s))
                                                      ? rr->v[c][k] : s;
            }
            fputs(j ? ", " : "", out);
            value(out, s, col.kind);
        }
        fputc(']', out);
    }
    fputc('}', out);
}

static int bad(const char *path, const char *what)
{
    fprintf(stderr, "instr-export: %s: %s\n", path, what);
    return 1;
}

int instr_export_rank_json(const char *path, long rank, FILE *out)
{
    instr_jdb *db = instr_jdb_open(path, INSTR_JDB_LAZY_ROWS);
    if (!db)
        return bad(path, instr_jdb_error());
    instr_jdb_info info;
    instr_jdb_get_info(db, &info);
    instr_jdb_rank ri;
    char what[160];
    if (rank < 0 || (uint64_t)rank >= info.nranks) {
        snprintf(what, sizeof what, "no rank %ld: the job had %u rank%s", rank, info.nranks,
                 info.nranks == 1 ? "" : "s");
        instr_jdb_close(db);
        return bad(path, what);
    }
    if (instr_jdb_get_rank(db, (uint32_t)rank, &ri) != 0 || !ri.present) {
        snprintf(what, sizeof what, "rank %ld is absent from the job database (it ended early "
                 "or recorded nothing; its own rank-%ld/profile.json, if any, holds its data)",
                 rank, rank);
        instr_jdb_close(db);
        return bad(path, what);
    }
    int rc = 0;
    uint32_t *paths = malloc(((size_t)info.npaths + 1) * sizeof *paths);
    uint32_t *parent = malloc(((size_t)info.npaths + 1) * sizeof *parent);
    uint32_t *region = malloc(((size_t)info.npaths + 1) * sizeof *region);
    long *node = malloc(((size_t)info.npaths + 1) * sizeof *node); /* path -> output node */
    size_t *first = malloc(((size_t)info.npaths + 1) * sizeof *first); /* path -> first row */
    long *regout = malloc(((size_t)info.nregions + 1) * sizeof *regout);
    metric *m = calloc((size_t)info.ncols + 1, sizeof *m);
    rank_rows rr = {0};
    rr.v = calloc((size_t)info.ncols + 1, sizeof *rr.v);
    if (!paths || !parent || !region || !node || !first || !regout || !m || !rr.v) {
        rc = bad(path, "out of memory");
        goto out;
    }
    for (uint32_t p = 0; p < info.npaths; p++)
        paths[p] = p;
    instr_jdb_path_table(db, parent, region, NULL);
    uint32_t r32 = (uint32_t)rank;
    for (uint32_t c = 0; c < info.ncols && rc == 0; c++) {
        instr_jdb_row_set set;
        if (instr_jdb_rows_load(db, c, paths, info.npaths, &r32, 1, NULL, 0, 0, &set) != 0) {
            rc = bad(path, instr_jdb_error());
            break;
        }
        if (c == 0) {
            rr.n = set.n;
            rr.path = set.path;
            rr.thread = set.thread;
            set.path = set.thread = NULL;
        }
        rr.v[c] = set.value;
        set.value = NULL;
        if (set.n != rr.n)
            rc = bad(path, "the rank's columns have different rows");
        instr_jdb_row_set_free(&set);
    }
    if (rc)
        goto out;
    /* Which columns are which fields; the metrics. */
    long fcol[NFIXED];
    for (size_t f = 0; f < NFIXED; f++)
        fcol[f] = -1;
    size_t nm = 0;
    for (uint32_t c = 0; c < info.ncols; c++) {
        instr_jdb_column col;
        instr_jdb_get_column(db, c, &col);
        size_t f = 0;
        while (f < NFIXED && strcmp(fixed[f].col, col.name) != 0)
            f++;
        if (f < NFIXED) {
            fcol[f] = c;
            continue;
        }
        if (!strchr(col.name, ':'))
            m[nm++] = (metric){col.name, c, -1, -1, -1};
    }
    for (size_t j = 0; j < nm; j++) {
        static const char *const suffix[] = {":excl", ":min_incl", ":max_incl"};
        char name[256];
        for (int s = 0; s < 3; s++) {
            snprintf(name, sizeof name, "%s%s", m[j].name, suffix[s]);
            for (uint32_t c = 0; c < info.ncols; c++) {
                instr_jdb_column col;
                instr_jdb_get_column(db, c, &col);
                if (!strcmp(col.name, name))
                    *(s == 0 ? &m[j].excl : s == 1 ? &m[j].min_incl : &m[j].max_incl) = c;
            }
        }
    }
    /* The rank's call paths (and their ancestors), in the database's order: parents first. */
    for (uint32_t p = 0; p < info.npaths; p++)
        node[p] = -1;
    for (size_t k = 0; k < rr.n; k++)
        for (uint32_t p = rr.path[k]; p != INSTR_JDB_NO_PARENT && node[p] < 0; p = parent[p])
            node[p] = 0;
    long nnodes = 0;
    for (uint32_t p = 0; p < info.npaths; p++)
        if (node[p] == 0)
            node[p] = nnodes++;
    for (uint32_t p = 0; p < info.npaths; p++)
        first[p] = SIZE_MAX;
    for (size_t k = rr.n; k-- > 0;)
        first[rr.path[k]] = k;
    /* Regions: those of the rank's call paths, numbered from 1 in the database's order. */
    for (uint32_t g = 0; g < info.nregions; g++)
        regout[g] = 0;
    for (uint32_t p = 0; p < info.npaths; p++)
        if (node[p] >= 0)
            regout[region[p]] = 1;
    long nreg = 0;
    for (uint32_t g = 0; g < info.nregions; g++)
        if (regout[g])
            regout[g] = ++nreg;
    uint32_t nthreads = 0;
    for (size_t k = 0; k < rr.n; k++)
        nthreads = rr.thread[k] + 1 > nthreads ? rr.thread[k] + 1 : nthreads;
    if (ri.nthreads > nthreads)
        nthreads = ri.nthreads;

    fprintf(out, "{\"format\": \"instr-profile\", \"version\": 2,\n\"run\": {\"from_job_database\": "
                 "true, \"duration\": %.9f, \"mpi\": {\"rank\": %ld, \"ranks\": %u}},\n",
            (double)ri.duration_ns / 1e9, rank, info.nranks);
    fprintf(out, "\"location_groups\": [{\"id\": %ld, \"name\": \"rank %ld\"}],\n"
                 "\"locations\": [", rank, rank);
    for (uint32_t t = 0; t < nthreads; t++)
        fprintf(out, "%s{\"id\": %u, \"group\": %ld, \"name\": \"thread %u\"}", t ? ", " : "",
                t, rank, t);
    fputs("],\n\"metrics\": [", out);
    for (size_t j = 0; j < nm; j++) {
        instr_jdb_column col;
        instr_jdb_get_column(db, (uint32_t)m[j].incl, &col);
        fprintf(out, "%s{\"name\": ", j ? ", " : "");
        instr_json_str(out, m[j].name);
        fputs(", \"unit\": ", out);
        instr_json_str(out, col.unit);
        fprintf(out, ", \"type\": \"%s\"}", col.kind == INSTR_JDB_DOUBLE ? "double" : "uint64");
    }
    fputs("],\n\"regions\": [", out);
    for (uint32_t g = 0, k = 0; g < info.nregions; g++) {
        instr_jdb_region r;
        if (!regout[g] || instr_jdb_get_region(db, g, &r) != 0)
            continue;
        fprintf(out, "%s\n  {\"id\": %ld, \"name\": ", k++ ? "," : "", regout[g]);
        instr_json_str(out, r.name);
        fputs(", \"mangled\": ", out);
        instr_json_str(out, r.mangled);
        fputs(", \"file\": ", out);
        instr_json_str(out, r.file);
        fprintf(out, ", \"line\": %u, \"source\": \"%s\", \"object\": ", r.line_begin,
                source_of(&r));
        instr_json_str(out, r.object);
        fputc('}', out);
    }
    fputs("],\n\"tree\": [", out);
    for (uint32_t p = 0, k = 0; p < info.npaths; p++) {
        if (node[p] < 0)
            continue;
        size_t i = first[p] == SIZE_MAX ? 0 : first[p], end = i;
        while (first[p] != SIZE_MAX && end < rr.n && rr.path[end] == p)
            end++;
        fprintf(out, "%s\n  {\"id\": %ld, \"parent\": ", k++ ? "," : "", node[p]);
        if (parent[p] == INSTR_JDB_NO_PARENT)
            fputs("null", out);
        else
            fprintf(out, "%ld", node[parent[p]]);
        fprintf(out, ", \"region\": %ld, ", regout[region[p]]);
        if (end > i) {
            fields(out, db, &rr, fcol, m, nm, i, end);
        } else {
            fputs("\"visits\": 0, \"inclusive\": 0, \"exclusive\": 0", out);
        }
        fputs(", \"locations\": [", out);
        for (size_t x = i; x < end; x++) {
            fprintf(out, "%s{\"location\": %u, ", x > i ? ", " : "", rr.thread[x]);
            fields(out, db, &rr, fcol, m, nm, x, x + 1);
            fputc('}', out);
        }
        fputs("]}", out);
    }
    /* Flat: per region the sums over its call paths (inclusive over the outermost ones). */
    fputs("],\n\"flat\": [", out);
    long vis = fcol[0], inc = fcol[1], exc = fcol[2];
    for (uint32_t g = 0, k = 0; g < info.nregions; g++) {
        if (!regout[g])
            continue;
        double v = 0, in = 0, ex = 0, msg[NFIXED] = {0};
        for (size_t x = 0; x < rr.n; x++) {
            uint32_t p = rr.path[x];
            if (region[p] != g)
                continue;
            int outer = 1;
            for (uint32_t q = parent[p]; q != INSTR_JDB_NO_PARENT && outer; q = parent[q])
                outer = region[q] != g;
            v += vis >= 0 ? rr.v[vis][x] : 0;
            ex += exc >= 0 ? rr.v[exc][x] : 0;
            in += outer && inc >= 0 ? rr.v[inc][x] : 0;
            for (size_t f = 7; f < NFIXED; f++)
                msg[f] += fcol[f] >= 0 ? rr.v[fcol[f]][x] : 0;
        }
        fprintf(out, "%s\n  {\"region\": %ld, \"visits\": %.0f, \"inclusive\": %.0f, "
                     "\"exclusive\": %.0f", k++ ? "," : "", regout[g], v, in, ex);
        for (size_t f = 7; f < NFIXED; f++)
            if (msg[f] != 0)
                fprintf(out, ", \"%s\": %.0f", fixed[f].field, msg[f]);
        fputc('}', out);
    }
    fputs("]}\n", out);
out:
    free(rr.path);
    free(rr.thread);
    for (uint32_t c = 0; rr.v && c < info.ncols; c++)
        free(rr.v[c]);
    free(rr.v);
    free(m);
    free(regout);
    free(first);
    free(node);
    free(region);
    free(parent);
    free(paths);
    instr_jdb_close(db);
    return rc;
}
