/* Ingestion of metric values: the ranks in parallel (OpenMP), each thread a contiguous block of
 * them, in each rank's rows (sorted by (path, thread)) a binary search per selected path. A
 * selection that touches most of a rank's pages reads the rows with pread in large pieces
 * (rows_reader); a smaller one reads only the pages of the rows searched, through the mapping.
 * A failure inside the parallel loop is kept (the lowest rank's) and reported by the calling
 * thread, whose message instr_jdb_error() returns. */
#define _GNU_SOURCE /* O_DIRECT, mincore */
#include "jdb_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

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

#define ROW(i) (rows + (uint64_t)(i) * db->row_size)

int jdb_find_path_rows(const instr_jdb *db, uint32_t rank, int pruned,
                       const unsigned char *rows, uint32_t path, uint64_t lo, uint64_t *first,
                       uint64_t *end) {
  uint64_t off, n;
  jdb_rank_extent(db, rank, pruned, &off, &n);
  uint64_t hi = n;
  uint32_t nthreads = jdb_u32(jdb_rank_rec(db, rank) + 16);
  /* galloping from lo: the paths of a selection come in ascending order, each usually a few
   * rows after the one before, so the search stays on the pages it just read */
  for (uint64_t step = 1; lo + step < n; step *= 2) {
    if (jdb_u32(ROW(lo + step)) >= path) {
      hi = lo + step;
      break;
    }
    lo += step;
  }
  if (lo < n && jdb_u32(ROW(lo)) >= path) hi = lo;
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo) / 2;
    if (jdb_u32(ROW(mid)) < path)
      lo = mid + 1;
    else
      hi = mid;
  }
  *first = *end = lo;
  if (lo == n || jdb_u32(ROW(lo)) != path) return 1;
  uint64_t i = lo, prev = 0;
  if (lo > 0) { /* the row before: below the path (lower bound), so the first row's order holds */
    const unsigned char *before = ROW(lo - 1);
    prev = (uint64_t)jdb_u32(before) << 32 | jdb_u32(before + 4);
  }
  for (; i < n; i++) {
    const unsigned char *row = ROW(i);
    if (jdb_u32(row) != path) break;
    /* the rows open did not check (INSTR_JDB_LAZY_ROWS) are checked as they are read */
    if (jdb_check_row(db, rank, i, row, nthreads, &prev, pruned)) return -1;
  }
  if (i < n && jdb_u32(ROW(i)) < path) {
    jdb_fail("%s: damaged: rank %" PRIu32 " %s %" PRIu64
             ": its rows are not sorted by (path, thread)",
             db->file, rank, pruned ? "pruned row" : "row", i);
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

/* The selected paths as the walk uses them: ascending or not and, when ascending, each path's
 * index in the selection (-1: not selected), so that a rank with fewer rows than the selection
 * has paths is scanned once instead of searched for each path. */
typedef struct {
  const uint32_t *paths;
  size_t n;
  int sorted;
  int32_t *slot;
  int pruned; /* the rows are read from the pruned section */
} selection;

/* Whether the selection's rows are all in the pruned section: every selected path is in the
 * pruned set (docs/analysis.md, "Access pattern"), and the caller did not ask for the rows
 * area (INSTR_JDB_ROWS_AREA). */
static int reads_pruned(const instr_jdb *db, const uint32_t *paths, size_t n) {
  if (!db->has_pruned || (db->flags & INSTR_JDB_ROWS_AREA) || n == 0) return 0;
  for (size_t j = 0; j < n; j++)
    if (!db->in_pruned[paths[j]]) return 0;
  return 1;
}

static int selection_init(selection *sel, const instr_jdb *db, const uint32_t *paths, size_t n) {
  sel->paths = paths;
  sel->n = n;
  sel->sorted = ascending(paths, n);
  sel->slot = NULL;
  sel->pruned = reads_pruned(db, paths, n);
  if (!sel->sorted || n == 0 || n > INT32_MAX) return 0;
  sel->slot = malloc((size_t)db->npaths * sizeof *sel->slot);
  if (!sel->slot) {
    jdb_fail("%s: out of memory for a selection of %zu paths", db->file, n);
    return -1;
  }
  memset(sel->slot, 0xFF, (size_t)db->npaths * sizeof *sel->slot);
  for (size_t j = 0; j < n; j++) sel->slot[paths[j]] = (int32_t)j;
  return 0;
}

/* Cold pages (docs/analysis.md, "Access pattern"): a search for a path reads about one page of
 * a rank's rows, so a selection of at least half as many paths as the rank has pages reads
 * most of them. Such a rank's rows are taken a piece at a time: the rank's and those of the
 * ranks after it in the thread's block, up to CHUNK_BYTES. A piece whose pages are mostly in
 * memory (mincore) is read through the mapping; any other is read from the disk with O_DIRECT
 * into a buffer of the thread's: the disk's DMA fills it, where faulting the mapping in costs
 * the kernel a page-table update per page and a read through the page cache a copy per byte,
 * each as much CPU as the walk itself on a large file. The two threads' reads and walks
 * overlap each other. A smaller selection reads only the pages its searches land on, through
 * the mapping; so does everything where O_DIRECT is refused. */
#define CHUNK_BYTES (8u << 20)
/* a gap between the rows of two selected ranks (the ranks between them not selected) up to
 * which the gap is read along rather than starting a new read */
#define GAP_BYTES (64u << 10)
/* O_DIRECT's alignment of offsets, lengths and buffers: a page covers every block size */
#define DIRECT_ALIGN 4096u

typedef struct {
  const uint32_t *ranks; /* the selection (NULL: every rank) */
  size_t end;            /* the thread's block ends before the end-th selected rank */
  size_t npaths_sel;
  int pruned; /* the ranks' rows in the pruned section */
  int direct_fd; /* the file opened with O_DIRECT, -1: read through the mapping */
  unsigned char *buf;
  size_t cap;
  uint64_t off, len; /* the piece [off, off + len) of the file the walk is in */
  int mapped;        /* whether that piece is read through the mapping (else it is in buf) */
} rows_reader;

static uint32_t nth_rank(const uint32_t *ranks, size_t i) { return ranks ? ranks[i] : (uint32_t)i; }

static long page_size(void) {
  static long page;
  if (!page) page = sysconf(_SC_PAGESIZE) > 0 ? sysconf(_SC_PAGESIZE) : 4096;
  return page;
}

static int reads_most_pages(size_t npaths_sel, uint64_t bytes) {
  return bytes && (uint64_t)npaths_sel * 2 * (uint64_t)page_size() >= bytes;
}

/* The file again, with O_DIRECT: the same file as the mapping's (device and inode), else -1.
 * Shared by the threads of a query (pread does not move the offset). */
static int open_direct(const instr_jdb *db) {
#ifdef O_DIRECT
  char self[64];
  struct stat a, b;
  snprintf(self, sizeof self, "/proc/self/fd/%d", db->fd);
  int fd = open(self, O_RDONLY | O_DIRECT | O_CLOEXEC);
  if (fd < 0) fd = open(db->file, O_RDONLY | O_DIRECT | O_CLOEXEC);
  if (fd < 0) return -1;
  if (fstat(fd, &a) != 0 || fstat(db->fd, &b) != 0 || a.st_dev != b.st_dev ||
      a.st_ino != b.st_ino) {
    close(fd);
    return -1;
  }
  return fd;
#else
  (void)db;
  return -1;
#endif
}

/* Whether most pages of the file's [off, end) are in memory. */
static int mostly_resident(const instr_jdb *db, uint64_t off, uint64_t end) {
  uintptr_t page = (uintptr_t)page_size();
  uintptr_t start = (uintptr_t)(db->map + off) & ~(page - 1);
  size_t len = (size_t)((uintptr_t)(db->map + end) - start), npages = (len + page - 1) / page;
  unsigned char vec[CHUNK_BYTES / 4096 + 2];
  if (npages > sizeof vec || mincore((void *)start, len, vec) != 0) return 1;
  size_t resident = 0;
  for (size_t k = 0; k < npages; k++) resident += vec[k] & 1u;
  return 2 * resident >= npages;
}

/* Reads the file's [off, end) into the reader's buffer with O_DIRECT: 0 when read (the data
 * at rd->buf + (off - rd->off)), 1 when O_DIRECT is refused (read through the mapping), -1
 * with the message set. */
static int read_direct(const instr_jdb *db, rows_reader *rd, uint64_t off, uint64_t end) {
  uint64_t a = off & ~(uint64_t)(DIRECT_ALIGN - 1);
  uint64_t e = (end + DIRECT_ALIGN - 1) & ~(uint64_t)(DIRECT_ALIGN - 1);
  if (e - a > rd->cap) {
    free(rd->buf);
    rd->buf = NULL;
    rd->cap = 0;
    void *grown;
    if (posix_memalign(&grown, DIRECT_ALIGN, (size_t)(e - a)) != 0) {
      jdb_fail("%s: out of memory for %" PRIu64 " bytes of rows", db->file, e - a);
      return -1;
    }
    rd->buf = grown;
    rd->cap = (size_t)(e - a);
  }
  uint64_t got = 0;
  while (a + got < end) {
    uint64_t want = e - a - got;
    ssize_t n = pread(rd->direct_fd, rd->buf + got,
                      want > (1u << 30) ? (1u << 30) : (size_t)want, (off_t)(a + got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EINVAL && got == 0) return 1; /* an alignment the file system refuses */
    if (n <= 0) {
      jdb_fail("%s: cannot read %" PRIu64 " bytes at offset %" PRIu64 ": %s", db->file,
               end - off, off, n < 0 ? strerror(errno) : "the file ended (truncated?)");
      return -1;
    }
    got += (uint64_t)n;
  }
  rd->off = a;
  rd->len = got;
  return 0;
}

/* The block [*begin, *end) of n selected ranks of the calling thread of a parallel region: the
 * ranks' rows lie in the file in rank order, so each thread reads forward through the file. */
static void thread_block(size_t n, size_t *begin, size_t *end) {
  size_t t = 0, nt = 1;
#ifdef _OPENMP
  t = (size_t)omp_get_thread_num();
  nt = (size_t)omp_get_num_threads();
#endif
  *begin = n * t / nt;
  *end = n * (t + 1) / nt;
}

/* A piece read through the mapping where O_DIRECT is not to be had: its pages asked for at
 * once (the kernel reads them in large requests) rather than faulted in one at a time.
 * Returns the piece's first byte. */
static const unsigned char *advise_willneed(const instr_jdb *db, uint64_t off, uint64_t end) {
  uintptr_t page = (uintptr_t)page_size();
  uintptr_t start = (uintptr_t)(db->map + off) & ~(page - 1);
  (void)posix_madvise((void *)start, (size_t)((uintptr_t)(db->map + end) - start),
                      POSIX_MADV_WILLNEED);
  return db->map + off;
}

/* The rows of the i-th selected rank (its first row), from the mapping or the reader's buffer;
 * NULL with the message set when they cannot be read. */
static const unsigned char *rank_rows(const instr_jdb *db, rows_reader *rd, size_t i) {
  uint32_t rank = nth_rank(rd->ranks, i);
  uint64_t off, nrows;
  jdb_rank_extent(db, rank, rd->pruned, &off, &nrows);
  /* Before any pointer is made from them: a damaged index record may point anywhere. */
  if (off > db->size || nrows > (db->size - off) / db->row_size) {
    jdb_fail("%s: damaged: rank %" PRIu32 "'s %" PRIu64 " %s at offset %" PRIu64
             " lie outside the file (%" PRIu64 " bytes)", db->file, rank, nrows,
             rd->pruned ? "pruned rows" : "rows", off, db->size);
    return NULL;
  }
  uint64_t bytes = nrows * db->row_size;
  if (!reads_most_pages(rd->npaths_sel, bytes)) return db->map + off;
  if (off >= rd->off && off + bytes <= rd->off + rd->len)
    return rd->mapped ? db->map + off : rd->buf + (off - rd->off);
  uint64_t end = off + bytes; /* checked at open: inside the file, in rank order */
  for (size_t k = i + 1; k < rd->end; k++) {
    uint64_t o, b;
    jdb_rank_extent(db, nth_rank(rd->ranks, k), rd->pruned, &o, &b);
    b *= db->row_size;
    if (!b) continue; /* an absent rank: no rows */
    if (!reads_most_pages(rd->npaths_sel, b) || o < end || o - end > GAP_BYTES ||
        o + b - off > CHUNK_BYTES)
      break;
    end = o + b;
  }
  rd->mapped = 1;
  rd->off = off;
  rd->len = end - off;
  if (rd->direct_fd < 0 || end - off > CHUNK_BYTES) return advise_willneed(db, off, end);
  if (mostly_resident(db, off, end)) return db->map + off;
  int rc = read_direct(db, rd, off, end);
  if (rc < 0) return NULL;
  if (rc > 0) { /* refused: this reader reads through the mapping from now on */
    rd->direct_fd = -1;
    return advise_willneed(db, off, end);
  }
  rd->mapped = 0;
  return rd->buf + (off - rd->off);
}

/* Walks one rank's rows (at rows) of the selected paths: calls visit(ctx, j, thread, value) for every
 * selected thread's row of the j-th path, in the order of the selection, then of threads. */
typedef void (*row_visitor)(void *ctx, size_t j, uint32_t thread, double value);
static int walk_rank(const instr_jdb *db, uint32_t rank, const unsigned char *rows, uint32_t col,
                     const selection *sel, const thread_set *threads, row_visitor visit,
                     void *ctx) {
  uint32_t kind = jdb_column_kind(db, col);
  uint64_t value_off = JDB_ROW_KEY_SIZE + 8ull * col, lo = 0;
  const unsigned char *rec = jdb_rank_rec(db, rank);
  uint64_t off, nrows;
  jdb_rank_extent(db, rank, sel->pruned, &off, &nrows);
  unsigned log2_rows = 1;
  while (log2_rows < 64 && (nrows >> log2_rows) != 0) log2_rows++;
  /* a search per path costs about log2(rows) reads, a scan one per row */
  if (sel->slot && (uint64_t)sel->n * log2_rows > nrows) {
    /* scan: every row once, checked as it is read (INSTR_JDB_LAZY_ROWS) */
    uint32_t nthreads = jdb_u32(rec + 16);
    uint64_t prev = 0;
    for (uint64_t i = 0; i < nrows; i++) {
      const unsigned char *row = ROW(i);
      if (jdb_check_row(db, rank, i, row, nthreads, &prev, sel->pruned)) return -1;
      uint32_t path = jdb_u32(row), thread = jdb_u32(row + 4);
      int32_t j = sel->slot[path];
      if (j >= 0 && thread_selected(threads, thread))
        visit(ctx, (size_t)j, thread, jdb_value(row + value_off, kind));
    }
    return 0;
  }
  for (size_t j = 0; j < sel->n; j++) {
    uint64_t first, end;
    int found = jdb_find_path_rows(db, rank, sel->pruned, rows, sel->paths[j],
                                   sel->sorted ? lo : 0, &first, &end);
    if (found < 0) return -1;
    lo = end;
    for (uint64_t i = first; i < end; i++) {
      const unsigned char *row = ROW(i);
      uint32_t thread = jdb_u32(row + 4);
      if (thread_selected(threads, thread)) visit(ctx, j, thread, jdb_value(row + value_off, kind));
    }
  }
  return 0;
}

/* One walk (instr_jdb_rows_load) whatever the caller's cap: a caller that asks for the count
 * first and then for the rows reads the rows twice, but a call with enough room reads them
 * once. */
long instr_jdb_rows(const instr_jdb *db, uint32_t col, const uint32_t *paths, size_t npaths_sel,
                    const uint32_t *ranks, size_t nranks_sel, const uint32_t *threads,
                    size_t nthreads_sel, uint32_t *out_path, uint32_t *out_rank,
                    uint32_t *out_thread, double *out_value, size_t cap) {
  instr_jdb_row_set set;
  if (instr_jdb_rows_load(db, col, paths, npaths_sel, ranks, nranks_sel, threads, nthreads_sel,
                          0, &set) != 0)
    return -1;
  if (set.n > (size_t)LONG_MAX) {
    instr_jdb_row_set_free(&set);
    jdb_fail("%s: %zu rows do not fit the count's type", db->file, set.n);
    return -1;
  }
  if (cap >= set.n && set.n && out_path && out_rank && out_thread && out_value) {
    memcpy(out_path, set.path, set.n * sizeof *out_path);
    memcpy(out_rank, set.rank, set.n * sizeof *out_rank);
    memcpy(out_thread, set.thread, set.n * sizeof *out_thread);
    memcpy(out_value, set.value, set.n * sizeof *out_value);
  }
  long total = (long)set.n;
  instr_jdb_row_set_free(&set);
  return total;
}

static void add_value(void *ctx, size_t j, uint32_t thread, double value) {
  (void)thread;
  ((double *)ctx)[j] += value;
}

/* out[i * np + j], as the header says. Shared with stats.c through the same walk. */
static int rank_values(const instr_jdb *db, uint32_t col, const uint32_t *paths, size_t np,
                       const uint32_t *ranks, size_t nr, const thread_set *ts, double *out) {
  selection sel;
  if (selection_init(&sel, db, paths, np)) return -1;
  first_error err = {.rank = -1};
  int direct_fd = open_direct(db);
#pragma omp parallel
  {
    size_t begin, end;
    thread_block(nr, &begin, &end);
    rows_reader rd = {.ranks = ranks, .end = end, .npaths_sel = np, .pruned = sel.pruned,
                      .direct_fd = direct_fd};
    for (size_t i = begin; i < end; i++) {
      uint32_t rank = nth_rank(ranks, i);
      double *row = out + i * np;
      int present = jdb_u32(jdb_rank_rec(db, rank) + 20) & 1u;
      for (size_t j = 0; j < np; j++) row[j] = present ? 0.0 : NAN;
      if (!present) continue;
      const unsigned char *rows = rank_rows(db, &rd, i);
      if (!rows || walk_rank(db, rank, rows, col, &sel, ts, add_value, row) != 0) {
        note_error(&err, (long)i);
        break;
      }
    }
    free(rd.buf);
  }
  if (direct_fd >= 0) close(direct_fd);
  free(sel.slot);
  return raise_error(&err);
}

int instr_jdb_rank_values(const instr_jdb *db, uint32_t col, const uint32_t *paths,
                          size_t npaths_sel, const uint32_t *ranks, size_t nranks_sel,
                          const uint32_t *threads, size_t nthreads_sel, double *out) {
  jdb_clear_error();
  if (jdb_check_size(db)) return -1;
  if (jdb_check_column(db, col) || jdb_check_selection(db, paths, npaths_sel, ranks, nranks_sel))
    return -1;
  thread_set ts;
  if (thread_set_init(&ts, db, threads, nthreads_sel)) return -1;
  int rc = rank_values(db, col, paths, npaths_sel, ranks, ranks ? nranks_sel : db->nranks, &ts,
                       out);
  free(ts.sorted);
  return rc;
}

/* One pass: each thread takes a contiguous block of the selected ranks and appends to arrays of
 * its own; the blocks are joined in thread order, which is rank order. */
typedef struct {
  instr_jdb_row_set set;
  size_t cap;
  int failed;
  uint32_t rank;
  const uint32_t *paths;
  size_t np;
  double *sums; /* SUM_THREADS: per selected path */
  unsigned char *seen;
} row_buffer;

static int buffer_grow(row_buffer *b) {
  size_t cap = b->cap ? 2 * b->cap : 4096;
  uint32_t *p = realloc(b->set.path, cap * sizeof *p);
  if (p) b->set.path = p;
  uint32_t *r = p ? realloc(b->set.rank, cap * sizeof *r) : NULL;
  if (r) b->set.rank = r;
  uint32_t *t = r ? realloc(b->set.thread, cap * sizeof *t) : NULL;
  if (t) b->set.thread = t;
  double *v = t ? realloc(b->set.value, cap * sizeof *v) : NULL;
  if (v) b->set.value = v;
  if (!v) return -1;
  b->cap = cap;
  return 0;
}

static void buffer_row(void *ctx, size_t j, uint32_t thread, double value) {
  row_buffer *b = ctx;
  if (b->failed) return;
  if (b->sums) {
    b->sums[j] += value;
    b->seen[j] = 1;
    return;
  }
  if (b->set.n == b->cap && buffer_grow(b)) {
    b->failed = 1;
    return;
  }
  b->set.path[b->set.n] = b->paths[j];
  b->set.rank[b->set.n] = b->rank;
  b->set.thread[b->set.n] = thread;
  b->set.value[b->set.n] = value;
  b->set.n++;
}

/* SUM_THREADS: the rank's sums become its entries, in the order of the selected paths */
static void buffer_flush_sums(row_buffer *b) {
  for (size_t j = 0; j < b->np && !b->failed; j++) {
    if (!b->seen[j]) continue;
    if (b->set.n == b->cap && buffer_grow(b)) {
      b->failed = 1;
      break;
    }
    b->set.path[b->set.n] = b->paths[j];
    b->set.rank[b->set.n] = b->rank;
    b->set.thread[b->set.n] = INSTR_JDB_NO_PARENT;
    b->set.value[b->set.n] = b->sums[j];
    b->set.n++;
    b->sums[j] = 0;
    b->seen[j] = 0;
  }
}

void instr_jdb_row_set_free(instr_jdb_row_set *set) {
  if (!set) return;
  free(set->path), free(set->rank), free(set->thread), free(set->value);
  memset(set, 0, sizeof *set);
}

int instr_jdb_rows_load(const instr_jdb *db, uint32_t col, const uint32_t *paths,
                        size_t npaths_sel, const uint32_t *ranks, size_t nranks_sel,
                        const uint32_t *threads, size_t nthreads_sel, unsigned flags,
                        instr_jdb_row_set *out) {
  jdb_clear_error();
  if (jdb_check_size(db)) return -1;
  memset(out, 0, sizeof *out);
  if (jdb_check_column(db, col) || jdb_check_selection(db, paths, npaths_sel, ranks, nranks_sel))
    return -1;
  size_t nr = ranks ? nranks_sel : db->nranks;
  thread_set ts;
  if (thread_set_init(&ts, db, threads, nthreads_sel)) return -1;
  selection sel;
  if (selection_init(&sel, db, paths, npaths_sel)) {
    free(ts.sorted);
    return -1;
  }
  int nthr = 1;
#ifdef _OPENMP
  nthr = omp_get_max_threads();
#endif
  row_buffer *buf = calloc((size_t)nthr, sizeof *buf);
  if (!buf) {
    free(ts.sorted);
    free(sel.slot);
    jdb_fail("%s: out of memory", db->file);
    return -1;
  }
  first_error err = {.rank = -1};
  int used = 1, direct_fd = open_direct(db);
#pragma omp parallel num_threads(nthr)
  {
    int t = 0, n = 1;
#ifdef _OPENMP
    t = omp_get_thread_num();
    n = omp_get_num_threads();
#pragma omp single
    used = n;
#endif
    row_buffer *b = &buf[t];
    b->paths = paths;
    b->np = npaths_sel;
    if (flags & INSTR_JDB_SUM_THREADS) {
      b->sums = calloc(npaths_sel ? npaths_sel : 1, sizeof *b->sums);
      b->seen = calloc(npaths_sel ? npaths_sel : 1, 1);
      if (!b->sums || !b->seen) b->failed = 1;
    }
    size_t begin = nr * (size_t)t / (size_t)n, end = nr * ((size_t)t + 1) / (size_t)n;
    rows_reader rd = {.ranks = ranks, .end = end, .npaths_sel = npaths_sel,
                      .pruned = sel.pruned, .direct_fd = direct_fd};
    for (size_t i = begin; i < end && !b->failed; i++) {
      b->rank = nth_rank(ranks, i);
      const unsigned char *rows = rank_rows(db, &rd, i);
      if (!rows || walk_rank(db, b->rank, rows, col, &sel, &ts, buffer_row, b) != 0) {
        note_error(&err, (long)i);
        break;
      }
      if (b->sums) buffer_flush_sums(b);
    }
    free(rd.buf);
    free(b->sums);
    free(b->seen);
  }
  if (direct_fd >= 0) close(direct_fd);
  free(ts.sorted);
  free(sel.slot);
  int rc = raise_error(&err);
  size_t total = 0;
  for (int t = 0; t < used && rc == 0; t++) {
    if (buf[t].failed) {
      jdb_fail("%s: out of memory for the rows of %zu ranks", db->file, nr);
      rc = -1;
    }
    total += buf[t].set.n;
  }
  if (rc == 0 && used == 1) {
    *out = buf[0].set; /* one block: it is the result */
    buf[0].set = (instr_jdb_row_set){0};
  } else if (rc == 0) {
    row_buffer all = {0};
    while (all.cap < total)
      if (buffer_grow(&all)) {
        jdb_fail("%s: out of memory for %zu rows", db->file, total);
        rc = -1;
        break;
      }
    for (int t = 0; t < used && rc == 0; t++) {
      size_t k = buf[t].set.n, at = all.set.n;
      if (k == 0) continue; /* a thread without rows has no arrays */
      memcpy(all.set.path + at, buf[t].set.path, k * sizeof *all.set.path);
      memcpy(all.set.rank + at, buf[t].set.rank, k * sizeof *all.set.rank);
      memcpy(all.set.thread + at, buf[t].set.thread, k * sizeof *all.set.thread);
      memcpy(all.set.value + at, buf[t].set.value, k * sizeof *all.set.value);
      all.set.n += k;
    }
    if (rc == 0) *out = all.set;
    else instr_jdb_row_set_free(&all.set);
  }
  for (int t = 0; t < nthr; t++) instr_jdb_row_set_free(&buf[t].set);
  free(buf);
  return rc;
}
