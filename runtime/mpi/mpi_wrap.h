/* mpi_wrap.h — what the generated wrappers (wrappers.c, from mpi_calls.txt) and the
 * hand-written ones (runtime/job/mpi_exchange.c) use.
 *
 *   mpi_regions.c  one region per MPI call, registered on the call's first use
 *   mpi_msg.c      message counts and sizes per call path (profile), request tracking for
 *                  nonblocking receives, whose size is known only when they complete
 *   mpi_init.c     MPI_Init/Init_thread/Finalize/Finalized/Abort, which begin and end the job
 *                  (../job/mpi_exchange.c: one experiment per job, the job's merged profile)
 *   mpi_coll.c     collectives: bytes sent and received (profile), OTF2 collective records
 *   mpi_trace.c    the job's OTF2 trace: communicators, clock offsets, MPI event records
 *   mpi_defs.c     communicators' job-wide identities; the definitions of communicators,
 *                  groups and windows for substrate plugins (interface version 3)
 *   mpi_persistent.c  persistent requests (MPI_Send_init ... MPI_Start) for the trace and
 *                  substrate plugins
 *   mpi_wait.c     the patient wait of the runtime's own exchanges (job's end, clock offsets) */
#ifndef INSTR_MPI_WRAP_H
#define INSTR_MPI_WRAP_H

#include "../core/ext.h"
#include "../critpath/critpath.h"
#include "../interpose/io_fns.h"
#include "../include/instr_substrate_plugin.h"

#include <mpi.h>
#include <stdint.h>

/* The library exports the MPI_* wrappers (default visibility); its helpers stay inside. */
#pragma GCC visibility push(hidden)

/* A collective on communicator handles in progress (mpi_coll.c: instr_mpi_comm_coll_begin). */
typedef struct instr_mpi_handle_t {
    uint32_t ref;  /* the communicator's trace ref */
    uint64_t def;  /* its definition for plugins */
    unsigned on;   /* 1: the trace's begin written, 2: the plugins' */
    int on_new;
} instr_mpi_handle_t;

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

/* Waits for n requests of the runtime's own exchanges without spinning: MPI_Testall, then a
 * nap of 20 us doubling up to 1 ms (more when ranks share cores: instr_mpi_wait_sharing),
 * again until done (INSTR_JOB_WAIT=sleep, the default); a nap ends early when another rank
 * of this host rings this rank's doorbell (instr_mpi_ring), which the runtime's exchanges do
 * for every message they post and every one they take. With INSTR_JOB_WAIT=poll,
 * MPI_Waitall (Open MPI polls). A rank waiting for another then leaves the cores to the
 * ranks with work, which matters when ranks share cores, and wakes when its message comes:
 * a wait costs no nap's latency on the ranks of one host, at most one nap (<= 1 ms on one
 * rank per core) between hosts. */
int instr_mpi_waitall_patient(int n, MPI_Request *req);
/* 1 with INSTR_JOB_WAIT=poll. */
int instr_mpi_wait_polls(void);
/* This rank's doorbell (0 without doorbells), read before a test: a nap after the test then
 * ends at once when a ring came since. */
uint32_t instr_mpi_bell_seen(void);
/* One nap of *nap ns or until a ring since seen, and the next one's length: doubled, up to
 * the longest, or the shortest again after a ring (the rung message is mostly not complete
 * at the first test after the wake-up). */
void instr_mpi_nap(long *nap, uint32_t seen);
/* Wakes job rank r from its nap when it is on this host (its doorbell), after a message to
 * it was posted or one from it taken (a send completes when its receiver took it). */
void instr_mpi_ring(int r);
/* MPI_Init, collective on the host's communicator: the longest nap is 1 ms times the ranks
 * per core (at most 32 ms), so that the waiting ranks' tests together cost about one core's
 * 1 ms test loop, however oversubscribed; and the doorbells, one word per rank of the host
 * in an MPI shared-memory window (without it, or with INSTR_JOB_WAIT=poll, none). */
void instr_mpi_wait_sharing(MPI_Comm host_comm, int host_rank, int host_ranks, int job_rank);
/* How many of this rank's naps so far a ring cut short, and how many ended at their
 * timeout (the doorbells at work: INSTR_VERBOSE=2's line of the job database). */
void instr_mpi_wait_counts(uint64_t *rung, uint64_t *timed);
/* Before MPI_Finalize, collective on the host: the doorbells' window freed. */
void instr_mpi_bells_close(void);

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

/* ---- mpi_trace.c ---- */
/* 1 while the job's trace is open: the helpers below write records. */
extern int instr_mpi_tracing;
/* MPI_Init (every rank, collective over comm). */
/* Substrate plugins' communication (mpi_plugins.c): begin in MPI_Init (collective, on every
 * rank), alone before a rank ends its measurement without the others, end before
 * PMPI_Finalize. */
void instr_mpi_plugins_begin(void);
/* The MPI events substrate plugins want (INSTR_EXT_PLUGINS_* bits; 0 before MPI_Init). */
extern unsigned instr_mpi_plugin_events;
/* ---- mpi_defs.c ---- */
/* 1 when version 3 plugins get the MPI definitions (set in MPI_Init). */
extern int instr_mpi_defs_on;
/* A communicator's definition for plugins; UINT64_MAX when it has none. */
uint64_t instr_mpi_comm_def(MPI_Comm comm);
/* MPI_Init (instr_mpi_plugins_begin, collective over job): MPI_COMM_WORLD and MPI_COMM_SELF
 * defined when every rank has a version 3 plugin. */
void instr_mpi_defs_begin(MPI_Comm job);
/* The definitions' answers for the plugins' callbacks. */
int instr_mpi_defs_comm(uint32_t id, instr_substrate_mpi_comm_def *out);
int instr_mpi_defs_group(uint32_t id, instr_substrate_mpi_group_def *out);
int instr_mpi_defs_window(uint32_t id, instr_substrate_mpi_window_def *out);
int instr_mpi_defs_remote_group(uint32_t id, uint32_t *group);
/* A call made an RMA window over comm (collective over it): its identity, its trace and
 * plugins' definitions, its communicator kept with it (for MPI_Win_free); then the
 * collective's end (CREATE_HANDLE on comm; h: instr_mpi_comm_coll_begin(comm, 0) before the
 * call). */
void instr_mpi_win_new(int rc, const MPI_Win *win, MPI_Comm comm, const char *how,
                       const instr_mpi_handle_t *h);
/* The trace ref and plugins' definition of the communicator win was made over (UINT32_MAX,
 * UINT64_MAX: none, or not recorded). */
void instr_mpi_win_comm(MPI_Win win, uint32_t *ref, uint64_t *def);

/* Both names of a communicator for plugins: its Fortran handle, its definition. */
static inline instr_ext_plugins_comm_id instr_mpi_plugins_comm(MPI_Comm comm)
{
    instr_ext_plugins_comm_id c = {(uint64_t)(uint32_t)PMPI_Comm_c2f(comm), UINT64_MAX};
    if (instr_mpi_plugin_events & INSTR_EXT_PLUGINS_DEFS)
        c.def = instr_mpi_comm_def(comm);
    return c;
}
/* kind: an INSTR_EXT_PLUGINS_* message bit; request: a non-blocking one's id. */
static inline void instr_mpi_plugins_msg(unsigned kind, int partner, MPI_Comm comm, int tag,
                                         uint64_t bytes, uint64_t request)
{
    if (instr_mpi_plugin_events & kind)
        instr_ext_plugins_mpi_msg(kind, partner, instr_mpi_plugins_comm(comm), tag, bytes,
                                  request);
}
static inline void instr_mpi_plugins_event(const instr_ext_plugins_mpi_ev *e)
{
    instr_ext_plugins_mpi_event(e);
}

/* ---- mpi_persistent.c ---- */
/* After MPI_Send_init and its modes (send 1) and MPI_Recv_init (0). */
void instr_mpi_persistent_init(int rc, const MPI_Request *request, int send, int count,
                               MPI_Datatype type, int peer, int tag, MPI_Comm comm);
/* After MPI_Start / MPI_Startall: each request's start. */
void instr_mpi_persistent_start(int rc, int count, const MPI_Request *requests);
/* Before MPI_Request_free. */
void instr_mpi_persistent_free(MPI_Request request);
/* mpi_msg.c: one start of a persistent request, completed by a wait or test. */
void instr_mpi_persistent_started(const MPI_Request *request, int send, int peer, int tag,
                                  uint64_t bytes, MPI_Comm comm, uint64_t plugin_request);
/* A new id for a non-blocking request (never 0). */
uint64_t instr_mpi_plugins_request_id(void);
void instr_mpi_plugins_alone(void);
void instr_mpi_plugins_end(void);
void instr_mpi_trace_begin(MPI_Comm comm, int rank, int size, const char *jobdir);
/* After MPI_Finalize, before the runtime ends: the second clock offset (collective). */
void instr_mpi_trace_measure_end(MPI_Comm comm, int rank, int size);
/* How long this rank's clock offset measurements took (seconds): at MPI_Init, at the end. */
void instr_mpi_trace_clock_seconds(double s[2]);
/* After the runtime ended: 1 when this rank traced and its archive is open; recording
 * stops, and the job unifies the definitions and closes the archive
 * (runtime/job/mpi_trace_unify.c: instr_job_trace_end), then calls
 * instr_mpi_trace_release. */
int instr_mpi_trace_stop(void);
void instr_mpi_trace_release(void);
/* runtime/job/mpi_trace_unify.c: the trace's end (collective). */
void instr_job_trace_end(MPI_Comm comm, int rank, int size);
/* A communicator's trace ref; UINT32_MAX when it is not traced. */
uint32_t instr_mpi_comm_ref(MPI_Comm comm);
/* A call made a new communicator (collective over *newcomm): gives it its identity
 * (mpi_defs.c), its trace definition (its parent: the communicator h begun on, when the new
 * one is an intra-communicator; MPI_Intercomm_create's inter-communicator has none) and its
 * plugins' one; then the collective's end (instr_mpi_comm_coll_end). */
void instr_mpi_comm_new(int rc, const MPI_Comm *newcomm, const char *how,
                        const instr_mpi_handle_t *h);
/* MPI_Comm_idup of comm (mpi_defs.c): before the call, the new communicator's identity agreed
 * over comm (collective over it); 1 when it will be defined. When a wait or test completes the
 * request (mpi_msg.c, instr_mpi_comm_idup_posted), its definitions (instr_mpi_comm_idup_done). */
int instr_mpi_comm_idup_begin(MPI_Comm comm, uint32_t id[2]);
/* After the call: the request tracked until it completes; a non-blocking collective on comm
 * (trace: NonBlockingCollectiveRequest now, ...Complete with INSTR_COLL_CREATE_HANDLE at the
 * completion; version 4 plugins: mpi_icollective_begin and _end); define: 1 when
 * instr_mpi_comm_idup_begin said the new communicator will be defined. */
void instr_mpi_comm_idup_posted(int rc, MPI_Comm comm, MPI_Comm *newcomm,
                                const MPI_Request *request, const uint32_t id[2], int define);
void instr_mpi_comm_idup_done(MPI_Comm comm, const uint32_t id[2], uint32_t parent_ref);
/* MPI_Request_free of an MPI_Comm_idup's request (mpi_msg.c), which MPI forbids (a
 * non-blocking collective's; Open MPI refuses it with MPI_ERR_REQUEST): before the call the
 * request's tracking is taken out (freeing), and put back when MPI refused (not_freed), so
 * that the request's completion still defines the new communicator. */
typedef struct instr_mpi_idup_t {
    MPI_Request req;   /* MPI_REQUEST_NULL: not an MPI_Comm_idup's */
    MPI_Comm *newcomm;
    uint32_t id[2];
    int define;
    uint32_t comm;          /* the parent's trace ref, UINT32_MAX: not traced */
    uint64_t trace_id, plugin_request, comm_def;
} instr_mpi_idup_t;
instr_mpi_idup_t instr_mpi_comm_idup_freeing(MPI_Request request);
void instr_mpi_comm_idup_not_freed(int rc, const instr_mpi_idup_t *idup);
/* mpi_defs.c: the identity made, the trace's definition (members: the world ranks, given
 * on the communicator's rank 0 only). */
void instr_mpi_trace_comm_new(MPI_Comm comm, const uint32_t id[2], const char *name,
                              uint32_t nmembers, const uint32_t *members, uint32_t parent);
/* mpi_defs.c: an RMA window's identity made (collective over its communicator), for the
 * trace's definition. */
void instr_mpi_trace_win_new(const uint32_t id[2], const char *name, uint32_t comm_ref);
uint64_t instr_mpi_request_id(void);
void instr_mpi_trace_send(int dest, uint32_t comm, int tag, uint64_t bytes);
void instr_mpi_trace_isend(int dest, uint32_t comm, int tag, uint64_t bytes, uint64_t req);
void instr_mpi_trace_isend_complete(uint64_t req);
void instr_mpi_trace_recv(int source, uint32_t comm, int tag, uint64_t bytes);
void instr_mpi_trace_irecv_request(uint64_t req);
void instr_mpi_trace_irecv(int source, uint32_t comm, int tag, uint64_t bytes, uint64_t req);
void instr_mpi_trace_coll_begin(void);
void instr_mpi_trace_coll_end(int op, uint32_t comm, int root, uint64_t sent, uint64_t recvd);
void instr_mpi_trace_icoll_request(uint64_t req);
void instr_mpi_trace_icoll_complete(int op, uint32_t comm, int root, uint64_t sent,
                                    uint64_t recvd, uint64_t req);

/* ---- mpi_coll.c ---- */
/* OTF2's collective operations (checked against OTF2_CollectiveOp in mpi_trace.c). */
enum {
    INSTR_COLL_BARRIER, INSTR_COLL_BCAST, INSTR_COLL_GATHER, INSTR_COLL_GATHERV,
    INSTR_COLL_SCATTER, INSTR_COLL_SCATTERV, INSTR_COLL_ALLGATHER, INSTR_COLL_ALLGATHERV,
    INSTR_COLL_ALLTOALL, INSTR_COLL_ALLTOALLV, INSTR_COLL_ALLTOALLW, INSTR_COLL_ALLREDUCE,
    INSTR_COLL_REDUCE, INSTR_COLL_REDUCE_SCATTER, INSTR_COLL_SCAN, INSTR_COLL_EXSCAN,
    INSTR_COLL_REDUCE_SCATTER_BLOCK, INSTR_COLL_CREATE_HANDLE, INSTR_COLL_DESTROY_HANDLE
};
/* Communicator creation and MPI_Comm_free as collectives (Score-P's convention): begin
 * before the call on the communicator it is collective over (trace: MpiCollectiveBegin;
 * version 4 plugins: mpi_collective_begin), end after it (op INSTR_COLL_CREATE_HANDLE or
 * _DESTROY_HANDLE, root undefined, sizes 0) on that communicator, by what begin saw of it
 * (MPI_Comm_free leaves only MPI_COMM_NULL); on_new: on the new one instead
 * (MPI_Comm_create_group, collective over the new communicator's members only). */
instr_mpi_handle_t instr_mpi_comm_coll_begin(MPI_Comm comm, int on_new);
/* MPI_Win_free as a collective (DESTROY_HANDLE, ended by instr_mpi_comm_coll_end) on the
 * communicator the window was made over (instr_mpi_win_comm). */
instr_mpi_handle_t instr_mpi_win_coll_begin(MPI_Win win);
void instr_mpi_comm_coll_end(const instr_mpi_handle_t *h, int op, MPI_Comm made);
/* In the `before:` clause of a blocking collective: MpiCollectiveBegin. */
void instr_mpi_coll_begin(MPI_Comm comm);
/* In the `after:` clause (request NULL: blocking; else the nonblocking call's request).
 * Bytes follow Score-P's convention (docs/mpi.md): a rooted call counts every rank's block
 * at the root, an all-to-all call N blocks per rank, so that the job's sent and received
 * bytes are equal. */
void instr_mpi_coll_bcast(int rc, int count, MPI_Datatype t, int root, MPI_Comm comm,
                          const MPI_Request *request);
void instr_mpi_coll_gather(int rc, int op, const void *sendbuf, int scount, MPI_Datatype st,
                           int rcount, const int *rcounts, MPI_Datatype rt, int root,
                           MPI_Comm comm, const MPI_Request *request);
void instr_mpi_coll_scatter(int rc, int op, int scount, const int *scounts, MPI_Datatype st,
                            const void *recvbuf, int rcount, MPI_Datatype rt, int root,
                            MPI_Comm comm, const MPI_Request *request);
void instr_mpi_coll_allgather(int rc, int op, const void *sendbuf, int scount, MPI_Datatype st,
                              int rcount, const int *rcounts, MPI_Datatype rt, MPI_Comm comm,
                              const MPI_Request *request);
void instr_mpi_coll_alltoall(int rc, int op, const void *sendbuf, int scount,
                             const int *scounts, const MPI_Datatype *sts, MPI_Datatype st,
                             int rcount, const int *rcounts, const MPI_Datatype *rts,
                             MPI_Datatype rt, MPI_Comm comm, const MPI_Request *request);
/* Reductions and scans: count x datatype per block. */
void instr_mpi_coll_reduce(int rc, int op, int count, const int *rcounts, MPI_Datatype t,
                           int root, MPI_Comm comm, const MPI_Request *request);
void instr_mpi_coll_barrier(int rc, MPI_Comm comm, const MPI_Request *request);
/* mpi_msg.c: a nonblocking collective's request, completed by a wait/test. */
void instr_mpi_icoll_posted(const MPI_Request *request, int op, uint32_t comm, int root,
                            uint64_t sent, uint64_t recvd, uint64_t plugin_request,
                            uint64_t comm_def);

/* ---- mpi_critpath.c: the critical path (INSTR_CRITICAL_PATH=1; docs/critical-path.md) ---- */
/* 1 when every rank measures the critical path (agreed in MPI_Init). */
extern int instr_mpi_cp;
/* In every wrapper: the time inside an MPI call is not useful computation. */
#define INSTR_MPI_CP_BEGIN() int cp_ = instr_mpi_cp && instr_ext_cp_mpi_begin()
#define INSTR_MPI_CP_END() do { if (cp_) instr_ext_cp_mpi_end(); } while (0)
#define INSTR_MPI_CP_COLL(rc, comm) do { if (instr_mpi_cp && (rc) == MPI_SUCCESS) instr_mpi_cp_coll(comm); } while (0)
/* MPI_Init (after the job began) and MPI_Finalize (before it is deferred). */
void instr_mpi_cp_init(MPI_Comm job_comm, int rank);
void instr_mpi_cp_finalize(int rank, int size);
/* The piggyback of a message sent to dest of comm (after the send was posted), and the
 * receipt of the one of a message received with status on comm. */
void instr_mpi_cp_send(int dest, int tag, MPI_Comm comm);
void instr_mpi_cp_recv(const MPI_Status *status, MPI_Comm comm);
/* After a blocking collective over comm: every participant keeps the longest path. */
void instr_mpi_cp_coll(MPI_Comm comm);
/* After a nonblocking collective was started: the same reduction, started now (so that every
 * participant starts it in the same order) and merged when a wait/test completes the
 * program's request (mpi_msg.c calls instr_mpi_cp_icoll_done with the state). */
#define INSTR_MPI_CP_ICOLL(rc, comm, request) do { if (instr_mpi_cp && (rc) == MPI_SUCCESS) instr_mpi_cp_icoll(comm, request); } while (0)
void instr_mpi_cp_icoll(MPI_Comm comm, const MPI_Request *request);
void instr_mpi_cp_icoll_done(void *state);
/* mpi_msg.c: remembers the state with the program's request until it completes. */
void instr_mpi_cp_icoll_posted(const MPI_Request *request, void *state);
/* Persistent requests (send: 1, receive: 0), remembered so that MPI_Start/MPI_Startall send
 * a send's piggyback and let a receive's completion take its own; forgotten when freed. */
void instr_mpi_cp_persistent(int rc, const MPI_Request *request, int send, int peer, int tag,
                             MPI_Comm comm);
void instr_mpi_cp_start(int rc, int count, const MPI_Request *requests);
void instr_mpi_cp_forget(MPI_Request request);
/* Matched probes: the communicator of a probed message, remembered until its MPI_Mrecv or
 * MPI_Imrecv takes it (MPI_COMM_NULL when unknown, or when neither the critical path nor
 * the trace nor a plugin's receive events want it), so that the receive is recorded like
 * MPI_Recv's and MPI_Irecv's. */
void instr_mpi_mprobe(MPI_Message message, MPI_Comm comm);
MPI_Comm instr_mpi_message_comm(MPI_Message message);
/* mpi_msg.c: a started persistent receive, completed by a wait/test like a nonblocking one
 * (its piggyback only: persistent receives are not counted in the profile). */
void instr_mpi_cp_irecv(const MPI_Request *request, MPI_Comm comm);

/* ../job/mpi_exchange.c: the job. begin: after PMPI_Init (once); finalize: MPI_Finalize (the
 * real one deferred to the end); abort: MPI_Abort, before PMPI_Abort (this rank's files). */
void instr_mpi_job_begin(void);
int instr_mpi_job_started(void);
void instr_mpi_job_finalize(void);
int instr_mpi_job_finalized(void);
void instr_mpi_job_abort(void);
/* ../job/mpi_jobdb.c: the job database. keep: the job database hook (this rank's part, copied);
 * write: at the end, collective over comm, <dir>/profile.jdb: 1 when it is complete, 0 when
 * no rank had a profile, -1 when it could not be written (said); the same on every rank. */
void instr_mpi_jobdb_keep(const void *part, size_t len);
int instr_mpi_jobdb_write(MPI_Comm comm, int rank, int size, const char *dir);

/* mpi_io.c: MPI-IO for I/O recording (INSTR_IO, docs/io.md). */
uint64_t instr_mpi_io_t0(void);
void instr_mpi_io_open(int rc, const char *filename, MPI_File *fh, uint64_t t0);
void instr_mpi_io_close(int rc, MPI_File fh, uint64_t t0);
void instr_mpi_io_delete(int rc, const char *filename, uint64_t t0);
void instr_mpi_io_op(int fn, int rc, MPI_File fh, uint64_t t0);
void instr_mpi_io_rw(int fn, int rc, MPI_File fh, int count, MPI_Datatype type,
                     MPI_Status *status, uint64_t t0);
void instr_mpi_io_started(int fn, int rc, MPI_File fh, int count, MPI_Datatype type,
                          const MPI_Request *request, uint64_t t0);
/* A split collective's _begin, and its _end (the status: what it moved). */
void instr_mpi_io_split_begin(int fn, int rc, MPI_File fh, int count, MPI_Datatype type,
                              uint64_t t0);
void instr_mpi_io_split_end(int rc, MPI_File fh, MPI_Status *status);
/* mpi_msg.c: a non-blocking MPI-IO operation in the job's trace, completed (or tested) by
 * the wait or test of its request (instr_ext_io_mpi_done). */
void instr_mpi_io_request(const MPI_Request *request, const instr_io_pending *pending);

#pragma GCC visibility pop

#endif
