/* cube.h — profile.cubex, the call-path profile in the CUBE4 format read by Cube, Scalasca,
 * Extra-P and ParaProf (docs/profile-format.md, "profile.cubex").
 *
 * The writer knows the format only; what it writes comes through instr_cube_src, so the
 * profile of one process (cube_process.c, from the merged tree) and the profile of an MPI job
 * (runtime/job/cube_adaptor.c, from the merged ranks) share it. The metrics of the metrics substrate come as
 * instr_cube_src.metric definitions and instr_cube_cell.m values. */
#ifndef INSTR_RT_PROFILE_CUBE_H
#define INSTR_RT_PROFILE_CUBE_H

#include "../util/writer.h"

#include <stdint.h>
#include <stdio.h>

typedef struct instr_cube_region {
    const char *name, *mangled, *file;
    const char *source; /* instr_region_source_name(): hooks, cyg, manual, xray, mpi, openmp */
    uint32_t line_begin, line_end; /* 0: unknown */
    const char *descr;             /* the region's description; NULL: none */
} instr_cube_region;

/* A process (location group): its locations are src locations first_loc .. first_loc+nlocs-1. */
typedef struct instr_cube_group {
    const char *name, *host;
    int rank;
    uint32_t first_loc, nlocs;
} instr_cube_group;

enum { INSTR_CUBE_ALLOCS, INSTR_CUBE_FREES, INSTR_CUBE_BYTES_ALLOCATED, INSTR_CUBE_BYTES_FREED,
       INSTR_CUBE_HIGH_WATER, INSTR_CUBE_MEM };
enum { INSTR_CUBE_IO_OPS, INSTR_CUBE_IO_FAILED, INSTR_CUBE_IO_BYTES_READ,
       INSTR_CUBE_IO_BYTES_WRITTEN, INSTR_CUBE_IO_NS, INSTR_CUBE_IO };

/* The values of one call path on one location; times in ns. */
typedef struct instr_cube_cell {
    uint64_t visits, incl_ns, min_incl_ns, max_incl_ns;
    uint64_t bytes_sent, bytes_received, messages_sent, messages_received;
    uint64_t samples;  /* samples whose innermost frame is the call path (sampled frames) */
    const uint64_t *m; /* the metrics' inclusive sums, each the 64 bits of its type and at
                        * its instr_cube_metric.slot; NULL: all zero */
    /* Memory recording (instr_cube_src.memory): the call path's own allocations, frees,
     * bytes allocated, bytes freed (callees not included), and the thread's high-water
     * mark of live bytes (given at the root call paths the thread visited, zero elsewhere). */
    uint64_t mem[INSTR_CUBE_MEM];
    /* I/O recording (instr_cube_src.io): the call path's own operations, failed operations,
     * bytes read, bytes written and time in ns in I/O functions, summed over the paradigms. */
    uint64_t io[INSTR_CUBE_IO];
} instr_cube_cell;

/* A metric of the metrics substrate (docs/metrics.md). */
typedef struct instr_cube_metric {
    const char *name, *unit, *description;
    uint32_t type;     /* INSTR_METRIC_UINT64, _INT64 or _DOUBLE */
    uint32_t base;     /* 2 or 10: with exponent, the unit's prefix */
    int32_t exponent;
    uint32_t slot;     /* where instr_cube_cell.m holds its value */
} instr_cube_metric;

typedef struct instr_cube_src {
    const void *ctx;
    uint32_t nregions;
    void (*region)(const void *ctx, uint32_t i, instr_cube_region *out);
    /* Call paths: a parent always has a smaller index than its children (-1: a root). */
    uint32_t ncnodes;
    void (*cnode)(const void *ctx, uint32_t i, int32_t *parent, uint32_t *region);
    const instr_cube_group *groups;
    uint32_t ngroups;
    uint32_t nlocs;
    /* The name of location l (its thread), and its number within its process. */
    void (*location)(const void *ctx, uint32_t l, char *name, size_t size, uint32_t *rank);
    /* Fills cells[0..nlocs-1] (zeroed by the caller) with call path i's values. */
    void (*row)(const void *ctx, uint32_t i, instr_cube_cell *cells);
    int messages; /* write bytes_sent, bytes_received, messages_sent, messages_received */
    int memory;   /* write the memory recording's metrics (instr_cube_cell.mem) */
    int samples;  /* write samples (the run sampled: docs/sampling.md) */
    int io;       /* write the I/O recording's metrics (instr_cube_cell.io) */
    uint32_t nmetrics;
    void (*metric)(const void *ctx, uint32_t i, instr_cube_metric *out);
    const char *creator;
} instr_cube_src;

/* A region's attributes as Score-P's CUBE4 writer gives them (cube_regions.c): mod (the
 * source file, or the library's name: "MPI", "MEMORY", ...), paradigm and role. */
typedef struct instr_cube_attrs {
    const char *mod, *paradigm, *role;
} instr_cube_attrs;
void instr_cube_region_attrs(const instr_cube_region *r, instr_cube_attrs *out);

/* Writes the whole archive to f. 0, or -1 on an I/O error or when memory ran out. */
int instr_cube_write(instr_writer *f, const instr_cube_src *src);

#endif
