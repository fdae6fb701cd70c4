/* job.h — a parallel job's profile (MPI): message counts per call path, this process's
 * profile as a text blob, and the merge of every process's blob into one profile.json with
 * one location group per process (job.c; the exported entry points are in
 * ../adapters/ext.h). */
#ifndef INSTR_RT_PROFILE_JOB_H
#define INSTR_RT_PROFILE_JOB_H

#include "../core/substrate.h"

#include <stddef.h>
#include <stdint.h>

/* Adds to the calling thread's innermost open call path (profile substrate). */
void instr_job_messages(uint64_t bytes_sent, uint64_t bytes_received, uint64_t sends,
                        uint64_t receives);
/* The message counts of node n (bytes sent, bytes received, sends, receives) into out: 1,
 * or 0 when it has none (out unchanged). */
struct instr_pnode;
int instr_job_messages_of(const struct instr_pnode *n, uint64_t out[4]);
/* This process's profile with message counts, as a blob (malloc'ed, *len bytes), or NULL
 * when the profile substrate is off or memory is out. At the end, after the profile was
 * written. Without with_tree: no N and V lines (the tree comes from the job database). */
char *instr_job_blob(const instr_run *run, size_t *len, int with_tree);

#endif
