/* jobdb_pruned.h — the job database's pruned section (docs/profile-format.md, "Pruned
 * section"): the call paths whose time_incl is at least 1 % of the run's (the set a query's
 * `time_incl >= 1%` selects) and every rank's rows of them, in front of the rows area, so that
 * a pruned query reads a few per cent of the rows. The writer's core (jobdb_pruned.c, no MPI):
 * the set from a finished summary, a rank's rows of it, the layout and the header's fields.
 * The MPI writer's steps are in mpi_jobdb_pruned.c; tools/instr-jobdb-gen uses the core. */
#ifndef INSTR_RT_JOBDB_PRUNED_H
#define INSTR_RT_JOBDB_PRUNED_H

#include "jobdb.h"

#define INSTR_JDB_FLAG_PRUNED 1u /* header flags bit 0 */
/* The threshold, in hundredths of a per cent of the run's time_incl: 1 %. */
#define INSTR_JDB_PRUNED_THRESHOLD 100u

/* Where the section goes: between the rank index and the rows area. */
typedef struct instr_jdb_pruned_layout {
    uint64_t set, index, rows, rows_bytes;
    uint32_t nset, threshold;
} instr_jdb_pruned_layout;

/* The pruned set of the union u's finished summary sum (instr_jdb_summary_finish): the path
 * ids, ascending, whose summary sum of time_incl is at least threshold / 100 % of the run's
 * total, computed with the same doubles in the same order as the reader's select()
 * (tools/analysis: the total is the sum over the top-level paths, in id order, for an
 * inclusive column). *set from instr_mem_alloc (freed with instr_mem_free); 0, or -1 without
 * memory. */
int instr_jdb_pruned_set(const uint64_t *sum, const instr_jdb_defs *u, uint32_t threshold,
                         uint32_t **set, uint32_t *nset);
/* A rank's rows (sorted, union ids) of the paths of set (ascending): into out (ncols as in),
 * same order. 0, or -1 without memory. */
int instr_jdb_pruned_rows(const instr_jdb_rows *in, const uint32_t *set, uint32_t nset,
                          instr_jdb_rows *out);
/* Places the section (nset paths, rows_bytes of rows over nranks ranks) where l's rows area
 * began and moves the rows area behind it. */
void instr_jdb_pruned_place(instr_jdb_layout *l, uint32_t nranks, uint32_t nset,
                            uint64_t rows_bytes, uint32_t threshold, instr_jdb_pruned_layout *p);
/* The section's header fields and flag into a header from instr_jdb_header_encode. */
void instr_jdb_pruned_header(unsigned char hdr[INSTR_JDB_HEADER_SIZE],
                             const instr_jdb_pruned_layout *p);
/* A rank's pruned index record: its pruned rows' offset and count. */
void instr_jdb_pruned_index_encode(unsigned char out[16], uint64_t offset, uint64_t nrows);

#endif
