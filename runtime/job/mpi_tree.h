/* mpi_tree.h — the job's binomial reduction tree over a communicator (mpi_tree.c): what the
 * job database's definitions and summary (mpi_jobdb.c) and the trace's definitions
 * (mpi_trace_unify.c) travel by. In round k (k = 0 .. ceil(log2 P) - 1) a rank r with
 * r mod 2^(k+1) == 2^k sends its subtree's data to r - 2^k, which merges it into its own:
 * rank 0 takes ceil(log2 P) messages, and a rank r's subtree is the ranks r .. r + 2^j - 1
 * (2^j the lowest set bit of r; all ranks for rank 0), merged in rank order. The same tree
 * carries broadcasts and small reductions down and up, waiting patiently. */
#ifndef INSTR_RT_JOB_MPI_TREE_H
#define INSTR_RT_JOB_MPI_TREE_H

#include <mpi.h>
#include <stdint.h>

/* Every wait here is instr_mpi_waitall_patient's (../mpi/mpi_wrap.h): the ranks waiting for
 * their children or their parent leave the cores to the ranks with work. */
/* A buffer goes as its length, then pieces of at most 1 MiB: a receiver without the memory
 * for it can still take (and drop) it, so that no sender waits forever. */
void instr_job_tree_send(const void *b, uint64_t len, int to, int tag, MPI_Comm comm);
/* n buffers to n ranks at once (all posted, then one wait). */
void instr_job_tree_send_many(const void *const *b, const uint64_t *len, const int *to, int n,
                              int tag, MPI_Comm comm);
/* The buffer (instr_mem_alloc, *len bytes), or NULL when empty or without memory. */
void *instr_job_tree_recv(uint64_t *len, int from, int tag, MPI_Comm comm);

/* How many ranks this rank's subtree holds (itself included). */
int instr_job_tree_span(int rank, int size);
/* Its parent (r - the lowest set bit of r; -1 for rank 0) and its children (r + 1, r + 2,
 * r + 4, ... below the lowest set bit and the size; at most 32), their count. */
int instr_job_tree_parent(int rank);
int instr_job_tree_children(int rank, int size, int *child);

/* The reduction: for each child, in rank order, merge(ctx, buf, len) with the child's
 * subtree's buffer (buf NULL with len > 0: it could not be had, without memory); then, on a
 * rank other than 0, what pack(ctx, &buf, &len) gives (ctx's own, not freed here) goes to
 * the parent. */
typedef void (*instr_job_tree_merge_fn)(void *ctx, const void *buf, uint64_t len);
typedef void (*instr_job_tree_pack_fn)(void *ctx, const void **buf, uint64_t *len);
void instr_job_tree_reduce(int rank, int size, MPI_Comm comm, int tag,
                           instr_job_tree_merge_fn merge, instr_job_tree_pack_fn pack,
                           void *ctx);

/* The buffer (b, *len on rank 0) from rank 0 down the same tree to every rank: rank 0 gets b
 * back, the others a copy (instr_mem_alloc; NULL with *len 0 when it could not be had, here
 * or above). */
void *instr_job_tree_bcast(void *b, uint64_t *len, int rank, int size, MPI_Comm comm, int tag);

/* n words reduced element by element (ops[i]: INSTR_JOB_SUM, _MAX, _MIN of unsigned words,
 * _FSUM, _FMAX of doubles in the words) up the tree into rank 0's v, and with to_all back
 * down to every rank's v: MPI_Reduce or MPI_Allreduce with patient waits. */
enum { INSTR_JOB_SUM, INSTR_JOB_MAX, INSTR_JOB_MIN, INSTR_JOB_FSUM, INSTR_JOB_FMAX };
void instr_job_tree_allreduce(uint64_t *v, const unsigned char *ops, int n, int to_all, int rank,
                              int size, MPI_Comm comm, int tag);

#endif
