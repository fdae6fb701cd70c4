/* merged_metrics.h — metrics in a parallel job's profile (merged_metrics.c; docs/metrics.md).
 *
 * In a rank's blob: one M line per metric of the rank's profile, after its P line,
 *   M <type> <base> <exponent> <name>\t<unit>\t<source>\t<description>
 * and after every N line with metrics one V line: the node's rows (instr_mtree's
 * INSTR_MROW_* order: inclusive, exclusive, min, max), each with one value per M line, as
 * the values' 64 bits in decimal. The merge takes the metric set of the first rank that has
 * metrics and matches the others' by name. */
#ifndef INSTR_RT_JOB_METRICS_H
#define INSTR_RT_JOB_METRICS_H

#include "../profile/profile.h"

#include <stdint.h>
#include <stdio.h>

/* The blob's side. A text field of a line: tabs and line ends as blanks (blob_write.c). */
void instr_job_clean_field(instr_writer *f, const char *s);
/* The last n fields of a line, each cleaned, tab-separated, and the line's end. */
void instr_job_clean_fields(instr_writer *f, const char *const *fields, size_t n);
/* Grows the array whose pointer is at `pp` (any T **) to hold `need` elements: 0, or -1
 * without memory (the array unchanged). */
int instr_job_grow(void *pp, uint32_t *cap, uint32_t need, size_t elem);
void instr_job_blob_metric_defs(instr_writer *f);
void instr_job_blob_metric_values(instr_writer *f, const instr_pnode *n, uint32_t nm);

/* The merge's side. */
typedef struct instr_job_metrics {
    char **name, **unit, **source, **description;
    uint32_t *type, *base;
    int32_t *exponent;
    uint32_t n, cap;
    int32_t *map;        /* the current blob's M lines -> job metric, or -1 */
    uint32_t nmap, capmap;
    int fixed;           /* the set is the first rank's with metrics */
} instr_job_metrics;

/* A new blob begins (its M lines define its mapping). */
void instr_job_metrics_blob_begin(instr_job_metrics *jm);
/* An M line; 0, or -1 when malformed or out of memory. */
int instr_job_metrics_def(instr_job_metrics *jm, const char *line);
/* A V line into the node's rows (*node_m) and the node location's (*loc_m), allocated on
 * first use; 0, or -1. */
int instr_job_metrics_values(instr_job_metrics *jm, const char *line, uint64_t **node_m,
                             int node_first, uint64_t **loc_m);
/* The same for rows already in the job's metric order (INSTR_MROWS x n, from instr_mem_alloc; taken
 * over, also on failure). */
int instr_job_metrics_add(instr_job_metrics *jm, uint64_t *rows, uint64_t **node_m,
                          int node_first, uint64_t **loc_m);
/* profile.json: the "metrics" list, and a node's or location's ", \"metrics\": {...}". */
void instr_job_metrics_json_defs(instr_writer *f, const instr_job_metrics *jm);
void instr_job_metrics_json_rows(instr_writer *f, const instr_job_metrics *jm, const uint64_t *m);
void instr_job_metrics_free(instr_job_metrics *jm);

#endif
