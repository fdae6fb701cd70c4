/* Comparison of two experiments: a call path of a is matched to the path of b that has the
 * same chain of region names, top-down (the path ids of the two files need not agree). Among
 * b's children of the matched parent with the name, one not yet matched of the same source
 * file wins, then the lowest id. */
#include "jdb_internal.h"

#include <math.h>
#include <stdlib.h>

typedef struct {
  uint32_t slot; /* the parent, npaths for the top level */
  uint32_t id;
  const char *name;
} child_entry;

static int by_slot_name(const void *x, const void *y) {
  const child_entry *a = x, *b = y;
  if (a->slot != b->slot) return a->slot < b->slot ? -1 : 1;
  int c = strcmp(a->name, b->name);
  if (c) return c;
  return a->id < b->id ? -1 : a->id > b->id;
}

static const char *region_file(const instr_jdb *db, uint32_t path) {
  return jdb_string(db, jdb_u32(jdb_region_rec(db, jdb_path_region(db, path)) + 8));
}

/* b's path matching (slot, name, file), not yet used; INSTR_JDB_NO_PARENT when none. */
static uint32_t find_match(const instr_jdb *b, const child_entry *e, size_t n, uint32_t slot,
                           const char *name, const char *file, const unsigned char *used) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = e[mid].slot != slot ? (e[mid].slot < slot ? -1 : 1) : strcmp(e[mid].name, name);
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  uint32_t first_unused = INSTR_JDB_NO_PARENT;
  for (size_t i = lo; i < n && e[i].slot == slot && strcmp(e[i].name, name) == 0; i++) {
    if (used[e[i].id]) continue;
    if (strcmp(region_file(b, e[i].id), file) == 0) return e[i].id;
    if (first_unused == INSTR_JDB_NO_PARENT) first_unused = e[i].id;
  }
  return first_unused;
}

static double stat_value(const instr_jdb *db, uint32_t path, uint32_t col, int stat) {
  instr_jdb_summary s;
  jdb_read_summary(db, path, col, &s);
  switch (stat) {
  case INSTR_JDB_STAT_MEAN: return db->nranks ? s.sum / db->nranks : NAN;
  case INSTR_JDB_STAT_MIN: return s.min;
  case INSTR_JDB_STAT_MAX: return s.max;
  default: return s.sum;
  }
}

long instr_jdb_compare(const instr_jdb *a, const instr_jdb *b, const char *column, int stat,
                       instr_jdb_match *out, size_t cap) {
  jdb_clear_error();
  if (stat < INSTR_JDB_STAT_SUM || stat > INSTR_JDB_STAT_MAX) {
    jdb_fail("%s: comparison statistic %d: it must be 0 (sum), 1 (mean), 2 (min) or 3 (max)",
             a->file, stat);
    return -1;
  }
  long col_a = instr_jdb_find_column(a, column);
  if (col_a < 0) return -1;
  long col_b = instr_jdb_find_column(b, column);
  if (col_b < 0) return -1;
  child_entry *e = malloc((b->npaths ? b->npaths : 1) * sizeof *e);
  uint32_t *match = malloc((a->npaths ? a->npaths : 1) * sizeof *match);
  unsigned char *used = calloc(b->npaths ? b->npaths : 1, 1);
  if (!e || !match || !used) {
    free(e), free(match), free(used);
    jdb_fail("%s: out of memory to compare with %s", a->file, b->file);
    return -1;
  }
  for (uint32_t q = 0; q < b->npaths; q++) {
    uint32_t parent = jdb_path_parent(b, q);
    e[q] = (child_entry){parent == INSTR_JDB_NO_PARENT ? b->npaths : parent, q,
                         jdb_region_name(b, jdb_path_region(b, q))};
  }
  qsort(e, b->npaths, sizeof *e, by_slot_name);
  long n = 0;
  for (uint32_t q = 0; q < a->npaths; q++) {
    uint32_t parent = jdb_path_parent(a, q);
    uint32_t slot = parent == INSTR_JDB_NO_PARENT ? b->npaths : match[parent];
    match[q] = slot == INSTR_JDB_NO_PARENT
                   ? INSTR_JDB_NO_PARENT
                   : find_match(b, e, b->npaths, slot, jdb_region_name(a, jdb_path_region(a, q)),
                                region_file(a, q), used);
    if (match[q] != INSTR_JDB_NO_PARENT) used[match[q]] = 1;
    n++;
  }
  for (uint32_t q = 0; q < b->npaths; q++) n += !used[q];
  if (out && cap >= (size_t)n) {
    long i = 0;
    for (uint32_t q = 0; q < a->npaths; q++, i++) {
      double va = stat_value(a, q, (uint32_t)col_a, stat);
      double vb = match[q] == INSTR_JDB_NO_PARENT ? NAN
                                                  : stat_value(b, match[q], (uint32_t)col_b, stat);
      out[i] = (instr_jdb_match){q, match[q], va, vb, (isnan(vb) ? 0 : vb) - va};
    }
    for (uint32_t q = 0; q < b->npaths; q++)
      if (!used[q]) {
        double vb = stat_value(b, q, (uint32_t)col_b, stat);
        out[i++] = (instr_jdb_match){INSTR_JDB_NO_PARENT, q, NAN, vb, vb};
      }
  }
  free(e), free(match), free(used);
  return n;
}
