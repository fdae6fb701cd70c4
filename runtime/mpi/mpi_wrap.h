/* mpi_wrap.h — what the generated wrappers (wrappers.c, from mpi_calls.txt) and the
 * hand-written ones (mpi_job.c) use.
 *
 *   mpi_regions.c  one region per MPI call, registered on the call's first use
 *   mpi_msg.c      message counts and sizes per call path (profile), request tracking for
 *                  nonblocking receives, whose size is known only when they complete
 *   mpi_job.c      MPI_Init/Init_thread/Finalize/Finalized/Abort: one experiment per job,
 *                  the job's merged profile */
#ifndef INSTR_MPI_WRAP_H
#define INSTR_MPI_WRAP_H

#include "../adapters/ext.h"

#include <mpi.h>
#include <stdint.h>

/* The library exports the MPI_* wrappers (default visibility); its helpers stay inside. */
#pragma GCC visibility push(hidden)

/* Calls from mpi_calls.txt come first (ids 0..instr_mpi_ncalls-1), then the hand-written
 * ones. */
#define INSTR_MPI_MAX_GENERATED 400
enum {
    INSTR_MPI_ID_INIT = INSTR_MPI_MAX_GENERATED,
    INSTR_MPI_ID_INIT_THREAD,
    INSTR_MPI_ID_FINALIZE,
    INSTR_MPI_ID_FINALIZED,
    INSTR_MPI_ID_ABORT,
    INSTR_MPI_MAX_IDS
};

typedef struct instr_mpi_call {
    const char *name;
    const char *group; /* [group] of mpi_calls.txt, e.g. p2p, collective */
} instr_mpi_call;

extern const instr_mpi_call instr_mpi_calls[];
extern const unsigned instr_mpi_ncalls;

/* The region of call `id`, registered on first use; 0 when it is not recorded. */
uint32_t instr_mpi_region(unsigned id);

/* Blocking (or nonblocking: isent) send of count x datatype to dest; nothing on error or
 * for MPI_PROC_NULL. */
void instr_mpi_sent(int rc, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
void instr_mpi_isent(int rc, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                     const MPI_Request *request);
/* A receive completed with `status` (bytes from the status). */
void instr_mpi_received(int rc, const MPI_Status *status, MPI_Comm comm);
/* A nonblocking receive was posted: remembered until a wait/test completes it. */
void instr_mpi_irecv(int rc, const MPI_Request *request, int source, int tag, MPI_Comm comm);
/* The request is freed by the program (MPI_Request_free): forget it. */
void instr_mpi_forget(MPI_Request request);

/* Wait/test families: the requests as they were before the call (only when a tracked
 * receive may be among them), and a status array when the program passed
 * MPI_STATUSES_IGNORE. */
#define INSTR_MPI_WAIT_INLINE 8
typedef struct instr_mpi_wait_t {
    int n;                      /* 0: nothing tracked, nothing to do afterwards */
    MPI_Request *saved;
    MPI_Status *statuses;       /* ours, when the program passed MPI_STATUSES_IGNORE */
    MPI_Request saved_inline[INSTR_MPI_WAIT_INLINE];
    MPI_Status statuses_inline[INSTR_MPI_WAIT_INLINE];
} instr_mpi_wait_t;

instr_mpi_wait_t instr_mpi_wait_begin(int count, const MPI_Request *requests);
MPI_Status *instr_mpi_statuses(instr_mpi_wait_t *w, MPI_Status *statuses);
/* done: the call completed something. Completed requests: all `count` (outcount NULL), or
 * the *outcount listed in indices (status k belongs to indices[k]). */
void instr_mpi_wait_end(instr_mpi_wait_t *w, int rc, int count, const MPI_Request *requests,
                        const int *outcount, const int *indices, MPI_Status *statuses, int done);

#pragma GCC visibility pop

#endif
