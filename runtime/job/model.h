/* model.h — the job's merged profile (rank 0): built by the merge of the ranks' blobs
 * (merge.c, blob_parse.c) and the call tree read back from the job database
 * (tree_from_jdb.c), written by the job's outputs (outputs.c and the adaptors to the
 * profile's writers). Not a public interface. */
#ifndef INSTR_RT_JOB_MODEL_H
#define INSTR_RT_JOB_MODEL_H

#include "merged_metrics.h"
#include "../profile/profile.h"
#include "../profile/path_map.h"
#include "../core/ext.h"
#include "../throttle/throttle.h"

#include <stdint.h>

typedef struct jstats {
    instr_pstats t; /* in ns */
    instr_msg_counts m;
} jstats;

typedef struct jloc {
    uint32_t location;
    jstats s;
    uint64_t *m; /* metric rows (merged_metrics.h), or NULL */
    instr_profile_io_totals *io; /* its I/O per paradigm (the job database's io_ columns,
                                  * INSTR_IO), or NULL: none */
    uint64_t *mem; /* its allocations, frees, bytes allocated, bytes freed (the job
                    * database's memory_ columns, INSTR_MEMORY=1), or NULL: none */
} jloc;

typedef struct jnode {
    int32_t parent;
    uint32_t region, depth;
    jstats s;
    jloc *locs;
    uint32_t nlocs, caplocs;
    uint64_t *m; /* metric rows over its locations, or NULL */
    instr_profile_io_totals *io; /* its I/O per paradigm summed over its locations, or NULL */
    uint64_t *mem; /* its memory figures (as jloc's) summed over its locations, or NULL */
} jnode;

typedef struct jregion {
    char *key; /* source \t name \t mangled \t file \t object (owns the strings below) */
    const char *source, *name, *mangled, *file, *object;
    uint32_t line_begin, line_end;
    uint32_t throttled_ranks;  /* ranks that throttled it (INSTR_THROTTLE); 0: none */
    int throttled_rank;        /* the first of them, and its mark */
    instr_throttle_mark throttled;
} jregion;

typedef struct jlocation {
    int rank, tid;
    uint32_t id_in_rank;
    char end[16];
} jlocation;

typedef struct jgroup {
    int rank, pid, present;
    char host[64];
    int has_memory;               /* the rank recorded its memory (INSTR_MEMORY=1) */
    instr_profile_mem_totals mem;
    int has_io;                   /* the rank recorded its I/O (INSTR_IO) */
    instr_profile_io_totals io[INSTR_PROFILE_IO_PARADIGMS];
} jgroup;

struct instr_job {
    jnode *nodes;
    uint32_t n, cap;
    instr_path_map paths; /* (parent, region) -> node */
    jregion *regions; /* id = index + 1 */
    uint32_t nregions, capregions;
    uint32_t *rslots, rcap; /* hash of region keys -> id */
    jlocation *locs;
    uint32_t nlocs, caplocs;
    jgroup *groups;
    uint32_t ngroups, capgroups;
    int groups_unordered; /* a group was added after one of a higher rank */
    uint64_t duration, dropped, unmatched, closed;
    char timer[32];
    double hz;
    int failed; /* out of memory somewhere: the profile is incomplete */
    int summary; /* the tree holds the job database's sums over ranks, no locations */
    uint32_t *path_node, npath_node; /* summary: the node of each path of the database */
    instr_job_metrics metrics;
    uint32_t last_node; /* the node of the latest N line (its V line follows) */
};

/* The job's id of the region with this key (source \t name \t mangled \t file \t object)
 * and lines, added when new; UINT32_MAX without memory. */
uint32_t instr_job_region_id(instr_job *j, const char *key, uint32_t lb, uint32_t le);
/* The merged node (parent, region) (parent -1: top level), added when new; UINT32_MAX without
 * memory. */
uint32_t instr_job_node_id(instr_job *j, int32_t parent, uint32_t region);
static inline void instr_job_add_stats(jstats *to, const jstats *s)
{
    instr_pstats_add(&to->t, &s->t);
    instr_msg_counts_add(&to->m, &s->m);
}
/* The group (process) of rank, added when new (absent until its P line); NULL without
 * memory. */
jgroup *instr_job_group(instr_job *j, int rank);

#endif
