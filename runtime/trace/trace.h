/* trace.h — the trace substrate: an OTF2 archive (traces.otf2 + traces/ + traces.def) in the
 * experiment directory, written with the OTF2 library (docs/tracing.md).
 *
 *   trace.c   the substrate's entry in the event core: start-up, archive, locations, fork
 *   events.c  the hot path: Enter/Leave records into the location's own OTF2 event writer
 *   pool.c    the INSTR_TOTAL_MEMORY budget for event chunks (OTF2 memory callbacks) and the
 *             flush callbacks that record buffer flushes
 *   defs.c    global definitions at the end: clock, system tree, locations, strings, regions
 *   write.c   the end: close the writers, write the definitions, close the archive, summary
 *   early.c   an MPI job: events recorded before MPI_Init names the job's directory
 *   job.c     an MPI job: one archive for all ranks, communicators, unified definitions,
 *             clock offsets (the MPI side is runtime/mpi/mpi_trace.c) */
#ifndef INSTR_RT_TRACE_H
#define INSTR_RT_TRACE_H

#include "../core/substrate.h"

#include <otf2/otf2.h>
#include <stdint.h>

extern const instr_substrate instr_trace_substrate;

/* Per location (thread). Only its own thread touches `writer` and `last` while it runs;
 * the rest is read at the end, or when the location is closed early (its thread ended). */
typedef struct instr_tloc {
    OTF2_EvtWriter *writer; /* NULL: nothing recorded for this location (anymore) */
    uint64_t last;          /* last timestamp written: records never go back in time */
    uint64_t refused;       /* records the OTF2 library refused (reported at the end) */
    instr_location *loc;
    uint32_t id;            /* the location's id when it was created */
    uint64_t ref;           /* its OTF2 location ref: id, or (rank << 32) | id in an MPI job */
    int waiting;            /* an MPI job before MPI_Init: events go to `early` (early.c) */
    struct instr_early *early;
    int tid;
    int closed;             /* 1: writer closed, `events` final */
    uint64_t events;        /* records in the location's event file, set when closed */
    struct instr_tloc *next; /* every location ever traced, newest first */
} instr_tloc;

/* trace.c */
extern OTF2_Archive *instr_trace_archive;
extern instr_tloc *instr_trace_locs;   /* the list above; changed under instr_loc_lock */
extern int instr_trace_forked;         /* 1 in a forked child: it writes no trace */
/* Closes a location's event writer (its thread is done): final flush, memory back to the
 * pool. With instr_loc_lock held, or at the end. */
void instr_trace_close_location(instr_tloc *s);
/* Opens the archive in the experiment directory if not open yet. 0, or -1 after a message. */
int instr_trace_open_archive(void);
/* What every archive needs once its memory and collective callbacks are set: locking,
 * creator, description, machine name, and the event files opened. */
OTF2_ErrorCode instr_trace_archive_prepare(OTF2_Archive *a, const char *description);

/* 1 while an MPI job's archive waits for MPI_Init (libinstr-rt-mpi loaded, job not begun). */
extern int instr_trace_job_pending;
/* The rank of this process in an MPI job whose archive is open, else -1. */
extern int instr_trace_job_rank;
/* Gives a waiting location its event writer once the archive is open and writes the events
 * kept until then. With the location's own thread, or at the end. 0, or -1 (not traced). */
int instr_trace_attach(instr_tloc *s);
/* Slow path of the hot path: the location has no writer (yet). */
void instr_trace_no_writer(instr_tloc *s, int leave, uint32_t region, uint64_t t);

/* early.c: events of a waiting location, kept in memory (bounded; beyond the bound the
 * outermost-first nesting is kept balanced by dropping whole subtrees). */
void instr_early_add(instr_tloc *s, int leave, uint32_t region, uint64_t t);
/* Writes them into s->writer and frees them; the number of records refused. */
uint64_t instr_early_replay(instr_tloc *s);
/* Events dropped because the bound was reached (reported at the end). */
uint64_t instr_early_dropped(void);

/* job.c (the interface of libinstr-rt-mpi through runtime/adapters/ext.c). */
/* In MPI_Init, every rank: opens the job's archive in jobdir; `setup` sets OTF2's MPI
 * collective callbacks. Collective. 0, or -1 after a message. */
int instr_trace_job_open(const char *jobdir, int rank, int nranks,
                         int (*setup)(OTF2_Archive *archive, void *arg), void *arg);
/* Some rank failed to open: nobody traces. */
void instr_trace_job_abandon(void);
int instr_trace_job_is_open(void);
const char *instr_trace_job_dir(void);
/* A communicator; its job-wide identity is (leader, seq) (leader UINT32_MAX: seq 0 is
 * MPI_COMM_WORLD, 1 MPI_COMM_SELF); members (world ranks) from the leader only. The local
 * ref, or UINT32_MAX when out of memory. */
uint32_t instr_trace_comm_add(uint32_t leader, uint32_t seq, const char *name,
                              uint32_t nmembers, const uint32_t *members);
/* A clock offset against rank 0 (global = local + offset), measured at local time `time`. */
void instr_trace_job_clock_offset(uint64_t time, int64_t offset, double stddev);
/* write.c at the end: this rank's event writers are closed. */
int instr_trace_job_write_local(const instr_run *run);
/* After the end: this rank's definitions as a blob (malloc'd). 0 or -1. */
int instr_trace_job_blob(int rank, char **out, size_t *len);
/* Rank 0: the union of the ranks' definitions, one blob at a time; each blob's mapping
 * (malloc'd) goes back to its rank. */
typedef struct instr_unifier instr_unifier;
instr_unifier *instr_trace_unify_new(int nranks);
int instr_trace_unify_add(instr_unifier *u, int rank, const char *blob, size_t len, char **map,
                          size_t *maplen);
void instr_trace_unify_free(instr_unifier *u);
/* Every rank, collectively: local definitions (mapping, clock offsets), on rank 0 the global
 * ones from u; closes the archive. 0, or -1 after a message. */
int instr_trace_job_close(int rank, const char *map, size_t maplen, instr_unifier *u);

/* write.c: the substrate's `write` (see substrate.h). */
int instr_trace_write(const instr_run *run, char *files, size_t size);

/* events.c (hot path) */
void instr_trace_enter(void *data, uint32_t region, uint64_t t);
void instr_trace_exit(void *data, uint32_t region, uint64_t t);

/* openmp.c: the hook of thread-parallel adapters (runtime/ompt/). ThreadFork/ThreadJoin
 * records (paradigm OpenMP) on the calling thread's location `loc`, at t; nothing when the
 * trace is off. */
void instr_trace_thread_fork(instr_location *loc, uint32_t nthreads, uint64_t t);
void instr_trace_thread_join(instr_location *loc, uint64_t t);
/* The OTF2 role of an OpenMP region, from its name ("!$omp barrier @a.c:3": barrier). */
OTF2_RegionRole instr_trace_openmp_role(const char *name);

/* pool.c */
typedef struct instr_tpool_stats {
    uint64_t chunk_size;  /* bytes per OTF2 event chunk */
    uint64_t cap;         /* bytes of event chunks the budget allows */
    uint64_t held;        /* bytes of event chunks taken (from the budget, plus overdraft) */
    uint64_t overdraft;   /* bytes taken beyond the budget: a thread's first chunk */
    uint64_t flushes;     /* event buffers flushed to disk before the end */
    uint64_t last_flush_end; /* ticks: the end of the latest flush (0: none) */
} instr_tpool_stats;

/* Chooses the chunk size and the share of INSTR_TOTAL_MEMORY the trace may use. */
void instr_tpool_init(int profiling_too);
/* Registers the memory and flush callbacks with the archive. 0 or an OTF2 error code. */
OTF2_ErrorCode instr_tpool_attach(OTF2_Archive *archive);
void instr_tpool_stats_get(instr_tpool_stats *out);
uint64_t instr_tpool_chunk_size(void);

/* defs.c: the global definitions. 0, or -1 after a message. */
int instr_trace_write_defs(OTF2_Archive *archive, const instr_run *run, uint64_t t_last);
/* Strings of a global definition writer, each defined once (defs.c). */
typedef struct instr_strtab {
    OTF2_GlobalDefWriter *w;
    const char **keys;
    uint32_t *refs;
    uint32_t cap, n; /* cap: a power of two */
    int failed;
} instr_strtab;
/* The string's reference; `s` must outlive the table. */
OTF2_StringRef instr_strtab_ref(instr_strtab *t, const char *s);
void instr_strtab_free(instr_strtab *t);
/* Wall-clock time (ns since the epoch) of tick t. */
uint64_t instr_trace_realtime_of(uint64_t t);
/* Role and paradigm of a region from its event source and name. */
void instr_trace_region_kind(int source, const char *name, OTF2_RegionRole *role,
                             OTF2_Paradigm *paradigm);

#endif
