/* job.h — a parallel job's profile (MPI): message counts per call path, this process's
 * profile as a text blob, and the merge of every process's blob into one profile.json with
 * one location group per process (job.c; the exported entry points are in
 * ../core/ext.h). */
#ifndef INSTR_RT_PROFILE_JOB_H
#define INSTR_RT_PROFILE_JOB_H

#include "../core/substrate.h"
#include "cct.h"

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

/* Adds to the calling thread's innermost open call path (profile substrate): messages
 * (point to point) and collective operations taken part in, with their bytes. */
void instr_job_messages(uint64_t bytes_sent, uint64_t bytes_received, uint64_t sends,
                        uint64_t receives, uint64_t collectives);
/* A call path's MPI message counts (docs/mpi.md): point-to-point messages and their bytes,
 * collective operations taken part in (their bytes count as sent and received too). */
typedef struct instr_job_msgs {
    uint64_t sent, bytes_sent, received, bytes_received, collectives;
} instr_job_msgs;
/* Adds the counts of a thread's call-tree node into *to (nothing when it has none). */
void instr_job_messages_add(const instr_pnode *n, instr_job_msgs *to);
/* The profile.json fields of m, each only where it is not zero: ", \"messages_sent\": 3". */
void instr_job_messages_json(FILE *f, const instr_job_msgs *m);

/* The message counts of node n (bytes sent, bytes received, sends, receives, collectives)
 * into out: 1, or 0 when it has none (out unchanged). */
int instr_job_messages_of(const instr_pnode *n, uint64_t out[5]);
/* This process's profile with message counts, as a blob (malloc'ed, *len bytes), or NULL
 * when the profile substrate is off or memory is out. At the end, after the profile was
 * written. Without with_tree: no N and V lines (the tree comes from the job database). */
char *instr_job_blob(const instr_run *run, size_t *len, int with_tree);

#endif
