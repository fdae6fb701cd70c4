/* The reader's own view of an open job database: the mapping, the header's fields, and what
 * open derives once (depths, children). Shared by the files of tools/analysis/. */
#ifndef INSTR_JDB_INTERNAL_H
#define INSTR_JDB_INTERNAL_H

#include "instr_analysis.h"

#include <stdint.h>
#include <string.h>

/* the library exports instr_jdb_* only */
#pragma GCC visibility push(hidden)

/* The format's fixed sizes (docs/profile-format.md). */
enum {
  JDB_HEADER_SIZE = 256,
  JDB_REGION_SIZE = 32,
  JDB_PATH_SIZE = 8,
  JDB_COLUMN_SIZE = 16,
  JDB_RANK_SIZE = 32,
  JDB_ROW_KEY_SIZE = 8,
  JDB_SUMMARY_HEAD = 8,
  JDB_SUMMARY_COLUMN = 32,
  JDB_PRUNED_INDEX_SIZE = 16,
};
/* Header flags: bit 0, the pruned section (set, index, rows) is present. */
#define JDB_FLAG_PRUNED 1u

struct instr_jdb {
  char *file; /* the name errors use */
  int fd;     /* kept open: a query checks that the file did not shrink under the mapping */
  const unsigned char *map;
  uint64_t size;
  unsigned flags;
  uint32_t nranks, nranks_present, nregions, npaths, ncols, row_size, rounds;
  uint64_t duration_ns;
  const char *strings;
  uint64_t strings_len;
  const unsigned char *regions, *paths, *columns, *summary, *rank_index;
  uint64_t rows_offset;
  uint64_t summary_size; /* per path */
  uint32_t *depth;       /* per path */
  uint32_t *child_start; /* npaths + 2 entries: children of path p at [start[p], start[p+1]),
                            the top-level ones at index npaths */
  uint32_t *child;
  /* The pruned section (header flags bit 0; docs/profile-format.md "Pruned section"), else
   * has_pruned 0. in_pruned: per path, whether it is in the pruned set. */
  int has_pruned;
  uint32_t npruned, pruned_threshold; /* threshold in hundredths of a per cent */
  const unsigned char *pruned_set, *pruned_index;
  uint64_t pruned_rows_offset, pruned_rows_len;
  unsigned char *in_pruned;
};

/* Little-endian loads from the mapping (any alignment). */
static inline uint32_t jdb_u32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t jdb_u64(const unsigned char *p) {
  return (uint64_t)jdb_u32(p) | (uint64_t)jdb_u32(p + 4) << 32;
}
static inline double jdb_f64(const unsigned char *p) {
  uint64_t bits = jdb_u64(p);
  double d;
  memcpy(&d, &bits, sizeof d);
  return d;
}
/* A value of a column as a double: kind 4 columns hold IEEE doubles, the others u64. */
static inline double jdb_value(const unsigned char *p, uint32_t kind) {
  return kind == INSTR_JDB_DOUBLE ? jdb_f64(p) : (double)jdb_u64(p);
}

static inline const char *jdb_string(const instr_jdb *db, uint32_t off) {
  return db->strings + off; /* checked at open */
}
static inline const unsigned char *jdb_region_rec(const instr_jdb *db, uint32_t r) {
  return db->regions + (uint64_t)r * JDB_REGION_SIZE;
}
static inline const unsigned char *jdb_path_rec(const instr_jdb *db, uint32_t p) {
  return db->paths + (uint64_t)p * JDB_PATH_SIZE;
}
static inline const unsigned char *jdb_rank_rec(const instr_jdb *db, uint32_t r) {
  return db->rank_index + (uint64_t)r * JDB_RANK_SIZE;
}
static inline const unsigned char *jdb_pruned_rec(const instr_jdb *db, uint32_t r) {
  return db->pruned_index + (uint64_t)r * JDB_PRUNED_INDEX_SIZE;
}
static inline uint32_t jdb_path_parent(const instr_jdb *db, uint32_t p) {
  return jdb_u32(jdb_path_rec(db, p));
}
static inline uint32_t jdb_path_region(const instr_jdb *db, uint32_t p) {
  return jdb_u32(jdb_path_rec(db, p) + 4);
}
static inline const char *jdb_region_name(const instr_jdb *db, uint32_t r) {
  return jdb_string(db, jdb_u32(jdb_region_rec(db, r)));
}
static inline uint32_t jdb_column_kind(const instr_jdb *db, uint32_t c) {
  return jdb_u32(db->columns + (uint64_t)c * JDB_COLUMN_SIZE + 8);
}

/* Errors (error.c): the message of this thread's last failure. */
void jdb_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void jdb_clear_error(void);

/* Whether the file still has the size it had at open (open.c): a file truncated under the
 * mapping raises SIGBUS on the first read of a page past its new end, so every query that
 * reads the mapping checks first (fstat) and fails with a message instead. -1 when it shrank
 * (or cannot be checked), message set. */
int jdb_check_size(const instr_jdb *db);
/* The summary of a path for a column, path and column in range (tree.c). */
void jdb_read_summary(const instr_jdb *db, uint32_t path, uint32_t col, instr_jdb_summary *out);

/* Argument checks shared by the queries (tree.c); each sets the message on failure. */
int jdb_check_path(const instr_jdb *db, uint32_t path);
int jdb_check_column(const instr_jdb *db, uint32_t col);
int jdb_check_selection(const instr_jdb *db, const uint32_t *paths, size_t npaths_sel,
                        const uint32_t *ranks, size_t nranks_sel);

/* path(GLOB) (context_glob.c): set[q] = whether path q's calling context (names joined by
 * '/') matches the glob as fnmatch(glob, context, 0) would; -1 when out of memory. */
int jdb_match_contexts(const instr_jdb *db, const char *glob, unsigned char *set);

/* Ingestion (ingest.c): the rows of a rank (its first row at rows, pruned: those of the
 * pruned section: in the mapping or a copy
 * read from the file) for a path, [*first, *end) as row indices into the rank's rows; 0 when
 * found, 1 when the rank has no row for it, -1 when the rows are damaged (message set, naming
 * the file and rank). */
int jdb_find_path_rows(const instr_jdb *db, uint32_t rank, int pruned,
                       const unsigned char *rows, uint32_t path, uint64_t lo, uint64_t *first,
                       uint64_t *end);
/* Where a rank's rows are: in the rows area (pruned 0) or the pruned section (pruned 1). */
void jdb_rank_extent(const instr_jdb *db, uint32_t rank, int pruned, uint64_t *offset,
                     uint64_t *nrows);
/* Row i of a rank (at row): its path and thread in range and its key after *prev_key (the
 * key of row i - 1); sets *prev_key. pruned: a row of the pruned section, whose path must be
 * in the pruned set too. -1 with the message naming the file, rank and row. */
int jdb_check_row(const instr_jdb *db, uint32_t rank, uint64_t i, const unsigned char *row,
                  uint32_t nthreads, uint64_t *prev_key, int pruned);
/* A rank's rows: the address of row i. */
const unsigned char *jdb_rank_row(const instr_jdb *db, uint32_t rank, uint64_t i);

#pragma GCC visibility pop
#endif
