/* instr-jobdb-gen — writes a synthetic job database (profile.jdb, docs/profile-format.md) for
 * any number of simulated ranks through the writer's own core (runtime/job/jobdb.h): the
 * definitions are unified by the same binomial tree of merges as runtime/mpi/mpi_jobdb.c
 * (done depth first in one process, so that at most ceil(log2 P) sets are alive), then every
 * rank's rows are mapped to the union and added to the summary; the summary gives the pruned
 * set (jobdb_pruned.h), and a second pass over the ranks (made again: the same seed gives the
 * same rows) writes every rank's rows and its rows of the pruned set with pwrite at the
 * offsets the prefix sums give; header, definitions, summary and pruned set follow, the file
 * size last. The rows area lies behind the pruned section, whose size is known only once
 * every rank is summed: hence the two passes (no rank's rows are kept).
 *
 *   instr-jobdb-gen [-r RANKS] [-p PATHS] [-k PER_RANK] [-t THREADS] [-s SEED] -o FILE
 *
 * Deterministic: the same options give the same file, byte for byte. */
#include "synth.h"
#include "jobdb_pruned.h"
#include "../../runtime/util/pages.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int usage(const char *why)
{
    if (why)
        fprintf(stderr, "instr-jobdb-gen: %s\n", why);
    fprintf(stderr, "usage: instr-jobdb-gen [-r RANKS (64)] [-p UNION_PATHS (100000)] "
                    "[-k PATHS_PER_RANK (2000)] [-t THREADS_PER_RANK (1)] [-s SEED (1)] -o FILE\n");
    return 2;
}

static int number(const char *arg, const char *what, uint64_t max, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(arg, &end, 10);
    if (errno || *end || !*arg || v < 1 || v > max) {
        fprintf(stderr, "instr-jobdb-gen: %s '%s' is not a number from 1 to %" PRIu64 "\n", what,
                arg, max);
        return -1;
    }
    *out = v;
    return 0;
}

/* The set of ranks [r, r + 2^k) in the binomial tree: rank r's own, merged with the sets of
 * r + 2^j for j < k (what r receives in rounds 0 .. k-1). */
static int unify(synth *s, uint32_t r, uint32_t k, instr_jdb_defs *acc)
{
    instr_jdb_local part;
    if (synth_rank(s, r, &part) != 0)
        return -1;
    *acc = part.defs;
    memset(&part.defs, 0, sizeof part.defs);
    instr_jdb_local_free(&part);
    for (uint32_t j = 0; j < k; j++) {
        uint64_t other = (uint64_t)r + (1ull << j);
        if (other >= s->cfg.ranks)
            break;
        instr_jdb_defs d;
        if (unify(s, (uint32_t)other, j, &d) != 0)
            return -1;
        int rc = instr_jdb_defs_merge(acc, &d, NULL);
        instr_jdb_defs_free(&d);
        if (rc != 0)
            return -1;
    }
    return 0;
}

/* Rank r's part and its rows in the union's ids (sorted). */
static int rank_rows(synth *s, const instr_jdb_defs *u, uint32_t r, instr_jdb_local *part,
                     instr_jdb_rows *rows)
{
    instr_jdb_map map;
    if (synth_rank(s, r, part) != 0)
        return -1;
    if (instr_jdb_defs_find(u, &part->defs, &map) != 0 ||
        instr_jdb_rows_remap(&part->rows, &map, u->ncol, rows) != 0) {
        fprintf(stderr, "instr-jobdb-gen: rank %u's part does not map to the union\n", r);
        return -1;
    }
    instr_jdb_map_free(&map);
    return 0;
}

static int put(int fd, const void *p, uint64_t n, uint64_t at, const char *path)
{
    const char *b = p;
    while (n) {
        ssize_t w = pwrite(fd, b, n > (1u << 30) ? (1u << 30) : n, (off_t)at);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            fprintf(stderr, "instr-jobdb-gen: writing %s at offset %" PRIu64 ": %s\n", path, at,
                    strerror(errno));
            return -1;
        }
        b += w;
        at += (uint64_t)w;
        n -= (uint64_t)w;
    }
    return 0;
}

int main(int argc, char **argv)
{
    synth_config cfg = {64, 100000, 2000, 1, 1};
    const char *path = NULL;
    int opt;
    uint64_t v;
    while ((opt = getopt(argc, argv, "r:p:k:t:s:o:h")) != -1) {
        switch (opt) {
        case 'r': if (number(optarg, "-r ranks", 1u << 30, &v)) return 2; cfg.ranks = (uint32_t)v; break;
        case 'p': if (number(optarg, "-p union paths", 1u << 30, &v)) return 2; cfg.paths = (uint32_t)v; break;
        case 'k': if (number(optarg, "-k paths per rank", 1u << 30, &v)) return 2; cfg.per_rank = (uint32_t)v; break;
        case 't': if (number(optarg, "-t threads", 4096, &v)) return 2; cfg.threads = (uint32_t)v; break;
        case 's': if (number(optarg, "-s seed", UINT64_MAX, &v)) return 2; cfg.seed = v; break;
        case 'o': path = optarg; break;
        case 'h': return usage(NULL), 0;
        default: return usage(NULL);
        }
    }
    if (!path || optind != argc)
        return usage(!path ? "-o FILE is required" : "unexpected argument");
    double t0 = now();
    synth s;
    if (synth_init(&s, &cfg) != 0)
        return 1;
    /* 1: the union, by the binomial tree */
    uint32_t rounds = instr_jdb_rounds(cfg.ranks);
    instr_jdb_defs u;
    if (unify(&s, 0, rounds, &u) != 0 || instr_jdb_defs_canonical(&u) != 0) {
        fprintf(stderr, "instr-jobdb-gen: out of memory while unifying the definitions\n");
        return 1;
    }
    double t_unified = now();
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        fprintf(stderr, "instr-jobdb-gen: cannot create %s: %s\n", path, strerror(errno));
        return 1;
    }
    instr_jdb_layout lay;
    instr_jdb_layout_of(&u, cfg.ranks, &lay);
    uint64_t *sum = malloc(lay.summary_bytes + 8);
    if (!sum) {
        fprintf(stderr, "instr-jobdb-gen: out of memory for the summary of %u paths\n", u.npath);
        return 1;
    }
    instr_jdb_summary_init(sum, u.npath, u.col, u.ncol);
    uint64_t *path_rows = calloc((size_t)u.npath + 1, sizeof *path_rows);
    if (!path_rows) {
        fprintf(stderr, "instr-jobdb-gen: out of memory for the rows of %u paths\n", u.npath);
        return 1;
    }
    /* 2: every rank's rows into the summary, and each path's rows counted (the pruned
     * section's size) */
    for (uint32_t r = 0; r < cfg.ranks; r++) {
        instr_jdb_local part;
        instr_jdb_rows rows;
        if (rank_rows(&s, &u, r, &part, &rows) != 0)
            return 1;
        instr_jdb_summary_add_rank(sum, &rows, u.col);
        for (uint64_t i = 0; i < rows.n; i++)
            path_rows[instr_jdb_row_path(instr_jdb_row(&rows, i))]++;
        instr_jdb_rows_free(&rows);
        instr_jdb_local_free(&part);
    }
    instr_jdb_summary_finish(sum, u.npath, u.col, u.ncol);
    uint32_t *set, nset;
    if (instr_jdb_pruned_set(sum, &u, INSTR_JDB_PRUNED_THRESHOLD, &set, &nset) != 0) {
        fprintf(stderr, "instr-jobdb-gen: out of memory for the pruned set\n");
        return 1;
    }
    uint64_t pruned_bytes = 0;
    for (uint32_t k = 0; k < nset; k++)
        pruned_bytes += path_rows[set[k]] * lay.row_bytes;
    free(path_rows);
    instr_jdb_pruned_layout pl;
    instr_jdb_pruned_place(&lay, cfg.ranks, nset, pruned_bytes, INSTR_JDB_PRUNED_THRESHOLD, &pl);
    /* 3: every rank's rows and pruned rows, at the prefix sums of the rows before it */
    uint64_t off = 0, poff = 0, duration = 0, nrows = 0;
    int rc = 0;
    for (uint32_t r = 0; r < cfg.ranks && rc == 0; r++) {
        instr_jdb_local part;
        instr_jdb_rows rows, pruned;
        if (rank_rows(&s, &u, r, &part, &rows) != 0)
            return 1;
        if (instr_jdb_pruned_rows(&rows, set, nset, &pruned) != 0) {
            fprintf(stderr, "instr-jobdb-gen: out of memory for rank %u's pruned rows\n", r);
            return 1;
        }
        unsigned char idx[32], pidx[16];
        uint64_t bytes = rows.n * lay.row_bytes, pbytes = pruned.n * lay.row_bytes;
        instr_jdb_index_encode(idx, lay.rows + off, rows.n, part.nthreads, INSTR_JDB_RANK_PRESENT,
                               part.duration_ns);
        instr_jdb_pruned_index_encode(pidx, pl.rows + poff, pruned.n);
        rc = put(fd, rows.v, bytes, lay.rows + off, path);
        rc |= put(fd, idx, sizeof idx, lay.index + 32ull * r, path);
        rc |= put(fd, pruned.v, pbytes, pl.rows + poff, path);
        rc |= put(fd, pidx, sizeof pidx, pl.index + 16ull * r, path);
        off += bytes;
        poff += pbytes;
        nrows += rows.n;
        if (part.duration_ns > duration)
            duration = part.duration_ns;
        instr_jdb_rows_free(&pruned);
        instr_jdb_rows_free(&rows);
        instr_jdb_local_free(&part);
    }
    if (rc == 0 && poff != pruned_bytes) {
        fprintf(stderr, "instr-jobdb-gen: the second pass made %" PRIu64 " bytes of pruned rows, "
                        "the first %" PRIu64 "\n", poff, pruned_bytes);
        return 1;
    }
    /* 4: rank 0's part: header, definitions, summary, pruned set; then the size, last */
    instr_jdb_header_info hi = {cfg.ranks, cfg.ranks, rounds, duration, 0};
    unsigned char hdr[INSTR_JDB_HEADER_SIZE];
    instr_jdb_header_encode(hdr, &u, &lay, &hi);
    instr_jdb_pruned_header(hdr, &pl);
    if (rc == 0)
        rc = put(fd, hdr, sizeof hdr, 0, path) | put(fd, u.str, u.slen, lay.strings, path) |
             put(fd, u.reg, 32ull * u.nreg, lay.regions, path) |
             put(fd, u.path, 8ull * u.npath, lay.paths, path) |
             put(fd, u.col, 16ull * u.ncol, lay.columns, path) |
             put(fd, sum, lay.summary_bytes, lay.summary, path) |
             put(fd, set, 4ull * nset, pl.set, path);
    uint64_t size = lay.rows + off;
    if (rc == 0 && fsync(fd) != 0 && errno != EINVAL) {
        fprintf(stderr, "instr-jobdb-gen: %s: %s\n", path, strerror(errno));
        rc = -1;
    }
    if (rc == 0)
        rc = put(fd, &size, 8, 16, path);
    if (close(fd) != 0 && rc == 0) {
        fprintf(stderr, "instr-jobdb-gen: closing %s: %s\n", path, strerror(errno));
        rc = -1;
    }
    double t_end = now();
    if (rc != 0) {
        fprintf(stderr, "instr-jobdb-gen: %s is unfinished (its size field is 0)\n", path);
        return 1;
    }
    printf("%s: %u ranks, %u regions, %u call paths (of %u in the synthetic tree), %" PRIu64
           " rows, %" PRIu64 " bytes; unification %u rounds %.2f s, rows and summary %.2f s, "
           "total %.2f s\n",
           path, cfg.ranks, u.nreg, u.npath, cfg.paths, nrows, size, rounds, t_unified - t0,
           t_end - t_unified, t_end - t0);
    free(sum);
    instr_mem_free(set);
    instr_jdb_defs_free(&u);
    synth_free(&s);
    return 0;
}
