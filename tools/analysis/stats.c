/* Statistics of call paths over ranks: min, max, mean, population standard deviation, the
 * balance ratio mean/max (hpcanalysis' measure of load balance) and the outlier ranks by
 * |x - mean| > k * std. The per-rank values are ingested a block of paths at a time, so that
 * memory stays bounded for any number of ranks and paths. */
#include "jdb_internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

enum { BLOCK_VALUES = 1 << 22 }; /* doubles per block: 32 MiB */

typedef struct {
  uint32_t *path, *rank;
  size_t n, cap;
} outlier_list;

static int push_outlier(outlier_list *l, uint32_t path, uint32_t rank) {
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 64;
    uint32_t *p = realloc(l->path, cap * sizeof *p);
    if (!p) return -1;
    l->path = p;
    uint32_t *r = realloc(l->rank, cap * sizeof *r);
    if (!r) return -1;
    l->rank = r;
    l->cap = cap;
  }
  l->path[l->n] = path;
  l->rank[l->n] = rank;
  l->n++;
  return 0;
}

static void path_stats(const double *values, size_t stride, size_t nr, instr_jdb_stats *s,
                       const uint32_t *ranks) {
  double sum = 0;
  s->nranks = s->nvisited = s->noutliers = 0;
  s->min = s->max = NAN;
  s->min_rank = s->max_rank = INSTR_JDB_NO_PARENT;
  for (size_t i = 0; i < nr; i++) {
    double x = values[i * stride];
    if (isnan(x)) continue; /* absent rank */
    uint32_t rank = ranks ? ranks[i] : (uint32_t)i;
    if (s->nranks == 0 || x < s->min) s->min = x, s->min_rank = rank;
    if (s->nranks == 0 || x > s->max) s->max = x, s->max_rank = rank;
    s->nranks++;
    sum += x;
  }
  s->mean = s->nranks ? sum / s->nranks : NAN;
  double sq = 0;
  for (size_t i = 0; i < nr; i++) {
    double x = values[i * stride];
    if (!isnan(x)) sq += (x - s->mean) * (x - s->mean);
  }
  s->std = s->nranks ? sqrt(sq / s->nranks) : NAN;
  s->balance = s->nranks && s->max != 0 ? s->mean / s->max : NAN;
}

long instr_jdb_path_stats(const instr_jdb *db, uint32_t col, const uint32_t *paths,
                          size_t npaths_sel, const uint32_t *ranks, size_t nranks_sel,
                          const uint32_t *threads, size_t nthreads_sel, double k,
                          instr_jdb_stats *out, uint32_t *outlier_path, uint32_t *outlier_rank,
                          size_t outlier_cap) {
  jdb_clear_error();
  if (jdb_check_size(db)) return -1;
  if (jdb_check_column(db, col) || jdb_check_selection(db, paths, npaths_sel, ranks, nranks_sel))
    return -1;
  if (!(k >= 0)) {
    jdb_fail("%s: outlier factor k = %g: it must be a number >= 0", db->file, k);
    return -1;
  }
  size_t nr = ranks ? nranks_sel : db->nranks;
  size_t block = nr ? BLOCK_VALUES / nr : npaths_sel;
  if (block == 0) block = 1;
  if (block > npaths_sel) block = npaths_sel;
  double *values = malloc((block ? block : 1) * (nr ? nr : 1) * sizeof *values);
  outlier_list outliers = {0};
  if (!values) {
    jdb_fail("%s: out of memory for the values of %zu ranks", db->file, nr);
    return -1;
  }
  long rc = 0;
  for (size_t b = 0; b < npaths_sel && rc == 0; b += block) {
    size_t np = npaths_sel - b < block ? npaths_sel - b : block;
    if (instr_jdb_rank_values(db, col, paths + b, np, ranks, nranks_sel, threads, nthreads_sel,
                              values) != 0) {
      rc = -1;
      break;
    }
#pragma omp parallel for schedule(dynamic, 4)
    for (long j = 0; j < (long)np; j++) {
      out[b + (size_t)j].path = paths[b + (size_t)j];
      path_stats(values + j, np, nr, &out[b + (size_t)j], ranks);
    }
    for (size_t j = 0; j < np && rc == 0; j++) {
      instr_jdb_stats *s = &out[b + j];
      for (size_t i = 0; i < nr; i++) {
        double x = values[i * np + j];
        if (isnan(x)) continue;
        if (x != 0) s->nvisited++;
        if (s->std > 0 && fabs(x - s->mean) > k * s->std) {
          s->noutliers++;
          if (push_outlier(&outliers, s->path, ranks ? ranks[i] : (uint32_t)i)) {
            jdb_fail("%s: out of memory for outlier ranks", db->file);
            rc = -1;
            break;
          }
        }
      }
    }
  }
  free(values);
  if (rc == 0) {
    rc = (long)outliers.n;
    if (outlier_path && outlier_rank && outlier_cap >= outliers.n && outliers.n) {
      memcpy(outlier_path, outliers.path, outliers.n * sizeof *outlier_path);
      memcpy(outlier_rank, outliers.rank, outliers.n * sizeof *outlier_rank);
    }
  }
  free(outliers.path);
  free(outliers.rank);
  return rc;
}
