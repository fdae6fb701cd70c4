/* Damaged and truncated job databases: every field of the sample database (written by
 * tests/lib/jdb_testdouble.py) corrupted in turn, the file cut at every length, and every
 * byte flipped. A damage the format lets a reader see must fail open with a message that
 * starts with the file's name; whatever opens must answer every query without a crash (run
 * under ASan in the sanitizer tree).
 * Usage: test_damage GROUP SAMPLE.jdb   (groups: fields, truncation, flips, rows_cut, pruned;
 * rows_cut takes any database, e.g. a real job's profile.jdb: tests/mpi/check_jobdb.py; pruned
 * one with a pruned section: the generator's, a real job's) */
#include "check.h"
#include "instr_analysis.h"

#include <stdint.h>
#include <stdlib.h>

static const char *const damaged = "damaged.jdb";
static unsigned char *good;
static size_t good_size;

static uint64_t get(const unsigned char *b, size_t off, int width) {
  uint64_t v = 0;
  for (int i = width - 1; i >= 0; i--) v = v << 8 | b[off + (size_t)i];
  return v;
}

static void put(unsigned char *b, size_t off, int width, uint64_t v) {
  for (int i = 0; i < width; i++) b[off + (size_t)i] = (unsigned char)(v >> (8 * i));
}

static void write_file(const unsigned char *data, size_t size) {
  FILE *f = fopen(damaged, "wb");
  if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
    perror(damaged);
    exit(1);
  }
}

/* Every query over everything the database holds: no answer may read outside the file. */
static void exercise(instr_jdb *db) {
  instr_jdb_info info;
  instr_jdb_get_info(db, &info);
  uint32_t *ids = malloc((info.npaths + 1) * sizeof *ids);
  uint32_t buf[64];
  for (uint32_t p = 0; p < info.npaths; p++) {
    instr_jdb_path path;
    instr_jdb_region region;
    instr_jdb_summary s;
    instr_jdb_get_path(db, p, &path);
    instr_jdb_get_region(db, path.region, &region);
    volatile size_t n = strlen(region.name) + strlen(region.file) + strlen(region.mangled) +
                        strlen(region.object);
    (void)n;
    instr_jdb_context(db, p, buf, 64);
    instr_jdb_children(db, p, buf, 64);
    for (uint32_t c = 0; c < info.ncols; c++) instr_jdb_get_summary(db, p, c, &s);
    ids[p] = p;
  }
  for (uint32_t c = 0; c < info.ncols; c++) {
    instr_jdb_column col;
    instr_jdb_get_column(db, c, &col);
    volatile size_t n = strlen(col.name) + strlen(col.unit);
    (void)n;
  }
  static const char *const queries[] = {"all", "function(MPI_*)", "path(main/*)",
                                        "time_incl >= 1%", "file(*.c) or not paradigm(mpi)"};
  for (size_t q = 0; q < sizeof queries / sizeof queries[0]; q++)
    instr_jdb_select(db, queries[q], ids);
  for (uint32_t p = 0; p < info.npaths; p++) ids[p] = p;
  for (uint32_t c = 0; c < info.ncols; c++) {
    long n = instr_jdb_rows(db, c, ids, info.npaths, NULL, 0, NULL, 0, NULL, NULL, NULL, NULL, 0);
    if (n > 0) {
      uint32_t *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b),
               *t = malloc((size_t)n * sizeof *t);
      double *v = malloc((size_t)n * sizeof *v);
      instr_jdb_rows(db, c, ids, info.npaths, NULL, 0, NULL, 0, a, b, t, v, (size_t)n);
      free(a), free(b), free(t), free(v);
    }
  }
  if (info.nranks < 1000 && info.npaths < 1000) {
    instr_jdb_stats *st = malloc((info.npaths + 1) * sizeof *st);
    uint32_t op[64], orank[64];
    instr_jdb_path_stats(db, 1, ids, info.npaths, NULL, 0, NULL, 0, 1.0, st, op, orank, 64);
    free(st);
  }
  instr_jdb_match m[64];
  instr_jdb_compare(db, db, "time_incl", INSTR_JDB_STAT_MEAN, m, 64);
  free(ids);
}

/* Opens the damaged copy both ways; returns whether the full check refused it (with a
 * message naming the file). */
static int try_open(const unsigned char *data, size_t size) {
  write_file(data, size);
  instr_jdb *lazy = instr_jdb_open(damaged, INSTR_JDB_LAZY_ROWS);
  if (lazy) {
    exercise(lazy);
    instr_jdb_close(lazy);
  }
  instr_jdb *db = instr_jdb_open(damaged, 0);
  if (db) {
    exercise(db);
    instr_jdb_close(db);
    return 0;
  }
  CHECK_PREFIX(instr_jdb_error(), "damaged.jdb: ");
  return 1;
}

static int corrupt(size_t off, int width, uint64_t value, int must_fail, const char *what) {
  unsigned char *copy = malloc(good_size);
  memcpy(copy, good, good_size);
  put(copy, off, width, value);
  int failed = try_open(copy, good_size);
  if (must_fail && !failed)
    fprintf(stderr, "not refused: %s (offset %zu := %llu)\n", what, off,
            (unsigned long long)value);
  if (must_fail) CHECK(failed);
  free(copy);
  return failed;
}

static void fields(void) {
  const unsigned char *h = good;
  uint64_t size = good_size, strings = get(h, 56, 8), strings_len = get(h, 64, 8),
           regions = get(h, 72, 8), paths = get(h, 80, 8), columns = get(h, 88, 8),
           summary = get(h, 96, 8), index = get(h, 104, 8), rows = get(h, 112, 8);
  uint32_t nranks = (uint32_t)get(h, 24, 4), nregions = (uint32_t)get(h, 32, 4),
           npaths = (uint32_t)get(h, 36, 4), ncols = (uint32_t)get(h, 40, 4);
  uint64_t row_size = get(h, 44, 4), summary_size = 8 + 32ull * ncols;
  /* the header */
  corrupt(0, 1, 'X', 1, "magic");
  corrupt(8, 4, 2, 1, "version");
  corrupt(12, 4, 128, 1, "header size");
  corrupt(16, 8, 0, 1, "file size 0 (unfinished)");
  CHECK_PREFIX(instr_jdb_error(), "damaged.jdb: unfinished: the file size field is 0");
  corrupt(16, 8, size + 8, 1, "file size too big");
  CHECK_PREFIX(instr_jdb_error(), "damaged.jdb: truncated: file size field says");
  corrupt(16, 8, size - 8, 1, "file size too small");
  const struct {
    size_t off;
    int width;
    uint64_t value;
    const char *what;
  } header[] = {
      {24, 4, 0, "nranks 0"},         {24, 4, nranks + 1, "nranks + 1"},
      {24, 4, UINT32_MAX, "nranks max"}, {28, 4, 3, "ranks present 3"},
      {28, 4, nranks + 1, "ranks present > nranks"}, {32, 4, nregions - 1, "nregions - 1"},
      {32, 4, UINT32_MAX, "nregions max"}, {36, 4, npaths - 1, "npaths - 1"},
      {36, 4, npaths + 1, "npaths + 1"}, {36, 4, UINT32_MAX, "npaths max"},
      {40, 4, ncols - 1, "ncols - 1"}, {40, 4, 3, "ncols 3"}, {40, 4, UINT32_MAX, "ncols max"},
      {44, 4, row_size + 8, "row size"}, {56, 8, strings + 8, "strings offset + 8"},
      {56, 8, 3, "strings offset unaligned"}, {56, 8, UINT64_MAX, "strings offset max"},
      {64, 8, 0, "strings length 0"}, {64, 8, strings_len - 1, "strings length - 1"},
      {64, 8, UINT64_MAX, "strings length max"}, {72, 8, regions + 8, "regions offset + 8"},
      {72, 8, 8, "regions offset in the header"}, {72, 8, UINT64_MAX - 7, "regions offset max"},
      {80, 8, paths + 8, "paths offset + 8"}, {80, 8, paths - 8, "paths offset - 8"},
      {88, 8, columns + 8, "columns offset + 8"}, {88, 8, size, "columns offset at the end"},
      {96, 8, summary + 8, "summary offset + 8"}, {96, 8, summary - 8, "summary offset - 8"},
      {104, 8, index + 8, "rank index offset + 8"}, {104, 8, index - 8, "rank index offset - 8"},
      {112, 8, rows + 8, "rows offset + 8"}, {112, 8, rows - 8, "rows offset - 8"},
      {112, 8, size + 8, "rows offset past the end"}, {124, 4, 1, "header flags"},
  };
  for (size_t i = 0; i < sizeof header / sizeof header[0]; i++)
    corrupt(header[i].off, header[i].width, header[i].value, 1, header[i].what);
  for (size_t i = 128; i < 256; i++) corrupt(i, 1, 1, 1, "reserved header byte");
  /* undetectable by design: the job's duration, the writer's rounds: no crash */
  corrupt(48, 8, UINT64_MAX, 0, "duration");
  corrupt(120, 4, UINT32_MAX, 0, "rounds");
  /* strings */
  corrupt(strings, 1, 'x', 1, "first string byte");
  /* regions: the four string offsets and the paradigm are checked */
  for (uint32_t r = 0; r < nregions; r++) {
    for (int f = 0; f < 4; f++)
      corrupt(regions + 32ull * r + 4u * (unsigned)f, 4, strings_len, 1, "region string");
    corrupt(regions + 32ull * r + 24, 4, 5, 1, "region paradigm");
    for (int f = 4; f < 8; f++)
      if (f != 6) corrupt(regions + 32ull * r + 4u * (unsigned)f, 4, UINT32_MAX, 0, "region");
  }
  /* paths: a parent not before its child, a region out of range */
  for (uint32_t p = 0; p < npaths; p++) {
    corrupt(paths + 8ull * p, 4, p, 1, "path parent = itself");
    corrupt(paths + 8ull * p, 4, npaths, 1, "path parent out of range");
    corrupt(paths + 8ull * p + 4, 4, nregions, 1, "path region");
    corrupt(paths + 8ull * p, 4, UINT32_MAX, 0, "path made top-level");
  }
  /* columns: strings, kind, the seven fixed names */
  for (uint32_t c = 0; c < ncols; c++) {
    corrupt(columns + 16ull * c, 4, strings_len, 1, "column name");
    corrupt(columns + 16ull * c + 4, 4, strings_len, 1, "column unit");
    corrupt(columns + 16ull * c + 8, 4, 5, 1, "column kind");
    corrupt(columns + 16ull * c + 12, 4, UINT32_MAX, 0, "column flags");
    if (c < 7)
      corrupt(columns + 16ull * c, 4, get(h, columns + 16ull * (ncols - 1), 4), 1,
              "fixed column renamed");
  }
  /* summary: ranks visited, padding; every value (undetectable: no crash) */
  for (uint32_t p = 0; p < npaths; p++) {
    corrupt(summary + summary_size * p, 4, nranks + 1, 1, "summary ranks visited");
    corrupt(summary + summary_size * p + 4, 4, 1, 1, "summary padding");
    for (uint32_t c = 0; c < 4 * ncols; c++)
      corrupt(summary + summary_size * p + 8 + 8ull * c, 8, 0x7FF8000000000001ull, 0,
              "summary value");
  }
  /* rank index and rows */
  for (uint32_t r = 0; r < nranks; r++) {
    size_t rec = (size_t)(index + 32ull * r);
    uint64_t off = get(good, rec, 8), nrows = get(good, rec + 8, 8);
    uint32_t nthreads = (uint32_t)get(good, rec + 16, 4), flags = (uint32_t)get(good, rec + 20, 4);
    corrupt(rec + 8, 8, nrows + UINT32_MAX, 1, "rank rows past the end");
    corrupt(rec + 8, 8, UINT64_MAX, 1, "rank rows max");
    corrupt(rec + 20, 4, flags ^ 1u, 1, "rank present flag");
    corrupt(rec + 24, 8, UINT64_MAX, 0, "rank duration");
    if (nrows == 0) continue;
    corrupt(rec, 8, off - 8, 1, "rank rows offset - 8");
    corrupt(rec, 8, off + 4, 1, "rank rows offset unaligned");
    corrupt(rec, 8, UINT64_MAX - 7, 1, "rank rows offset max");
    corrupt(rec + 8, 8, nrows + 1, 1, "rank rows + 1");
    corrupt(rec + 16, 4, 0, 1, "rank threads 0");
    corrupt(rec + 16, 4, nthreads + 1, 0, "rank threads + 1");
    for (uint64_t i = 0; i < nrows; i++) {
      size_t row = (size_t)(off + i * row_size);
      corrupt(row, 4, npaths, 1, "row path out of range");
      corrupt(row + 4, 4, nthreads, 1, "row thread out of range");
      if (i > 0) {
        corrupt(row, 4, get(good, row - row_size, 4), 0, "row path = the previous");
        corrupt(row, 8, get(good, row - row_size, 8), 1, "row key = the previous");
      }
      for (uint32_t c = 0; c < ncols; c++)
        corrupt(row + 8 + 8ull * c, 8, UINT64_MAX, 0, "row value");
    }
  }
}

static void truncation(void) {
  for (size_t len = 0; len < good_size; len++) {
    CHECK(try_open(good, len));
    if (len >= 256) {
      char want[128];
      snprintf(want, sizeof want, "damaged.jdb: truncated: file size field says %zu bytes, the "
                                  "file has %zu", good_size, len);
      CHECK_STR(instr_jdb_error(), want);
    } else {
      CHECK_PREFIX(instr_jdb_error(), "damaged.jdb: truncated: the file has");
    }
  }
}

/* A real file cut inside its rows (the rows area is the file's last section): at its first
 * byte, in its middle and one byte short of the end. The message names the file and says it is
 * truncated and by how much. */
static void rows_cut(void) {
  size_t rows = (size_t)get(good, 112, 8);
  CHECK(rows >= 256 && rows < good_size);
  if (rows < 256 || rows >= good_size) return;
  size_t cuts[] = {rows + 1, rows + (good_size - rows) / 2, good_size - 1};
  for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
    CHECK(try_open(good, cuts[i]));
    char want[128];
    snprintf(want, sizeof want, "damaged.jdb: truncated: file size field says %zu bytes, the "
                                "file has %zu", good_size, cuts[i]);
    CHECK_STR(instr_jdb_error(), want);
    printf("cut at %zu of %zu bytes (rows from %zu): %s\n", cuts[i], good_size, rows,
           instr_jdb_error());
  }
}

/* A database with a pruned section (a generator's or a real job's): every field of the
 * section damaged in turn must be refused with the file's name, lazily or not (the pruned
 * index, the set, the header's fields); a pruned row's key and value damaged: refused by the
 * full check (the pruned rows must equal the rows area's), answered without a crash lazily. */
static void pruned(void) {
  CHECK(get(good, 124, 4) == 1);
  if (get(good, 124, 4) != 1) return;
  uint64_t set = get(good, 128, 8), pidx = get(good, 144, 8), prows = get(good, 152, 8),
           plen = get(good, 160, 8), rows = get(good, 112, 8);
  uint32_t nset = (uint32_t)get(good, 136, 4), nranks = (uint32_t)get(good, 24, 4),
           npaths = (uint32_t)get(good, 36, 4);
  uint64_t row_size = get(good, 44, 4);
  const struct {
    size_t off;
    int width;
    uint64_t value;
    const char *what;
  } header[] = {
      {124, 4, 3, "flags 3"},
      {128, 8, set + 4, "set offset unaligned"},
      {128, 8, 8, "set offset in the header"},
      {128, 8, rows, "set offset at the rows area"},
      {136, 4, nset + 1, "set + 1"},
      {136, 4, npaths + 1, "set larger than the paths"},
      {140, 4, 0, "threshold 0"},
      {144, 8, pidx + 8, "pruned index offset + 8"},
      {144, 8, UINT64_MAX - 7, "pruned index offset max"},
      {152, 8, prows + 8, "pruned rows offset + 8"},
      {152, 8, rows, "pruned rows offset at the rows area"},
      {160, 8, plen + row_size, "pruned rows + 1 row"},
      {160, 8, plen + 1, "pruned rows not whole rows"},
      {160, 8, UINT64_MAX, "pruned rows max"},
      {168, 1, 1, "reserved byte 168"},
  };
  for (size_t i = 0; i < sizeof header / sizeof header[0]; i++)
    corrupt(header[i].off, header[i].width, header[i].value, 1, header[i].what);
  /* another threshold may give the same set (undetectable then): no crash either way */
  corrupt(140, 4, 50, 0, "threshold 0.5 %");
  corrupt(140, 4, 200, 0, "threshold 2 %");
  for (uint32_t k = 0; k < nset && k < 16; k++) {
    corrupt(set + 4ull * k, 4, npaths, 1, "set entry out of range");
    if (k > 0) corrupt(set + 4ull * k, 4, get(good, set + 4ull * (k - 1), 4), 1, "set repeat");
  }
  uint64_t at = prows;
  for (uint32_t r = 0; r < nranks; r++) {
    size_t rec = (size_t)(pidx + 16ull * r);
    uint64_t off = get(good, rec, 8), n = get(good, rec + 8, 8);
    CHECK(off == at);
    corrupt(rec, 8, off + 8, 1, "pruned index offset + 8");
    corrupt(rec, 8, UINT64_MAX - 7, 1, "pruned index offset max");
    corrupt(rec + 8, 8, n + 1, 1, "pruned index rows + 1");
    corrupt(rec + 8, 8, UINT64_MAX, 1, "pruned index rows max");
    if (r < 2) /* the rows of two ranks: every corruption opens the whole file twice */
      for (uint64_t i = 0; i < n && i < 8; i++) {
        size_t row = (size_t)(off + i * row_size);
        corrupt(row, 4, npaths, 1, "pruned row path out of range");
        corrupt(row + 4, 4, 0xFFFF, 1, "pruned row thread out of range");
        corrupt(row + 8, 8, UINT64_MAX, 1, "pruned row value");
      }
    at = off + n * row_size;
  }
  CHECK(at == prows + plen);
}

static void flips(void) {
  unsigned char *copy = malloc(good_size);
  for (size_t i = 0; i < good_size; i++) {
    memcpy(copy, good, good_size);
    copy[i] ^= 0xFF;
    try_open(copy, good_size);
  }
  free(copy);
  CHECK(1);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: test_damage fields|truncation|flips|rows_cut|pruned SAMPLE.jdb\n");
    return 2;
  }
  FILE *f = fopen(argv[2], "rb");
  if (!f) {
    perror(argv[2]);
    return 1;
  }
  fseek(f, 0, SEEK_END);
  good_size = (size_t)ftell(f);
  rewind(f);
  good = malloc(good_size);
  if (fread(good, 1, good_size, f) != good_size) return 1;
  fclose(f);
  /* the undamaged file opens and answers */
  CHECK(!try_open(good, good_size));
  if (!strcmp(argv[1], "fields")) fields();
  else if (!strcmp(argv[1], "truncation")) truncation();
  else if (!strcmp(argv[1], "flips")) flips();
  else if (!strcmp(argv[1], "rows_cut")) rows_cut();
  else if (!strcmp(argv[1], "pruned")) pruned();
  else {
    fprintf(stderr, "unknown group %s\n", argv[1]);
    return 2;
  }
  free(good);
  remove(damaged);
  printf("%s: %d checks, %d failed\n", argv[1], check_count, check_failures);
  return check_failures ? 1 : 0;
}
