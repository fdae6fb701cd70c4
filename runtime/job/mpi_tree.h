/* mpi_tree.h — the job's binomial reduction tree over a communicator (mpi_tree.c): what the
 * job database's definitions and summary (mpi_jobdb.c) and the trace's definitions
 * (mpi_trace_unify.c) travel by. In round k (k = 0 .. ceil(log2 P) - 1) a rank r with
 * r mod 2^(k+1) == 2^k sends its subtree's data to r - 2^k, which merges it into its own:
 * rank 0 takes ceil(log2 P) messages, and a rank r's subtree is the ranks r .. r + 2^j - 1
 * (2^j the lowest set bit of r; all ranks for rank 0), merged in rank order. */
#ifndef INSTR_RT_JOB_MPI_TREE_H
#define INSTR_RT_JOB_MPI_TREE_H

#include <mpi.h>
#include <stdint.h>

/* A buffer goes as its length, then pieces of at most 1 MiB: a receiver without the memory
 * for it can still take (and drop) it, so that no sender waits forever. */
void instr_job_tree_send(const void *b, uint64_t len, int to, int tag, MPI_Comm comm);
/* The buffer (instr_mem_alloc, *len bytes), or NULL when empty or without memory. */
void *instr_job_tree_recv(uint64_t *len, int from, int tag, MPI_Comm comm);

/* How many ranks this rank's subtree holds (itself included). */
int instr_job_tree_span(int rank, int size);

/* The reduction: for each child, in rank order, merge(ctx, buf, len) with the child's
 * subtree's buffer (buf NULL with len > 0: it could not be had, without memory); then, on a
 * rank other than 0, what pack(ctx, &buf, &len) gives (ctx's own, not freed here) goes to
 * the parent. */
typedef void (*instr_job_tree_merge_fn)(void *ctx, const void *buf, uint64_t len);
typedef void (*instr_job_tree_pack_fn)(void *ctx, const void **buf, uint64_t *len);
void instr_job_tree_reduce(int rank, int size, MPI_Comm comm, int tag,
                           instr_job_tree_merge_fn merge, instr_job_tree_pack_fn pack,
                           void *ctx);

#endif
