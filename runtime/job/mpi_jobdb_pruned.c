/* mpi_jobdb_pruned.c — the pruned section's steps of the MPI job database writer
 * (mpi_jobdb_pruned.h): two passes of small messages over the job's binomial tree
 * (mpi_tree.h), after the summary:
 * 1. rank 0 makes the set from the summary (instr_jdb_pruned_set) and broadcasts it: a word
 *    ok, a word nset, the path ids;
 * 2. each rank takes its rows of the set (its rows are sorted, the set ascending: one merge)
 *    and the bytes of each subtree's go up, with whether every rank could.
 * Rank 0 decides (on: every rank could), and the decision and every rank's offset (its
 * subtree's start, then its own rows, then its children's subtrees in rank order) go down
 * with the rows area's offsets (mpi_jobdb.c): instr_mpi_jobdb_pruned_placed. */
#include "mpi_jobdb_pruned.h"
#include "mpi_tree.h"
#include "../util/pages.h"

#include <string.h>

struct up_ctx {
    uint64_t bytes, ok;  /* the subtree's */
    uint64_t child_bytes[32];
    int next;
    uint64_t msg[2];
};

static void up_merge(void *ctx, const void *b, uint64_t len)
{
    struct up_ctx *c = ctx;
    uint64_t m[2] = {0, 0};
    if (b && len == sizeof m)
        memcpy(m, b, sizeof m);
    c->child_bytes[c->next++] = m[0];
    c->bytes += m[0];
    c->ok &= m[1];
}

static void up_pack(void *ctx, const void **b, uint64_t *len)
{
    struct up_ctx *c = ctx;
    c->msg[0] = c->bytes;
    c->msg[1] = c->ok;
    *b = c->msg;
    *len = sizeof c->msg;
}

void instr_mpi_jobdb_pruned_up(instr_mpi_pruned *pr, const uint64_t *sum, const instr_jdb_defs *u,
                               const instr_jdb_rows *rows, int rank, int size, MPI_Comm comm,
                               int tag)
{
    memset(pr, 0, sizeof *pr);
    pr->rows.ncols = rows->ncols;
    /* 1: the set */
    uint32_t *msg = NULL, *set = NULL, nset = 0;
    uint64_t len = 8;
    if (rank == 0) {
        int have = sum && instr_jdb_pruned_set(sum, u, INSTR_JDB_PRUNED_THRESHOLD, &set, &nset) == 0;
        if (!have)
            nset = 0;
        len = 8 + 4ull * nset;
        if ((msg = instr_mem_alloc(len))) {
            msg[0] = (uint32_t)have;
            msg[1] = nset;
            if (nset)
                memcpy(msg + 2, set, 4ull * nset);
        } else {
            len = 0; /* the others take an empty message: no section */
        }
        instr_mem_free(set);
    }
    msg = instr_job_tree_bcast(msg, &len, rank, size, comm, tag);
    int ok = msg && len >= 8 && msg[0] == 1 && len == 8 + 4ull * msg[1];
    /* 2: this rank's rows of it; the subtrees' bytes up */
    if (ok && instr_jdb_pruned_rows(rows, msg + 2, msg[1], &pr->rows) != 0)
        ok = 0;
    uint64_t mine = ok ? pr->rows.n * instr_jdb_row_bytes(rows->ncols) : 0;
    struct up_ctx uc = {mine, (uint64_t)ok, {0}, 0, {0, 0}};
    instr_job_tree_reduce(rank, size, comm, tag, up_merge, up_pack, &uc);
    pr->msg = msg;
    pr->ok = ok;
    pr->bytes = mine;
    pr->subtree_ok = uc.ok;
    pr->subtree_bytes = uc.bytes;
    memcpy(pr->child_bytes, uc.child_bytes, sizeof pr->child_bytes);
}

void instr_mpi_jobdb_pruned_placed(instr_mpi_pruned *pr, int on, uint64_t total, uint64_t offset)
{
    pr->on = on && pr->ok; /* rank 0's on needs every rank's ok */
    if (!pr->on) {
        uint32_t ncols = pr->rows.ncols;
        instr_mem_free(pr->msg);
        pr->msg = NULL;
        instr_jdb_rows_free(&pr->rows);
        pr->rows.ncols = ncols;
        return;
    }
    pr->nset = pr->msg[1];
    pr->set = pr->msg + 2;
    pr->total = total;
    pr->offset = offset;
}

void instr_mpi_jobdb_pruned_free(instr_mpi_pruned *pr)
{
    instr_mem_free(pr->msg);
    instr_jdb_rows_free(&pr->rows);
    memset(pr, 0, sizeof *pr);
}
