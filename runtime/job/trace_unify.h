/* trace_unify.h — the union of the ranks' trace definitions in an MPI job (trace_unify.c;
 * ../trace/job.c has the protocol, mpi_trace_unify.c the exchange): regions unified by
 * name, linkage, file, line and source, communicators by their job-wide identity, one
 * location group per rank, I/O files by name, I/O handles per rank, samples' calling
 * contexts by their path. A unifier holds a run of ranks (a subtree of the job's reduction
 * tree; all of them on rank 0); two are merged in rank order, so that every global ref is
 * the one that adding the ranks' blobs one at a time in rank order would give. Every rank
 * maps its own definitions against the union, and rank 0 writes the union as the archive's
 * global definitions (trace_global_defs.c). */
#ifndef INSTR_RT_JOB_TRACE_UNIFY_H
#define INSTR_RT_JOB_TRACE_UNIFY_H

#include "../trace/trace.h"

#include <stddef.h>
#include <stdint.h>

typedef struct gregion {
    char *name, *canonical, *file;
    uint32_t lb, le, source;
} gregion;

typedef struct gcomm {
    uint32_t leader, seq;
    char *name;
    uint32_t nmembers;
    uint32_t *members; /* NULL until the leader's blob came */
    uint32_t parent;   /* the global ref it was made from (always a lower one); UINT32_MAX:
                        * none */
} gcomm;

/* An I/O file: the same name on any rank is one file; host: the node of the ranks that
 * used it, UINT32_MAX when they ran on more than one. */
typedef struct gfile {
    char *name;
    uint32_t host;
} gfile;

/* An I/O handle: one per rank and handle of that rank. */
typedef struct ghandle {
    uint32_t file, paradigm;
} ghandle;

/* A calling context of samples: unified by its parent (global), region (global ref), file
 * and line. */
typedef struct gctx {
    uint32_t parent, region, line;
    char *file; /* "" when none */
} gctx;

/* An RMA window: unified by its job-wide identity, as communicators; comm a global ref
 * (UINT32_MAX: none). */
typedef struct gwin {
    uint32_t leader, seq, comm;
    char *name;
} gwin;

typedef struct grank {
    int present;
    uint64_t pid;
    uint32_t host;     /* index into hosts */
    uint32_t mpi_location;
    uint32_t nloc;
    uint32_t *loc_id;
    uint64_t *loc_tid, *loc_events;
    uint32_t async_id;     /* its location of asynchronous metric values, */
    uint64_t async_events; /* with this many events (0: none) */
} grank;

struct instr_unifier {
    int first, nranks; /* the ranks first .. first + nranks - 1, ranks[r - first] */
    grank *ranks;
    /* A frozen unifier (the whole job's union, for a rank's own mapping) adds no region,
     * communicator, file or context: one it lacks fails the mapping. Handles are numbered
     * from handle_base (the handles of the ranks before). */
    int frozen;
    uint32_t handle_base;
    gregion *regions;
    uint32_t nregions, capregions;
    uint32_t *rtab; /* open addressing: region index + 1, 0 = empty */
    uint32_t rtab_cap;
    gcomm *comms;
    uint32_t ncomms, capcomms;
    char **hosts;
    uint32_t nhosts;
    gfile *files;
    uint32_t nfiles, capfiles;
    uint32_t *ftab; /* open addressing: file index + 1, 0 = empty */
    uint32_t ftab_cap;
    ghandle *handles;
    uint32_t nhandles, caphandles;
    gctx *ctxs;
    uint32_t nctxs, capctxs;
    gwin *wins;
    uint32_t nwins, capwins;
    uint32_t *ctab; /* open addressing: context index + 1, 0 = empty */
    uint32_t ctab_cap;
    uint64_t t_first, t_last, margin;
    /* wall clock (ns): made, and when rank 0 closed with the union whole (for the verbose
     * line on how long the unification took) */
    uint64_t made_ns, unified_ns;
    uint64_t events;
    int have_time;
};
typedef struct instr_unifier instr_unifier;

/* A unifier for the ranks first .. first + nranks - 1. */
instr_unifier *instr_trace_unify_new(int first, int nranks);
/* One rank's blob (instr_trace_job_blob); its mapping (instr_mem_alloc) into *map. 0 or -1. */
int instr_trace_unify_add(instr_unifier *u, int rank, const char *blob, size_t len, char **map,
                          size_t *maplen);
/* u as bytes (instr_mem_alloc) for instr_trace_unify_merge: with_ranks 0 leaves out what is
 * per rank (locations, I/O handles): the union a rank maps its own definitions against.
 * 0 or -1 (out of memory). */
int instr_trace_unify_pack(const instr_unifier *u, int with_ranks, char **out, size_t *len);
/* Merges a packed unifier of the ranks right after u's own (or one without ranks) into u.
 * 0, or -1 when malformed or out of memory (u then lacks part of it). */
int instr_trace_unify_merge(instr_unifier *u, const char *buf, size_t len);
/* This rank's mapping against the whole union u (made from a pack without ranks): u is
 * frozen, the rank's handles numbered from handle_base. 0 or -1. */
int instr_trace_unify_map(instr_unifier *u, int rank, const char *blob, size_t len,
                          uint32_t handle_base, char **map, size_t *maplen);
void instr_trace_unify_free(instr_unifier *u);
/* The monotonic wall clock in ns (the unification's own timing, made_ns / unified_ns). */
uint64_t instr_trace_unify_now_ns(void);
/* The global definitions of the whole job from the union u (an instr_unifier *): the
 * callback of instr_trace_job_close. 0, or -1 after a message. */
int instr_trace_unify_write_global(OTF2_Archive *a, void *u);

#endif
