/* Opening a job database: map it and check everything the format promises
 * (docs/profile-format.md) before any query trusts an offset or an id; then derive what the
 * tree queries need (depths, children). Every message names the file and what is wrong. */
#include "jdb_internal.h"
#include "input_file.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const fixed_columns[7] = {"visits",         "time_incl",     "time_excl",
                                             "bytes_sent",     "bytes_received",
                                             "messages_sent",  "messages_received"};

typedef struct {
  const char *name;
  uint64_t offset, length;
} section;

/* A section of count records of size bytes at the header's field: aligned, after the header,
 * inside the file, its length without overflow. */
static int check_section(const instr_jdb *db, section *s, const char *name, unsigned field,
                         uint64_t count, uint64_t size) {
  uint64_t off = jdb_u64(db->map + field);
  uint64_t len;
  s->name = name;
  s->offset = off;
  if (__builtin_mul_overflow(count, size, &len)) {
    jdb_fail("%s: damaged: %" PRIu64 " %s records of %" PRIu64 " bytes overflow", db->file,
             count, name, size);
    return -1;
  }
  s->length = len;
  if (off % 8 != 0) {
    jdb_fail("%s: damaged: the %s offset %" PRIu64 " (header byte %u) is not a multiple of 8",
             db->file, name, off, field);
    return -1;
  }
  if (off < JDB_HEADER_SIZE) {
    jdb_fail("%s: damaged: the %s offset %" PRIu64 " (header byte %u) is inside the header",
             db->file, name, off, field);
    return -1;
  }
  if (off > db->size || len > db->size - off) {
    jdb_fail("%s: damaged: the %s section (%" PRIu64 " bytes at offset %" PRIu64
             ", header byte %u) runs past the end of the file (%" PRIu64 " bytes)",
             db->file, name, len, off, field, db->size);
    return -1;
  }
  return 0;
}

static int by_offset(const void *a, const void *b) {
  const section *x = a, *y = b;
  return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int check_string(const instr_jdb *db, uint32_t off, const char *what, uint32_t id,
                        const char *field) {
  if (off >= db->strings_len) {
    jdb_fail("%s: damaged: %s %" PRIu32 ": its %s string offset %" PRIu32
             " is outside the string section (%" PRIu64 " bytes)",
             db->file, what, id, field, off, db->strings_len);
    return -1;
  }
  return 0;
}

static int check_header(instr_jdb *db) {
  const unsigned char *h = db->map;
  if (memcmp(h, "INSTRJDB", 8) != 0) {
    jdb_fail("%s: not a job database: the magic is not \"INSTRJDB\"", db->file);
    return -1;
  }
  uint32_t version = jdb_u32(h + 8), header_size = jdb_u32(h + 12);
  if (version != INSTR_JDB_VERSION) {
    jdb_fail("%s: format version %" PRIu32 ", this reader knows version %d", db->file, version,
             INSTR_JDB_VERSION);
    return -1;
  }
  if (header_size != JDB_HEADER_SIZE) {
    jdb_fail("%s: damaged: header size field says %" PRIu32 ", version 1 has %d", db->file,
             header_size, JDB_HEADER_SIZE);
    return -1;
  }
  uint64_t file_size = jdb_u64(h + 16);
  if (file_size == 0) {
    jdb_fail("%s: unfinished: the file size field is 0 (the writer did not finish the file; "
             "did the job end early?)",
             db->file);
    return -1;
  }
  if (file_size != db->size) {
    jdb_fail("%s: %s: file size field says %" PRIu64 " bytes, the file has %" PRIu64, db->file,
             file_size > db->size ? "truncated" : "damaged", file_size, db->size);
    return -1;
  }
  db->nranks = jdb_u32(h + 24);
  db->nranks_present = jdb_u32(h + 28);
  db->nregions = jdb_u32(h + 32);
  db->npaths = jdb_u32(h + 36);
  db->ncols = jdb_u32(h + 40);
  db->row_size = jdb_u32(h + 44);
  db->duration_ns = jdb_u64(h + 48);
  db->rounds = jdb_u32(h + 120);
  if (db->nranks_present > db->nranks) {
    jdb_fail("%s: damaged: %" PRIu32 " ranks present of a job of %" PRIu32, db->file,
             db->nranks_present, db->nranks);
    return -1;
  }
  if (db->ncols < 7 || db->ncols > (UINT32_MAX - JDB_ROW_KEY_SIZE) / 8) {
    jdb_fail("%s: damaged: %" PRIu32 " columns (at least the 7 fixed ones, at most %u)",
             db->file, db->ncols, (UINT32_MAX - JDB_ROW_KEY_SIZE) / 8);
    return -1;
  }
  if (db->row_size != JDB_ROW_KEY_SIZE + 8u * db->ncols) {
    jdb_fail("%s: damaged: row size field says %" PRIu32 " bytes, %" PRIu32
             " columns make %" PRIu32,
             db->file, db->row_size, db->ncols, JDB_ROW_KEY_SIZE + 8u * db->ncols);
    return -1;
  }
  if (db->npaths == INSTR_JDB_NO_PARENT) {
    jdb_fail("%s: damaged: %" PRIu32 " paths (the id 0xFFFFFFFF means no parent)", db->file,
             db->npaths);
    return -1;
  }
  uint32_t hflags = jdb_u32(h + 124);
  if (hflags & ~JDB_FLAG_PRUNED) {
    jdb_fail("%s: flags 0x%" PRIx32 " in the header are unknown to this reader (it knows bit "
             "0, the pruned section)",
             db->file, hflags);
    return -1;
  }
  db->has_pruned = (hflags & JDB_FLAG_PRUNED) != 0;
  /* bytes 128..167 are the pruned section's fields when it is present */
  for (unsigned i = db->has_pruned ? 168 : 128; i < JDB_HEADER_SIZE; i++)
    if (h[i] != 0) {
      jdb_fail("%s: damaged: reserved header byte %u is %u, not 0", db->file, i, h[i]);
      return -1;
    }
  return 0;
}

static int check_sections(instr_jdb *db) {
  section s[10];
  int ns = 7;
  uint64_t sl = jdb_u64(db->map + 64);
  db->summary_size = JDB_SUMMARY_HEAD + (uint64_t)JDB_SUMMARY_COLUMN * db->ncols;
  if (check_section(db, &s[0], "strings", 56, sl, 1) ||
      check_section(db, &s[1], "regions", 72, db->nregions, JDB_REGION_SIZE) ||
      check_section(db, &s[2], "paths", 80, db->npaths, JDB_PATH_SIZE) ||
      check_section(db, &s[3], "columns", 88, db->ncols, JDB_COLUMN_SIZE) ||
      check_section(db, &s[4], "summary", 96, db->npaths, db->summary_size) ||
      check_section(db, &s[5], "rank index", 104, db->nranks, JDB_RANK_SIZE))
    return -1;
  db->rows_offset = jdb_u64(db->map + 112);
  if (check_section(db, &s[6], "rows", 112, 0, 1)) return -1;
  s[6].length = db->size - db->rows_offset;
  if (db->has_pruned) {
    db->npruned = jdb_u32(db->map + 136);
    db->pruned_threshold = jdb_u32(db->map + 140);
    db->pruned_rows_len = jdb_u64(db->map + 160);
    if (db->npruned > db->npaths) {
      jdb_fail("%s: damaged: the pruned set has %" PRIu32 " paths of %" PRIu32, db->file,
               db->npruned, db->npaths);
      return -1;
    }
    if (check_section(db, &s[7], "pruned set", 128, db->npruned, 4) ||
        check_section(db, &s[8], "pruned index", 144, db->nranks, JDB_PRUNED_INDEX_SIZE) ||
        check_section(db, &s[9], "pruned rows", 152, db->pruned_rows_len, 1))
      return -1;
    if (db->pruned_rows_len % db->row_size != 0) {
      jdb_fail("%s: damaged: the pruned rows' %" PRIu64 " bytes (header byte 160) are not "
               "whole rows of %" PRIu32 " bytes",
               db->file, db->pruned_rows_len, db->row_size);
      return -1;
    }
    /* the rows area runs to the end of the file: every other section lies before it */
    for (int i = 7; i < 10; i++)
      if (s[i].offset + s[i].length > db->rows_offset) {
        jdb_fail("%s: damaged: the %s section (offset %" PRIu64 ", %" PRIu64
                 " bytes) does not end before the rows area (offset %" PRIu64 ")",
                 db->file, s[i].name, s[i].offset, s[i].length, db->rows_offset);
        return -1;
      }
    db->pruned_set = db->map + s[7].offset;
    db->pruned_index = db->map + s[8].offset;
    db->pruned_rows_offset = s[9].offset;
    ns = 10;
  }
  section sorted[10];
  memcpy(sorted, s, sizeof s);
  qsort(sorted, (size_t)ns, sizeof sorted[0], by_offset);
  for (int i = 1; i < ns; i++)
    if (sorted[i - 1].length > 0 && sorted[i].length > 0 &&
        sorted[i - 1].offset + sorted[i - 1].length > sorted[i].offset) {
      jdb_fail("%s: damaged: the %s section (offset %" PRIu64 ", %" PRIu64
               " bytes) overlaps the %s section (offset %" PRIu64 ")",
               db->file, sorted[i - 1].name, sorted[i - 1].offset, sorted[i - 1].length,
               sorted[i].name, sorted[i].offset);
      return -1;
    }
  db->strings = (const char *)db->map + s[0].offset;
  db->strings_len = sl;
  db->regions = db->map + s[1].offset;
  db->paths = db->map + s[2].offset;
  db->columns = db->map + s[3].offset;
  db->summary = db->map + s[4].offset;
  db->rank_index = db->map + s[5].offset;
  if (sl == 0 || sl > UINT32_MAX + 1ull || db->strings[0] != '\0' ||
      db->strings[sl - 1] != '\0') {
    jdb_fail("%s: damaged: the string section (%" PRIu64 " bytes) must start and end with a "
             "NUL and be at most 4 GiB",
             db->file, sl);
    return -1;
  }
  return 0;
}

static int check_definitions(instr_jdb *db) {
  static const char *const region_fields[4] = {"name", "mangled", "file", "object"};
  for (uint32_t r = 0; r < db->nregions; r++) {
    const unsigned char *rec = jdb_region_rec(db, r);
    for (int f = 0; f < 4; f++)
      if (check_string(db, jdb_u32(rec + 4 * f), "region", r, region_fields[f])) return -1;
    if (jdb_u32(rec + 24) > INSTR_JDB_OTHER) {
      jdb_fail("%s: damaged: region %" PRIu32 " (%s): paradigm %" PRIu32 " is not 0..4",
               db->file, r, jdb_region_name(db, r), jdb_u32(rec + 24));
      return -1;
    }
  }
  for (uint32_t p = 0; p < db->npaths; p++) {
    uint32_t parent = jdb_path_parent(db, p), region = jdb_path_region(db, p);
    if (parent != INSTR_JDB_NO_PARENT && parent >= p) {
      jdb_fail("%s: damaged: path %" PRIu32 ": its parent %" PRIu32
               " does not come before it",
               db->file, p, parent);
      return -1;
    }
    if (region >= db->nregions) {
      jdb_fail("%s: damaged: path %" PRIu32 ": region %" PRIu32 " of %" PRIu32 " regions",
               db->file, p, region, db->nregions);
      return -1;
    }
  }
  for (uint32_t c = 0; c < db->ncols; c++) {
    const unsigned char *rec = db->columns + (uint64_t)c * JDB_COLUMN_SIZE;
    if (check_string(db, jdb_u32(rec), "column", c, "name") ||
        check_string(db, jdb_u32(rec + 4), "column", c, "unit"))
      return -1;
    if (jdb_u32(rec + 8) > INSTR_JDB_DOUBLE) {
      jdb_fail("%s: damaged: column %" PRIu32 " (%s): kind %" PRIu32 " is not 0..4", db->file, c,
               jdb_string(db, jdb_u32(rec)), jdb_u32(rec + 8));
      return -1;
    }
    if (c < 7 && strcmp(jdb_string(db, jdb_u32(rec)), fixed_columns[c]) != 0) {
      jdb_fail("%s: damaged: column %" PRIu32 " is \"%s\", the format has \"%s\" there",
               db->file, c, jdb_string(db, jdb_u32(rec)), fixed_columns[c]);
      return -1;
    }
  }
  for (uint32_t p = 0; p < db->npaths; p++) {
    const unsigned char *rec = db->summary + (uint64_t)p * db->summary_size;
    if (jdb_u32(rec) > db->nranks_present || jdb_u32(rec + 4) != 0) {
      jdb_fail("%s: damaged: summary of path %" PRIu32 ": %" PRIu32
               " ranks visited of %" PRIu32 " present (and the padding %" PRIu32 ", not 0)",
               db->file, p, jdb_u32(rec), db->nranks_present, jdb_u32(rec + 4));
      return -1;
    }
  }
  return 0;
}

static int check_rank_index(instr_jdb *db) {
  uint64_t prev_end = db->rows_offset;
  uint32_t present = 0;
  for (uint32_t r = 0; r < db->nranks; r++) {
    const unsigned char *rec = jdb_rank_rec(db, r);
    uint64_t off = jdb_u64(rec), nrows = jdb_u64(rec + 8), len;
    uint32_t nthreads = jdb_u32(rec + 16), flags = jdb_u32(rec + 20);
    if (flags & 1u) present++;
    if (nrows == 0) continue;
    if (!(flags & 1u)) {
      jdb_fail("%s: damaged: rank %" PRIu32 " is marked absent but has %" PRIu64 " rows",
               db->file, r, nrows);
      return -1;
    }
    if (nthreads == 0) {
      jdb_fail("%s: damaged: rank %" PRIu32 " has %" PRIu64 " rows and no threads", db->file,
               r, nrows);
      return -1;
    }
    if (__builtin_mul_overflow(nrows, (uint64_t)db->row_size, &len) || off < prev_end ||
        off % 8 != 0 || off > db->size || len > db->size - off) {
      jdb_fail("%s: damaged: rank %" PRIu32 ": %" PRIu64 " rows at offset %" PRIu64
               " are not inside the rows area [%" PRIu64 ", %" PRIu64
               ") after the previous rank's rows (ending at %" PRIu64 ")",
               db->file, r, nrows, off, db->rows_offset, db->size, prev_end);
      return -1;
    }
    prev_end = off + len;
  }
  if (present != db->nranks_present) {
    jdb_fail("%s: damaged: the header says %" PRIu32 " ranks present, the rank index marks %" PRIu32,
             db->file, db->nranks_present, present);
    return -1;
  }
  return 0;
}

int jdb_check_row(const instr_jdb *db, uint32_t rank, uint64_t i, const unsigned char *row,
                  uint32_t nthreads, uint64_t *prev_key, int pruned) {
  uint32_t path = jdb_u32(row), thread = jdb_u32(row + 4);
  uint64_t key = (uint64_t)path << 32 | thread;
  const char *what = pruned ? "pruned row" : "row";
  if (path >= db->npaths || thread >= nthreads) {
    jdb_fail("%s: damaged: rank %" PRIu32 " %s %" PRIu64 ": path %" PRIu32 " of %" PRIu32
             ", thread %" PRIu32 " of the rank's %" PRIu32,
             db->file, rank, what, i, path, db->npaths, thread, nthreads);
    return -1;
  }
  if (i > 0 && key <= *prev_key) {
    jdb_fail("%s: damaged: rank %" PRIu32 " %s %" PRIu64 " (path %" PRIu32 ", thread %" PRIu32
             ") is not after the row before it: rows must be sorted by (path, thread)",
             db->file, rank, what, i, path, thread);
    return -1;
  }
  if (pruned && !db->in_pruned[path]) {
    jdb_fail("%s: damaged: rank %" PRIu32 " pruned row %" PRIu64 ": path %" PRIu32
             " is not in the pruned set",
             db->file, rank, i, path);
    return -1;
  }
  *prev_key = key;
  return 0;
}

/* One rank's rows: sorted by (path, thread) without repeats, paths and threads in range; and
 * its pruned rows exactly its rows of the pruned set's paths, in the same order. */
static int check_rank_rows(const instr_jdb *db, uint32_t r) {
  const unsigned char *rec = jdb_rank_rec(db, r);
  uint64_t nrows = jdb_u64(rec + 8), prev = 0;
  uint32_t nthreads = jdb_u32(rec + 16);
  for (uint64_t i = 0; i < nrows; i++)
    if (jdb_check_row(db, r, i, jdb_rank_row(db, r, i), nthreads, &prev, 0)) return -1;
  if (!db->has_pruned) return 0;
  uint64_t poff, np, j = 0;
  jdb_rank_extent(db, r, 1, &poff, &np);
  for (uint64_t i = 0; i < nrows; i++) {
    const unsigned char *row = jdb_rank_row(db, r, i);
    if (!db->in_pruned[jdb_u32(row)]) continue;
    if (j == np || memcmp(db->map + poff + j * db->row_size, row, db->row_size) != 0) {
      jdb_fail("%s: damaged: rank %" PRIu32 " pruned row %" PRIu64 " is not its row %" PRIu64
               " (path %" PRIu32 ", thread %" PRIu32 ") of the rows area: the pruned rows "
               "must be the rank's rows of the pruned set's paths",
               db->file, r, j, i, jdb_u32(row), jdb_u32(row + 4));
      return -1;
    }
    j++;
  }
  if (j != np) {
    jdb_fail("%s: damaged: rank %" PRIu32 " has %" PRIu64 " pruned rows, its rows of the "
             "pruned set's paths are %" PRIu64,
             db->file, r, np, j);
    return -1;
  }
  return 0;
}

static int check_rows(const instr_jdb *db) {
  char first[1024];
  long bad = -1;
#pragma omp parallel for schedule(dynamic, 64)
  for (long r = 0; r < (long)db->nranks; r++) {
    if (check_rank_rows(db, (uint32_t)r) != 0) {
#pragma omp critical(jdb_check_rows)
      if (bad < 0 || r < bad) {
        bad = r;
        snprintf(first, sizeof first, "%s", instr_jdb_error());
      }
    }
  }
  if (bad >= 0) {
    jdb_fail("%s", first);
    return -1;
  }
  return 0;
}

/* The pruned set: ascending path ids, exactly the paths whose summary sum of time_incl is at
 * least the threshold of the run's total as select() computes it (instr_jdb_total, the same
 * doubles in the same order), so that "time_incl >= X%" with X at least the threshold selects
 * a subset of it. The pruned index: every rank's pruned rows back to back in rank order from
 * the pruned rows' start to their end, at most the rank's rows (none for an absent rank). */
static int check_pruned(instr_jdb *db) {
  if (!db->has_pruned) return 0;
  db->in_pruned = calloc(db->npaths ? db->npaths : 1, 1);
  if (!db->in_pruned) {
    jdb_fail("%s: out of memory for the pruned set of %" PRIu32 " paths", db->file, db->npaths);
    return -1;
  }
  for (uint32_t k = 0; k < db->npruned; k++) {
    uint32_t p = jdb_u32(db->pruned_set + 4ull * k);
    if (p >= db->npaths || (k > 0 && p <= jdb_u32(db->pruned_set + 4ull * (k - 1)))) {
      jdb_fail("%s: damaged: pruned set entry %" PRIu32 ": path %" PRIu32 " is not after the one "
               "before it and below %" PRIu32,
               db->file, k, p, db->npaths);
      return -1;
    }
    db->in_pruned[p] = 1;
  }
  int inclusive = jdb_u32(db->columns + 1ull * JDB_COLUMN_SIZE + 12) & INSTR_JDB_INCLUSIVE;
  double total = 0;
  instr_jdb_summary s;
  for (uint32_t p = 0; p < db->npaths; p++)
    if (!inclusive || jdb_path_parent(db, p) == INSTR_JDB_NO_PARENT) {
      jdb_read_summary(db, p, 1, &s);
      total += s.sum;
    }
  double bound = db->pruned_threshold / 100.0 / 100.0 * total;
  for (uint32_t p = 0; p < db->npaths; p++) {
    jdb_read_summary(db, p, 1, &s);
    if ((s.sum >= bound) != (db->in_pruned[p] != 0)) {
      jdb_fail("%s: damaged: path %" PRIu32 " is %s the pruned set, but its time_incl (%.17g) "
               "is %s %g %% of the run's (%.17g)",
               db->file, p, db->in_pruned[p] ? "in" : "not in", s.sum,
               s.sum >= bound ? "at least" : "below", db->pruned_threshold / 100.0, total);
      return -1;
    }
  }
  uint64_t at = db->pruned_rows_offset;
  for (uint32_t r = 0; r < db->nranks; r++) {
    const unsigned char *rec = jdb_pruned_rec(db, r);
    uint64_t off = jdb_u64(rec), n = jdb_u64(rec + 8), all = jdb_u64(jdb_rank_rec(db, r) + 8);
    uint64_t left = db->pruned_rows_offset + db->pruned_rows_len - at;
    if (off != at || n > all || n > left / db->row_size) {
      jdb_fail("%s: damaged: pruned index of rank %" PRIu32 ": %" PRIu64 " rows at offset %" PRIu64
               ": they must follow the previous rank's (at %" PRIu64 "), be at most the rank's %" PRIu64
               " rows and lie inside the pruned rows [%" PRIu64 ", %" PRIu64 ")",
               db->file, r, n, off, at, all, db->pruned_rows_offset,
               db->pruned_rows_offset + db->pruned_rows_len);
      return -1;
    }
    at += n * db->row_size;
  }
  if (at != db->pruned_rows_offset + db->pruned_rows_len) {
    jdb_fail("%s: damaged: the pruned index's rows end at %" PRIu64 ", the pruned rows at %" PRIu64,
             db->file, at, db->pruned_rows_offset + db->pruned_rows_len);
    return -1;
  }
  return 0;
}

void jdb_rank_extent(const instr_jdb *db, uint32_t rank, int pruned, uint64_t *offset,
                     uint64_t *nrows) {
  const unsigned char *rec = pruned ? jdb_pruned_rec(db, rank) : jdb_rank_rec(db, rank);
  *offset = jdb_u64(rec);
  *nrows = jdb_u64(rec + 8);
}

int instr_jdb_get_pruned(const instr_jdb *db, instr_jdb_pruned_info *out, uint32_t *paths,
                         size_t cap) {
  memset(out, 0, sizeof *out);
  if (!db->has_pruned) return 0;
  if (jdb_check_size(db)) return -1;
  out->present = 1;
  out->npaths = db->npruned;
  out->threshold_percent = db->pruned_threshold / 100.0;
  out->rows_bytes = db->pruned_rows_len;
  for (uint32_t k = 0; paths && k < db->npruned && k < cap; k++)
    paths[k] = jdb_u32(db->pruned_set + 4ull * k);
  return 0;
}

static int derive_tree(instr_jdb *db) {
  uint32_t n = db->npaths;
  db->depth = malloc(((size_t)n + 1) * sizeof *db->depth);
  db->child_start = calloc((size_t)n + 2, sizeof *db->child_start);
  db->child = malloc(((size_t)n + 1) * sizeof *db->child);
  if (!db->depth || !db->child_start || !db->child) {
    jdb_fail("%s: out of memory for the call tree of %" PRIu32 " paths", db->file, n);
    return -1;
  }
  for (uint32_t p = 0; p < n; p++) {
    uint32_t parent = jdb_path_parent(db, p);
    db->depth[p] = parent == INSTR_JDB_NO_PARENT ? 0 : db->depth[parent] + 1;
    db->child_start[(parent == INSTR_JDB_NO_PARENT ? n : parent) + 1]++;
  }
  for (uint32_t i = 0; i <= n; i++) db->child_start[i + 1] += db->child_start[i];
  uint32_t *fill = malloc(((size_t)n + 1) * sizeof *fill);
  if (!fill) {
    jdb_fail("%s: out of memory for the call tree of %" PRIu32 " paths", db->file, n);
    return -1;
  }
  memcpy(fill, db->child_start, ((size_t)n + 1) * sizeof *fill);
  for (uint32_t p = 0; p < n; p++) {
    uint32_t parent = jdb_path_parent(db, p);
    db->child[fill[parent == INSTR_JDB_NO_PARENT ? n : parent]++] = p;
  }
  free(fill);
  return 0;
}

const unsigned char *jdb_rank_row(const instr_jdb *db, uint32_t rank, uint64_t i) {
  return db->map + jdb_u64(jdb_rank_rec(db, rank)) + i * db->row_size;
}

int jdb_check_size(const instr_jdb *db) {
  struct stat st;
  if (fstat(db->fd, &st) != 0) {
    jdb_fail("%s: cannot check the file's size: %s", db->file, strerror(errno));
    return -1;
  }
  if ((uint64_t)st.st_size < db->size) {
    jdb_fail("%s: the file shrank from %" PRIu64 " to %" PRIu64 " bytes since it was opened "
             "(truncated or rewritten in place?): reopen it", db->file, db->size,
             (uint64_t)st.st_size);
    return -1;
  }
  return 0;
}

instr_jdb *instr_jdb_open(const char *path, unsigned flags) {
  jdb_clear_error();
  instr_jdb *db = calloc(1, sizeof *db);
  if (!db || !(db->file = strdup(path))) {
    free(db);
    jdb_fail("%s: out of memory", path);
    return NULL;
  }
  db->fd = -1;
  db->flags = flags;
  char why[160];
  int fd = instr_input_open(path, &db->size, why, sizeof why);
  if (fd < 0) {
    jdb_fail("%s: %s", path, why);
    instr_jdb_close(db);
    return NULL;
  }
  if (db->size < JDB_HEADER_SIZE) {
    jdb_fail("%s: truncated: the file has %" PRIu64 " bytes, less than the %d-byte header",
             path, db->size, JDB_HEADER_SIZE);
    close(fd);
    instr_jdb_close(db);
    return NULL;
  }
  void *map = mmap(NULL, db->size, PROT_READ, MAP_PRIVATE, fd, 0);
  int map_errno = errno;
  db->fd = fd;
  if (map == MAP_FAILED) {
    jdb_fail("%s: cannot map %" PRIu64 " bytes: %s", path, db->size, strerror(map_errno));
    instr_jdb_close(db);
    return NULL;
  }
  db->map = map;
  if (check_header(db) || check_sections(db) || check_definitions(db) ||
      check_rank_index(db) || check_pruned(db) ||
      (!(flags & INSTR_JDB_LAZY_ROWS) && check_rows(db)) ||
      derive_tree(db)) {
    instr_jdb_close(db);
    return NULL;
  }
  return db;
}

void instr_jdb_close(instr_jdb *db) {
  if (!db) return;
  if (db->map) munmap((void *)db->map, db->size);
  if (db->fd >= 0) close(db->fd);
  free(db->depth);
  free(db->child_start);
  free(db->child);
  free(db->in_pruned);
  free(db->file);
  free(db);
}
