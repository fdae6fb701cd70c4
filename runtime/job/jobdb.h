/* jobdb.h — the job database (profile.jdb, docs/profile-format.md "Job database"): the
 * writer's transport-independent core. One rank's definitions (strings, regions, call paths,
 * value columns) and its sparse rows; the definitions' serialisation and their union with
 * the maps from each side's ids; the summary over ranks; the file's layout and the encoding
 * of its fixed-size records. No MPI and nothing of the runtime: the MPI writer
 * (mpi_jobdb.c) and the synthetic generator (tools/instr-jobdb-gen) are built on
 * it alike; jobdb_local.c fills it from a run's profile.
 *
 * In memory every record has the file's layout, so a section is written as the array it is
 * kept in (the writer needs a little-endian host, as the format is little-endian). */
#ifndef INSTR_RT_JOBDB_H
#define INSTR_RT_JOBDB_H

#include <stddef.h>
#include <stdint.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the job database writer keeps records in the file's (little-endian) layout"
#endif

#include <string.h>

/* A field of a record in the file's (little-endian, unaligned) layout. */
static inline void instr_jdb_put32(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }
static inline void instr_jdb_put64(unsigned char *p, uint64_t v) { memcpy(p, &v, 8); }

#define INSTR_JDB_MAGIC "INSTRJDB"
#define INSTR_JDB_VERSION 1u
#define INSTR_JDB_HEADER_SIZE 256u
#define INSTR_JDB_NONE 0xFFFFFFFFu /* the parent of a top-level path */

enum { INSTR_JDB_PARADIGM_USER = 0, INSTR_JDB_PARADIGM_MPI, INSTR_JDB_PARADIGM_OPENMP,
       INSTR_JDB_PARADIGM_MANUAL, INSTR_JDB_PARADIGM_OTHER };
enum { INSTR_JDB_KIND_COUNT = 0, INSTR_JDB_KIND_TIME, INSTR_JDB_KIND_BYTES,
       INSTR_JDB_KIND_UINT, INSTR_JDB_KIND_DOUBLE };
#define INSTR_JDB_REGION_THROTTLED 1u
/* Bits 8..11 of a region's flags: its instrumentation source (registry.h's
 * instr_region_source) + 1, 0 when unknown; added in the flags' reserved bits. */
#define INSTR_JDB_REGION_SOURCE_SHIFT 8u
#define INSTR_JDB_REGION_SOURCE_MASK (0xfu << INSTR_JDB_REGION_SOURCE_SHIFT)
#define INSTR_JDB_COLUMN_INCLUSIVE 1u
#define INSTR_JDB_RANK_PRESENT 1u

/* The columns every database has, in this order (then the metrics' pairs). */
enum { INSTR_JDB_COL_VISITS = 0, INSTR_JDB_COL_TIME_INCL, INSTR_JDB_COL_TIME_EXCL,
       INSTR_JDB_COL_BYTES_SENT, INSTR_JDB_COL_BYTES_RECEIVED, INSTR_JDB_COL_MESSAGES_SENT,
       INSTR_JDB_COL_MESSAGES_RECEIVED, INSTR_JDB_NBASE_COLS };

typedef struct instr_jdb_region {
    uint32_t name, mangled, file, object; /* string offsets */
    uint32_t line_begin, line_end, paradigm, flags;
} instr_jdb_region;

typedef struct instr_jdb_path {
    uint32_t parent; /* INSTR_JDB_NONE: top level */
    uint32_t region;
} instr_jdb_path;

typedef struct instr_jdb_column {
    uint32_t name, unit, kind, flags;
} instr_jdb_column;

/* A set of definitions: one rank's, or the union of several. Strings are kept once each
 * (equal strings have equal offsets), so that regions compare by their offsets. */
typedef struct instr_jdb_defs {
    char *str;                 /* the string section; str[0] == '\0' */
    uint64_t slen, scap;
    uint32_t *sslots, sslots_cap, nstr;  /* hash: string -> offset + 1 */
    instr_jdb_region *reg;
    uint32_t nreg, capreg;
    uint32_t *rslots, rslots_cap;        /* hash: (name, mangled, file, paradigm) -> id + 1 */
    instr_jdb_path *path;
    uint32_t npath, cappath;
    uint32_t *pslots, pslots_cap;        /* hash: (parent, region) -> id + 1 */
    instr_jdb_column *col;
    uint32_t ncol, capcol;
} instr_jdb_defs;

/* Ids of one set in another (instr_jdb_defs_merge): region[i], path[i], col[i]. */
typedef struct instr_jdb_map {
    uint32_t *region, *path, *col;
} instr_jdb_map;

/* Every function returning int: 0, or -1 when memory ran out (or, where it says so, the
 * input is malformed: then err says what is wrong). */
int instr_jdb_defs_init(instr_jdb_defs *d);
void instr_jdb_defs_free(instr_jdb_defs *d);
/* The offset of s (NULL: ""), added when new; INSTR_JDB_NONE without memory. */
uint32_t instr_jdb_str(instr_jdb_defs *d, const char *s);
/* The id of the region r (its strings are offsets in d), added when new; when it exists,
 * r's flags are or'ed into it. INSTR_JDB_NONE without memory. */
uint32_t instr_jdb_region_id(instr_jdb_defs *d, const instr_jdb_region *r);
/* The id of the path (parent, region), added when new; INSTR_JDB_NONE without memory. */
uint32_t instr_jdb_path_id(instr_jdb_defs *d, uint32_t parent, uint32_t region);
/* The id of the column named `name` (added with the rest when new). */
uint32_t instr_jdb_column_id(instr_jdb_defs *d, const char *name, const char *unit,
                             uint32_t kind, uint32_t flags);
/* The seven columns every database begins with (ids INSTR_JDB_COL_*). */
int instr_jdb_base_columns(instr_jdb_defs *d);/* The columns a rank appends when it recorded I/O (INSTR_IO) or memory (INSTR_MEMORY=1),
 * docs/profile-format.md: per paradigm p (0 posix, 1 stdio, 2 mpiio) and figure k (0
 * operations, 1 failed, 2 bytes_read, 3 bytes_written, 4 time in ns) `io_<paradigm>_<figure>`;
 * per figure k (0 allocations, 1 frees, 2 bytes_allocated, 3 bytes_freed)
 * `memory_<figure>`. The name into name[INSTR_JDB_REC_NAME]; unit and kind (NULL: not
 * wanted). */
enum { INSTR_JDB_IO_PARADIGMS = 3, INSTR_JDB_IO_FIGURES = 5, INSTR_JDB_MEM_FIGURES = 4,
       INSTR_JDB_REC_NAME = 48 };
void instr_jdb_io_column(int paradigm, int figure, char *name, const char **unit,
                         uint32_t *kind);
void instr_jdb_mem_column(int figure, char *name, const char **unit, uint32_t *kind);
/* Grows the array whose pointer is at pp (any T **) to hold need elements, doubling: 0, or -1
 * without memory or beyond UINT32_MAX - 1 elements (the array unchanged). */
int instr_jdb_grow(void *pp, uint32_t *cap, uint64_t need, size_t elem);

/* Serialisation (the transport between ranks, not the file): a buffer from instr_mem_alloc of *len
 * bytes; and back, with every count, offset and parent checked (err: what is wrong). */
int instr_jdb_defs_serialize(const instr_jdb_defs *d, unsigned char **buf, uint64_t *len);
int instr_jdb_defs_deserialize(instr_jdb_defs *d, const unsigned char *buf, uint64_t len,
                               char *err, size_t errlen);

/* Adds `from` into `into` (the union: regions by (name, mangled, file, paradigm), paths by
 * (parent, region), columns by name); map (NULL: not wanted) receives from's ids in into,
 * arrays the caller frees with instr_jdb_map_free. into's own ids do not change. */
int instr_jdb_defs_merge(instr_jdb_defs *into, const instr_jdb_defs *from, instr_jdb_map *map);
void instr_jdb_map_free(instr_jdb_map *m);
/* The same without adding: from's ids in `in`, which must hold all of them; -1 when one is
 * missing (or memory ran out), map then empty. */
int instr_jdb_defs_find(const instr_jdb_defs *in, const instr_jdb_defs *from, instr_jdb_map *map);
/* Renumbers d as the file wants it: regions sorted by (name, mangled, file, paradigm),
 * paths in pre-order of the tree with children ordered by region (so by name, then id). */
int instr_jdb_defs_canonical(instr_jdb_defs *d);
/* The same, and each path's new id at its old one in path_newid (npath entries; NULL: not
 * wanted). Columns keep their ids. */
int instr_jdb_defs_canonical_map(instr_jdb_defs *d, uint32_t *path_newid);

/* One rank's rows: n rows of 1 + ncols words, word 0 = path | thread << 32 (the file's
 * u32 path, u32 thread), then the values. */
typedef struct instr_jdb_rows {
    uint32_t ncols;
    uint64_t n, cap;
    uint64_t *v;
} instr_jdb_rows;

static inline uint64_t *instr_jdb_row(const instr_jdb_rows *r, uint64_t i)
{
    return r->v + i * (1 + (uint64_t)r->ncols);
}
static inline uint32_t instr_jdb_row_path(const uint64_t *row) { return (uint32_t)row[0]; }
static inline uint32_t instr_jdb_row_thread(const uint64_t *row) { return (uint32_t)(row[0] >> 32); }
static inline uint64_t instr_jdb_row_bytes(uint32_t ncols) { return 8 + 8 * (uint64_t)ncols; }

/* A new zeroed row for (path, thread): its values, or NULL without memory. */
uint64_t *instr_jdb_rows_add(instr_jdb_rows *r, uint32_t path, uint32_t thread);
void instr_jdb_rows_free(instr_jdb_rows *r);
/* Sorts by (path, thread). */
void instr_jdb_rows_sort(instr_jdb_rows *r);
/* out = in with paths and columns through map (columns out->ncols = ncols wide; columns
 * not in in are 0), sorted. */
int instr_jdb_rows_remap(const instr_jdb_rows *in, const instr_jdb_map *map, uint32_t ncols,
                         instr_jdb_rows *out);

/* The summary (per path 1 + 4 * ncols words, the file's record: nranks visited, then per
 * column sum, min, max, sum of squares). */
static inline uint64_t instr_jdb_summary_words(uint32_t ncols) { return 1 + 4 * (uint64_t)ncols; }
void instr_jdb_summary_init(uint64_t *s, uint32_t npaths, const instr_jdb_column *cols,
                            uint32_t ncols);
/* Adds one rank whose rows (sorted, union ids) are r: per path its value is the sum over its
 * threads. */
void instr_jdb_summary_add_rank(uint64_t *s, const instr_jdb_rows *r,
                                const instr_jdb_column *cols);
/* into += from for n paths (both partial summaries over disjoint sets of ranks). */
void instr_jdb_summary_combine(uint64_t *into, const uint64_t *from, uint64_t n,
                               const instr_jdb_column *cols, uint32_t ncols);
/* The summary as sparse records (the reduction between ranks carries only the paths its
 * ranks visited): n entries of 1 + summary_words words, the path id then its record,
 * ascending by path. Of one rank's rows (sorted, union ids); the union of two (records of
 * disjoint sets of ranks, a path in both combined). *out from instr_mem_alloc; 0, or -1
 * without memory. */
int instr_jdb_summary_sparse_of_rank(const instr_jdb_rows *r, const instr_jdb_column *cols,
                                     uint64_t **out, uint64_t *n);
int instr_jdb_summary_sparse_merge(const uint64_t *a, uint64_t na, const uint64_t *b,
                                   uint64_t nb, const instr_jdb_column *cols, uint32_t ncols,
                                   uint64_t **out, uint64_t *n);
/* Paths no rank visited: min and max 0. */
void instr_jdb_summary_finish(uint64_t *s, uint32_t npaths, const instr_jdb_column *cols,
                              uint32_t ncols);

/* Where the sections go. */
typedef struct instr_jdb_layout {
    uint64_t strings, strings_len, regions, paths, columns, summary, index, rows;
    uint64_t row_bytes, summary_bytes;
} instr_jdb_layout;
void instr_jdb_layout_of(const instr_jdb_defs *d, uint32_t nranks, instr_jdb_layout *l);

typedef struct instr_jdb_header_info {
    uint32_t nranks, present, rounds;
    uint64_t duration_ns, file_size; /* file_size 0 until every rank's rows are written */
} instr_jdb_header_info;
void instr_jdb_header_encode(unsigned char out[INSTR_JDB_HEADER_SIZE], const instr_jdb_defs *d,
                             const instr_jdb_layout *l, const instr_jdb_header_info *h);
void instr_jdb_index_encode(unsigned char out[32], uint64_t offset, uint64_t nrows,
                            uint32_t nthreads, uint32_t flags, uint64_t duration_ns);
/* ceil(log2 n): the rounds of the reduction tree over n ranks. */
uint32_t instr_jdb_rounds(uint32_t n);

/* One rank's part: its definitions and rows (local ids), threads and duration; serialised
 * whole to travel from the runtime to the MPI writer. */
typedef struct instr_jdb_local {
    instr_jdb_defs defs;
    instr_jdb_rows rows;
    uint32_t nthreads;
    uint64_t duration_ns;
} instr_jdb_local;
void instr_jdb_local_free(instr_jdb_local *l);
int instr_jdb_local_serialize(const instr_jdb_local *l, unsigned char **buf, uint64_t *len);
int instr_jdb_local_deserialize(instr_jdb_local *l, const unsigned char *buf, uint64_t len,
                                char *err, size_t errlen);

#endif
