/* mpi_trace_unify.c — the end of an MPI job's trace (docs/mpi.md, "Trace"): the ranks'
 * definitions unified by the job's binomial reduction tree (mpi_tree.h), as the job
 * database's are, then the archive closed by all ranks together.
 *
 *   1. Each rank makes a unifier of its own definitions (trace_unify.h) for the ranks of its
 *      subtree, merges its children's (ceil(log2 P) rounds, each child's subtree's union and
 *      its ranks' locations) and sends the result to its parent: rank 0 ends with the
 *      job's union, built in rank order, so every global ref is the one that taking the
 *      ranks' definitions one at a time in rank order gives.
 *   2. Rank 0 broadcasts the union without what is per rank; each rank maps its own
 *      definitions against it (its I/O handles numbered after the lower ranks', an
 *      MPI_Exscan); rank 0's own mapping is the one its unifier made first.
 *   3. The archive is closed collectively (OTF2's MPI callbacks); which ranks' parts are
 *      incomplete reaches rank 0 by one reduction (the count and the first 32 ranks). */
#include "../mpi/mpi_wrap.h"
#include "mpi_tree.h"
#include "../util/pages.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#define TAG_DEFS 7303
#define NAMED 32 /* incomplete ranks named in the job's line; the rest counted */

struct tree_ctx {
    void *u;
    int rank;
    char *out;
};

static void merge_subtree(void *ctx, const void *buf, uint64_t len)
{
    struct tree_ctx *c = ctx;
    if (!buf || instr_ext_trace_unify_merge(c->u, buf, (size_t)len) != 0)
        fprintf(stderr, "instr: trace: rank %d could not unify the definitions of a subtree "
                        "of ranks (out of memory or malformed): the archive lacks them\n",
                c->rank);
}

static void pack_subtree(void *ctx, const void **buf, uint64_t *len)
{
    struct tree_ctx *c = ctx;
    size_t n = 0;
    if (!c->u || instr_ext_trace_unify_pack(c->u, 1, &c->out, &n) != 0)
        n = 0; /* the parent lacks this subtree's definitions */
    *buf = n ? c->out : NULL;
    *len = n;
}

/* The union (without the ranks' own parts) from rank 0 to all, down the job's tree (patient
 * waits); NULL when it cannot be had (here, or on a rank above without the memory for it). */
static char *broadcast_union(void *u, int rank, int size, MPI_Comm comm, size_t *len)
{
    char *b = NULL;
    size_t packed = 0;
    uint64_t n = 0;
    if (rank == 0 && u && instr_ext_trace_unify_pack(u, 0, &b, &packed) == 0)
        n = packed;
    b = instr_job_tree_bcast(b, &n, rank, size, comm, TAG_DEFS);
    if (!n || !b) {
        instr_mem_free(b);
        return NULL;
    }
    *len = n;
    return b;
}

/* The incomplete ranks: how many, and the first NAMED by number. */
typedef struct {
    int count, n, ranks[NAMED];
} bad_set;

static void bad_union(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    bad_set *a = in, *b = inout;
    for (int e = 0; e < *len; e++, a++, b++) {
        bad_set m = {a->count + b->count, 0, {0}};
        int i = 0, j = 0;
        while (m.n < NAMED && (i < a->n || j < b->n))
            m.ranks[m.n++] = j >= b->n || (i < a->n && a->ranks[i] < b->ranks[j])
                                 ? a->ranks[i++]
                                 : b->ranks[j++];
        *b = m;
    }
}

static void report(void *u, int incomplete, int rank, MPI_Comm comm)
{
    bad_set mine = {incomplete != 0, incomplete != 0, {rank}}, all = {0, 0, {0}};
    MPI_Datatype type;
    MPI_Op op;
    PMPI_Type_contiguous((int)(sizeof(bad_set) / sizeof(int)), MPI_INT, &type);
    PMPI_Type_commit(&type);
    PMPI_Op_create(bad_union, 1, &op);
    PMPI_Reduce(&mine, &all, 1, type, op, 0, comm);
    PMPI_Op_free(&op);
    PMPI_Type_free(&type);
    if (rank == 0)
        instr_ext_trace_job_report(u, all.ranks, all.n, all.count);
}

void instr_job_trace_end(MPI_Comm comm, int rank, int size)
{
    if (!instr_mpi_trace_stop())
        return;
    char *blob = NULL, *map = NULL;
    size_t len = 0, maplen = 0;
    if (instr_ext_trace_blob(rank, &blob, &len) != 0) {
        blob = NULL;
        len = 0;
    }
    /* 1: the subtree's union, up the tree */
    struct tree_ctx c = {instr_ext_trace_unify_new(rank, instr_job_tree_span(rank, size)),
                         rank, NULL};
    int own_ok = c.u && blob && instr_ext_trace_unify_add(c.u, rank, blob, len, &map,
                                                          &maplen) == 0;
    if (!own_ok)
        map = NULL;
    uint64_t handles = own_ok ? instr_ext_trace_unify_handles(c.u) : 0, base = 0;
    instr_job_tree_reduce(rank, size, comm, TAG_DEFS, merge_subtree, pack_subtree, &c);
    instr_mem_free(c.out);
    /* 2: the union to every rank, each rank's own mapping against it */
    size_t ulen = 0;
    char *whole = broadcast_union(c.u, rank, size, comm, &ulen);
    PMPI_Exscan(&handles, &base, 1, MPI_UINT64_T, MPI_SUM, comm);
    void *u = c.u;
    if (rank != 0) {
        instr_ext_trace_unify_free(c.u); /* its ranks' parts went up the tree */
        instr_mem_free(map);
        map = NULL;
        maplen = 0;
        u = instr_ext_trace_unify_new(rank, 1);
        if (!whole || !u || instr_ext_trace_unify_merge(u, whole, ulen) != 0 ||
            instr_ext_trace_unify_map(u, rank, blob, len, (uint32_t)base, &map, &maplen) != 0)
            map = NULL;
        instr_ext_trace_unify_free(u);
        u = NULL;
    }
    if (!map)
        fprintf(stderr, "instr: trace: the definitions of rank %d could not be unified "
                        "(out of memory or malformed): the archive lacks them\n", rank);
    instr_mem_free(whole);
    instr_mem_free(blob);
    /* 3: the close; rank 0 reports the archive only when every rank's close is known: a
     * rank whose writes failed (a full disk) leaves its files short, and the line names it. */
    int incomplete = instr_ext_trace_job_close(rank, map, map ? maplen : 0, u) != 0;
    report(u, incomplete, rank, comm);
    /* How long the clock offsets took (slowest rank; docs/mpi.md, "Clocks"). */
    double clk[2];
    uint64_t w[2];
    const unsigned char ops[2] = {INSTR_JOB_FMAX, INSTR_JOB_FMAX};
    instr_mpi_trace_clock_seconds(clk);
    memcpy(w, clk, sizeof w);
    instr_job_tree_allreduce(w, ops, 2, 0, rank, size, comm, TAG_DEFS);
    memcpy(clk, w, sizeof clk);
    int rounds = 0;
    while ((1 << rounds) < size)
        rounds++;
    if (rank == 0 && instr_ext_verbose() >= 1)
        fprintf(stderr, "instr: trace: clock offsets of %d rank%s measured in %.3f s at MPI_Init "
                        "and %.3f s at the end (slowest rank; a binomial tree of %d round%s)\n",
                size, size == 1 ? "" : "s", clk[0], clk[1], rounds, rounds == 1 ? "" : "s");
    instr_mem_free(map);
    instr_ext_trace_unify_free(u);
    instr_mpi_trace_release();
}
