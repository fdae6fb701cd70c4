/* score.h — instr-score's model of a profile: per region the visits, times and the trace
 * bytes it would cost per process (docs/score.md). */
#ifndef INSTR_SCORE_H
#define INSTR_SCORE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Score-P's region types: USR user code on no path to MPI/OpenMP, COM user code on a path
 * leading to MPI or OpenMP, MPI and OMP the parallel runtimes' own regions. */
enum score_type { SCORE_USR, SCORE_COM, SCORE_MPI, SCORE_OMP, SCORE_NTYPES };

/* The trace's cost, as docs/score.md derives it: one record per enter and one per exit, 12
 * bytes each on disk and in the trace's buffer (docs/tracing.md); MPI adds records of about
 * 16 bytes: one per blocking message, two per non-blocking one (request and completion), two
 * per collective call (begin and end). */
#define SCORE_BYTES_PER_EVENT 12u
#define SCORE_BYTES_PER_MPI_RECORD 16u
/* OTF2's definitions (docs/score.md, fitted on the bench workloads): a fixed part, per
 * region its names and a record, per file its path, per location its files' headers. */
#define SCORE_DEF_BYTES_FIXED 354u
#define SCORE_DEF_BYTES_PER_REGION 24u
#define SCORE_DEF_BYTES_PER_FILE 8u
#define SCORE_DEF_BYTES_PER_LOCATION 80u
/* Call-tree memory per call path (docs/performance.md), counted into INSTR_TOTAL_MEMORY. */
#define SCORE_BYTES_PER_CALL_PATH 136u
/* Synchronous metrics (docs/score.md; measured on bench calls with the count plugin): in a
 * single process's trace one OTF2 Metric event follows every enter and exit, 4 bytes and per
 * metric its type (1 byte) and its value, compressed to 1 byte and the value's significant
 * bytes (a double or a negative int64 takes 9). The trace's own buffer holds one 12-byte
 * record per metric and event instead. */
#define SCORE_METRIC_EVENT_BYTES 4u
#define SCORE_METRIC_BUFFER_BYTES 12u
enum { SCORE_METRIC_UINT64, SCORE_METRIC_INT64, SCORE_METRIC_DOUBLE };

typedef struct score_region {
    char *name, *mangled, *file, *source;
    int type;
    uint64_t visits, incl_ns, excl_ns; /* over the whole run or job */
    uint64_t *group_bytes;             /* trace bytes per process (location group) */
    uint64_t *group_buffer;            /* the same in the trace's buffer (metrics differ) */
    uint64_t max_buf;                  /* trace bytes on the busiest process */
    int filtered;                      /* -f: the spec excludes it */
    int is_main;
    uint64_t throttled_visit;          /* INSTR_THROTTLE stopped it at this visit; 0: never */
} score_region;

typedef struct score_profile {
    score_region *regions;
    size_t nregions;
    size_t ngroups, nlocations, ncallpaths;
    uint64_t *group_callpaths;          /* call paths per process */
    uint64_t total_excl_ns;
    char source[64];                    /* the file it was read from */
} score_profile;

/* Reads DIR/profile.json into p. 0, or -1 with a message in err (what and where). */
int score_read_json(const char *dir, score_profile *p, char *err, size_t errsize);
/* Reads DIR/profile.cubex (CUBE4, as instr or Score-P writes it) into p; the same. */
int score_read_cubex(const char *dir, score_profile *p, char *err, size_t errsize);
void score_free(score_profile *p);

/* The readers' common part. A region from its strings (NULL reads as ""): copies of them,
 * its type from source (instr's region source: compiler, mpi, openmp, manual), zeroed trace
 * bytes for ngroups processes. 0, or -1 when memory ran out (score_free frees what was
 * filled). */
int score_region_init(score_region *r, const char *name, const char *mangled, const char *file,
                      const char *source, size_t ngroups);
/* What the metrics add to each enter and exit of a location. */
typedef struct score_metric_cost {
    double disk;     /* bytes of the Metric event */
    uint64_t buffer; /* bytes in the trace's buffer */
} score_metric_cost;
/* n metrics of these types (SCORE_METRIC_*) whose values on the location grow from about 0
 * to these totals (the sums over its outermost call paths). */
score_metric_cost score_metric_cost_of(size_t n, const uint32_t *types, const double *totals);
/* Adds the trace bytes of one call path on one location of process g to r: its enters and
 * exits, for MPI regions the message records, and the metrics' records (mc; NULL: none). */
void score_add_node(score_region *r, size_t g, uint64_t visits, uint64_t sent, uint64_t received,
                    const score_metric_cost *mc);
/* After the readers filled regions (with group_bytes) and the call tree (n call paths,
 * parent[i] < i or -1, region[i] an index in p->regions): max_buf per region, and USR
 * regions on a path to MPI or OpenMP become COM. */
void score_finish(score_profile *p, const int64_t *parent, const size_t *region, size_t n);

const char *score_type_name(int type);

/* Totals over the regions a filter keeps (filtered 0) or over all (all 1). */
typedef struct score_totals {
    uint64_t visits[SCORE_NTYPES + 1], excl_ns[SCORE_NTYPES + 1], max_buf[SCORE_NTYPES + 1];
    uint64_t trace_bytes;    /* estimated size of the whole trace on disk */
    uint64_t total_memory;   /* INSTR_TOTAL_MEMORY that holds the busiest process's trace */
} score_totals;
void score_totals_of(const score_profile *p, int all, score_totals *t);

/* The summary (and with per_region the region rows) as scorep-score prints them. */
void score_print(FILE *f, const score_profile *p, int per_region, int with_filter);

/* -g: the regions to leave out. */
typedef struct score_gen_options {
    uint64_t min_visits;        /* at least this many visits */
    double max_ns_per_visit;    /* at most this inclusive time per visit */
    int scorep;                 /* Score-P's filter-file spelling */
} score_gen_options;
/* Writes the spec; returns how many regions it excludes. */
size_t score_generate(FILE *f, const score_profile *p, const score_gen_options *o,
                      const char *dir);

/* A region name for a line of text: backslash, newline, tab and the other control
 * characters escaped (\\, \n, \t, \xHH), so that a name cannot forge a line; cut to size. */
void score_escape(char *out, size_t size, const char *name);
/* 1 when s holds a control character (no spec line can hold such a name). */
int score_has_control(const char *s);

#endif
