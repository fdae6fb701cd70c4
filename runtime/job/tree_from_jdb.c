/* tree_from_jdb.c — the job's merged profile read back from the job database (profile.jdb,
 * jobdb.h, docs/profile-format.md) by rank 0, so that profile.json, profile.txt,
 * profile.cubex and profile.html of the job are derived from it (outputs.c writes them). */
#include "model.h"
#include "jobdb.h"
#include "jdb_view.h"
#include "../core/ext.h"
#include "../core/log.h"
#include "../core/registry.h"
#include "../metrics/metrics.h"
#include "../util/pages.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the tree from the job database (profile.jdb; jobdb.h) ---- */


int instr_jdb_view_inside(const jdb_view *v, uint64_t off, uint64_t n, uint64_t rec)
{
    return off >= INSTR_JDB_HEADER_SIZE && off <= v->size && (rec == 0 || n <= (v->size - off) / rec);
}

/* The file's header and sections checked; NULL when fine, else what is wrong. */
static const char *jdb_open(jdb_view *v)
{
    const unsigned char *h = v->p;
    if (v->size < INSTR_JDB_HEADER_SIZE || memcmp(h, INSTR_JDB_MAGIC, 8) != 0)
        return "not a job database (magic)";
    if (instr_jdb_rd32(h + 8) != INSTR_JDB_VERSION || instr_jdb_rd32(h + 12) != INSTR_JDB_HEADER_SIZE)
        return "an unknown version";
    if (instr_jdb_rd64(h + 16) != v->size)
        return "unfinished or truncated (its size field does not match)";
    v->nranks = instr_jdb_rd32(h + 24);
    v->nregions = instr_jdb_rd32(h + 32);
    v->npaths = instr_jdb_rd32(h + 36);
    v->ncols = instr_jdb_rd32(h + 40);
    v->rowsize = instr_jdb_rd32(h + 44);
    v->duration = instr_jdb_rd64(h + 48);
    v->strings = instr_jdb_rd64(h + 56);
    v->slen = instr_jdb_rd64(h + 64);
    v->regions = instr_jdb_rd64(h + 72);
    v->paths = instr_jdb_rd64(h + 80);
    v->columns = instr_jdb_rd64(h + 88);
    v->summary = instr_jdb_rd64(h + 96);
    v->index = instr_jdb_rd64(h + 104);
    v->rows = instr_jdb_rd64(h + 112);
    if (v->rowsize != 8 + 8ull * v->ncols || !v->slen ||
        !instr_jdb_view_inside(v, v->strings, v->slen, 1) || !instr_jdb_view_inside(v, v->regions, v->nregions, 32) ||
        !instr_jdb_view_inside(v, v->paths, v->npaths, 8) || !instr_jdb_view_inside(v, v->columns, v->ncols, 16) ||
        !instr_jdb_view_inside(v, v->summary, v->npaths, 8 + 32ull * v->ncols) ||
        !instr_jdb_view_inside(v, v->index, v->nranks, 32) || !instr_jdb_view_inside(v, v->rows, 0, 0) ||
        v->p[v->strings + v->slen - 1] != '\0')
        return "a section lies outside the file";
    return NULL;
}

static const char *jdb_str(const jdb_view *v, uint32_t off)
{
    return off < v->slen ? (const char *)v->p + v->strings + off : "";
}

int32_t instr_jdb_view_col(const jdb_view *v, const char *name, const char *suffix)
{
    size_t l = strlen(name);
    for (uint32_t c = 0; c < v->ncols; c++) {
        const char *s = jdb_str(v, instr_jdb_rd32(v->p + v->columns + 16ull * c));
        if (strncmp(s, name, l) == 0 && strcmp(s + l, suffix) == 0)
            return (int32_t)c;
    }
    return -1;
}

/* The job's region of database region i (its key as the blobs' R lines spell it); 0 on
 * failure. */
static uint32_t jdb_region(instr_job *j, const jdb_view *v, uint32_t i)
{
    const unsigned char *r = v->p + v->regions + 32ull * i;
    uint32_t flags = instr_jdb_rd32(r + 28), src = (flags & INSTR_JDB_REGION_SOURCE_MASK) >>
                                         INSTR_JDB_REGION_SOURCE_SHIFT;
    static const int by_paradigm[] = {INSTR_SOURCE_HOOKS, INSTR_SOURCE_MPI, INSTR_SOURCE_OPENMP,
                                      INSTR_SOURCE_MANUAL};
    uint32_t par = instr_jdb_rd32(r + 24);
    const char *source = instr_region_source_name(src ? (int)src - 1
                                                  : par < 4 ? by_paradigm[par] : -1);
    const char *f[5] = {source, jdb_str(v, instr_jdb_rd32(r)), jdb_str(v, instr_jdb_rd32(r + 4)),
                        jdb_str(v, instr_jdb_rd32(r + 8)), jdb_str(v, instr_jdb_rd32(r + 12))};
    size_t n = 5;
    for (int k = 0; k < 5; k++)
        n += strlen(f[k]);
    char *key = instr_mem_alloc(n), *o = key;
    if (!key)
        return 0;
    for (int k = 0; k < 5; k++) {
        /* as instr_job_clean_field spells the blob's fields */
        for (const char *c = f[k]; *c; c++)
            *o++ = *c == '\t' || *c == '\n' || *c == '\r' ? ' ' : *c;
        *o++ = k < 4 ? '\t' : '\0';
    }
    uint32_t id = instr_job_region_id(j, key, instr_jdb_rd32(r + 16), instr_jdb_rd32(r + 20));
    instr_mem_free(key);
    return id;
}

/* One value of a row or summary record as the job's metric rows hold it. */
static uint64_t jdb_val(const unsigned char *vals, int32_t c, uint64_t none)
{
    return c < 0 ? none : instr_jdb_rd64(vals + 8ull * (uint32_t)c);
}

/* The metric rows (INSTR_MROWS x jm->n, from instr_mem_alloc) of one row's values; the columns per job
 * metric in mcol[4 * i ..] (inclusive, exclusive, min, max; -1: none). */
static uint64_t *jdb_metric_rows(const instr_job_metrics *jm, const int32_t *mcol,
                                 const unsigned char *vals)
{
    uint64_t *m = instr_mem_alloc(INSTR_MROWS * (size_t)jm->n * sizeof *m + 1);
    if (!m)
        return NULL;
    for (uint32_t i = 0; i < jm->n; i++) {
        uint64_t zero = instr_metric_zero(jm->type[i]);
        m[INSTR_MROW_INCL * jm->n + i] = jdb_val(vals, mcol[4 * i], zero);
        m[INSTR_MROW_EXCL * jm->n + i] = jdb_val(vals, mcol[4 * i + 1], zero);
        m[INSTR_MROW_MIN * jm->n + i] = jdb_val(vals, mcol[4 * i + 2], zero);
        m[INSTR_MROW_MAX * jm->n + i] = jdb_val(vals, mcol[4 * i + 3], zero);
    }
    return m;
}

/* I/O recording's columns (INSTR_IO, jobdb.h): icol[5 * paradigm + figure] (-1: not
 * there); 1 when one is there. */
#define IO_FIGURES INSTR_JDB_IO_FIGURES
static int jdb_io_cols(const jdb_view *v, int32_t icol[IO_FIGURES * INSTR_PROFILE_IO_PARADIGMS])
{
    int any = 0;
    for (int p = 0; p < INSTR_PROFILE_IO_PARADIGMS; p++)
        for (int k = 0; k < IO_FIGURES; k++) {
            char name[INSTR_JDB_REC_NAME];
            instr_jdb_io_column(p, k, name, NULL, NULL);
            icol[IO_FIGURES * p + k] = instr_jdb_view_col(v, name, "");
            any |= icol[IO_FIGURES * p + k] >= 0;
        }
    return any;
}

/* Adds a record's I/O figures (a row's values: stride 8; a summary record's sums: stride 32)
 * to *to, allocated when they are not all zero; 0, or -1 without memory. */
static int jdb_io_add(instr_profile_io_totals **to, const int32_t *icol,
                      const unsigned char *vals, uint64_t stride)
{
    instr_profile_io_totals t[INSTR_PROFILE_IO_PARADIGMS];
    int any = 0;
    for (int p = 0; p < INSTR_PROFILE_IO_PARADIGMS; p++) {
        uint64_t f[IO_FIGURES];
        for (int k = 0; k < IO_FIGURES; k++) {
            int32_t c = icol[IO_FIGURES * p + k];
            f[k] = c < 0 ? 0 : instr_jdb_rd64(vals + stride * (uint32_t)c);
            any |= f[k] != 0;
        }
        t[p] = (instr_profile_io_totals){f[0], f[1], f[2], f[3], f[4]};
    }
    if (!any)
        return 0;
    if (!*to && !(*to = instr_mem_calloc(INSTR_PROFILE_IO_PARADIGMS, sizeof **to)))
        return -1;
    for (int p = 0; p < INSTR_PROFILE_IO_PARADIGMS; p++) {
        (*to)[p].ops += t[p].ops;
        (*to)[p].failed += t[p].failed;
        (*to)[p].bytes_read += t[p].bytes_read;
        (*to)[p].bytes_written += t[p].bytes_written;
        (*to)[p].ns += t[p].ns;
    }
    return 0;
}

/* Memory recording's columns (INSTR_MEMORY=1, jobdb.h): mcol[figure] (-1: not there); 1
 * when one is there. */
#define MEM_FIGURES INSTR_JDB_MEM_FIGURES
static int jdb_mem_cols(const jdb_view *v, int32_t mcol[MEM_FIGURES])
{
    int any = 0;
    for (int k = 0; k < MEM_FIGURES; k++) {
        char name[INSTR_JDB_REC_NAME];
        instr_jdb_mem_column(k, name, NULL, NULL);
        mcol[k] = instr_jdb_view_col(v, name, "");
        any |= mcol[k] >= 0;
    }
    return any;
}

/* As jdb_io_add, for the memory figures. */
static int jdb_mem_add(uint64_t **to, const int32_t *mcol, const unsigned char *vals,
                       uint64_t stride)
{
    uint64_t f[MEM_FIGURES];
    int any = 0;
    for (int k = 0; k < MEM_FIGURES; k++) {
        f[k] = mcol[k] < 0 ? 0 : instr_jdb_rd64(vals + stride * (uint32_t)mcol[k]);
        any |= f[k] != 0;
    }
    if (!any)
        return 0;
    if (!*to && !(*to = instr_mem_calloc(MEM_FIGURES, sizeof **to)))
        return -1;
    for (int k = 0; k < MEM_FIGURES; k++)
        (*to)[k] += f[k];
    return 0;
}

/* Fills the job's tree from the database (the blobs gave the rest); 0, or -1. */
static int jdb_fill(instr_job *j, const jdb_view *v, int summary)
{
    enum { C_VISITS, C_INCL, C_EXCL, C_BS, C_BR, C_MS, C_MR, C_INCL_MIN, C_INCL_MAX, C_EXCL_MIN,
           C_EXCL_MAX, C_COLL, C_N };
    static const char *const names[C_N] = {
        "visits", "time_incl", "time_excl", "bytes_sent", "bytes_received", "messages_sent",
        "messages_received", "time_incl_min", "time_incl_max", "time_excl_min", "time_excl_max",
        "collectives"};
    int32_t col[C_N];
    for (int k = 0; k < C_N; k++)
        col[k] = instr_jdb_view_col(v, names[k], "");
    int32_t icol[IO_FIGURES * INSTR_PROFILE_IO_PARADIGMS];
    int has_io = jdb_io_cols(v, icol);
    int32_t memcol[MEM_FIGURES];
    int has_mem = jdb_mem_cols(v, memcol);
    uint32_t nm = j->metrics.n;
    int32_t *mcol = instr_mem_alloc((4 * (size_t)nm + 1) * sizeof *mcol);
    uint32_t *reg = instr_mem_alloc(((size_t)v->nregions + 1) * sizeof *reg);
    uint32_t *node = instr_mem_alloc(((size_t)v->npaths + 1) * sizeof *node);
    uint32_t *first = instr_mem_calloc((size_t)v->nranks + 1, sizeof *first);
    int rc = -1;
    if (!mcol || !reg || !node || !first)
        goto out;
    static const char *const msuffix[4] = {"", ":excl", ":min_incl", ":max_incl"};
    for (uint32_t i = 0; i < nm; i++)
        for (int k = 0; k < 4; k++)
            mcol[4 * i + k] = instr_jdb_view_col(v, j->metrics.name[i], msuffix[k]);
    for (uint32_t i = 0; i < v->nregions; i++)
        if (!(reg[i] = jdb_region(j, v, i)))
            goto out;
    for (uint32_t p = 0; p < v->npaths; p++) {
        uint32_t parent = instr_jdb_rd32(v->p + v->paths + 8ull * p), r = instr_jdb_rd32(v->p + v->paths + 8ull * p + 4);
        if ((parent != INSTR_JDB_NONE && parent >= p) || r >= v->nregions)
            goto out;
        node[p] = instr_job_node_id(j, parent == INSTR_JDB_NONE ? -1 : (int32_t)node[parent], reg[r]);
        if (node[p] == UINT32_MAX)
            goto out;
    }
    if (summary) {
        /* Per path the sums over ranks; the extremes are the least minimum and greatest
         * maximum of the ranks' own (sums over their threads). */
        uint64_t rec = 8 + 32ull * v->ncols;
        for (uint32_t p = 0; p < v->npaths; p++) {
            const unsigned char *s = v->p + v->summary + rec * p + 8;
            jstats st = {0};
            uint64_t *f[C_N] = {&st.t.visits, &st.t.incl, &st.t.excl, &st.m.bytes_sent,
                                &st.m.bytes_received, &st.m.sent, &st.m.received,
                                &st.t.min_incl, &st.t.max_incl, &st.t.min_excl,
                                &st.t.max_excl, &st.m.collectives};
            for (int k = 0; k < C_N; k++)
                if (col[k] >= 0)
                    *f[k] = instr_jdb_rd64(s + 32ull * (uint32_t)col[k] +
                                 (k == C_INCL_MIN || k == C_EXCL_MIN ? 8 : k == C_INCL_MAX ||
                                  k == C_EXCL_MAX ? 16 : 0));
            instr_job_add_stats(&j->nodes[node[p]].s, &st);
            if ((has_io && jdb_io_add(&j->nodes[node[p]].io, icol, s, 32) != 0) ||
                (has_mem && jdb_mem_add(&j->nodes[node[p]].mem, memcol, s, 32) != 0))
                goto out;
        }
        /* One group per rank of the job, in rank order, with what its blob's process lines
         * said (pid, host, memory and I/O totals); present when the database has its rows. */
        jgroup *groups = instr_mem_calloc((size_t)v->nranks + 1, sizeof *groups);
        if (!groups)
            goto out;
        for (uint32_t r = 0; r < v->nranks; r++)
            groups[r].rank = (int)r;
        for (uint32_t g = 0; g < j->ngroups; g++)
            if (j->groups[g].rank >= 0 && (uint32_t)j->groups[g].rank < v->nranks)
                groups[j->groups[g].rank] = j->groups[g];
        for (uint32_t r = 0; r < v->nranks; r++) {
            const unsigned char *e = v->p + v->index + 32ull * r;
            groups[r].present = (instr_jdb_rd32(e + 20) & INSTR_JDB_RANK_PRESENT) != 0;
        }
        instr_mem_free(j->groups);
        j->groups = groups;
        j->ngroups = j->capgroups = v->nranks;
        j->nlocs = 0;
        /* profile.cubex reads each rank's values from the database (cube_from_jdb.c). */
        j->path_node = node;
        j->npath_node = v->npaths;
        node = NULL;
        if (v->duration > j->duration)
            j->duration = v->duration;
        j->summary = 1;
        rc = 0;
        goto out;
    }
    /* The ranks' locations: contiguous in j->locs, in the order of their ids. */
    for (uint32_t r = 0; r <= v->nranks; r++)
        first[r] = UINT32_MAX;
    for (uint32_t l = j->nlocs; l-- > 0;)
        if (j->locs[l].rank >= 0 && (uint32_t)j->locs[l].rank < v->nranks)
            first[j->locs[l].rank] = l;
    for (uint32_t r = 0; r < v->nranks; r++) {
        const unsigned char *e = v->p + v->index + 32ull * r;
        uint64_t off = instr_jdb_rd64(e), n = instr_jdb_rd64(e + 8);
        if (!(instr_jdb_rd32(e + 20) & INSTR_JDB_RANK_PRESENT)) {
            instr_ext_job_missing(j, (int)r);
            continue;
        }
        if (off < v->rows || !instr_jdb_view_inside(v, off, n, v->rowsize))
            goto out;
        for (uint64_t k = 0; k < n; k++) {
            const unsigned char *row = v->p + off + k * v->rowsize, *vals = row + 8;
            uint32_t p = instr_jdb_rd32(row), t = instr_jdb_rd32(row + 4);
            uint32_t loc = first[r] == UINT32_MAX ? UINT32_MAX : first[r] + t;
            if (p >= v->npaths || loc >= j->nlocs || j->locs[loc].rank != (int)r ||
                j->locs[loc].id_in_rank != t) {
                j->failed = 1; /* a row of a location the rank's blob did not name */
                continue;
            }
            jstats st = {{jdb_val(vals, col[C_VISITS], 0), jdb_val(vals, col[C_INCL], 0),
                          jdb_val(vals, col[C_EXCL], 0), jdb_val(vals, col[C_INCL_MIN], 0),
                          jdb_val(vals, col[C_INCL_MAX], 0), jdb_val(vals, col[C_EXCL_MIN], 0),
                          jdb_val(vals, col[C_EXCL_MAX], 0)},
                         {jdb_val(vals, col[C_MS], 0), jdb_val(vals, col[C_BS], 0),
                          jdb_val(vals, col[C_MR], 0), jdb_val(vals, col[C_BR], 0),
                          jdb_val(vals, col[C_COLL], 0)}};
            jnode *jn = &j->nodes[node[p]];
            if (instr_job_grow(&jn->locs, &jn->caplocs, jn->nlocs + 1, sizeof *jn->locs) != 0)
                goto out;
            jn->locs[jn->nlocs++] = (jloc){loc, st, NULL, NULL, NULL};
            instr_job_add_stats(&jn->s, &st);
            if (has_io && (jdb_io_add(&jn->locs[jn->nlocs - 1].io, icol, vals, 8) != 0 ||
                           jdb_io_add(&jn->io, icol, vals, 8) != 0))
                goto out;
            if (has_mem && (jdb_mem_add(&jn->locs[jn->nlocs - 1].mem, memcol, vals, 8) != 0 ||
                            jdb_mem_add(&jn->mem, memcol, vals, 8) != 0))
                goto out;
            if (nm) {
                uint64_t *m = jdb_metric_rows(&j->metrics, mcol, vals);
                if (!m || instr_job_metrics_add(&j->metrics, m, &jn->m, 0,
                                                &jn->locs[jn->nlocs - 1].m) != 0)
                    goto out;
            }
        }
    }
    if (v->duration > j->duration)
        j->duration = v->duration;
    rc = 0;
out:
    instr_mem_free(mcol);
    instr_mem_free(reg);
    instr_mem_free(node);
    instr_mem_free(first);
    return rc;
}

const char *instr_jdb_view_map(jdb_view *v, const char *path)
{
    memset(v, 0, sizeof *v);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        const char *why = strerror(errno);
        if (fd >= 0)
            close(fd);
        return why;
    }
    v->size = (uint64_t)st.st_size;
    void *m = v->size ? mmap(NULL, v->size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
    int err = errno;
    close(fd);
    if (m == MAP_FAILED)
        return v->size ? strerror(err) : "empty";
    v->p = m;
    const char *what = jdb_open(v);
    if (what)
        instr_jdb_view_unmap(v);
    return what;
}

void instr_jdb_view_unmap(jdb_view *v)
{
    if (v->p)
        munmap((void *)v->p, v->size);
    v->p = NULL;
}

INSTR_EXT_EXPORT int instr_ext_job_add_jdb(instr_job *j, const char *path, int summary)
{
    if (!j || !path)
        return -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        instr_warn("job profile: cannot read the job database %s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    jdb_view v = {0};
    v.size = (uint64_t)st.st_size;
    void *m = v.size ? mmap(NULL, v.size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
    close(fd);
    if (m == MAP_FAILED) {
        instr_warn("job profile: cannot map the job database %s: %s", path,
                   v.size ? strerror(errno) : "it is empty");
        return -1;
    }
    v.p = m;
    const char *what = jdb_open(&v);
    int rc = what ? -1 : jdb_fill(j, &v, summary);
    munmap(m, v.size);
    if (what)
        instr_warn("job profile: the job database %s is %s; the job profile is not written "
                   "(the ranks' own profiles are complete)", path, what);
    else if (rc != 0)
        instr_warn("job profile: the job database %s is malformed or memory ran out while "
                   "reading it; the job profile is not written", path);
    if (rc != 0)
        j->failed = 1;
    return rc;
}
