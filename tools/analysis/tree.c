/* The definitions of an open database: the call tree, regions, columns, the summary and the
 * rank index, each read from the mapping that open checked. */
#include "jdb_internal.h"

#include <inttypes.h>
#include <stdio.h>

int jdb_check_path(const instr_jdb *db, uint32_t path) {
  if (path >= db->npaths) {
    jdb_fail("%s: no path %" PRIu32 ": the database has paths 0..%" PRId64, db->file, path,
             (int64_t)db->npaths - 1);
    return -1;
  }
  return 0;
}

int jdb_check_column(const instr_jdb *db, uint32_t col) {
  if (col >= db->ncols) {
    jdb_fail("%s: no column %" PRIu32 ": the database has columns 0..%" PRIu32, db->file, col,
             db->ncols - 1);
    return -1;
  }
  return 0;
}

int jdb_check_selection(const instr_jdb *db, const uint32_t *paths, size_t npaths_sel,
                        const uint32_t *ranks, size_t nranks_sel) {
  for (size_t i = 0; i < npaths_sel; i++)
    if (jdb_check_path(db, paths[i])) return -1;
  if (ranks)
    for (size_t i = 0; i < nranks_sel; i++)
      if (ranks[i] >= db->nranks) {
        jdb_fail("%s: no rank %" PRIu32 ": the job had ranks 0..%" PRId64, db->file, ranks[i],
                 (int64_t)db->nranks - 1);
        return -1;
      }
  return 0;
}

void instr_jdb_get_info(const instr_jdb *db, instr_jdb_info *out) {
  out->nranks = db->nranks;
  out->nranks_present = db->nranks_present;
  out->nregions = db->nregions;
  out->npaths = db->npaths;
  out->ncols = db->ncols;
  out->unification_rounds = db->rounds;
  out->duration_ns = db->duration_ns;
  out->file_size = db->size;
}

int instr_jdb_get_region(const instr_jdb *db, uint32_t region, instr_jdb_region *out) {
  if (region >= db->nregions) {
    jdb_fail("%s: no region %" PRIu32 ": the database has %" PRIu32 " regions", db->file,
             region, db->nregions);
    return -1;
  }
  if (jdb_check_size(db)) return -1;
  const unsigned char *rec = jdb_region_rec(db, region);
  out->name = jdb_string(db, jdb_u32(rec));
  out->mangled = jdb_string(db, jdb_u32(rec + 4));
  out->file = jdb_string(db, jdb_u32(rec + 8));
  out->object = jdb_string(db, jdb_u32(rec + 12));
  out->line_begin = jdb_u32(rec + 16);
  out->line_end = jdb_u32(rec + 20);
  out->paradigm = jdb_u32(rec + 24);
  out->flags = jdb_u32(rec + 28);
  return 0;
}

int instr_jdb_get_path(const instr_jdb *db, uint32_t path, instr_jdb_path *out) {
  if (jdb_check_path(db, path) || jdb_check_size(db)) return -1;
  out->parent = jdb_path_parent(db, path);
  out->region = jdb_path_region(db, path);
  out->depth = db->depth[path];
  out->nchildren = db->child_start[path + 1] - db->child_start[path];
  return 0;
}

int instr_jdb_path_table(const instr_jdb *db, uint32_t *parent, uint32_t *region,
                         uint32_t *depth) {
  if (jdb_check_size(db)) return -1;
  for (uint32_t p = 0; p < db->npaths; p++) {
    if (parent) parent[p] = jdb_path_parent(db, p);
    if (region) region[p] = jdb_path_region(db, p);
    if (depth) depth[p] = db->depth[p];
  }
  return 0;
}

long instr_jdb_children(const instr_jdb *db, uint32_t path, uint32_t *out, size_t cap) {
  uint32_t slot = path == INSTR_JDB_NO_PARENT ? db->npaths : path;
  if (path != INSTR_JDB_NO_PARENT && jdb_check_path(db, path)) return -1;
  uint32_t begin = db->child_start[slot], end = db->child_start[slot + 1];
  for (uint32_t i = begin; i < end && i - begin < cap; i++) out[i - begin] = db->child[i];
  return (long)(end - begin);
}

long instr_jdb_context(const instr_jdb *db, uint32_t path, uint32_t *out, size_t cap) {
  if (jdb_check_path(db, path) || jdb_check_size(db)) return -1;
  size_t len = (size_t)db->depth[path] + 1;
  size_t i = len;
  for (uint32_t p = path; p != INSTR_JDB_NO_PARENT; p = jdb_path_parent(db, p)) {
    i--;
    if (i < cap) out[i] = p;
  }
  return (long)len;
}

int instr_jdb_get_column(const instr_jdb *db, uint32_t col, instr_jdb_column *out) {
  if (jdb_check_column(db, col) || jdb_check_size(db)) return -1;
  const unsigned char *rec = db->columns + (uint64_t)col * JDB_COLUMN_SIZE;
  out->name = jdb_string(db, jdb_u32(rec));
  out->unit = jdb_string(db, jdb_u32(rec + 4));
  out->kind = jdb_u32(rec + 8);
  out->flags = jdb_u32(rec + 12);
  return 0;
}

long instr_jdb_find_column(const instr_jdb *db, const char *name) {
  if (jdb_check_size(db)) return -1;
  for (uint32_t c = 0; c < db->ncols; c++)
    if (strcmp(jdb_string(db, jdb_u32(db->columns + (uint64_t)c * JDB_COLUMN_SIZE)), name) == 0)
      return c;
  char names[512];
  size_t used = 0;
  names[0] = '\0';
  for (uint32_t c = 0; c < db->ncols && used < sizeof names; c++) {
    int n = snprintf(names + used, sizeof names - used, "%s%s", c ? ", " : "",
                     jdb_string(db, jdb_u32(db->columns + (uint64_t)c * JDB_COLUMN_SIZE)));
    if (n < 0) break;
    used += (size_t)n;
  }
  jdb_fail("%s: no column \"%s\"; the columns are: %s", db->file, name, names);
  return -1;
}

void jdb_read_summary(const instr_jdb *db, uint32_t path, uint32_t col, instr_jdb_summary *out) {
  const unsigned char *rec = db->summary + (uint64_t)path * db->summary_size;
  const unsigned char *v = rec + JDB_SUMMARY_HEAD + (uint64_t)col * JDB_SUMMARY_COLUMN;
  uint32_t kind = jdb_column_kind(db, col);
  out->nranks_visited = jdb_u32(rec);
  out->sum = jdb_value(v, kind);
  out->min = jdb_value(v + 8, kind);
  out->max = jdb_value(v + 16, kind);
  out->sum_squares = jdb_f64(v + 24);
}

int instr_jdb_get_summary(const instr_jdb *db, uint32_t path, uint32_t col,
                          instr_jdb_summary *out) {
  if (jdb_check_path(db, path) || jdb_check_column(db, col) || jdb_check_size(db)) return -1;
  jdb_read_summary(db, path, col, out);
  return 0;
}

double instr_jdb_total(const instr_jdb *db, uint32_t col) {
  if (jdb_check_column(db, col) || jdb_check_size(db)) return 0;
  /* an inclusive column: its top-level paths hold the rest; an exclusive one: every path */
  int inclusive = jdb_u32(db->columns + (uint64_t)col * JDB_COLUMN_SIZE + 12) & INSTR_JDB_INCLUSIVE;
  double total = 0;
  uint32_t slot = db->npaths;
  for (uint32_t i = inclusive ? db->child_start[slot] : 0;
       i < (inclusive ? db->child_start[slot + 1] : db->npaths); i++) {
    instr_jdb_summary s;
    jdb_read_summary(db, inclusive ? db->child[i] : i, col, &s);
    total += s.sum;
  }
  return total;
}

int instr_jdb_get_rank(const instr_jdb *db, uint32_t rank, instr_jdb_rank *out) {
  if (jdb_check_selection(db, NULL, 0, &rank, 1) || jdb_check_size(db)) return -1;
  const unsigned char *rec = jdb_rank_rec(db, rank);
  out->nrows = jdb_u64(rec + 8);
  out->nthreads = jdb_u32(rec + 16);
  out->present = jdb_u32(rec + 20) & 1u;
  out->duration_ns = jdb_u64(rec + 24);
  return 0;
}
