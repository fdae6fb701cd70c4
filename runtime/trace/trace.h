/* trace.h — the trace substrate: an OTF2 archive (traces.otf2 + traces/ + traces.def) in the
 * experiment directory, written with the OTF2 library (docs/tracing.md).
 *
 *   trace.c   the substrate's entry in the event core: start-up, archive, locations, fork
 *   events.c  the hot path: Enter/Leave records into the location's own compact buffer
 *   buffer.c  the compact buffer's chunks, its slow path, and the cut at the end
 *   convert.c compact records into the location's OTF2 event writer, kept properly nested
 *   convert_thread.c  INSTR_TRACE_CONVERT=thread: full chunks converted on a thread of its own
 *   pool.c    the INSTR_TOTAL_MEMORY budget for event chunks (OTF2 memory callbacks) and the
 *             flush callbacks that record buffer flushes
 *   defs.c    global definitions at the end: clock, system tree, locations, strings, regions
 *   write.c   the end: close the writers, write the definitions, close the archive, summary
 *   early.c   an MPI job: events recorded before MPI_Init names the job's directory
 *   job.c     an MPI job: one archive for all ranks, communicators, this rank's definitions,
 *             clock offsets (the MPI side is runtime/mpi/mpi_trace.c; the union of the
 *             ranks' definitions is runtime/job/trace_unify.c) */
#ifndef INSTR_RT_TRACE_H
#define INSTR_RT_TRACE_H

#include "../core/substrate.h"
#include "../core/record.h"

#include <otf2/otf2.h>
#include <stdint.h>

extern const instr_substrate instr_trace_substrate;

/* Per location (thread). Only its own thread appends records (events.c: safe against its own
 * signal handlers) and converts them while it runs; the end reads a running thread's buffer
 * up to `pos` after cutting it off (buffer.c). */
typedef struct instr_tloc {
    /* hot: the current chunk's next free record and its end (first: the event core's
     * inline append, core/record.h) */
    instr_record_head rec;
    int slow;               /* 1 while the owning thread is in the slow path (buffer.c) */
    int cut;                /* 1 once the end took the buffer: the thread records no more */
    uint64_t dropped_busy;  /* events of signal handlers that could not be recorded */
    uint64_t dropped_full;  /* events lost because no memory or no writer could take them */
    struct instr_tchunk *head, *tail; /* the buffer's chunks, oldest first; tail: current */
    uint32_t conv_done;     /* records at the head chunk's start converted already (by the
                             * converter thread, convert_thread.c; 0 without it) */
    int partial;            /* 1 while the converter thread converts: a record not written
                             * yet ends the conversion there (instr_trace_convert) */
    /* conversion (convert.c): regions open in what was converted, innermost last */
    uint32_t *open;
    uint32_t nopen, capopen;
    uint64_t repaired;      /* records left out or added to keep the trace nested */
    uint32_t sample_keep;   /* fewest regions open since the last sample (the sample hook) */
    OTF2_MetricValue *mpend; /* metric values for the next Enter/Leave (metric_events.c) */
    uint8_t *mset;           /* which of them came since the last Enter/Leave */
    uint32_t mpend_n;        /* how many came */
    OTF2_AttributeList *alist; /* memory calls' attributes (memory_events.c); NULL: none yet */
    uint64_t aval[4];        /* attribute values for the next memory region's Enter/Leave */
    unsigned aset;           /* which of them came (bit per attribute; INSTR_TRACE_IO_PENDING:
                              * an I/O call's values) */
    uint64_t ioval[4];       /* an I/O call's values for its Enter/Leave (io_events.c) */
    uint64_t io_match;       /* the last I/O operation's matching id */

    OTF2_EvtWriter *writer; /* NULL: no writer (yet, or anymore) */
    /* A writer OTF2 failed to close (a full disk): OTF2 no longer owns it and it cannot be
     * freed, so it is kept here, reachable like the archive left open, and never used. */
    OTF2_EvtWriter *unclosed;
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

/* buffer.c */
/* The slow path of the hot path: no chunk yet, chunk full, or cut. */
void instr_trace_put_slow(instr_tloc *s, uint32_t w, uint64_t t);
/* Marks s as the calling thread's own location. */
void instr_trace_set_self(instr_tloc *s);
/* Converts everything the location's buffer holds into its writer and empties it; from the
 * owning thread (an MPI record follows). */
void instr_trace_drain(instr_tloc *s);
/* The substrate's `open_regions` (substrate.h): the regions open in the calling thread's own
 * buffer as its conversion nests them, outermost first (the buffer is converted first, as by
 * instr_trace_drain; when a handler interrupted an append, its nesting is only read); above
 * cap when more are open; UINT32_MAX when the buffer is in the middle of an append or
 * conversion of this thread, or was cut. */
uint32_t instr_trace_open_regions(void *data, uint32_t *out, uint32_t cap);
/* At the end, for a location whose thread may still run: stops it from recording, waits
 * until it is out of the slow path, and converts what it recorded up to t_end, closing
 * regions still open at t_end. */
void instr_trace_cut(instr_tloc *s, uint64_t t_end);
/* Events dropped on all locations: by handlers that interrupted the runtime, and for want of
 * memory or a working writer. */
void instr_trace_dropped(uint64_t *busy, uint64_t *full);

/* The converter thread (convert_thread.c): the oldest full chunk of s converted and given
 * back to the pool (1), or nothing (0: none, or it stopped before a record not written yet,
 * to come back). With the conversion lock held, on the converter thread. */
int instr_trace_convert_full(instr_tloc *s);

/* convert.c */
/* Writes records [r, r + n) into s->writer (or, waiting, into early.c), validated and kept
 * properly nested; records after t_max are left out. The records consumed: n, or (s->partial
 * set) the index of the first record not written yet. */
size_t instr_trace_convert(instr_tloc *s, const instr_trec *r, size_t n, uint64_t t_max);
/* A BufferFlush record: the run stopped from t_begin to t_end to convert the buffer. */
void instr_trace_flush_record(instr_tloc *s, uint64_t t_begin, uint64_t t_end);
/* Closes the regions still open in what was converted, at t. */
void instr_trace_close_open(instr_tloc *s, uint64_t t);
/* The first OTF2 write error (errno text) and records not written since, for the end. */
int instr_trace_write_failed(void);
uint64_t instr_trace_lost_after_failure(void);
const char *instr_trace_failure_reason(void);
/* Called when an OTF2 write fails: the writers are closed off from then on. */
void instr_trace_note_failure(int err);

/* trace.c */
extern OTF2_Archive *instr_trace_archive;
extern instr_tloc *instr_trace_locs;   /* the list above; changed under instr_loc_lock */
extern int instr_trace_forked;         /* 1 in a forked child: it writes no trace */
/* Converts a location's buffer (cut at t_end: UINT64_MAX for a thread that ended) and closes
 * its event writer: final flush, memory back to the pool. With instr_loc_lock held, or at the
 * end. */
void instr_trace_close_location(instr_tloc *s, uint64_t t_end);
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
/* 1 when s has its OTF2 event writer, created now if need be (an MPI job's location that
 * waits for MPI_Init gets it once the archive is open), else 0. */
int instr_trace_writer_ready(instr_tloc *s);

/* early.c: events of a waiting location, kept in memory (bounded; beyond the bound the
 * outermost-first nesting is kept balanced by dropping whole subtrees). */
void instr_early_add(instr_tloc *s, int leave, uint32_t region, uint64_t t);
/* Writes them into s->writer and frees them; the number of records refused. */
uint64_t instr_early_replay(instr_tloc *s);
/* Events dropped because the bound was reached (reported at the end). */
uint64_t instr_early_dropped(void);

/* job.c (the interface of libinstr-rt-mpi through runtime/job/ext_trace.c). */
/* In MPI_Init, every rank: opens the job's archive in jobdir; `setup` sets OTF2's MPI
 * collective callbacks. Collective. 0, or -1 after a message. */
int instr_trace_job_open(const char *jobdir, int rank, int nranks,
                         int (*setup)(OTF2_Archive *archive, void *arg), void *arg);
/* Some rank failed to open: nobody traces. */
void instr_trace_job_abandon(void);
int instr_trace_job_is_open(void);
const char *instr_trace_job_dir(void);
/* A communicator; its job-wide identity is (leader, seq) (leader UINT32_MAX: seq 0 is
 * MPI_COMM_WORLD, 1 MPI_COMM_SELF); members (world ranks) from the leader only; parent: the
 * local ref of the communicator it was made from (UINT32_MAX: none). The local ref, or
 * UINT32_MAX when out of memory. */
uint32_t instr_trace_comm_add(uint32_t leader, uint32_t seq, const char *name,
                              uint32_t nmembers, const uint32_t *members, uint32_t parent);
/* An RMA window, with a communicator's job-wide identity scheme (its communicator's rank 0's
 * world rank and own counter) and its communicator's local ref (UINT32_MAX: none). */
void instr_trace_win_add(uint32_t leader, uint32_t seq, const char *name, uint32_t comm);
/* A clock offset against rank 0 (global = local + offset), measured at local time `time`. */
void instr_trace_job_clock_offset(uint64_t time, int64_t offset, double stddev);
/* write.c at the end: this rank's event writers are closed (t_last: the latest time
 * written, asynchronous metric values included). */
int instr_trace_job_write_local(const instr_run *run, uint64_t t_last);
/* After the end: this rank's definitions as a blob (instr_mem_alloc). 0 or -1. */
int instr_trace_job_blob(int rank, char **out, size_t *len);
/* The job unifies the ranks' blobs by a tree (runtime/job/trace_unify.h); each rank maps its
 * own blob against the union (map). Every rank, collectively: local definitions (mapping, clock offsets),
 * on rank 0 the global ones, written by write_global(a, u); closes the archive. 0, or -1
 * after a message. */
int instr_trace_job_close(int rank, const char *map, size_t maplen,
                          int (*write_global)(OTF2_Archive *a, void *u), void *u);

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

/* memory_events.c (the interface for the recorder: memory_events.h). */
/* Conversion: an attribute record; it goes with the next Enter/Leave of a memory region. */
void instr_trace_memory_attr(instr_tloc *s, uint32_t attr, uint64_t value);
/* Conversion: the attribute list for an Enter/Leave of `region` (NULL: none), emptied by
 * instr_trace_memory_written after the record is written. */
OTF2_AttributeList *instr_trace_memory_attrs(instr_tloc *s, uint32_t region);
void instr_trace_memory_written(instr_tloc *s);
/* The definitions: the attributes, when memory recording is on. */
struct instr_strtab;
OTF2_ErrorCode instr_trace_memory_defs(OTF2_GlobalDefWriter *w, struct instr_strtab *st);
/* The OTF2 role of a memory region, from its name (the function). */
OTF2_RegionRole instr_trace_memory_role(const char *name);

/* io_events.c (the interface for the recorder: io_events.h). Attribute records from
 * INSTR_TRACE_IO_ATTR0 on are an I/O call's values (instr_trace_io_attr); they set
 * INSTR_TRACE_IO_PENDING in aset. instr_trace_io_emit writes an Enter/Leave of an I/O region
 * with its I/O events: 1, or 0 when the region is not an I/O one, -1 when a write failed. */
#define INSTR_TRACE_IO_ATTR0 16u
#define INSTR_TRACE_IO_PENDING (1u << 31)
void instr_trace_io_attr(instr_tloc *s, uint32_t attr, uint64_t value);
int instr_trace_io_emit(instr_tloc *s, unsigned kind, uint32_t region, uint64_t t);
OTF2_ErrorCode instr_trace_io_defs(OTF2_GlobalDefWriter *w, struct instr_strtab *st);
/* The IoParadigm definitions: 0 POSIX, 1 ISO C, 2 MPI-IO (also an MPI job's, trace_unify). */
OTF2_ErrorCode instr_trace_io_paradigm_defs(OTF2_GlobalDefWriter *w, struct instr_strtab *st);
/* An MPI job: this rank's I/O files (names) and handles (file ref, paradigm) for the blob. */
struct wbuf;
void instr_trace_io_blob(struct wbuf *b);

/* metric_events.c: metrics in the trace (docs/metrics.md). */
/* 1 when the trace takes metric records (synchronous metrics on). */
int instr_trace_metrics_wanted(void);
/* At init (after the metrics substrate's): asks it for the values of every event when
 * synchronous metrics are on; they become records before the event's own. */
void instr_trace_metrics_ask(void);
/* An MPI job: this process's metric set (synchronous and asynchronous) as a number (0:
 * none), and whether every rank has the same (set before the job's archive opens; else no
 * Metric events). */
uint64_t instr_trace_metrics_signature(void);
void instr_trace_metrics_job(int agreed);
/* Conversion: a metric record; the set is written after the next Enter/Leave, at time t. */
void instr_trace_metric_record(instr_tloc *s, uint32_t index, uint64_t value);
void instr_trace_metric_emit(instr_tloc *s, uint64_t t);
/* The end: asynchronous values into a location of their own (t_last grows to the latest;
 * in an MPI job the rank's, (rank << 32) | the id after its threads'), its local definitions
 * outside a job, and the metric definitions (outside a job with that location's). */
int instr_trace_metric_async_write(OTF2_Archive *a, uint64_t t_start, uint64_t *t_last);
int instr_trace_metric_async_local_defs(OTF2_Archive *a);
/* 1 and its ref and event count when the location of asynchronous values was written. */
int instr_trace_metric_async_location(uint64_t *ref, uint64_t *events);
struct instr_strtab;
OTF2_ErrorCode instr_trace_metric_defs(OTF2_GlobalDefWriter *w, struct instr_strtab *st);

/* convert.c: samples of an event source (runtime/sampling) as calling contexts. The source
 * sets a hook; the conversion gives it each location's turn before every record, so that
 * its CallingContextSample events stand in time order among the location's others. */
typedef struct instr_trace_sample_hook {
    /* Writes the location's samples up to time t (instr_trace_sample_write); s->open[0,
     * s->nopen) are the regions open, s->sample_keep the fewest open since its last one. */
    void (*until)(instr_tloc *s, uint64_t t);
    /* The end, after the regions: the calling contexts, their source code locations (refs
     * from scl_first on) and the interrupt generator. */
    OTF2_ErrorCode (*defs)(OTF2_GlobalDefWriter *w, struct instr_strtab *st, uint32_t scl_first);
    /* An MPI job's end instead of defs: the calling contexts (refs from 0, a parent before
     * its children; region a registry handle; file NULL or "" and line 0 when none) for the
     * rank's blob (runtime/trace/job.c), then what defs says at the end. */
    uint32_t (*ncontexts)(void);
    void (*context)(uint32_t ref, uint32_t *parent, uint32_t *region, const char **file,
                    uint32_t *line);
    void (*job_end)(void);
    /* The interrupt generator (ref 0), for the job's global definitions on rank 0. */
    OTF2_ErrorCode (*generator)(OTF2_GlobalDefWriter *w, struct instr_strtab *st);
} instr_trace_sample_hook;
extern const instr_trace_sample_hook *instr_trace_samples;
void instr_trace_set_sample_hook(const instr_trace_sample_hook *h);
/* One CallingContextSample at t (never before the location's last record) with the
 * interrupt generator 0. 0, or -1 when the location has no writer (it counts as lost). */
int instr_trace_sample_write(instr_tloc *s, uint64_t t, uint32_t context, uint32_t unwind);
/* 1 when samples can go into this location's events now (in an MPI job once its archive is
 * open: the calling contexts are unified at the end, runtime/job/trace_unify.c). */
int instr_trace_samples_wanted(instr_tloc *s);

/* pool.c */
typedef struct instr_tpool_stats {
    uint64_t chunk_size;  /* bytes per compact buffer chunk */
    uint64_t cap;         /* bytes of event chunks the budget allows */
    uint64_t held;        /* bytes of event chunks taken (from the budget, plus overdraft) */
    uint64_t overdraft;   /* bytes taken beyond the budget: a thread's first chunk */
    uint64_t flushes;     /* event buffers flushed to disk before the end */
    uint64_t last_flush_end; /* ticks: the end of the latest flush (0: none) */
    uint64_t writer_bytes; /* bytes of OTF2 event writer chunks (one per open writer) */
} instr_tpool_stats;

/* Bytes of an OTF2 event writer's one chunk: as large as OTF2's file buffer (pool.c). */
#define INSTR_TRACE_EVT_CHUNK ((uint64_t)4 << 20)

/* A buffer flush of the run ended at t_end (ticks). */
void instr_tpool_note_flush(uint64_t t_end);

/* A zeroed chunk for a location's compact buffer (buffer.c): from the pool, else from the
 * budget; `first`: granted beyond the budget if need be. NULL when the budget is spent. No
 * lock, no malloc. The chunk's first 8 bytes are the pool's: the user leaves them alone. */
void *instr_tpool_take(int first);
void instr_tpool_give(void *chunk);
/* The same, zeroed here (by the converter thread) so that the next take need not. */
void instr_tpool_give_zeroed(void *chunk);

/* Chooses the chunk size and the share of INSTR_TOTAL_MEMORY the trace may use. */
void instr_tpool_init(int profiling_too);
/* Registers the memory and flush callbacks with an archive opened with event chunks of
 * INSTR_TRACE_EVT_CHUNK bytes. 0 or an OTF2 error code. */
OTF2_ErrorCode instr_tpool_attach(OTF2_Archive *archive);
void instr_tpool_stats_get(instr_tpool_stats *out);
uint64_t instr_tpool_chunk_size(void);

/* convert_thread.c: INSTR_TRACE_CONVERT=thread, a thread of the runtime's own that converts
 * full chunks while the program runs (docs/tracing.md, "Converting on a thread"). */
/* At init: reads INSTR_TRACE_CONVERT and starts the thread when asked. */
void instr_tconv_init(void);
/* 1 when the converter thread was started (and the process is not a forked child). */
extern int instr_tconv_on;
/* A chunk became full (buffer.c, on the chunk's switch): wakes the converter. No lock, no
 * allocation: one system call at most (async-signal-safe). */
void instr_tconv_kick(void);
/* Every conversion, and every walk of a buffer from its head, holds this lock while the
 * converter thread runs. 1: taken (give it back with instr_tconv_unlock), 0: not needed or
 * already held by the calling thread (a fault inside a conversion). */
int instr_tconv_lock(void);
void instr_tconv_unlock(int taken);
/* 0 once the end began (or stops the converter): the converter converts no further chunk. */
int instr_tconv_going(void);
/* The end: the converter stops for good (waits until it is out of its conversion), and
 * says (INSTR_VERBOSE=1) how many chunks it converted. */
void instr_tconv_stop(void);
/* Chunks the converter converted and gave back (under the conversion lock). */
extern uint64_t instr_tconv_chunks;
/* A forked child: there is no converter thread in it. */
void instr_tconv_fork_child(void);

/* defs.c: the global definitions. 0, or -1 after a message. */
int instr_trace_write_defs(OTF2_Archive *archive, const instr_run *run, uint64_t t_last);
/* Strings of a global definition writer, each defined once (defs.c). */
typedef struct instr_strtab {
    OTF2_GlobalDefWriter *w;
    struct instr_strtab_slot {
        const char *key; /* NULL: empty */
        uint32_t ref;
    } *slots;
    size_t cap; /* 0 or a power of two */
    uint32_t n;
    int failed;
} instr_strtab;
/* The string's reference; `s` must outlive the table. */
OTF2_StringRef instr_strtab_ref(instr_strtab *t, const char *s);
void instr_strtab_free(instr_strtab *t);
/* Wall-clock time (ns since the epoch) of tick t. */
uint64_t instr_trace_realtime_of(uint64_t t);
/* Role and paradigm of a region from its event source, name and canonical (linkage) name
 * (Kokkos's regions say their kind there). */
void instr_trace_region_kind(int source, const char *name, const char *canonical,
                             OTF2_RegionRole *role, OTF2_Paradigm *paradigm);

#endif
