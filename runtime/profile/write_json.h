/* write_json.h — profile.json, schema version 2 (docs/profile-format.md): one writer
 * (write_json.c) for a process's profile (json_process.c) and an MPI job's merged one
 * (runtime/job/json_adaptor.c), which hand it their data through the callbacks of
 * instr_json_src, as profile.cubex's writer gets it (cube.h). */
#ifndef INSTR_RT_PROFILE_WRITE_JSON_H
#define INSTR_RT_PROFILE_WRITE_JSON_H

#include "profile.h"
#include "../throttle/throttle.h"

#include <stdint.h>
#include <stdio.h>

/* A call path's (or a region's) numbers, in ns; a minimum of UINT64_MAX (none) is written 0. */
typedef struct instr_json_stats {
    uint64_t visits, incl, excl, min_incl, max_incl, min_excl, max_excl;
    instr_msg_counts msgs;   /* each field written only where it is not zero */
    const uint64_t *metrics; /* INSTR_MROWS rows of nmetrics values, or NULL (zeros) */
} instr_json_stats;

typedef struct instr_json_metric {
    const char *name, *source, *unit, *description;
    uint32_t base, type;       /* type: INSTR_METRIC_TYPE_* */
    int32_t exponent;
    const char *synchronicity; /* NULL: not said */
    int shown;                 /* 0: left out of the definitions and the rows */
} instr_json_metric;

typedef struct instr_json_region {
    const char *name, *mangled, *file, *source, *object;
    uint32_t line_begin, line_end;
    const instr_throttle_mark *throttled; /* NULL: not throttled (INSTR_THROTTLE) */
    /* A job's: how many ranks throttled it and the first of them (0: a process's mark). */
    uint32_t throttled_ranks;
    int throttled_rank;
} instr_json_region;

typedef struct instr_json_node {
    int32_t parent; /* -1: top level */
    uint32_t depth, region, nlocs;
    instr_json_stats s;
} instr_json_node;

typedef struct instr_json_src {
    const void *ctx;
    const char *dir; /* the experiment directory */
    /* The "run" object's members between "program" and "instr_version" (each after ",\n"),
     * and after "configuration" (each after ",\n"): what a process and a job tell apart. */
    void (*run_head)(instr_writer *f, const void *ctx);
    void (*run_tail)(instr_writer *f, const void *ctx);
    /* "location_groups" and "locations", whole, each line ending ",\n". */
    void (*places)(instr_writer *f, const void *ctx);
    uint32_t nmetrics; /* the stride of the metric rows */
    void (*metric)(const void *ctx, uint32_t i, instr_json_metric *out);
    uint32_t nregions; /* ids 1..nregions */
    void (*region)(const void *ctx, uint32_t id, instr_json_region *out);
    uint32_t nnodes; /* pre-order */
    void (*node)(const void *ctx, uint32_t i, instr_json_node *out);
    void (*node_location)(const void *ctx, uint32_t i, uint32_t k, uint32_t *location,
                          instr_json_stats *out);
    /* The flat profile of region id: visits, inclusive (outermost calls), exclusive; its
     * messages are the writer's sum over the region's call paths. */
    void (*flat)(const void *ctx, uint32_t id, instr_json_stats *out);
    /* More top-level members after "flat", each after ",\n"; NULL: none. */
    void (*tail)(instr_writer *f, const void *ctx);
} instr_json_src;

/* 0, or -1 on an I/O error. */
int instr_json_write(instr_writer *f, const instr_json_src *src);

#endif
