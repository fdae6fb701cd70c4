/* record.h — the critical-path clock as it travels between MPI processes (docs/critical-path.md).
 *
 * Shared by the critical-path substrate (libinstr-rt, runtime/critpath/) and the MPI adapter
 * (libinstr-rt-mpi), which sends it as the piggyback of a message and reduces it over the
 * participants of a collective. Plain data, fixed layout, times in nanoseconds so that
 * processes with differently calibrated clocks add up the same units. Only the header and
 * the first n entries are sent. */
#ifndef INSTR_CP_RECORD_H
#define INSTR_CP_RECORD_H

#include <stddef.h>
#include <stdint.h>

/* Most regions a path can carry (INSTR_CRITICAL_PATH_REGIONS is at most this). */
#define INSTR_CP_MAX_REGIONS 64
/* Most dependent metrics (INSTR_CRITICAL_PATH_METRICS) a path carries. */
#define INSTR_CP_MAX_METRICS 8

/* One instrumented region's contribution to the path on one rank: its exclusive useful
 * computation there, summed over the path's segments on that rank. */
typedef struct instr_cp_entry {
    uint64_t key;   /* FNV-1a of the region's name and file: the same on every process */
    uint64_t ns;
    int32_t rank;   /* where it ran (and which rank names the region at the end) */
    uint32_t pad;
} instr_cp_entry;

typedef struct instr_cp_record {
    uint64_t useful_ns;  /* length of the path of useful computation (time outside MPI) */
    uint64_t total_ns;   /* length of the path of computation plus MPI */
    uint64_t other_ns;   /* useful time of regions beyond the top K */
    uint64_t outside_ns; /* useful time while no instrumented region was open */
    uint64_t omp_ns;     /* length of the path of computation plus OpenMP synchronisation */
    /* The dependent metrics (INSTR_CRITICAL_PATH_METRICS) along the useful path, summed like
     * its time; each of the metric's value type (metrics.h). */
    uint64_t metric[INSTR_CP_MAX_METRICS];
    uint32_t n;          /* entries used */
    uint32_t pad;
    instr_cp_entry e[INSTR_CP_MAX_REGIONS];
} instr_cp_record;

/* Bytes of a record with n entries (what goes over the wire). */
#define INSTR_CP_RECORD_BYTES(n) \
    (offsetof(instr_cp_record, e) + (size_t)(n) * sizeof(instr_cp_entry))

/* One process's own totals (process scope), gathered at the end. */
typedef struct instr_cp_process {
    uint64_t useful_ns; /* its useful computation: the process-scope critical path */
    uint64_t total_ns;  /* from its start to MPI_Finalize */
    uint64_t mpi_ns;    /* inside MPI calls */
    uint64_t syncs;     /* clocks exchanged (messages received, collectives) */
} instr_cp_process;

#endif
