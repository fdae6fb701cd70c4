/* instr_analysis.h: reading a job database (profile.jdb, docs/profile-format.md) and the
 * queries of docs/analysis.md: the call tree, calling contexts, selection of call paths,
 * metric values per rank and thread (ingested in parallel), statistics over ranks and the
 * comparison of two experiments.
 *
 * Every function that can fail returns a negative value (or NULL) and leaves a message
 * naming the file and what is wrong in instr_jdb_error() (per thread). Path, region, column
 * and rank arguments out of range are errors too, never undefined behaviour. A file that
 * shrinks while it is open (truncated or rewritten in place) fails every later query that
 * reads it with a message ("...: the file shrank from N to M bytes since it was opened"),
 * rather than a SIGBUS on the mapping; a query checks the size once, when it starts.
 */
#ifndef INSTR_ANALYSIS_H
#define INSTR_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define INSTR_JDB_VERSION 1
#define INSTR_JDB_NO_PARENT 0xFFFFFFFFu

typedef struct instr_jdb instr_jdb;

/* Open flags. By default every rank's rows are checked at open (sorted by (path, thread),
 * paths and threads in range), which reads the whole file. INSTR_JDB_LAZY_ROWS checks only
 * the definitions, the summary and the rank index at open; a row is checked when a query
 * reads it (its path and thread in range, the order of what the search visits), so a query
 * reads only the pages it needs. A query never reads outside the file either way. */
#define INSTR_JDB_LAZY_ROWS 1u
/* A database may hold a pruned section (docs/profile-format.md): every rank's rows of the
 * call paths whose time_incl is at least a threshold (1 %) of the run's. A query whose paths
 * are all in that set reads their rows there (a few per cent of the rows area) instead of
 * the rows area; the answers are the same. INSTR_JDB_ROWS_AREA makes every query read the
 * rows area (to compare, or where the section is not trusted). */
#define INSTR_JDB_ROWS_AREA 2u

/* The message of the last failure on this thread ("" when none). */
const char *instr_jdb_error(void);

instr_jdb *instr_jdb_open(const char *path, unsigned flags);
void instr_jdb_close(instr_jdb *db);

typedef struct {
  uint32_t nranks;         /* the job's size */
  uint32_t nranks_present; /* ranks whose rows are in the file */
  uint32_t nregions, npaths, ncols;
  uint32_t unification_rounds;
  uint64_t duration_ns;     /* the longest rank's */
  uint64_t file_size;
} instr_jdb_info;
void instr_jdb_get_info(const instr_jdb *db, instr_jdb_info *out);

/* Region paradigms. */
enum { INSTR_JDB_USER = 0, INSTR_JDB_MPI = 1, INSTR_JDB_OPENMP = 2, INSTR_JDB_MANUAL = 3,
       INSTR_JDB_OTHER = 4 };

typedef struct {
  const char *name, *mangled, *file, *object; /* inside the mapping: valid until close */
  uint32_t line_begin, line_end, paradigm, flags;
} instr_jdb_region;
int instr_jdb_get_region(const instr_jdb *db, uint32_t region, instr_jdb_region *out);

/* Call paths: ids 0..npaths-1, parents before children. */
typedef struct {
  uint32_t parent; /* INSTR_JDB_NO_PARENT for a top-level path */
  uint32_t region;
  uint32_t depth;  /* 0 for a top-level path */
  uint32_t nchildren;
} instr_jdb_path;
int instr_jdb_get_path(const instr_jdb *db, uint32_t path, instr_jdb_path *out);
/* The whole tree at once: parent, region and depth of every path into arrays of npaths
 * entries (any of them NULL to leave out). -1 when the file shrank since open. */
int instr_jdb_path_table(const instr_jdb *db, uint32_t *parent, uint32_t *region,
                         uint32_t *depth);
/* The children of a path (INSTR_JDB_NO_PARENT: the top-level paths), ascending ids; returns
 * their number, writes at most cap of them. */
long instr_jdb_children(const instr_jdb *db, uint32_t path, uint32_t *out, size_t cap);
/* The calling context of a path: its chain from the top-level path down to the path itself;
 * returns the chain's length, writes at most cap entries. */
long instr_jdb_context(const instr_jdb *db, uint32_t path, uint32_t *out, size_t cap);

/* Columns (value kinds and flags as in the format). */
enum { INSTR_JDB_COUNT = 0, INSTR_JDB_TIME_NS = 1, INSTR_JDB_BYTES = 2, INSTR_JDB_UINT = 3,
       INSTR_JDB_DOUBLE = 4 };
#define INSTR_JDB_INCLUSIVE 1u
typedef struct {
  const char *name, *unit;
  uint32_t kind, flags;
} instr_jdb_column;
int instr_jdb_get_column(const instr_jdb *db, uint32_t col, instr_jdb_column *out);
/* A column's index by name; -1 (and a message listing the columns) when there is none. */
long instr_jdb_find_column(const instr_jdb *db, const char *name);

/* The summary of a path for a column, as doubles (exact up to 2^53). */
typedef struct {
  uint32_t nranks_visited;
  double sum, min, max, sum_squares;
} instr_jdb_summary;
int instr_jdb_get_summary(const instr_jdb *db, uint32_t path, uint32_t col,
                          instr_jdb_summary *out);
/* The run's total of a column: for an inclusive column the sum over ranks of its top-level
 * paths, for another the sum over ranks of every path. The percentages of a selection
 * ("time_incl >= 1%", "time_excl >= 5%") are of this. */
double instr_jdb_total(const instr_jdb *db, uint32_t col);

typedef struct {
  uint64_t nrows;
  uint32_t nthreads;
  uint32_t present;
  uint64_t duration_ns;
} instr_jdb_rank;
int instr_jdb_get_rank(const instr_jdb *db, uint32_t rank, instr_jdb_rank *out);

/* The pruned section: present (0: the file has none; the rest is then 0), its threshold (a
 * per cent of the run's time_incl, instr_jdb_total: the set is select("time_incl >= T%")),
 * the number of its paths and the bytes of its rows. Writes at most cap path ids (ascending)
 * into paths (NULL: not wanted). */
typedef struct {
  uint32_t present;
  uint32_t npaths;
  double threshold_percent;
  uint64_t rows_bytes;
} instr_jdb_pruned_info;
int instr_jdb_get_pruned(const instr_jdb *db, instr_jdb_pruned_info *out, uint32_t *paths,
                         size_t cap);

/* Selection of call paths by a query (docs/analysis.md#queries):
 *   function(GLOB)   paths whose region name matches the shell glob (MPI_*)
 *   path(GLOB)       paths whose calling context, names joined by '/', matches (main*solve*)
 *   file(GLOB)       paths whose region's source file matches
 *   paradigm(NAME)   user, mpi, openmp, manual or other
 *   COLUMN OP VALUE  the summary's sum over ranks of the column; VALUE with '%' is a per
 *                    cent of the run's total of the column (instr_jdb_total); OP is one of
 *                    >= > <= < (time_incl >= 1% is the pruning of docs/analysis.md)
 *   all              every path
 * combined with and, or, not and parentheses. Writes the selected path ids in ascending
 * order into out (room for npaths), returns their number. */
long instr_jdb_select(const instr_jdb *db, const char *query, uint32_t *out);

/* Ingestion. paths: the selected paths (any order, each once); ranks: NULL for every rank,
 * else nranks_sel rank numbers; threads: NULL for every thread, else nthreads_sel thread
 * indices (a rank without such a thread contributes nothing for it). Absent ranks have no
 * rows. The rank loop runs in parallel (OpenMP); each rank's rows are found by binary search
 * for each selected path. */

/* The rows themselves, sparse as in the file: one entry per (path, rank, thread) that has a
 * row, ordered by rank, then path as given, then thread. Returns the number of entries; fills
 * the four arrays only when cap is at least that number (else call again with room). */
long instr_jdb_rows(const instr_jdb *db, uint32_t col, const uint32_t *paths, size_t npaths_sel,
                    const uint32_t *ranks, size_t nranks_sel, const uint32_t *threads,
                    size_t nthreads_sel, uint32_t *out_path, uint32_t *out_rank,
                    uint32_t *out_thread, double *out_value, size_t cap);

/* The same rows in one pass, in arrays the library allocates (free them with
 * instr_jdb_row_set_free): what a caller uses that does not know the count beforehand.
 * With INSTR_JDB_SUM_THREADS one entry per (rank, path) the rank has rows for, its value the
 * sum over the selected threads and its thread INSTR_JDB_NO_PARENT. */
#define INSTR_JDB_SUM_THREADS 1u
typedef struct {
  size_t n;
  uint32_t *path, *rank, *thread;
  double *value;
} instr_jdb_row_set;
int instr_jdb_rows_load(const instr_jdb *db, uint32_t col, const uint32_t *paths,
                        size_t npaths_sel, const uint32_t *ranks, size_t nranks_sel,
                        const uint32_t *threads, size_t nthreads_sel, unsigned flags,
                        instr_jdb_row_set *out);
void instr_jdb_row_set_free(instr_jdb_row_set *set);

/* Per rank and path, the sum over the selected threads: out[i * npaths_sel + j] for the i-th
 * selected rank and the j-th path; 0 where the rank did not visit the path, NaN for an
 * absent rank. */
int instr_jdb_rank_values(const instr_jdb *db, uint32_t col, const uint32_t *paths,
                          size_t npaths_sel, const uint32_t *ranks, size_t nranks_sel,
                          const uint32_t *threads, size_t nthreads_sel, double *out);

/* Statistics over the selected present ranks of each path's per-rank value (the sum over the
 * selected threads; 0 for a rank that did not visit the path). std is the population
 * standard deviation; balance = mean / max (NaN when max is 0); a rank is an outlier of a
 * path when |x - mean| > k * std (none when std is 0). */
typedef struct {
  uint32_t path;
  uint32_t nranks;   /* present ranks the statistics are over */
  uint32_t nvisited; /* of those, ranks whose value is not 0 */
  uint32_t noutliers;
  double min, max, mean, std, balance;
  uint32_t min_rank, max_rank;
} instr_jdb_stats;
/* Fills out[npaths_sel]; the outlier ranks of all paths go to outlier_path/outlier_rank
 * (ordered by path as given, then rank) when outlier_cap is enough. Returns the number of
 * outlier entries. */
long instr_jdb_path_stats(const instr_jdb *db, uint32_t col, const uint32_t *paths,
                          size_t npaths_sel, const uint32_t *ranks, size_t nranks_sel,
                          const uint32_t *threads, size_t nthreads_sel, double k,
                          instr_jdb_stats *out, uint32_t *outlier_path, uint32_t *outlier_rank,
                          size_t outlier_cap);

/* Comparison of two experiments: call paths matched by their chain of region names (on
 * equal names under one parent, the region of the same file wins, then the lower id). One
 * entry per path of a and per path of b that has no match, ordered by a's path ids, then b's
 * unmatched ones. The value of a path is a summary statistic of the column. */
enum { INSTR_JDB_STAT_SUM = 0, INSTR_JDB_STAT_MEAN = 1, INSTR_JDB_STAT_MIN = 2,
       INSTR_JDB_STAT_MAX = 3 };
typedef struct {
  uint32_t path_a, path_b; /* INSTR_JDB_NO_PARENT where the path is missing in that run */
  double value_a, value_b; /* NaN where missing */
  double diff;             /* value_b - value_a, a missing value counted as 0 */
} instr_jdb_match;
/* Returns the number of entries; fills out when cap is enough. */
long instr_jdb_compare(const instr_jdb *a, const instr_jdb *b, const char *column, int stat,
                       instr_jdb_match *out, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
