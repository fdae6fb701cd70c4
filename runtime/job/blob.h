/* blob.h — one process's profile of an MPI job as a blob of text (blob_write.c), sent to
 * rank 0, which merges it into the job's profile (blob_parse.c).
 *
 * The blob is line-oriented text, one process's whole profile:
 *   instr-job-profile 1
 *   P <pid> <duration ns> <dropped> <unmatched exits> <closed at end> <timer> <hz>\t<host>
 *   L <location id> <tid> <end: thread-exit|program-end>
 *   R <handle> <line begin> <line end> <source>\t<name>\t<mangled>\t<file>\t<object>
 *   T <handle> <visit> <location> <mean ns> <excluded 0|1>: the region was throttled
 *     (INSTR_THROTTLE, runtime/throttle/); after its R line
 *   N <parent node or -1> <region> <location> <visits> <incl> <excl> <min incl> <max incl>
 *     <min excl> <max excl> <bytes sent> <bytes received> <sends> <receives> <collectives>
 *   M and V lines: metric definitions and a node's metric values (merged_metrics.h)
 *   Y <allocations> <frees> <bytes allocated> <bytes freed> <high-water bytes> <live bytes>
 *     <live blocks>: the process's memory recording (INSTR_MEMORY=1), when on
 *   O <paradigm 0 posix, 1 stdio, 2 mpiio> <operations> <failed> <bytes read> <bytes written>
 *     <ns>: the process's I/O recording (INSTR_IO), when on: one line per paradigm
 * N lines of one location come in pre-order (a parent before its children); node numbers
 * are the order of the N lines; times in ns.
 *
 * In an MPI job the blobs carry no N and V lines: the call tree and its values come from the
 * job database (tree_from_jdb.c), and above INSTR_JOB_PROFILE_MAX_RANKS a rank other than 0
 * sends only its first lines, the magic, P, Y and O lines (instr_ext_job_blob_process_len):
 * what the job's totals and its profile.cubex's system tree need, a few hundred bytes. */
#ifndef INSTR_RT_JOB_BLOB_H
#define INSTR_RT_JOB_BLOB_H

#include "../core/substrate.h"

#include <stddef.h>

/* This process's profile with message counts, as a blob (from instr_mem_alloc, *len bytes), or NULL
 * when the profile substrate is off or memory is out. At the end, after the profile was
 * written. Without with_tree: no N and V lines (the tree comes from the job database). */
char *instr_job_blob(const instr_run *run, size_t *len, int with_tree);

#endif
