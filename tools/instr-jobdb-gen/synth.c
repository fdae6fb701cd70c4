/* synth.c — the synthetic program of instr-jobdb-gen (synth.h). */
#include "synth.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Regions: 0 main; 1..NMPI MPI calls; then NOMP OpenMP constructs; then user functions. */
static const char *const mpi_names[] = {
    "MPI_Send", "MPI_Recv", "MPI_Isend", "MPI_Irecv", "MPI_Wait", "MPI_Waitall",
    "MPI_Allreduce", "MPI_Reduce", "MPI_Bcast", "MPI_Barrier", "MPI_Alltoall", "MPI_Allgather",
    "MPI_Gather", "MPI_Scatter", "MPI_Sendrecv", "MPI_Test", "MPI_Testall", "MPI_Iallreduce",
    "MPI_Comm_rank", "MPI_Comm_size", "MPI_Probe", "MPI_Scan", "MPI_Exscan", "MPI_Alltoallv"};
#define NMPI ((uint32_t)(sizeof mpi_names / sizeof mpi_names[0]))
#define NOMP 3u
#define FIRST_USER (1u + NMPI + NOMP)

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

typedef struct rng { uint64_t s; } rng;
static uint64_t next(rng *g) { return mix(g->s++); }
static double unit(rng *g) { return (double)(next(g) >> 11) / 9007199254740992.0; }

static int is_mpi(uint32_t region) { return region >= 1 && region <= NMPI; }

int synth_init(synth *s, const synth_config *cfg)
{
    memset(s, 0, sizeof *s);
    s->cfg = *cfg;
    uint32_t n = cfg->paths;
    s->nregions = n / 25 > 2 * FIRST_USER ? n / 25 : 2 * FIRST_USER;
    s->parent = malloc((size_t)n * sizeof *s->parent);
    s->region = malloc((size_t)n * sizeof *s->region);
    s->local_id = malloc((size_t)n * sizeof *s->local_id);
    s->chosen = malloc((size_t)n * sizeof *s->chosen);
    s->incl = malloc((size_t)n * sizeof *s->incl);
    uint64_t cap = 1;
    while (cap < 2 * (uint64_t)n)
        cap *= 2;
    uint64_t *set = calloc(cap, sizeof *set); /* (parent + 1) << 32 | region, + 1; 0 free */
    if (!s->parent || !s->region || !s->local_id || !s->chosen || !s->incl || !set) {
        fprintf(stderr, "instr-jobdb-gen: out of memory for a union tree of %u call paths\n", n);
        free(set);
        synth_free(s);
        return -1;
    }
    rng g = {cfg->seed * 0x100000001b3ull};
    /* A random recursive tree (parent uniform among the earlier paths: depth ~ ln n), MPI
     * calls only as leaves, every (parent, region) once. */
    s->parent[0] = INSTR_JDB_NONE;
    s->region[0] = 0;
    for (uint32_t i = 1; i < n; i++) {
        for (;;) {
            uint32_t p = (uint32_t)(next(&g) % i);
            while (is_mpi(s->region[p]))
                p = s->parent[p];
            uint32_t r = unit(&g) < 0.1 ? 1 + (uint32_t)(next(&g) % NMPI)
                       : unit(&g) < 0.02 ? 1 + NMPI + (uint32_t)(next(&g) % NOMP)
                       : FIRST_USER + (uint32_t)(next(&g) % (s->nregions - FIRST_USER));
            uint64_t key = ((uint64_t)p + 1) << 32 | r, slot = mix(key) & (cap - 1);
            while (set[slot] && set[slot] != key + 1)
                slot = (slot + 1) & (cap - 1);
            if (set[slot])
                continue;
            set[slot] = key + 1;
            s->parent[i] = p;
            s->region[i] = r;
            break;
        }
    }
    free(set);
    for (uint32_t i = 0; i < n; i++)
        s->local_id[i] = INSTR_JDB_NONE;
    s->hot = cfg->per_rank / 4 < n ? cfg->per_rank / 4 : n;
    if (!s->hot)
        s->hot = 1;
    for (int k = 0; k < 3; k++)
        s->outlier[k] = (uint32_t)(mix(cfg->seed ^ (0xabcdull + (uint64_t)k)) % cfg->ranks);
    return 0;
}

void synth_free(synth *s)
{
    free(s->parent);
    free(s->region);
    free(s->local_id);
    free(s->chosen);
    free(s->incl);
    memset(s, 0, sizeof *s);
}

static uint32_t region_of(const synth *s, instr_jdb_defs *d, uint32_t i)
{
    char name[64], file[64];
    instr_jdb_region x = {0};
    if (i == 0) {
        snprintf(name, sizeof name, "main");
        snprintf(file, sizeof file, "src/main.c");
    } else if (is_mpi(i)) {
        snprintf(name, sizeof name, "%s", mpi_names[i - 1]);
        file[0] = '\0';
        x.paradigm = INSTR_JDB_PARADIGM_MPI;
    } else if (i < FIRST_USER) {
        snprintf(name, sizeof name, "!$omp parallel @solver.c:%u", 100 * (i - NMPI));
        snprintf(file, sizeof file, "src/solver.c");
        x.paradigm = INSTR_JDB_PARADIGM_OPENMP;
    } else {
        snprintf(name, sizeof name, "fn_%05u", i - FIRST_USER);
        snprintf(file, sizeof file, "src/mod_%03u.c", (i - FIRST_USER) / 40);
        x.line_begin = 10 + 20 * ((i - FIRST_USER) % 40);
        x.line_end = x.line_begin + 15;
    }
    (void)s;
    x.name = instr_jdb_str(d, name);
    x.mangled = 0;
    x.file = instr_jdb_str(d, file);
    x.object = instr_jdb_str(d, is_mpi(i) ? "libmpi.so.40" : "app.x");
    if (x.name == INSTR_JDB_NONE || x.file == INSTR_JDB_NONE || x.object == INSTR_JDB_NONE)
        return INSTR_JDB_NONE;
    return instr_jdb_region_id(d, &x);
}

static int by_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

int synth_rank(synth *s, uint32_t r, instr_jdb_local *out)
{
    const synth_config *c = &s->cfg;
    memset(out, 0, sizeof *out);
    if (instr_jdb_defs_init(&out->defs) != 0 || instr_jdb_base_columns(&out->defs) != 0)
        goto fail;
    out->rows.ncols = out->defs.ncol;
    out->nthreads = c->threads;
    rng g = {mix(c->seed) ^ ((uint64_t)r << 20)};
    /* The paths: the hot ones, then the rank's own part of the code (a window that moves
     * with the rank, so that neighbours share some) with every ancestor. */
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->hot; i++) {
        s->local_id[i] = 0;
        s->chosen[n++] = i;
    }
    uint32_t rest = c->paths - s->hot, want = c->per_rank < c->paths ? c->per_rank : c->paths;
    uint64_t width = 4ull * want < rest ? 4ull * want : rest;
    uint64_t centre = rest ? (uint64_t)r * rest / c->ranks : 0;
    for (uint32_t tries = 0; n < want && rest && tries < 64 * want; tries++) {
        uint32_t j = s->hot + (uint32_t)((centre + next(&g) % width) % rest);
        for (; j != INSTR_JDB_NONE && s->local_id[j] == INSTR_JDB_NONE; j = s->parent[j]) {
            s->local_id[j] = 0;
            s->chosen[n++] = j;
        }
    }
    qsort(s->chosen, n, sizeof *s->chosen, by_u32);
    /* Local ids in ascending union order: a parent before its children. */
    uint32_t *lreg = malloc((size_t)s->nregions * sizeof *lreg);
    if (!lreg)
        goto fail;
    for (uint32_t i = 0; i < s->nregions; i++)
        lreg[i] = INSTR_JDB_NONE;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t p = s->chosen[k], reg = s->region[p];
        if (lreg[reg] == INSTR_JDB_NONE && (lreg[reg] = region_of(s, &out->defs, reg)) == INSTR_JDB_NONE)
            break;
        uint32_t parent = s->parent[p] == INSTR_JDB_NONE ? INSTR_JDB_NONE : s->local_id[s->parent[p]];
        s->local_id[p] = instr_jdb_path_id(&out->defs, parent, lreg[reg]);
        if (s->local_id[p] != k)
            break;
    }
    free(lreg);
    int ok = out->defs.npath == n;
    /* Times: exclusive per path from its cost, the rank's imbalance (up to +50 % for the
     * last rank), 5 % noise, and x50 in path 1 on the outlier ranks; inclusive summed up. */
    double factor = 1.0 + 0.5 * (double)r / (double)(c->ranks > 1 ? c->ranks - 1 : 1);
    int outlier = r == s->outlier[0] || r == s->outlier[1] || r == s->outlier[2];
    for (uint32_t k = 0; k < n && ok; k++) {
        uint32_t p = s->chosen[k];
        uint64_t h = mix(c->seed ^ ((uint64_t)p << 8));
        uint64_t visits = 1 + h % 1000;
        double x = (double)(200 + (h >> 20) % 20000) * (double)visits * factor *
                   (0.95 + 0.1 * unit(&g));
        if (outlier && p == 1)
            x *= 50;
        s->incl[k] = (uint64_t)x;
    }
    for (uint32_t k = n; k-- > 0 && ok;) {
        uint32_t p = s->chosen[k];
        if (s->parent[p] != INSTR_JDB_NONE)
            s->incl[s->local_id[s->parent[p]]] += s->incl[k];
    }
    /* incl now holds inclusive times; exclusive = inclusive less the children's. */
    for (uint32_t k = 0; k < n && ok; k++) {
        uint32_t p = s->chosen[k];
        uint64_t h = mix(c->seed ^ ((uint64_t)p << 8));
        uint64_t visits = 1 + h % 1000;
        for (uint32_t t = 0; t < c->threads && ok; t++) {
            uint64_t *v = instr_jdb_rows_add(&out->rows, k, t);
            if (!v) {
                ok = 0;
                break;
            }
            v[INSTR_JDB_COL_VISITS] = visits;
            v[INSTR_JDB_COL_TIME_INCL] = s->incl[k] / (t + 1);
            if (is_mpi(s->region[p])) {
                uint64_t bytes = visits * 8 * (1 + (h >> 40) % 512);
                v[INSTR_JDB_COL_BYTES_SENT] = v[INSTR_JDB_COL_BYTES_RECEIVED] = bytes;
                v[INSTR_JDB_COL_MESSAGES_SENT] = v[INSTR_JDB_COL_MESSAGES_RECEIVED] = visits;
            }
        }
    }
    /* time_excl per row: the row's inclusive less its children's rows' (same thread). */
    if (ok) {
        uint64_t w = 1 + (uint64_t)out->rows.ncols;
        for (uint64_t i = 0; i < out->rows.n; i++)
            out->rows.v[i * w + 1 + INSTR_JDB_COL_TIME_EXCL] = out->rows.v[i * w + 1 + INSTR_JDB_COL_TIME_INCL];
        for (uint32_t k = n; k-- > 0;) {
            uint32_t p = s->chosen[k];
            if (s->parent[p] == INSTR_JDB_NONE)
                continue;
            uint32_t pk = s->local_id[s->parent[p]];
            for (uint32_t t = 0; t < c->threads; t++) {
                uint64_t *me = out->rows.v + ((uint64_t)k * c->threads + t) * w + 1;
                uint64_t *up = out->rows.v + ((uint64_t)pk * c->threads + t) * w + 1;
                uint64_t x = me[INSTR_JDB_COL_TIME_INCL];
                up[INSTR_JDB_COL_TIME_EXCL] -= x < up[INSTR_JDB_COL_TIME_EXCL] ? x : up[INSTR_JDB_COL_TIME_EXCL];
            }
        }
    }
    out->duration_ns = n ? s->incl[0] : 0;
    for (uint32_t k = 0; k < n; k++)
        s->local_id[s->chosen[k]] = INSTR_JDB_NONE;
    if (ok)
        return 0;
fail:
    fprintf(stderr, "instr-jobdb-gen: out of memory for rank %u's part\n", r);
    instr_jdb_local_free(out);
    return -1;
}
