/* ext.h — the runtime's internal interface for adapters built as separate libraries
 * (libinstr-rt-mpi, runtime/mpi/). Exported from libinstr-rt.so under the instr_ext_ prefix
 * (each one named in libinstr-rt.map, or the adapter does not link); not a public API: an
 * adapter and the runtime come from the same build.
 *
 * An MPI job uses it like this (runtime/job/mpi_exchange.c):
 *   start-up     the runtime sees libinstr-rt-mpi loaded and does not create the experiment
 *                directory yet (experiment.h: instr_experiment_defer)
 *   MPI_Init     rank 0: instr_ext_experiment_create, broadcast the name;
 *                every rank: instr_ext_experiment_join(jobdir, rank)
 *   MPI calls    instr_ext_enter/exit on regions from instr_ext_region; message sizes with
 *                instr_ext_messages
 *   the end      instr_ext_finalize writes this process's results into <jobdir>/rank-N (with
 *                INSTR_RANK_FILES; otherwise nothing of the profile's at a job's end) and
 *                calls the job hook with this rank's profile as a blob without its tree
 *                (runtime/job/blob.h) and the job database hook with its part of profile.jdb;
 *                the ranks write <jobdir>/profile.jdb together (runtime/job/mpi_jobdb.c), then send the
 *                blobs to rank 0, one at a time, which merges them with instr_ext_job_add,
 *                adds the tree with instr_ext_job_add_jdb and writes <jobdir>/profile.json
 *                with instr_ext_job_write.
 */
#ifndef INSTR_RT_EXT_H
#define INSTR_RT_EXT_H

#include <stddef.h>
#include <stdint.h>

#define INSTR_EXT_EXPORT __attribute__((visibility("default")))

/* The handle of region `name` of source `source` (registry.h), registered on first use and
 * subject to the run-time filter; 0 when excluded or when nothing is recorded. Slow path:
 * call once per name and keep the handle. */
INSTR_EXT_EXPORT uint32_t instr_ext_region(const char *name, int source);
/* Enter/exit of a handle from instr_ext_region (0 is ignored). */
INSTR_EXT_EXPORT void instr_ext_enter(uint32_t handle);
INSTR_EXT_EXPORT void instr_ext_exit(uint32_t handle);
/* Adds message counts to the calling thread's current call path in the profile (call it
 * between the enter and the exit of the MPI region): point-to-point messages sent and
 * received, collective operations taken part in (docs/mpi.md), and their bytes. */
INSTR_EXT_EXPORT void instr_ext_messages(uint64_t bytes_sent, uint64_t bytes_received,
                                         uint64_t sends, uint64_t receives,
                                         uint64_t collectives);

/* Rank 0: creates the job's experiment directory; its absolute path into out. 0, or -1
 * after a message. */
INSTR_EXT_EXPORT int instr_ext_experiment_create(char *out, size_t size);
/* Every rank: <jobdir>/rank-<rank> becomes this process's directory, created now when
 * own_files, else only when something is written into it (INSTR_RANK_FILES; docs/mpi.md).
 * 0, or -1 after a message (this process then writes nothing). */
INSTR_EXT_EXPORT int instr_ext_experiment_join(const char *jobdir, int rank, int own_files);
/* INSTR_RANK_FILES: 1 when rank writes files of its own besides the job's. */
INSTR_EXT_EXPORT int instr_ext_rank_files(int rank);
/* After the job's end steps when the job database could not be written: a rank that wrote
 * no files of its own writes its profile.json into <jobdir>/rank-N now (1: written now). */
INSTR_EXT_EXPORT int instr_ext_rank_files_late(void);
/* Called from a termination signal's handler (SIGTERM from the launcher), after this
 * process's own results are written: what the signal cut short of the job (NULL: nothing). */
INSTR_EXT_EXPORT void instr_ext_set_signal_job_hook(void (*fn)(int sig));

/* Called at the end with this process's profile blob (NULL, 0 when there is none). */
typedef void (*instr_ext_job_fn)(const char *blob, size_t len);
INSTR_EXT_EXPORT void instr_ext_set_job_hook(instr_ext_job_fn fn);
/* Called at the end, after the job hook, with this process's part of the job database
 * (runtime/job/jobdb_local.h: instr_jdb_local_serialize's buffer; NULL, 0 when there is none). */
typedef void (*instr_ext_jobdb_fn)(const void *part, size_t len);
INSTR_EXT_EXPORT void instr_ext_set_jobdb_hook(instr_ext_jobdb_fn fn);
/* Ends measurement now and writes this process's results (what atexit would do); the job
 * hook runs inside. Later calls and the atexit handler do nothing. */
INSTR_EXT_EXPORT void instr_ext_finalize(void);
/* INSTR_VERBOSE's level (-1 quiet, 0, 1, 2). */
INSTR_EXT_EXPORT int instr_ext_verbose(void);
/* INSTR_JOB_PROFILE_MAX_RANKS. */
INSTR_EXT_EXPORT uint32_t instr_ext_job_profile_max_ranks(void);

/* The job's merged profile (rank 0). */
typedef struct instr_job instr_job;
INSTR_EXT_EXPORT instr_job *instr_ext_job_new(void);
/* Merges one rank's blob. 0, or -1 when the blob is malformed or memory is out (message). */
INSTR_EXT_EXPORT int instr_ext_job_add(instr_job *job, int rank, const char *blob, size_t len);
/* The length of the blob's part that describes the process only (its pid, host, counters
 * and memory and I/O recording's totals; runtime/job/blob.h), which a rank of a job above
 * INSTR_JOB_PROFILE_MAX_RANKS sends instead of its whole blob; 0 when it is no blob. */
INSTR_EXT_EXPORT size_t instr_ext_job_blob_process_len(const char *blob, size_t len);
/* The files each process writes of its own (kokkos.txt; runtime/job/sections.c): at the
 * job's end this process's kept texts (*out from instr_mem_alloc; 0: none); on rank 0 each
 * rank's appended, in rank order, to one file per name at the job's top, closed by _end (the
 * job's line then names them); a rank that ends alone writes its own with _own. */
INSTR_EXT_EXPORT size_t instr_ext_job_sections(char **out);
INSTR_EXT_EXPORT void instr_ext_job_sections_add(int rank, const char *buf, size_t len);
INSTR_EXT_EXPORT void instr_ext_job_sections_end(void);
INSTR_EXT_EXPORT void instr_ext_job_sections_own(void);
/* Notes a rank whose profile never arrived (ended early, aborted). */
INSTR_EXT_EXPORT void instr_ext_job_missing(instr_job *job, int rank);
/* The job's tree from the job database at path (after the blobs, which then have no tree:
 * instr_ext_set_jobdb_hook); summary: per call path the sums over ranks only, no locations.
 * 0, or -1 after a message. */
INSTR_EXT_EXPORT int instr_ext_job_add_jdb(instr_job *job, const char *path, int summary);
/* Writes the job's profile files INSTR_PROFILING_FORMAT asks for into <jobdir>
 * (profile.txt, profile.json with one location group per rank, profile.cubex, profile.html;
 * docs/profile-format.md) and prints the job's one summary line (docs/mpi.md). 0, or -1 when
 * a file failed (after a message). */
INSTR_EXT_EXPORT int instr_ext_job_write(instr_job *job, const char *jobdir, int nranks);
INSTR_EXT_EXPORT void instr_ext_job_free(instr_job *job);

/* Substrate plugins (runtime/plugins/): 1 when a plugin is loaded. plugins_comm hands them
 * the job's communication (NULL: one process again); the first non-NULL call is their
 * init_mpp. */
struct instr_plugins_comm;
INSTR_EXT_EXPORT int instr_ext_plugins_active(void);
INSTR_EXT_EXPORT void instr_ext_plugins_comm(const struct instr_plugins_comm *comm);
/* The MPI events plugins registered for (INSTR_EXT_PLUGINS_* bits), fixed from start-up on;
 * the adapter calls the functions below only for those. On the calling thread, now. */
enum {
    INSTR_EXT_PLUGINS_SEND = 1, INSTR_EXT_PLUGINS_RECV = 2, INSTR_EXT_PLUGINS_COLL = 4,
    INSTR_EXT_PLUGINS_ISEND = 8, INSTR_EXT_PLUGINS_IRECV = 16,
    /* interface version 3: non-blocking collectives, persistent requests, and the MPI
     * definitions (a version 3 plugin is loaded: communicators are named by definition) */
    INSTR_EXT_PLUGINS_ICOLL = 32, INSTR_EXT_PLUGINS_PERSISTENT = 64, INSTR_EXT_PLUGINS_DEFS = 128,
    /* interface version 4: communicator creation and MPI_Comm_free as collectives */
    INSTR_EXT_PLUGINS_HANDLE = 256
};
INSTR_EXT_EXPORT unsigned instr_ext_plugins_mpi_events(void);
/* A communicator for plugins: its Fortran handle (versions 1 and 2) and its definition's id
 * (version 3; UINT64_MAX: none). */
typedef struct instr_ext_plugins_comm_id {
    uint64_t handle, def;
} instr_ext_plugins_comm_id;
/* kind: one of the SEND, RECV, ISEND, IRECV bits; request: the non-blocking ones' id. */
INSTR_EXT_EXPORT void instr_ext_plugins_mpi_msg(unsigned kind, int partner,
                                                instr_ext_plugins_comm_id comm, int tag,
                                                uint64_t bytes, uint64_t request);
/* A non-blocking send completed (ISEND) or a receive was posted (IRECV). */
INSTR_EXT_EXPORT void instr_ext_plugins_mpi_request(unsigned kind, uint64_t request);
/* handle: the begin of a collective on communicator handles (version 4 plugins only);
 * coll_end gives those to them alone by their op (INSTR_SUBSTRATE_COLL_CREATE_HANDLE, ...),
 * and so does mpi_event for a non-blocking one. */
INSTR_EXT_EXPORT void instr_ext_plugins_mpi_coll_begin(int handle);
INSTR_EXT_EXPORT void instr_ext_plugins_mpi_coll_end(uint32_t op, instr_ext_plugins_comm_id comm,
                                                     int root, uint64_t sent, uint64_t recvd);
/* Version 3 events (instr_substrate_mpi_events). */
enum {
    INSTR_EXT_PLUGINS_ICOLL_BEGIN, INSTR_EXT_PLUGINS_ICOLL_END, INSTR_EXT_PLUGINS_P_INIT,
    INSTR_EXT_PLUGINS_P_START, INSTR_EXT_PLUGINS_P_COMPLETE, INSTR_EXT_PLUGINS_P_FREE
};
typedef struct instr_ext_plugins_mpi_ev {
    unsigned what;    /* INSTR_EXT_PLUGINS_ICOLL_BEGIN ... */
    uint32_t op;      /* ICOLL_*: the collective; P_INIT: enum instr_substrate_persistent_kind */
    int partner, tag, root;
    uint64_t comm;    /* the communicator's definition */
    uint64_t bytes, sent, recvd;
    uint64_t request;
} instr_ext_plugins_mpi_ev;
INSTR_EXT_EXPORT void instr_ext_plugins_mpi_event(const instr_ext_plugins_mpi_ev *e);
/* A new MPI definition (INSTR_SUBSTRATE_DEF_MPI_*) for the version 3 plugins. */
INSTR_EXT_EXPORT void instr_ext_plugins_mpi_def(uint32_t kind, uint32_t id);
/* MPI_Init, every rank: its rank in the job and among the ranks of its host (0: the one that
 * records per-host metrics; runtime/metrics/plugin.c). */
INSTR_EXT_EXPORT void instr_ext_metrics_elect(int world_rank, int host_rank);

/* The trace of an MPI job (runtime/trace/job.c; docs/mpi.md "Trace"). All of it answers
 * "no" (0, -1, NULL) in a runtime built without OTF2 or with INSTR_ENABLE_TRACING=0. */
/* 1 when this process would trace an MPI job. */
INSTR_EXT_EXPORT int instr_ext_trace_wanted(void);
/* MPI_Init, every rank, collective: the job's archive in jobdir; setup(archive, arg) must set
 * OTF2's MPI collective callbacks on it (archive is an OTF2_Archive *). 0 or -1. */
INSTR_EXT_EXPORT int instr_ext_trace_job_open(const char *jobdir, int rank, int nranks,
                                              int (*setup)(void *archive, void *arg),
                                              void *arg);
/* When some rank failed instr_ext_trace_job_open: nobody traces. */
INSTR_EXT_EXPORT void instr_ext_trace_job_abandon(void);
/* Metrics in the job's trace: this process's metric set as a number (0: none), which every
 * rank must have alike; and, before instr_ext_trace_job_open, whether they all have it. */
INSTR_EXT_EXPORT uint64_t instr_ext_trace_metrics_signature(void);
INSTR_EXT_EXPORT void instr_ext_trace_metrics_agreed(int agreed);
/* A communicator's local ref (see trace.h: instr_trace_comm_add); UINT32_MAX: none. An
 * inter-communicator has INSTR_EXT_TRACE_INTERCOMM in its seq, and its leader gives as
 * members the size of group A (the leader's), then A's world ranks, then group B's. parent:
 * the local ref of the communicator it was made from (UINT32_MAX: none). */
#define INSTR_EXT_TRACE_INTERCOMM 0x80000000u
INSTR_EXT_EXPORT uint32_t instr_ext_trace_comm(uint32_t leader, uint32_t seq, const char *name,
                                               uint32_t nmembers, const uint32_t *members,
                                               uint32_t parent);
INSTR_EXT_EXPORT void instr_ext_trace_clock_offset(uint64_t time, int64_t offset,
                                                   double stddev);
/* An RMA window (see trace.h: instr_trace_win_add). */
INSTR_EXT_EXPORT void instr_ext_trace_win(uint32_t leader, uint32_t seq, const char *name,
                                          uint32_t comm);
/* The runtime's clock (ticks of the trace's timestamps). */
INSTR_EXT_EXPORT uint64_t instr_ext_clock_now(void);
/* The runtime's page allocator (util/pages.h): one per process, since blocks pass between
 * libinstr-rt and libinstr-rt-mpi (runtime/mpi/pages_ext.c). */
INSTR_EXT_EXPORT void *instr_ext_mem_alloc(size_t size);
INSTR_EXT_EXPORT void *instr_ext_mem_realloc(void *p, size_t size);
INSTR_EXT_EXPORT void instr_ext_mem_free(void *p);
/* The calling thread's OTF2_EvtWriter * and the timestamp for its next record (never before
 * its previous one), or NULL when this thread writes no trace now. */
INSTR_EXT_EXPORT void *instr_ext_trace_writer(uint64_t *t);
/* The end, after instr_ext_finalize (see trace.h for the protocol). */
INSTR_EXT_EXPORT int instr_ext_trace_blob(int rank, char **out, size_t *len);
/* The unifier of the ranks first .. first + nranks - 1 (runtime/job/trace_unify.h). */
INSTR_EXT_EXPORT void *instr_ext_trace_unify_new(int first, int nranks);
INSTR_EXT_EXPORT int instr_ext_trace_unify_add(void *u, int rank, const char *blob, size_t len,
                                               char **map, size_t *maplen);
INSTR_EXT_EXPORT int instr_ext_trace_unify_pack(void *u, int with_ranks, char **out,
                                                size_t *len);
INSTR_EXT_EXPORT int instr_ext_trace_unify_merge(void *u, const char *buf, size_t len);
INSTR_EXT_EXPORT int instr_ext_trace_unify_map(void *u, int rank, const char *blob, size_t len,
                                               uint32_t handle_base, char **map,
                                               size_t *maplen);
/* The I/O handles the unifier holds (after one rank's add: that rank's). */
INSTR_EXT_EXPORT uint32_t instr_ext_trace_unify_handles(void *u);
INSTR_EXT_EXPORT void instr_ext_trace_unify_free(void *u);
/* -1 when this rank's part of the archive is incomplete (a write or the close failed). */
INSTR_EXT_EXPORT int instr_ext_trace_job_close(int rank, const char *map, size_t maplen,
                                               void *u);
/* Rank 0, after every rank closed: the job's trace line, naming the first n of the
 * nincomplete ranks whose part is incomplete (none: the whole archive's counts). */
INSTR_EXT_EXPORT void instr_ext_trace_job_report(void *u, const int *incomplete, int n,
                                                int nincomplete);
/* 1 when the job's archive is open (the end must then run instr_ext_trace_job_close). */
INSTR_EXT_EXPORT int instr_ext_trace_job_is_open(void);

#endif
