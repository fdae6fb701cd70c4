/* mpi_jobdb.c — the job database <dir>/profile.jdb written by all ranks together
 * (docs/profile-format.md "Job database"; the core is jobdb.h).
 *
 * 1. Definitions are unified by a binomial reduction tree: in round k (k = 0 ..
 *    ceil(log2 P) - 1) a rank r with r mod 2^(k+1) == 2^k sends its set to r - 2^k, which
 *    merges it into its own; a rank holds at most the union of its subtree plus its own data.
 * 2. Rank 0 numbers the union canonically and broadcasts it; every rank maps its rows to the
 *    union's ids.
 * 3. The summary goes to rank 0 by the same binomial tree as step 1, as sparse records: a
 *    subtree's message holds only the paths its ranks visited (each rank's own records are
 *    of its rows' size, not the union's), merged by path with instr_jdb_summary_combine
 *    (sums, minima, maxima, sums of squares); rank 0 alone lays them out union-sized.
 * 4. Every rank's rows go to rows offset + MPI_Exscan of the ranks' row bytes, written with
 *    collective MPI-IO (MPI_File_write_at_all), with its own rank index record; rank 0 writes
 *    the header, definitions and summary, and the file size last, once every rank's rows are
 *    written and synced: a file whose size field is 0 or wrong is unfinished.
 * A rank without a part (profile off, out of memory, a part that does not fit the union) is
 * written as absent: 0 rows, flag 0; one line names the absent ranks. */
#include "../mpi/mpi_wrap.h"
#include "jobdb.h"
#include "mpi_tree.h"
#include "../util/pages.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG_DEFS 7302

static unsigned char *my_part;
static size_t my_part_len;

void instr_mpi_jobdb_keep(const void *part, size_t len)
{
    instr_mem_free(my_part);
    my_part = NULL;
    my_part_len = 0;
    if (part && len && (my_part = instr_mem_alloc(len))) {
        memcpy(my_part, part, len);
        my_part_len = len;
    }
}

static void say(const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    fprintf(stderr, "instr: %s\n", msg);
    fflush(stderr);
}

/* Step 1: the union of every rank's definitions at rank 0 (others: their subtree's, sent).
 * lost: a subtree's set could not be merged here (its ranks end up absent). */
struct unify_ctx {
    instr_jdb_defs *acc;
    int *lost;
    unsigned char *out;
};

static void unify_merge(void *ctx, const void *b, uint64_t len)
{
    struct unify_ctx *c = ctx;
    instr_jdb_defs other;
    char err[200];
    if (!b || instr_jdb_defs_deserialize(&other, b, len, err, sizeof err) != 0) {
        *c->lost = 1;
        return;
    }
    if (instr_jdb_defs_merge(c->acc, &other, NULL) != 0)
        *c->lost = 1;
    instr_jdb_defs_free(&other);
}

static void unify_pack(void *ctx, const void **b, uint64_t *len)
{
    struct unify_ctx *c = ctx;
    if (instr_jdb_defs_serialize(c->acc, &c->out, len) != 0)
        *len = 0; /* the receiver loses this subtree: its ranks are absent */
    *b = *len ? c->out : NULL;
}

static void unify(instr_jdb_defs *acc, int rank, int size, MPI_Comm comm, int *lost)
{
    struct unify_ctx c = {acc, lost, NULL};
    instr_job_tree_reduce(rank, size, comm, TAG_DEFS, unify_merge, unify_pack, &c);
    instr_mem_free(c.out);
}

/* Step 2: the union from rank 0 to all; 0, or -1 on every rank when it cannot be had. */
static int broadcast_union(instr_jdb_defs *u, int rank, MPI_Comm comm)
{
    unsigned char *b = NULL;
    uint64_t len = 0;
    if (rank == 0 && (instr_jdb_defs_canonical(u) != 0 ||
                      instr_jdb_defs_serialize(u, &b, &len) != 0 || len > INT_MAX))
        len = 0;
    PMPI_Bcast(&len, 1, MPI_UINT64_T, 0, comm);
    if (!len) {
        instr_mem_free(b);
        return -1;
    }
    if (rank != 0 && !(b = instr_mem_alloc(len)))
        return -1; /* cannot happen gracefully: the Bcast below needs the buffer */
    PMPI_Bcast(b, (int)len, MPI_BYTE, 0, comm);
    int rc = 0;
    if (rank != 0) {
        char err[200];
        instr_jdb_defs_free(u);
        rc = instr_jdb_defs_deserialize(u, b, len, err, sizeof err);
    }
    instr_mem_free(b);
    return rc;
}

/* Step 3's message from a subtree: its entries; or, when a part of the subtree's records could
 * not be had, one word (no whole number of entries: an entry has at least 29 words). */

static int entries_valid(const uint64_t *v, uint64_t n, uint64_t e, uint32_t npath)
{
    for (uint64_t i = 0; i < n; i++)
        if (v[i * e] >= npath || (i && v[i * e] <= v[(i - 1) * e]))
            return 0;
    return 1;
}

/* Step 3: *sp (n entries of e words, this rank's own records) becomes its subtree's; at rank
 * 0 the job's. 0, or -1 when records were lost here or below (every message is still
 * taken, so that no sender waits). */
struct summary_ctx {
    uint64_t **sp, *n, e, lost_word;
    int lost;
    const instr_jdb_defs *u;
};

static void summary_merge(void *ctx, const void *buf, uint64_t len)
{
    struct summary_ctx *c = ctx;
    const uint64_t *b = buf;
    uint64_t m = 0, *merged = NULL, head = len / 8 / c->e;
    if (len % (8 * c->e) != 0 || (len && !b) || !entries_valid(b, head, c->e, c->u->npath))
        c->lost = 1;
    else if (!c->lost && instr_jdb_summary_sparse_merge(*c->sp, *c->n, b, head, c->u->col,
                                                        c->u->ncol, &merged, &m) != 0)
        c->lost = 1;
    if (merged) {
        instr_mem_free(*c->sp);
        *c->sp = merged;
        *c->n = m;
    }
}

static void summary_pack(void *ctx, const void **b, uint64_t *len)
{
    struct summary_ctx *c = ctx;
    c->lost_word = 0;
    *b = c->lost ? (const void *)&c->lost_word : (const void *)*c->sp;
    *len = c->lost ? 8 : *c->n * c->e * 8;
}

static int reduce_summary(uint64_t **sp, uint64_t *n, int lost, const instr_jdb_defs *u,
                          int rank, int size, MPI_Comm comm)
{
    struct summary_ctx c = {sp, n, 1 + instr_jdb_summary_words(u->ncol), 0, lost, u};
    instr_job_tree_reduce(rank, size, comm, TAG_DEFS, summary_merge, summary_pack, &c);
    return c.lost ? -1 : 0;
}

static const char *mpi_err(int rc, char *buf)
{
    int n = 0;
    if (PMPI_Error_string(rc, buf, &n) != MPI_SUCCESS)
        snprintf(buf, MPI_MAX_ERROR_STRING, "MPI error %d", rc);
    return buf;
}

/* Names the absent ranks in one line (ranges: 3-7). */
static void say_absent(const unsigned char *present, int size, const char *path)
{
    char list[1024] = "";
    size_t used = 0;
    int n = 0;
    for (int r = 0; r < size; r++) {
        if (present[r])
            continue;
        int e = r;
        while (e + 1 < size && !present[e + 1])
            e++;
        n += e - r + 1;
        if (used < sizeof list - 40) {
            int w = e > r ? snprintf(list + used, sizeof list - used, "%s%d-%d", used ? ", " : "", r, e)
                          : snprintf(list + used, sizeof list - used, "%s%d", used ? ", " : "", r);
            used += w > 0 ? (size_t)w : 0;
        } else if (used < sizeof list - 5) {
            used += (size_t)snprintf(list + used, sizeof list - used, ", ...");
        }
        r = e;
    }
    /* The job's one line names them too (outputs.c); this one only with INSTR_VERBOSE. */
    if (n && instr_ext_verbose() > 0)
        say("job database %s: %d rank%s absent (no profile to write: ended early, profiling "
            "off or out of memory): rank%s %s; the other ranks' data is written",
            path, n, n == 1 ? "" : "s", n == 1 ? "" : "s", list);
}

int instr_mpi_jobdb_write(MPI_Comm comm, int rank, int size, const char *dir)
{
    int result = -1;
    double t0 = PMPI_Wtime();
    instr_jdb_local local;
    char err[256];
    int present = 0;
    if (my_part && instr_jdb_local_deserialize(&local, my_part, my_part_len, err, sizeof err) == 0)
        present = 1;
    else if (my_part)
        say("job database: rank %d's part is unreadable (%s); the rank is written as absent",
            rank, err);
    instr_mem_free(my_part);
    my_part = NULL;
    my_part_len = 0;
    if (!present) {
        memset(&local, 0, sizeof local);
        instr_jdb_defs_init(&local.defs);
    }
    /* 1: unification */
    instr_jdb_defs u;
    int lost = 0;
    if (instr_jdb_defs_init(&u) != 0 || instr_jdb_defs_merge(&u, &local.defs, NULL) != 0)
        lost = 1;
    unify(&u, rank, size, comm, &lost);
    double t_unified = PMPI_Wtime();
    /* Nothing to write when no rank has a profile (profiling off): said by nobody. */
    int any = present, anyone = 0;
    PMPI_Allreduce(&any, &anyone, 1, MPI_INT, MPI_MAX, comm);
    if (!anyone || broadcast_union(&u, rank, comm) != 0) {
        if (anyone && rank == 0)
            say("job database %s/profile.jdb is not written: the ranks' call paths could not "
                "be unified (out of memory); the ranks' own profiles are in %s/rank-*", dir, dir);
        instr_jdb_local_free(&local);
        instr_jdb_defs_free(&u);
        return anyone ? -1 : 0;
    }
    double t_bcast = PMPI_Wtime();
    /* 2: this rank's rows in union ids */
    instr_jdb_rows rows = {u.ncol, 0, 0, NULL};
    if (present) {
        instr_jdb_map map;
        if (instr_jdb_defs_find(&u, &local.defs, &map) != 0 ||
            instr_jdb_rows_remap(&local.rows, &map, u.ncol, &rows) != 0)
            present = 0;
        if (present)
            instr_jdb_map_free(&map);
        instr_jdb_rows_free(&local.rows); /* the union-id copy is the one written */
    }
    instr_jdb_layout lay;
    instr_jdb_layout_of(&u, (uint32_t)size, &lay);
    double t_mapped = PMPI_Wtime();
    /* 3: the summary */
    uint64_t words = instr_jdb_summary_words(u.ncol), *sparse = NULL, nsparse = 0, *sum = NULL;
    instr_jdb_rows none = {u.ncol, 0, 0, NULL};
    int lost_sum = instr_jdb_summary_sparse_of_rank(present ? &rows : &none, u.col, &sparse,
                                                    &nsparse) != 0;
    lost_sum = reduce_summary(&sparse, &nsparse, lost_sum, &u, rank, size, comm) != 0;
    if (rank == 0 && !lost_sum && (sum = instr_mem_alloc(lay.summary_bytes + 8))) {
        instr_jdb_summary_init(sum, u.npath, u.col, u.ncol);
        for (uint64_t i = 0; i < nsparse; i++)
            memcpy(sum + sparse[i * (1 + words)] * words, sparse + i * (1 + words) + 1,
                   8 * words);
        instr_jdb_summary_finish(sum, u.npath, u.col, u.ncol);
    }
    instr_mem_free(sparse);
    int ok = rank != 0 || sum != NULL, all_ok = 0;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    double t_summary = PMPI_Wtime();
    uint64_t my_bytes = 0, off = 0, total = 0, duration = 0, my_dur = 0;
    unsigned char *presence = NULL;
    int npresent = 0, failed = 0;
    char path[PATH_MAX + 16], ebuf[MPI_MAX_ERROR_STRING];
    snprintf(path, sizeof path, "%s/profile.jdb", dir);
    if (!all_ok) {
        if (rank == 0)
            say("job database %s is not written: out of memory for the summary of %u call paths",
                path, u.npath);
        goto done;
    }
    MPI_Datatype rowtype;
    /* 4: offsets, presence, duration */
    my_bytes = present ? rows.n * lay.row_bytes : 0;
    PMPI_Exscan(&my_bytes, &off, 1, MPI_UINT64_T, MPI_SUM, comm);
    if (rank == 0)
        off = 0;
    PMPI_Allreduce(&my_bytes, &total, 1, MPI_UINT64_T, MPI_SUM, comm);
    my_dur = present ? local.duration_ns : 0;
    PMPI_Reduce(&my_dur, &duration, 1, MPI_UINT64_T, MPI_MAX, 0, comm);
    unsigned char me = (unsigned char)present;
    if (rank == 0)
        presence = instr_mem_alloc((size_t)size);
    PMPI_Gather(&me, 1, MPI_BYTE, presence, 1, MPI_BYTE, 0, comm);
    if (rank == 0 && presence)
        for (int r = 0; r < size; r++)
            npresent += presence[r] != 0;
    /* 5: the file */
    MPI_File fh;
    int rc = PMPI_File_open(comm, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    if (rc != MPI_SUCCESS) {
        if (rank == 0)
            say("job database %s cannot be created: %s; the ranks' own profiles are in "
                "%s/rank-*", path, mpi_err(rc, ebuf), dir);
        goto done;
    }
    instr_jdb_header_info hi = {(uint32_t)size, (uint32_t)npresent, instr_jdb_rounds((uint32_t)size),
                                duration, 0};
    unsigned char hdr[INSTR_JDB_HEADER_SIZE];
    if (rank == 0) {
        instr_jdb_header_encode(hdr, &u, &lay, &hi);
        struct { uint64_t at; const void *p; uint64_t n; } parts[] = {
            {0, hdr, sizeof hdr},
            {lay.strings, u.str, u.slen},
            {lay.regions, u.reg, 32ull * u.nreg},
            {lay.paths, u.path, 8ull * u.npath},
            {lay.columns, u.col, 16ull * u.ncol},
            {lay.summary, sum, lay.summary_bytes},
        };
        for (size_t i = 0; i < sizeof parts / sizeof parts[0] && !failed; i++) {
            /* in pieces of at most 1 GiB: counts are int */
            for (uint64_t done = 0; done < parts[i].n && !failed;) {
                uint64_t n = parts[i].n - done > (1u << 30) ? (1u << 30) : parts[i].n - done;
                rc = PMPI_File_write_at(fh, (MPI_Offset)(parts[i].at + done),
                                        (const unsigned char *)parts[i].p + done, (int)n, MPI_BYTE,
                                        MPI_STATUS_IGNORE);
                failed = rc != MPI_SUCCESS;
                done += n;
            }
        }
    }
    unsigned char idx[32];
    instr_jdb_index_encode(idx, lay.rows + off, present ? rows.n : 0,
                           present ? local.nthreads : 0, present ? INSTR_JDB_RANK_PRESENT : 0,
                           my_dur);
    if (!failed)
        rc = PMPI_File_write_at_all(fh, (MPI_Offset)(lay.index + 32ull * (uint64_t)rank), idx, 32,
                                    MPI_BYTE, MPI_STATUS_IGNORE);
    else
        rc = PMPI_File_write_at_all(fh, 0, idx, 0, MPI_BYTE, MPI_STATUS_IGNORE);
    failed |= rc != MPI_SUCCESS;
    PMPI_Type_contiguous((int)lay.row_bytes, MPI_BYTE, &rowtype);
    PMPI_Type_commit(&rowtype);
    uint64_t nrows = my_bytes / lay.row_bytes;
    int nr = nrows > INT_MAX ? 0 : (int)nrows;
    failed |= nrows > INT_MAX;
    rc = PMPI_File_write_at_all(fh, (MPI_Offset)(lay.rows + off), rows.v, failed ? 0 : nr, rowtype,
                                MPI_STATUS_IGNORE);
    failed |= rc != MPI_SUCCESS;
    PMPI_Type_free(&rowtype);
    PMPI_File_sync(fh);
    int any_failed = 0;
    PMPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, comm);
    /* Every rank's rows are written: the file size, last. */
    if (rank == 0 && !any_failed) {
        uint64_t size_field = lay.rows + total;
        rc = PMPI_File_write_at(fh, 16, &size_field, 8, MPI_BYTE, MPI_STATUS_IGNORE);
        any_failed = rc != MPI_SUCCESS;
    }
    PMPI_File_close(&fh);
    double t_end = PMPI_Wtime();
    /* The whole and its steps' times, each the slowest rank's (the steps: INSTR_VERBOSE=2). */
    double steps[6] = {t_end - t0, t_unified - t0, t_bcast - t_unified, t_mapped - t_bcast,
                       t_summary - t_mapped, t_end - t_summary}, steps_max[6] = {0};
    PMPI_Reduce(steps, steps_max, 6, MPI_DOUBLE, MPI_MAX, 0, comm);
    double slowest = steps_max[0], unif_max = steps_max[1];
    result = any_failed ? -1 : 1;
    if (rank == 0) {
        if (any_failed)
            say("job database %s is unfinished (a write failed: %s); its size field stays 0; the "
                "ranks' own profiles are in %s/rank-*", path, mpi_err(rc, ebuf), dir);
        else if (presence)
            say_absent(presence, size, path);
        if (!any_failed && instr_ext_verbose() >= 1)
            say("job database %s: %d ranks (%d present), %u call paths, %llu rows, "
                "definitions unified in %u rounds (%.3f s), written in %.3f s (slowest rank)",
                path, size, npresent, u.npath, (unsigned long long)(total / lay.row_bytes),
                hi.rounds, unif_max, slowest);
        if (!any_failed && instr_ext_verbose() >= 2)
            say("job database %s steps (slowest rank each): unification %.3f s, broadcast of "
                "the union %.3f s, rows mapped %.3f s, summary %.3f s, offsets and file %.3f s",
                path, steps_max[1], steps_max[2], steps_max[3], steps_max[4], steps_max[5]);
    }
done:
    instr_mem_free(presence);
    instr_mem_free(sum);
    instr_jdb_rows_free(&rows);
    instr_jdb_local_free(&local);
    instr_jdb_defs_free(&u);
    return result;
}
