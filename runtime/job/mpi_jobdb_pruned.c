/* mpi_jobdb_pruned.c — the pruned section's steps of the MPI job database writer
 * (mpi_jobdb_pruned.h): three passes of small messages over the job's binomial tree
 * (mpi_tree.h), after the summary and before the file's offsets:
 * 1. rank 0 makes the set from the summary (instr_jdb_pruned_set) and broadcasts it: a word
 *    ok, a word nset, the path ids;
 * 2. each rank takes its rows of the set (its rows are sorted, the set ascending: one merge)
 *    and the bytes of each subtree's go up, with whether every rank could;
 * 3. rank 0 decides (on: every rank could) and every rank learns its offset down the tree:
 *    its subtree's start, then its own rows, then its children's subtrees in rank order. */
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

void instr_mpi_jobdb_pruned(instr_mpi_pruned *pr, const uint64_t *sum, const instr_jdb_defs *u,
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
    /* 3: the decision and the offsets down */
    uint64_t place[3] = {uc.ok, uc.bytes, 0}; /* on, total, this subtree's start */
    if (rank != 0) {
        uint64_t n = 0;
        void *b = instr_job_tree_recv(&n, instr_job_tree_parent(rank), tag, comm);
        if (b && n == sizeof place)
            memcpy(place, b, sizeof place);
        else
            place[0] = 0, pr->lost = 1;
        instr_mem_free(b);
    }
    int child[32], nc = instr_job_tree_children(rank, size, child);
    uint64_t to[32][3], lens[32], at = place[2] + mine;
    const void *bufs[32];
    for (int i = 0; i < nc; i++) {
        to[i][0] = place[0];
        to[i][1] = place[1];
        to[i][2] = at;
        at += uc.child_bytes[i];
        bufs[i] = to[i];
        lens[i] = sizeof to[i];
    }
    instr_job_tree_send_many(bufs, lens, child, nc, tag, comm);
    pr->on = place[0] != 0 && ok; /* rank 0's on needs every rank's ok */
    if (!pr->on) {
        instr_mem_free(msg);
        instr_jdb_rows_free(&pr->rows);
        pr->rows.ncols = rows->ncols;
        return;
    }
    pr->msg = msg;
    pr->nset = msg[1];
    pr->set = msg + 2;
    pr->total = place[1];
    pr->offset = place[2];
}

void instr_mpi_jobdb_pruned_free(instr_mpi_pruned *pr)
{
    instr_mem_free(pr->msg);
    instr_jdb_rows_free(&pr->rows);
    memset(pr, 0, sizeof *pr);
}
