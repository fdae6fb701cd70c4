/* Ingestion of metric values: the ranks in parallel (OpenMP), in each rank's rows (sorted by
 * (path, thread)) a binary search per selected path. Only the pages of the rows searched are
 * read. A failure inside the parallel loop is kept (the lowest rank's) and reported by the
 * calling thread, whose message instr_jdb_error() returns. */
#include "jdb_internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  long rank; /* -1: none */
  char message[1024];
} first_error;

static void note_error(first_error *e, long rank) {
#pragma omp critical(jdb_ingest_error)
  if (e->rank < 0 || rank < e->rank) {
    e->rank = rank;
    snprintf(e->message, sizeof e->message, "%s", instr_jdb_error());
  }
}

static int raise_error(const first_error *e) {
  if (e->rank < 0) return 0;
  jdb_fail("%s", e->message);
  return -1;
}

int jdb_find_path_rows(const instr_jdb *db, uint32_t rank, uint32_t path, uint64_t lo,
                       uint64_t *first, uint64_t *end) {
  const unsigned char *rec = jdb_rank_rec(db, rank);
  uint64_t n = jdb_u64(rec + 8), hi = n;
  uint32_t nthreads = jdb_u32(rec + 16);
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo) / 2;
    if (jdb_u32(jdb_rank_row(db, rank, mid)) < path)
      lo = mid + 1;
    else
      hi = mid;
  }
  *first = *end = lo;
  if (lo == n || jdb_u32(jdb_rank_row(db, rank, lo)) != path) return 1;
  uint64_t i = lo;
  int64_t prev_thread = -1;
  for (; i < n; i++) {
    const unsigned char *row = jdb_rank_row(db, rank, i);
    if (jdb_u32(row) != path) break;
    uint32_t thread = jdb_u32(row + 4);
    /* the rows open did not check (INSTR_JDB_LAZY_ROWS) are checked as they are read */
    if (thread >= nthreads || (int64_t)thread <= prev_thread) {
      jdb_fail("%s: damaged: rank %" PRIu32 " row %" PRIu64 " (path %" PRIu32
               "): thread %" PRIu32 " is not below the rank's %" PRIu32
               " threads or not after the row before it",
               db->file, rank, i, path, thread, nthreads);
      return -1;
    }
    prev_thread = thread;
  }
  if (i < n && jdb_u32(jdb_rank_row(db, rank, i)) < path) {
    jdb_fail("%s: damaged: rank %" PRIu32 " row %" PRIu64
             ": its rows are not sorted by (path, thread)",
             db->file, rank, i);
    return -1;
  }
  *end = i;
  return 0;
}

static int ascending(const uint32_t *v, size_t n) {
  for (size_t i = 1; i < n; i++)
    if (v[i] <= v[i - 1]) return 0;
  return 1;
}

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

/* The selected threads, sorted for bsearch; NULL selection means every thread. */
typedef struct {
  uint32_t *sorted;
  size_t n;
} thread_set;

static int thread_set_init(thread_set *t, const instr_jdb *db, const uint32_t *threads,
                           size_t n) {
  t->sorted = NULL;
  t->n = 0;
  if (!threads) return 0;
  t->sorted = malloc((n ? n : 1) * sizeof *t->sorted);
  if (!t->sorted) {
    jdb_fail("%s: out of memory for %zu threads", db->file, n);
    return -1;
  }
  memcpy(t->sorted, threads, n * sizeof *threads);
  qsort(t->sorted, n, sizeof *t->sorted, cmp_u32);
  t->n = n;
  return 0;
}

static int thread_selected(const thread_set *t, uint32_t thread) {
  return !t->sorted || bsearch(&thread, t->sorted, t->n, sizeof thread, cmp_u32) != NULL;
}

/* Walks one rank's rows of the selected paths: calls visit(ctx, j, thread, value) for every
 * selected thread's row of the j-th path. */
typedef void (*row_visitor)(void *ctx, size_t j, uint32_t thread, double value);
static int walk_rank(const instr_jdb *db, uint32_t rank, uint32_t col, const uint32_t *paths,
                     size_t np, int sorted_paths, const thread_set *threads, row_visitor visit,
                     void *ctx) {
  uint32_t kind = jdb_column_kind(db, col);
  uint64_t value_off = JDB_ROW_KEY_SIZE + 8ull * col, lo = 0;
  for (size_t j = 0; j < np; j++) {
    uint64_t first, end;
    int found = jdb_find_path_rows(db, rank, paths[j], sorted_paths ? lo : 0, &first, &end);
    if (found < 0) return -1;
    lo = end;
    for (uint64_t i = first; i < end; i++) {
      const unsigned char *row = jdb_rank_row(db, rank, i);
      uint32_t thread = jdb_u32(row + 4);
      if (thread_selected(threads, thread)) visit(ctx, j, thread, jdb_value(row + value_off, kind));
    }
  }
  return 0;
}

static uint32_t nth_rank(const uint32_t *ranks, size_t i) { return ranks ? ranks[i] : (uint32_t)i; }

static void count_row(void *ctx, size_t j, uint32_t thread, double value) {
  (void)j, (void)thread, (void)value;
  (*(uint64_t *)ctx)++;
}

typedef struct {
  uint32_t rank;
  const uint32_t *paths;
  uint32_t *path, *rank_out, *thread;
  double *value;
  uint64_t at;
} row_sink;

static void store_row(void *ctx, size_t j, uint32_t thread, double value) {
  row_sink *s = ctx;
  s->path[s->at] = s->paths[j];
  s->rank_out[s->at] = s->rank;
  s->thread[s->at] = thread;
  s->value[s->at] = value;
  s->at++;
}

long instr_jdb_rows(const instr_jdb *db, uint32_t col, const uint32_t *paths, size_t npaths_sel,
                    const uint32_t *ranks, size_t nranks_sel, const uint32_t *threads,
                    size_t nthreads_sel, uint32_t *out_path, uint32_t *out_rank,
                    uint32_t *out_thread, double *out_value, size_t cap) {
  jdb_clear_error();
  if (jdb_check_column(db, col) || jdb_check_selection(db, paths, npaths_sel, ranks, nranks_sel))
    return -1;
  size_t nr = ranks ? nranks_sel : db->nranks;
  thread_set ts;
  uint64_t *start = calloc(nr + 1, sizeof *start);
  if (!start || thread_set_init(&ts, db, threads, nthreads_sel)) {
    free(start);
    if (!start) jdb_fail("%s: out of memory for %zu ranks", db->file, nr);
    return -1;
  }
  int sorted_paths = ascending(paths, npaths_sel);
  first_error err = {.rank = -1};
#pragma omp parallel for schedule(dynamic, 16)
  for (long i = 0; i < (long)nr; i++) {
    uint64_t count = 0;
    if (walk_rank(db, nth_rank(ranks, (size_t)i), col, paths, npaths_sel, sorted_paths, &ts,
                  count_row, &count) != 0)
      note_error(&err, i);
    start[i + 1] = count;
  }
  long total = -1;
  if (raise_error(&err) == 0) {
    for (size_t i = 0; i < nr; i++) start[i + 1] += start[i];
    total = (long)start[nr];
  }
  if (total >= 0 && cap >= (size_t)total && out_path && out_rank && out_thread && out_value) {
#pragma omp parallel for schedule(dynamic, 16)
    for (long i = 0; i < (long)nr; i++) {
      row_sink sink = {nth_rank(ranks, (size_t)i), paths, out_path,
                       out_rank,                   out_thread, out_value, start[i]};
      if (walk_rank(db, sink.rank, col, paths, npaths_sel, sorted_paths, &ts, store_row,
                    &sink) != 0)
        note_error(&err, i);
    }
    if (raise_error(&err)) total = -1;
  }
  free(ts.sorted);
  free(start);
  return total;
}

static void add_value(void *ctx, size_t j, uint32_t thread, double value) {
  (void)thread;
  ((double *)ctx)[j] += value;
}

/* out[i * np + j], as the header says. Shared with stats.c through the same walk. */
static int rank_values(const instr_jdb *db, uint32_t col, const uint32_t *paths, size_t np,
                       const uint32_t *ranks, size_t nr, const thread_set *ts, double *out) {
  int sorted_paths = ascending(paths, np);
  first_error err = {.rank = -1};
#pragma omp parallel for schedule(dynamic, 16)
  for (long i = 0; i < (long)nr; i++) {
    uint32_t rank = nth_rank(ranks, (size_t)i);
    double *row = out + (size_t)i * np;
    int present = jdb_u32(jdb_rank_rec(db, rank) + 20) & 1u;
    for (size_t j = 0; j < np; j++) row[j] = present ? 0.0 : NAN;
    if (present && walk_rank(db, rank, col, paths, np, sorted_paths, ts, add_value, row) != 0)
      note_error(&err, i);
  }
  return raise_error(&err);
}

int instr_jdb_rank_values(const instr_jdb *db, uint32_t col, const uint32_t *paths,
                          size_t npaths_sel, const uint32_t *ranks, size_t nranks_sel,
                          const uint32_t *threads, size_t nthreads_sel, double *out) {
  jdb_clear_error();
  if (jdb_check_column(db, col) || jdb_check_selection(db, paths, npaths_sel, ranks, nranks_sel))
    return -1;
  thread_set ts;
  if (thread_set_init(&ts, db, threads, nthreads_sel)) return -1;
  int rc = rank_values(db, col, paths, npaths_sel, ranks, ranks ? nranks_sel : db->nranks, &ts,
                       out);
  free(ts.sorted);
  return rc;
}
