/* synth.h — the synthetic program behind instr-jobdb-gen: a union call tree of a given size,
 * and per simulated rank its part of the job database (jobdb.h: definitions in the rank's
 * own ids, sparse rows) with structure: call paths every rank visits (the hot ones near the
 * root), paths of the rank's own part of the code, time imbalance that grows with the rank,
 * and a few outlier ranks much slower in one hot path. Everything follows from the seed. */
#ifndef INSTR_JOBDB_GEN_SYNTH_H
#define INSTR_JOBDB_GEN_SYNTH_H

#include "jobdb.h"

typedef struct synth_config {
    uint32_t ranks, paths, per_rank, threads;
    uint64_t seed;
} synth_config;

typedef struct synth {
    synth_config cfg;
    uint32_t nregions;
    uint32_t *parent;   /* per union path: parent id (< own id) or INSTR_JDB_NONE */
    uint32_t *region;   /* per union path: region index */
    uint32_t hot;       /* paths 0 .. hot - 1 are on every rank (ancestor-closed) */
    uint32_t outlier[3];
    /* scratch of one rank at a time */
    uint32_t *local_id; /* union path -> the rank's id, INSTR_JDB_NONE when not visited */
    uint32_t *chosen;   /* the rank's paths, ascending */
    uint64_t *incl;     /* per chosen path (by local id) its inclusive time */
} synth;

/* 0, or -1 without memory (message on stderr). */
int synth_init(synth *s, const synth_config *cfg);
void synth_free(synth *s);
/* Rank r's part, as instr_jdb_local_build gives a real rank's. 0, or -1 without memory. */
int synth_rank(synth *s, uint32_t r, instr_jdb_local *out);

#endif
