/* write_text.h — profile.txt of an MPI job (write_text.c): the merged profile with the rank
 * dimension summarised, from a plain view of it that the job's merged profile fills in (text_adaptor.c).
 * Layout and meaning: docs/profile-format.md ("profile.txt of an MPI job"). */
#ifndef INSTR_RT_PROFILE_JOB_TEXT_H
#define INSTR_RT_PROFILE_JOB_TEXT_H

#include "../util/writer.h"

#include <stdint.h>
#include <stdio.h>

/* One thread's values on one call path; rank: the index of its rank in instr_job_text.ranks. */
typedef struct instr_job_text_cell {
    uint32_t rank;
    uint64_t visits, incl, excl; /* ns */
} instr_job_text_cell;

typedef struct instr_job_text_path {
    int32_t parent;  /* index into paths, -1 for a root */
    uint32_t region; /* index into names */
    uint64_t visits, incl, excl; /* summed over every rank's threads, ns */
    uint64_t messages_sent, bytes_sent, messages_received, bytes_received, collectives;
    const instr_job_text_cell *cells;
    uint32_t ncells;
} instr_job_text_path;

typedef struct instr_job_text {
    const char *dir;
    int nranks;         /* the job's ranks */
    const int *ranks;   /* the ranks in this profile, ascending */
    uint32_t nmerged;   /* how many */
    const char *missing; /* the ranks not in it, e.g. "1, 3-5", or "" */
    uint32_t threads;   /* over all ranks */
    uint64_t duration;  /* the longest rank's, ns */
    const char *timer;
    double hz;
    uint64_t dropped;   /* call paths dropped over all ranks (INSTR_TOTAL_MEMORY) */
    const char *const *names; /* region names */
    uint32_t nregions;
    const instr_job_text_path *paths; /* parents before their children */
    uint32_t npaths;
} instr_job_text;

/* 0, or -1 when memory ran out (the file is then incomplete) or a write failed. */
int instr_job_text_write(instr_writer *f, const instr_job_text *t);

#endif
