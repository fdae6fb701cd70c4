/* Unit tests of libinstr-analysis on the sample databases of tests/lib/jdb_testdouble.py
 * (its comments give the values; the answers below are computed by hand from them).
 * Usage: test_analysis GROUP SAMPLE.jdb SAMPLE_B.jdb */
#include "check.h"
#include "instr_analysis.h"

#include <fnmatch.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdlib.h>

#define CHECK_NEAR(got, want) CHECK(fabs((got) - (want)) < 1e-9 * (1 + fabs(want)))

static instr_jdb *db, *db_b;

static int same_u32(const uint32_t *got, long n, const uint32_t *want, long wn) {
  if (n != wn) {
    fprintf(stderr, "  got %ld entries, want %ld\n", n, wn);
    return 0;
  }
  for (long i = 0; i < n; i++)
    if (got[i] != want[i]) {
      fprintf(stderr, "  entry %ld: got %u, want %u\n", i, got[i], want[i]);
      return 0;
    }
  return 1;
}

#define CHECK_IDS(got, n, ...)                                                        \
  do {                                                                                \
    const uint32_t want_[] = {__VA_ARGS__};                                           \
    CHECK(same_u32(got, n, want_, (long)(sizeof want_ / sizeof want_[0])));           \
  } while (0)

static void group_tree(void) {
  instr_jdb_info info;
  instr_jdb_get_info(db, &info);
  CHECK(info.nranks == 5 && info.nranks_present == 4 && info.npaths == 7 &&
        info.nregions == 6 && info.ncols == 8 && info.duration_ns == 1000 &&
        info.unification_rounds == 3);
  instr_jdb_path p;
  CHECK(instr_jdb_get_path(db, 4, &p) == 0 && p.parent == 3 && p.region == 3 && p.depth == 3 &&
        p.nchildren == 0);
  CHECK(instr_jdb_get_path(db, 0, &p) == 0 && p.parent == INSTR_JDB_NO_PARENT &&
        p.nchildren == 3);
  instr_jdb_region r;
  CHECK(instr_jdb_get_region(db, 1, &r) == 0);
  CHECK_STR(r.name, "solve");
  CHECK_STR(r.file, "solve.c");
  CHECK(r.line_begin == 20 && r.line_end == 60 && r.paradigm == INSTR_JDB_USER);
  CHECK(instr_jdb_get_region(db, 2, &r) == 0 && r.paradigm == INSTR_JDB_MPI);
  CHECK_STR(r.name, "MPI_Allreduce");
  uint32_t ids[16];
  CHECK_IDS(ids, instr_jdb_children(db, 0, ids, 16), 1, 5, 6);
  CHECK_IDS(ids, instr_jdb_children(db, INSTR_JDB_NO_PARENT, ids, 16), 0);
  CHECK_IDS(ids, instr_jdb_children(db, 1, ids, 16), 2, 3);
  CHECK(instr_jdb_children(db, 4, ids, 16) == 0);
  /* the calling context of a node: its chain to the root */
  CHECK_IDS(ids, instr_jdb_context(db, 4, ids, 16), 0, 1, 3, 4);
  CHECK_IDS(ids, instr_jdb_context(db, 0, ids, 16), 0);
  CHECK(instr_jdb_context(db, 4, ids, 2) == 4); /* the length even without room */
  CHECK(instr_jdb_context(db, 7, ids, 16) < 0);
  CHECK_PREFIX(instr_jdb_error(), "sample.jdb: no path 7: the database has paths 0..6");
  CHECK(instr_jdb_get_region(db, 6, &r) < 0);
  instr_jdb_rank rk;
  CHECK(instr_jdb_get_rank(db, 1, &rk) == 0 && rk.nrows == 8 && rk.nthreads == 2 &&
        rk.present == 1 && rk.duration_ns == 1000);
  CHECK(instr_jdb_get_rank(db, 4, &rk) == 0 && rk.nrows == 0 && rk.present == 0);
  CHECK(instr_jdb_get_rank(db, 5, &rk) < 0);
  CHECK_PREFIX(instr_jdb_error(), "sample.jdb: no rank 5: the job had ranks 0..4");
}

static void group_columns(void) {
  CHECK(instr_jdb_find_column(db, "time_incl") == 1);
  CHECK(instr_jdb_find_column(db, "ipc") == 7);
  CHECK(instr_jdb_find_column(db, "cycles") < 0);
  CHECK_PREFIX(instr_jdb_error(), "sample.jdb: no column \"cycles\"; the columns are: visits, "
                                  "time_incl, time_excl");
  instr_jdb_column c;
  CHECK(instr_jdb_get_column(db, 1, &c) == 0 && c.kind == INSTR_JDB_TIME_NS &&
        (c.flags & INSTR_JDB_INCLUSIVE));
  CHECK_STR(c.unit, "ns");
  CHECK(instr_jdb_get_column(db, 7, &c) == 0 && c.kind == INSTR_JDB_DOUBLE);
  instr_jdb_summary s;
  CHECK(instr_jdb_get_summary(db, 6, 1, &s) == 0);
  CHECK(s.nranks_visited == 3 && s.sum == 400 && s.min == 50 && s.max == 300 &&
        s.sum_squares == 95000);
  CHECK(instr_jdb_get_summary(db, 1, 1, &s) == 0);
  CHECK(s.nranks_visited == 4 && s.sum == 3300 && s.min == 600 && s.max == 1100);
  CHECK(instr_jdb_get_summary(db, 0, 7, &s) == 0); /* a DOUBLE column */
  CHECK_NEAR(s.sum, 5.0);
  CHECK_NEAR(s.min, 0.5);
  CHECK_NEAR(s.max, 2.0);
  CHECK(instr_jdb_total(db, 1) == 4000);
  CHECK(instr_jdb_total(db, 0) == 4 + 5 + 40 + 5 + 4 + 3 + 30); /* visits: every path */
}

#define CHECK_SELECT(query, ...)                                                      \
  do {                                                                                \
    uint32_t got_[16];                                                                \
    long n_ = instr_jdb_select(db, query, got_);                                      \
    if (n_ < 0) fprintf(stderr, "  %s: %s\n", query, instr_jdb_error());              \
    CHECK_IDS(got_, n_, __VA_ARGS__);                                                 \
  } while (0)

#define CHECK_SELECT_ERROR(query, message)                                            \
  do {                                                                                \
    uint32_t got_[16];                                                                \
    CHECK(instr_jdb_select(db, query, got_) < 0);                                     \
    CHECK_STR(instr_jdb_error(), message);                                            \
  } while (0)

static void group_select(void) {
  CHECK_SELECT("all", 0, 1, 2, 3, 4, 5, 6);
  CHECK_SELECT("function(MPI_*)", 2, 4, 6);
  CHECK_SELECT("function( MPI_Allreduce )", 2, 6);
  CHECK_SELECT("path(main/solve/*)", 2, 3, 4);
  CHECK_SELECT("path(*/MPI_Allreduce)", 2, 6);
  CHECK_SELECT("path(main)", 0);
  CHECK_SELECT("file(solve.c)", 1, 3);
  CHECK_SELECT("paradigm(mpi)", 2, 4, 6);
  CHECK_SELECT("not paradigm(mpi)", 0, 1, 3, 5);
  /* pruning: of the run's 4000 ns of time_incl, 10 % is 400 */
  CHECK_SELECT("time_incl >= 10%", 0, 1, 2, 3, 4, 6);
  CHECK_SELECT("time_incl>=20%", 0, 1, 2, 3);
  CHECK_SELECT("function(MPI_*) and time_incl >= 10%", 2, 4, 6);
  CHECK_SELECT("function(MPI_*) and time_incl > 10%", 2, 4);
  CHECK_SELECT("time_incl < 400", 5);
  /* an exclusive column: per cent of the sum over every path. time_excl sums: main 450,
     solve 1400, MPI_Allreduce 800, exchange 370, MPI_Send 730, io 250, main/MPI_Allreduce
     400: 4400 in all, 10 % = 440 */
  CHECK_SELECT("time_excl >= 10%", 0, 1, 2, 4);
  CHECK_SELECT("visits >= 30", 2, 6); /* MPI_Allreduce: 10 visits a row */
  CHECK_SELECT("function(MPI_*) or function(io)", 2, 4, 5, 6);
  CHECK_SELECT("(function(solve) or function(io)) and not time_incl < 300", 1);
}

/* path(GLOB) matches each context incrementally (tools/analysis/context_glob.c): it must
 * select exactly what fnmatch(GLOB, context, 0) selects on the joined contexts. */
static void group_path_glob(void) {
  static const char *const globs[] = {
      "*", "main", "main*", "*exchange*", "main/solve/*", "*/MPI_*", "m?in/*", "main/[sx]*",
      "main/[!s]*", "main/[^s]*", "*[[:upper:]]*", "main/solve/exchange/MPI_Send", "*Send",
      "\\m*", "main\\", "[main", "*e*e*e*", "main/*/*/*", "?", "", "*/", "main/so[a-m]ve*",
      "*[]]*", "*[]a]*", "main/solve/exchange/MPI_Send*", "**/*", "*i*/*/*", "main/?????",
      "*[[:digit:][:punct:]]*", "[[:alpha:]]ain", "*\\/*", "*/*e", "main/[!]io]*"};
  instr_jdb_info info;
  instr_jdb_get_info(db, &info);
  for (size_t g = 0; g < sizeof globs / sizeof globs[0]; g++) {
    char query[128], context[512];
    snprintf(query, sizeof query, "path(%s)", globs[g]);
    uint32_t got[16], want[16], chain[16];
    long n = instr_jdb_select(db, query, got), wn = 0;
    for (uint32_t q = 0; q < info.npaths; q++) {
      long len = instr_jdb_context(db, q, chain, 16);
      context[0] = '\0';
      for (long i = 0; i < len; i++) {
        instr_jdb_path p;
        instr_jdb_region r;
        instr_jdb_get_path(db, chain[i], &p);
        instr_jdb_get_region(db, p.region, &r);
        if (i) strcat(context, "/");
        strcat(context, r.name);
      }
      if (fnmatch(globs[g], context, 0) == 0) want[wn++] = q;
    }
    if (!same_u32(got, n, want, wn)) fprintf(stderr, "  for %s\n", query);
    CHECK(same_u32(got, n, want, wn));
  }
}

/* A deep recursion's database (check_linear.py writes it): path(GLOB) and function(GLOB) on
 * it, what check_linear.py counts the instructions of (callgrind). */
static void group_deep(void) {
  instr_jdb_info info;
  instr_jdb_get_info(db, &info);
  uint32_t *out = malloc(sizeof *out * info.npaths);
  CHECK(out != NULL);
  if (!out) return;
  /* every path below main: the whole chain matches, the first path (main alone) does not */
  CHECK(instr_jdb_select(db, "path(main*recurse*)", out) == (long)info.npaths - 1);
  CHECK(instr_jdb_select(db, "path(*main/recurse*/rec*)", out) == (long)info.npaths - 2);
  CHECK(instr_jdb_select(db, "path(*/main)", out) == 0);
  free(out);
}

static void group_select_empty_and_errors(void) {
  uint32_t got[16];
  CHECK(instr_jdb_select(db, "function(nothing)", got) == 0);
  CHECK_SELECT_ERROR("function(MPI_*",
                     "sample.jdb: query \"function(MPI_*\": at character 15: expected ')' to "
                     "close the selector's argument");
  CHECK_SELECT_ERROR("funktion(MPI_*)",
                     "sample.jdb: query \"funktion(MPI_*)\": at character 16: unknown selector: "
                     "the selectors are function(GLOB), path(GLOB), file(GLOB), paradigm(NAME)");
  CHECK_SELECT_ERROR("all and", "sample.jdb: query \"all and\": at character 8: the query ends "
                                "where a selector was expected");
  CHECK_SELECT_ERROR("time_incl >= x",
                     "sample.jdb: query \"time_incl >= x\": at character 14: expected a number");
  CHECK_SELECT_ERROR("all all", "sample.jdb: query \"all all\": at character 5: expected and, "
                                "or, or the end of the query");
  CHECK(instr_jdb_select(db, "cycles >= 1%", got) < 0);
  CHECK_PREFIX(instr_jdb_error(), "sample.jdb: no column \"cycles\"");
  /* nesting: 256 levels parse, deeper is refused (30,000 overflowed the stack) */
  {
    static char q[30000 * 4 + 8];
    size_t at = 0;
    for (int i = 0; i < 256; i++) at += (size_t)sprintf(q + at, "not ");
    strcpy(q + at, "all");
    CHECK(instr_jdb_select(db, q, got) == 7); /* an even number of nots: every path */
    at = 0;
    for (int i = 0; i < 30000; i++) at += (size_t)sprintf(q + at, "not ");
    strcpy(q + at, "all");
    CHECK(instr_jdb_select(db, q, got) < 0);
    CHECK_STR(instr_jdb_error(), "sample.jdb: query \"not not not not not not not not not not "
                                 "not not not not not not not not not n...\": at character 1028: "
                                 "nested deeper than 256 levels of not and parentheses; write "
                                 "the query flatter");
    memset(q, '(', 30000);
    strcpy(q + 30000, "all");
    CHECK(instr_jdb_select(db, q, got) < 0);
    CHECK(strstr(instr_jdb_error(), "at character 258: nested deeper than 256") != NULL);
    memset(q, '(', 100);
    strcpy(q + 100, "all");
    memset(q + 103, ')', 100);
    q[203] = '\0';
    CHECK_SELECT(q, 0, 1, 2, 3, 4, 5, 6);
  }
  CHECK_SELECT_ERROR("paradigm(cuda)", "sample.jdb: query \"paradigm(cuda)\": at character 15: "
                                       "paradigm(...) takes user, mpi, openmp, manual or other");
}

static void group_rows(void) {
  uint32_t paths[] = {1, 3}, path[32], rank[32], thread[32], r1_only = 1;
  double value[32];
  long n = instr_jdb_rows(db, 1, paths, 2, NULL, 0, NULL, 0, NULL, NULL, NULL, NULL, 0);
  CHECK(n == 10);
  CHECK(instr_jdb_rows(db, 1, paths, 2, NULL, 0, NULL, 0, path, rank, thread, value, 32) == 10);
  const uint32_t wp[] = {1, 3, 1, 1, 3, 3, 1, 3, 1, 3}, wr[] = {0, 0, 1, 1, 1, 1, 2, 2, 3, 3},
                 wt[] = {0, 0, 0, 1, 0, 1, 0, 0, 0, 0};
  const double wv[] = {800, 300, 700, 400, 300, 100, 800, 300, 600, 100};
  for (int i = 0; i < 10; i++) CHECK(path[i] == wp[i] && rank[i] == wr[i] && thread[i] == wt[i] &&
                                     value[i] == wv[i]);
  /* some threads: thread 1 only rank 1 has */
  uint32_t t1 = 1;
  CHECK(instr_jdb_rows(db, 1, paths, 2, NULL, 0, &t1, 1, path, rank, thread, value, 32) == 2);
  CHECK(rank[0] == 1 && thread[0] == 1 && value[0] == 400 && path[1] == 3 && value[1] == 100);
  /* some ranks, in the order given; paths in the order given */
  uint32_t ranks[] = {3, 1}, rev[] = {3, 1};
  CHECK(instr_jdb_rows(db, 1, rev, 2, ranks, 2, NULL, 0, path, rank, thread, value, 32) == 6);
  CHECK(rank[0] == 3 && path[0] == 3 && value[0] == 100 && path[1] == 1 && value[1] == 600);
  CHECK(rank[2] == 1 && path[2] == 3 && thread[2] == 0 && value[2] == 300);
  /* time_excl: main on rank 0 is 1000 - 800 - 100 - 50 */
  uint32_t main_path = 0, r0 = 0;
  CHECK(instr_jdb_rows(db, 2, &main_path, 1, &r0, 1, NULL, 0, path, rank, thread, value, 32) == 1 &&
        value[0] == 50);
  /* a DOUBLE column */
  CHECK(instr_jdb_rows(db, 7, &main_path, 1, NULL, 0, NULL, 0, path, rank, thread, value, 32) == 4);
  CHECK(value[0] == 0.5 && value[3] == 2.0);
  /* the absent rank has no rows */
  uint32_t r4 = 4;
  CHECK(instr_jdb_rows(db, 1, paths, 2, &r4, 1, NULL, 0, path, rank, thread, value, 32) == 0);
  /* the one-pass load gives the same rows; scanned (all paths: 7 x log2(rows) > rows) and
     searched (two paths) alike */
  instr_jdb_row_set set;
  CHECK(instr_jdb_rows_load(db, 1, paths, 2, NULL, 0, NULL, 0, 0, &set) == 0 && set.n == 10);
  for (size_t i = 0; i < set.n && set.n == 10; i++)
    CHECK(set.path[i] == wp[i] && set.rank[i] == wr[i] && set.thread[i] == wt[i] &&
          set.value[i] == wv[i]);
  instr_jdb_row_set_free(&set);
  uint32_t all[] = {0, 1, 2, 3, 4, 5, 6};
  CHECK(instr_jdb_rows_load(db, 1, all, 7, NULL, 0, NULL, 0, 0, &set) == 0 && set.n == 28);
  CHECK(instr_jdb_rows(db, 1, all, 7, NULL, 0, NULL, 0, NULL, NULL, NULL, NULL, 0) == 28); /* 7 + 8 + 7 + 6 */
  instr_jdb_row_set_free(&set);
  /* summed over threads: rank 1's solve is 700 + 400, its exchange 300 + 100 */
  CHECK(instr_jdb_rows_load(db, 1, paths, 2, &r1_only, 1, NULL, 0, INSTR_JDB_SUM_THREADS,
                            &set) == 0 && set.n == 2);
  CHECK(set.n == 2 && set.path[0] == 1 && set.value[0] == 1100 &&
        set.thread[0] == INSTR_JDB_NO_PARENT && set.path[1] == 3 && set.value[1] == 400);
  instr_jdb_row_set_free(&set);
  uint32_t bad = 9;
  CHECK(instr_jdb_rows_load(db, 1, &bad, 1, NULL, 0, NULL, 0, 0, &set) < 0 && set.n == 0);
  CHECK(instr_jdb_rows(db, 1, &bad, 1, NULL, 0, NULL, 0, path, rank, thread, value, 32) < 0);
  CHECK(instr_jdb_rows(db, 8, paths, 2, NULL, 0, NULL, 0, path, rank, thread, value, 32) < 0);
  CHECK_STR(instr_jdb_error(), "sample.jdb: no column 8: the database has columns 0..7");
}

static void group_rank_values(void) {
  uint32_t paths[] = {2, 6};
  double v[10];
  CHECK(instr_jdb_rank_values(db, 1, paths, 2, NULL, 0, NULL, 0, v) == 0);
  const double want[] = {100, 50, 200, 0, 100, 50, 400, 300};
  for (int i = 0; i < 8; i++) CHECK(v[i] == want[i]);
  CHECK(isnan(v[8]) && isnan(v[9]));
  /* rank 1 summed over its threads: solve 700 + 400 */
  uint32_t solve = 1, r1 = 1, t0 = 0;
  CHECK(instr_jdb_rank_values(db, 1, &solve, 1, &r1, 1, NULL, 0, v) == 0 && v[0] == 1100);
  CHECK(instr_jdb_rank_values(db, 1, &solve, 1, &r1, 1, &t0, 1, v) == 0 && v[0] == 700);
}

static void group_stats(void) {
  uint32_t all[7] = {0, 1, 2, 3, 4, 5, 6}, op[16], orank[16];
  instr_jdb_stats s[7];
  long n = instr_jdb_path_stats(db, 1, all, 7, NULL, 0, NULL, 0, 1.5, s, op, orank, 16);
  /* solve: 800 1100 800 600: mean 825, std sqrt(127500 / 4); outlier rank 1 (275 > 267.8) */
  CHECK(s[1].path == 1 && s[1].nranks == 4 && s[1].nvisited == 4 && s[1].min == 600 &&
        s[1].min_rank == 3 && s[1].max == 1100 && s[1].max_rank == 1 && s[1].mean == 825);
  CHECK_NEAR(s[1].std, sqrt(31875.0));
  CHECK_NEAR(s[1].balance, 0.75);
  /* main is balanced */
  CHECK(s[0].mean == 1000 && s[0].std == 0 && s[0].balance == 1 && s[0].noutliers == 0);
  /* MPI_Allreduce under solve: 100 200 100 400, balance 0.5, outlier rank 3 */
  CHECK(s[2].mean == 200 && s[2].balance == 0.5 && s[2].noutliers == 1);
  CHECK_NEAR(s[2].std, sqrt(15000.0));
  /* io: rank 3 did not visit it: value 0 */
  CHECK(s[5].nvisited == 3 && s[5].min == 0 && s[5].min_rank == 3 && s[5].mean == 62.5);
  CHECK_NEAR(s[6].balance, 100.0 / 300.0);
  /* outliers with k = 1.5: solve r1; Allreduce r3; exchange (300 400 300 100: |100-275| >
     1.5 * 108.97) r3; Send (200 250 200 80) r3; io (100 100 50 0) r3; main/MPI_Allreduce r3 */
  CHECK(n == 6);
  CHECK_IDS(op, n, 1, 2, 3, 4, 5, 6);
  CHECK_IDS(orank, n, 1, 3, 3, 3, 3, 3);
  /* k = 3: none with four ranks (|z| <= sqrt(3)) */
  CHECK(instr_jdb_path_stats(db, 1, all, 7, NULL, 0, NULL, 0, 3, s, op, orank, 16) == 0);
  /* some ranks */
  uint32_t ranks[] = {0, 2};
  CHECK(instr_jdb_path_stats(db, 1, all, 7, ranks, 2, NULL, 0, 1.5, s, op, orank, 16) == 0);
  CHECK(s[1].nranks == 2 && s[1].mean == 800 && s[1].std == 0 && s[1].balance == 1);
  /* the absent rank is left out */
  uint32_t with_absent[] = {3, 4};
  CHECK(instr_jdb_path_stats(db, 1, all, 7, with_absent, 2, NULL, 0, 1.5, s, op, orank, 16) >= 0);
  CHECK(s[1].nranks == 1 && s[1].mean == 600);
  CHECK(instr_jdb_path_stats(db, 1, all, 7, NULL, 0, NULL, 0, -1, s, op, orank, 16) < 0);
}

static void group_compare(void) {
  instr_jdb_match m[16];
  long n = instr_jdb_compare(db, db_b, "time_incl", INSTR_JDB_STAT_SUM, m, 16);
  CHECK(n == 8);
  const uint32_t pa[] = {0, 1, 2, 3, 4, 5, 6, INSTR_JDB_NO_PARENT},
                 pb[] = {0, 2, 6, 4, 5, INSTR_JDB_NO_PARENT, 1, 3};
  const double va[] = {4000, 3300, 800, 1100, 730, 250, 400, NAN},
               vb[] = {4000, 3000, 600, 1200, 800, NAN, 200, 200},
               diff[] = {0, -300, -200, 100, 70, -250, -200, 200};
  for (int i = 0; i < 8 && n == 8; i++) {
    CHECK(m[i].path_a == pa[i] && m[i].path_b == pb[i] && m[i].diff == diff[i]);
    CHECK(isnan(va[i]) ? isnan(m[i].value_a) : m[i].value_a == va[i]);
    CHECK(isnan(vb[i]) ? isnan(m[i].value_b) : m[i].value_b == vb[i]);
  }
  /* mean over each job's ranks: a has 5, b 2 */
  CHECK(instr_jdb_compare(db, db_b, "time_incl", INSTR_JDB_STAT_MEAN, m, 16) == 8);
  CHECK(m[1].value_a == 660 && m[1].value_b == 1500 && m[1].diff == 840);
  CHECK(instr_jdb_compare(db, db_b, "ipc", INSTR_JDB_STAT_SUM, m, 16) < 0);
  CHECK_PREFIX(instr_jdb_error(), "sample_b.jdb: no column \"ipc\"");
}

static void group_open_errors(void) {
  CHECK(instr_jdb_open("no-such.jdb", 0) == NULL);
  CHECK_STR(instr_jdb_error(), "no-such.jdb: cannot open: No such file or directory");
  CHECK(instr_jdb_open(".", 0) == NULL);
  CHECK_STR(instr_jdb_error(), ".: not a regular file (a directory)");
  /* a FIFO without a writer: refused at once (open blocked until a writer came) */
  unlink("open-errors.fifo");
  CHECK(mkfifo("open-errors.fifo", 0600) == 0);
  CHECK(instr_jdb_open("open-errors.fifo", 0) == NULL);
  CHECK_STR(instr_jdb_error(), "open-errors.fifo: not a regular file (a FIFO)");
  unlink("open-errors.fifo");
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: test_analysis GROUP SAMPLE.jdb SAMPLE_B.jdb\n");
    return 2;
  }
  /* relative names: the messages name the file as given */
  db = instr_jdb_open(argv[2], 0);
  db_b = instr_jdb_open(argv[3], INSTR_JDB_LAZY_ROWS);
  if (!db || !db_b) {
    fprintf(stderr, "cannot open the samples: %s\n", instr_jdb_error());
    return 1;
  }
  const char *g = argv[1];
  if (!strcmp(g, "tree")) group_tree();
  else if (!strcmp(g, "columns")) group_columns();
  else if (!strcmp(g, "select")) group_select(), group_select_empty_and_errors();
  else if (!strcmp(g, "rows")) group_rows();
  else if (!strcmp(g, "rank_values")) group_rank_values();
  else if (!strcmp(g, "stats")) group_stats();
  else if (!strcmp(g, "compare")) group_compare();
  else if (!strcmp(g, "open_errors")) group_open_errors();
  else if (!strcmp(g, "path_glob")) group_path_glob();
  else if (!strcmp(g, "deep")) group_deep();
  else {
    fprintf(stderr, "unknown group %s\n", g);
    return 2;
  }
  instr_jdb_close(db);
  instr_jdb_close(db_b);
  printf("%s: %d checks, %d failed\n", g, check_count, check_failures);
  return check_failures ? 1 : 0;
}
