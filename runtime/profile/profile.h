/* profile.h — the profile substrate: per-thread calling-context trees (visits, inclusive and
 * exclusive time, min/max per visit), merged over threads at the end and written as
 * profile.json, profile.txt, profile.folded and profile.cubex, as INSTR_PROFILING_FORMAT
 * chooses (docs/profile-format.md). */
#ifndef INSTR_RT_PROFILE_H
#define INSTR_RT_PROFILE_H

#include "../core/substrate.h"
#include "cct.h"
#include "../util/json_str.h"

#include <stdint.h>
#include <stdio.h>

extern const instr_substrate instr_profile_substrate;

/* Adds s into to: sums, and the extremes of both. */
static inline void instr_pstats_add(instr_pstats *to, const instr_pstats *s)
{
    to->visits += s->visits;
    to->incl += s->incl;
    to->excl += s->excl;
    if (s->min_incl < to->min_incl) to->min_incl = s->min_incl;
    if (s->max_incl > to->max_incl) to->max_incl = s->max_incl;
    if (s->min_excl < to->min_excl) to->min_excl = s->min_excl;
    if (s->max_excl > to->max_excl) to->max_excl = s->max_excl;
}

/* A call path's MPI message counts (docs/mpi.md): point-to-point messages and their bytes,
 * collective operations taken part in (their bytes count as sent and received too). */
typedef struct instr_msg_counts {
    uint64_t sent, bytes_sent, received, bytes_received, collectives;
} instr_msg_counts;

static inline void instr_msg_counts_add(instr_msg_counts *to, const instr_msg_counts *m)
{
    to->sent += m->sent;
    to->bytes_sent += m->bytes_sent;
    to->received += m->received;
    to->bytes_received += m->bytes_received;
    to->collectives += m->collectives;
}

/* Adds a thread's call-tree node's message counts into *to (nothing when it has none). Set
 * by whoever counts messages (an MPI job, runtime/job/messages.c) before its first count;
 * NULL: no process counts any. Read with instr_profile_messages_of. */
typedef void (*instr_profile_messages_fn)(const instr_pnode *n, instr_msg_counts *to);
void instr_profile_set_messages(instr_profile_messages_fn fn);
void instr_profile_messages_of(const instr_pnode *n, instr_msg_counts *to);

/* The node after n in a pre-order walk of root's tree (root itself not visited), or NULL.
 * Iterative: deep recursion in the program gives deep trees. */
static inline instr_pnode *instr_pnode_next(const instr_pnode *root, instr_pnode *n)
{
    if (n->child)
        return n->child;
    while (n != root && !n->sibling)
        n = n->parent;
    return n == root ? NULL : n->sibling;
}

/* cct.c: the per-thread tree. The substrate's enter/exit (the event core's generic path,
 * which keeps its own stack and delivers balanced events) move the cursor like the fast
 * paths in cct.h do. */
void *instr_profile_location_begin(instr_location *loc);
void instr_profile_enter(void *data, uint32_t region, uint64_t t);
void instr_profile_exit(void *data, uint32_t region, uint64_t t);
void instr_profile_fork_child(void *data, uint64_t t);
/* At the end, for the sampling source (runtime/sampling/): the child of parent for region,
 * created if needed, without touching the cursor path's `last`; NULL when out of memory. */
instr_pnode *instr_profile_sampled_child(instr_pstate *s, instr_pnode *parent, uint32_t region);

/* metric_sums.c: the metric values of a node (instr_pnode.m), from the location's current
 * values (instr_pstate.mvals: refreshed by the metrics substrate before the profile sees an
 * event on the generic path, read by cct.c's slow paths on the cursor path with metrics).
 * Rows of nm values: row k at m + k * nm. */
enum {
    INSTR_PNODE_M_INCL = 0, /* inclusive sum over the visits */
    INSTR_PNODE_M_ENTER,    /* the value at the open visit's enter */
    INSTR_PNODE_M_MIN,      /* least and greatest inclusive value of one visit */
    INSTR_PNODE_M_MAX,
    INSTR_PNODE_M_EXIT,     /* the values at the visit's exit, while it is being closed
                             * (cct_metrics.c: beside the others, so that one index serves) */
    INSTR_PNODE_M_ROWS
};
static inline size_t instr_pnode_metrics_size(uint32_t nm)
{
    return INSTR_PNODE_M_ROWS * (size_t)nm * sizeof(uint64_t);
}
void instr_pnode_metrics_init(instr_pnode *n, uint64_t *m, uint32_t nm);
/* At the node's enter: remembers the values. */
void instr_pnode_metrics_enter(const instr_pstate *s, instr_pnode *n);
/* At the node's exit, before its visit is counted: adds the visit's differences. */
void instr_pnode_metrics_exit(const instr_pstate *s, instr_pnode *n);
/* The same with the values `now` (nm of them) instead of the location's. */
void instr_pnode_metrics_exit_at(instr_pnode *n, uint32_t nm, const uint64_t *now);
/* Exclusive sums of the node: its inclusive ones less its children's, into out[0..nm). */
void instr_pnode_metrics_exclusive(const instr_pnode *n, uint32_t nm, uint64_t *out);
/* The node's values as INSTR_MROWS rows of nm (INSTR_MROW_*: inclusive, exclusive, min, max)
 * into rows (n->m must be set). */
void instr_pnode_metrics_rows(const instr_pnode *n, uint32_t nm, uint64_t *rows);


/* merge.c: the merged tree, in pre-order, children sorted by inclusive time (descending). */
typedef struct instr_mloc {
    uint32_t location;
    instr_pstats s;
    uint64_t *m; /* with metrics: INSTR_MROW_* rows of mtree.nm values, else NULL */
    const instr_pnode *node; /* the location's own node (its MPI message counts: instr_profile_messages_of) */
} instr_mloc;

/* Rows of a merged node's metric values: inclusive and exclusive sums, the least and the
 * greatest inclusive value of one visit (runtime/metrics/ types: instr_metrics_sync). */
enum { INSTR_MROW_INCL = 0, INSTR_MROW_EXCL, INSTR_MROW_MIN, INSTR_MROW_MAX, INSTR_MROWS };

typedef struct instr_mnode {
    uint32_t region;
    int32_t parent; /* -1 for roots */
    uint32_t depth;
    uint32_t first_child, next_sibling; /* UINT32_MAX: none */
    instr_pstats s;
    instr_mloc *locs;
    uint32_t nlocs, caplocs;
    uint64_t *m; /* with metrics: INSTR_MROW_* rows over all locations, else NULL */
} instr_mnode;

typedef struct instr_flat {
    uint64_t visits, incl, excl; /* ticks; incl over outermost nodes only */
} instr_flat;

typedef struct instr_mtree {
    instr_mnode *nodes;
    uint32_t n, cap;
    uint64_t dropped;     /* over all locations */
    uint64_t resynced;    /* frames closed after longjmp, over all locations */
    instr_flat *flat;     /* indexed by region handle, nregions + 1 entries */
    uint32_t nregions;
    uint64_t total_incl;  /* sum of the roots' inclusive ticks */
    uint32_t nm;          /* metric values per node (instr_metrics_sync), 0 when none */
} instr_mtree;

int instr_mtree_build(instr_mtree *t, const instr_run *run, int slot);

/* Memory recording's sections of profile.txt and profile.json (INSTR_MEMORY,
 * runtime/interpose/memory_report.c, docs/memory.md), set by the recorder before the first
 * event; NULL: the program's memory was not recorded. json writes top-level members, each
 * after ",\n". */
typedef struct instr_profile_mem_totals {
    uint64_t allocs, frees, bytes_allocated, bytes_freed, high_water, live_bytes, live_blocks;
} instr_profile_mem_totals;
typedef struct instr_profile_memory {
    void (*text)(instr_writer *f, const instr_run *run, const instr_mtree *t);
    void (*json)(instr_writer *f, const instr_run *run, const instr_mtree *t);
    void (*totals)(instr_profile_mem_totals *out); /* the process's, for an MPI job's sums */
    /* profile.cubex's cells: the recorder's thread of location id (NULL: it recorded
     * nothing), then one call path's counts there (allocations, frees, bytes allocated,
     * bytes freed: the call path's own, callees not included) and the thread's high-water
     * mark of live bytes. */
    const void *(*thread_of)(uint32_t location_id);
    void (*cell)(const void *thread, const instr_pnode *node, uint64_t out[4]);
    uint64_t (*high_water)(const void *thread);
} instr_profile_memory;
void instr_profile_set_memory(const instr_profile_memory *m);
const instr_profile_memory *instr_profile_memory_of(void);

/* I/O recording's sections (INSTR_IO, runtime/interpose/io_report.c, docs/io.md), set by the
 * recorder at start-up; NULL: the program's I/O was not recorded. As for memory. */
typedef struct instr_profile_io_totals {
    uint64_t ops, failed, bytes_read, bytes_written, ns;
} instr_profile_io_totals;
#define INSTR_PROFILE_IO_PARADIGMS 3 /* posix, stdio, mpiio */
typedef struct instr_profile_io {
    void (*text)(instr_writer *f, const instr_run *run, const instr_mtree *t);
    void (*json)(instr_writer *f, const instr_run *run, const instr_mtree *t);
    /* The process's figures per paradigm, for an MPI job's sums. */
    void (*totals)(instr_profile_io_totals out[INSTR_PROFILE_IO_PARADIGMS]);
    /* profile.cubex's cells and the job database's rows: the recorder's thread of location
     * id (NULL: it recorded nothing), then one call path's figures there per paradigm (the
     * call path's own, callees not included; time in ns). */
    const void *(*thread_of)(uint32_t location_id);
    void (*cell)(const void *thread, const instr_pnode *node,
                 instr_profile_io_totals out[INSTR_PROFILE_IO_PARADIGMS]);
} instr_profile_io;
void instr_profile_set_io(const instr_profile_io *w);
const instr_profile_io *instr_profile_io_of(void);

void instr_mtree_free(instr_mtree *t);

/* 1 when metric i (instr_metrics_sync) has profile columns: accumulated ones only. */
int instr_profile_metric_shown(uint32_t i);

/* Writers: 0, or -1 on an I/O error. */
int instr_profile_write_json(instr_writer *f, const instr_run *run, const instr_mtree *t);
/* The profile files of formats (INSTR_FORMAT_* bits) in this process's directory, their names
 * added to files; after the substrate's end (the threads' trees stay). 0, or -1 (noted). */
int instr_profile_write_files(const instr_run *run, char *files, size_t size, uint32_t formats);
int instr_profile_write_text(instr_writer *f, const instr_run *run, const instr_mtree *t);
/* A duration for profile.txt: "1.234 s", "12.35 ms", "45.6 us", "120 ns" in a field of 9
 * (write_text.c; the job's profile.txt uses it too). */
const char *instr_profile_dur(char *buf, size_t size, uint64_t ns);
/* profile.folded: a path deeper than max_depth frames keeps its outermost and innermost
 * frames with one "[N frames folded]" frame between them, so the file stays linear in the
 * number of call paths (docs/profile-format.md). */
int instr_profile_write_folded(instr_writer *f, const instr_mtree *t, uint32_t max_depth);
/* profile.cubex, CUBE4 (cube.h, cube_process.c). */
int instr_profile_write_cube(instr_writer *f, const instr_run *run, const instr_mtree *t);
/* How many call paths profile.folded shortens at max_depth. */
uint64_t instr_profile_folded_shortened(const instr_mtree *t, uint32_t max_depth);

/* The end-of-run hint (docs/score.md): whether a region with these totals counts as
 * dominated by its instrumentation, and the one line that says so for a run or an MPI job
 * (`what`) written to dir, naming the region `top` with the most visits. */
int instr_profile_hint_region(uint64_t visits, uint64_t incl_ns);
void instr_profile_hint(const char *what, const char *dir, uint32_t n, const char *top,
                        uint64_t visits, uint64_t incl_ns);

/* Min/max fields of a stats record in nanoseconds (0 when never set). */
uint64_t instr_profile_ns(uint64_t ticks);
uint64_t instr_profile_min_ns(uint64_t ticks);

#endif
