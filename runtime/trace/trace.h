/* trace.h — the trace substrate: an OTF2 archive (traces.otf2 + traces/ + traces.def) in the
 * experiment directory, written with the OTF2 library (docs/tracing.md).
 *
 *   trace.c   the substrate's entry in the event core: start-up, archive, locations, fork
 *   events.c  the hot path: Enter/Leave records into the location's own OTF2 event writer
 *   pool.c    the INSTR_TOTAL_MEMORY budget for event chunks (OTF2 memory callbacks) and the
 *             flush callbacks that record buffer flushes
 *   defs.c    global definitions at the end: clock, system tree, locations, strings, regions
 *   write.c   the end: close the writers, write the definitions, close the archive, summary */
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
    uint32_t id;            /* the location's id when it was created (= OTF2 location ref) */
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

#endif
