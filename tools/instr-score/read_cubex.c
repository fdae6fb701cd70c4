/* read_cubex.c — profile.cubex (CUBE4, docs/profile-format.md "profile.cubex") into
 * instr-score's model, for an experiment without profile.json: the ustar archive's members,
 * anchor.xml's metrics, regions, call tree and system tree, and the rows of visits, time and
 * (MPI jobs) messages_sent/messages_received. Reads instr's archives and uncompressed ones
 * of CubeW (Score-P): rows in the order of the metric's kind (depth-first for EXCLUSIVE,
 * CubeW's wide order for INCLUSIVE), dense or sparse indexes, either byte order; the type
 * names of every CUBE4 version (Cube 4.3's INTEGER and FLOAT as well as UINT64, INT64,
 * DOUBLE) and nested metric trees, where a metric's value is its own plus its children's
 * (derived metrics hold no data and add nothing). */
#define _GNU_SOURCE /* O_CLOEXEC, strdup */
#include "input_file.h"
#include "score.h"
#include "ustar.h"
#include "xml.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* anchor.xml larger than this is refused rather than read into memory. */
#define MAX_ANCHOR_BYTES (1ull << 30)
/* A data member larger than this likewise. */
#define MAX_DATA_BYTES (8ull << 30)

/* ---- anchor.xml ---- */

typedef struct cmetric {
    char *uniq, *dtype;
    long id;
    int inclusive;
    int derived;   /* PREDERIVED_*, POSTDERIVED: computed by the reader, no data members */
    size_t parent; /* the enclosing metric's index; SIZE_MAX for a root */
} cmetric;

typedef struct cregion {
    long id;
    char *name, *mangled, *file, *paradigm;
} cregion;

typedef struct cnode {
    int64_t parent; /* document-order index, -1 for roots */
    long callee;
} cnode;

enum { IN_NONE, IN_METRIC, IN_REGION, IN_OTHER };

typedef struct anchor {
    cmetric *metrics;
    size_t nmetrics, capmetrics;
    cregion *regions;
    size_t nregions, capregions;
    cnode *cnodes;
    size_t ncnodes, capcnodes;
    long *loc_id;     /* per location in document order: its Id */
    size_t *loc_group;
    size_t nlocs, caplocs, ngroups;
    /* Open elements that own <name>-like children, innermost last. */
    int *ctx;
    size_t *ctx_index; /* the metric's or region's index */
    size_t depth, capdepth;
    int64_t *cnode_stack;
    size_t ncstack, capcstack;
} anchor;

static int grow(void *pp, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 16;
    while (c < need)
        c *= 2;
    void *old;
    memcpy(&old, pp, sizeof old);
    void *q = realloc(old, c * elem);
    if (!q)
        return -1;
    memcpy(pp, &q, sizeof q);
    *cap = c;
    return 0;
}

static int number(const xml_attr *at, size_t n, const char *name, long *out, const char *elem,
                  char *err, size_t errsize)
{
    const char *v = xml_attr_get(at, n, name);
    char *end;
    errno = 0;
    long x = v ? strtol(v, &end, 10) : 0;
    if (!v || !*v || *end || errno) {
        snprintf(err, errsize, "<%s>: attribute %s missing or not a number", elem, name);
        return -1;
    }
    *out = x;
    return 0;
}

static int push_ctx(anchor *A, int kind, size_t index)
{
    size_t c1 = A->capdepth, c2 = A->capdepth;
    if (grow(&A->ctx, &c1, A->depth + 1, sizeof *A->ctx) ||
        grow(&A->ctx_index, &c2, A->depth + 1, sizeof *A->ctx_index))
        return -1;
    A->capdepth = c1 < c2 ? c1 : c2;
    A->ctx[A->depth] = kind;
    A->ctx_index[A->depth++] = index;
    return 0;
}

static int start(anchor *A, const char *name, const xml_attr *at, size_t n, char *err,
                 size_t errsize)
{
    if (strcmp(name, "metric") == 0) {
        long id;
        if (number(at, n, "id", &id, name, err, errsize) ||
            grow(&A->metrics, &A->capmetrics, A->nmetrics + 1, sizeof *A->metrics))
            return -1;
        const char *type = xml_attr_get(at, n, "type");
        size_t parent = A->depth && A->ctx[A->depth - 1] == IN_METRIC
                            ? A->ctx_index[A->depth - 1] : SIZE_MAX;
        A->metrics[A->nmetrics] = (cmetric){NULL, NULL, id, type && strcmp(type, "INCLUSIVE") == 0,
                                            type && strstr(type, "DERIVED") != NULL, parent};
        return push_ctx(A, IN_METRIC, A->nmetrics++);
    }
    if (strcmp(name, "region") == 0) {
        long id;
        if (number(at, n, "id", &id, name, err, errsize) ||
            grow(&A->regions, &A->capregions, A->nregions + 1, sizeof *A->regions))
            return -1;
        const char *mod = xml_attr_get(at, n, "mod");
        A->regions[A->nregions] = (cregion){id, NULL, NULL, strdup(mod ? mod : ""), NULL};
        if (!A->regions[A->nregions].file)
            return -1;
        return push_ctx(A, IN_REGION, A->nregions++);
    }
    if (strcmp(name, "cnode") == 0) {
        long callee;
        if (number(at, n, "calleeId", &callee, name, err, errsize) ||
            grow(&A->cnodes, &A->capcnodes, A->ncnodes + 1, sizeof *A->cnodes) ||
            grow(&A->cnode_stack, &A->capcstack, A->ncstack + 1, sizeof *A->cnode_stack))
            return -1;
        A->cnodes[A->ncnodes] =
            (cnode){A->ncstack ? A->cnode_stack[A->ncstack - 1] : -1, callee};
        A->cnode_stack[A->ncstack++] = (int64_t)A->ncnodes++;
        return 0;
    }
    if (strcmp(name, "locationgroup") == 0) {
        A->ngroups++;
        return push_ctx(A, IN_OTHER, 0);
    }
    if (strcmp(name, "location") == 0) {
        long id;
        size_t c1 = A->caplocs, c2 = A->caplocs;
        if (number(at, n, "Id", &id, name, err, errsize))
            return -1;
        if (!A->ngroups) {
            snprintf(err, errsize, "<location Id=\"%ld\"> outside a <locationgroup>", id);
            return -1;
        }
        if (grow(&A->loc_id, &c1, A->nlocs + 1, sizeof *A->loc_id) ||
            grow(&A->loc_group, &c2, A->nlocs + 1, sizeof *A->loc_group))
            return -1;
        A->caplocs = c1 < c2 ? c1 : c2;
        A->loc_id[A->nlocs] = id;
        A->loc_group[A->nlocs++] = A->ngroups - 1;
        return push_ctx(A, IN_OTHER, 0);
    }
    if (strcmp(name, "systemtreenode") == 0)
        return push_ctx(A, IN_OTHER, 0);
    return 0;
}

/* An element that names a metric, region, cnode or location; -1 with err set, or -1 with err
 * empty when memory ran out. */
static int on_start(void *ctx, const char *name, const xml_attr *at, size_t n, char *err,
                    size_t errsize)
{
    err[0] = '\0';
    if (start(ctx, name, at, n, err, errsize) == 0)
        return 0;
    if (!err[0])
        snprintf(err, errsize, "out of memory");
    return -1;
}

static int on_end(void *ctx, const char *name, const char *text, char *err, size_t errsize)
{
    anchor *A = ctx;
    if (strcmp(name, "cnode") == 0) {
        A->ncstack--;
        return 0;
    }
    if (strcmp(name, "metric") == 0 || strcmp(name, "region") == 0 ||
        strcmp(name, "locationgroup") == 0 || strcmp(name, "location") == 0 ||
        strcmp(name, "systemtreenode") == 0) {
        A->depth--;
        return 0;
    }
    if (!A->depth)
        return 0;
    int kind = A->ctx[A->depth - 1];
    size_t i = A->ctx_index[A->depth - 1];
    char **slot = NULL;
    if (kind == IN_METRIC && strcmp(name, "uniq_name") == 0)
        slot = &A->metrics[i].uniq;
    else if (kind == IN_METRIC && strcmp(name, "dtype") == 0)
        slot = &A->metrics[i].dtype;
    else if (kind == IN_REGION && strcmp(name, "name") == 0)
        slot = &A->regions[i].name;
    else if (kind == IN_REGION && strcmp(name, "mangled_name") == 0)
        slot = &A->regions[i].mangled;
    else if (kind == IN_REGION && strcmp(name, "paradigm") == 0)
        slot = &A->regions[i].paradigm;
    if (!slot)
        return 0;
    free(*slot);
    *slot = strdup(text);
    if (*slot)
        return 0;
    snprintf(err, errsize, "out of memory");
    return -1;
}

static void anchor_free(anchor *A)
{
    for (size_t i = 0; i < A->nmetrics; i++) {
        free(A->metrics[i].uniq);
        free(A->metrics[i].dtype);
    }
    for (size_t i = 0; i < A->nregions; i++) {
        free(A->regions[i].name);
        free(A->regions[i].mangled);
        free(A->regions[i].file);
        free(A->regions[i].paradigm);
    }
    free(A->metrics);
    free(A->regions);
    free(A->cnodes);
    free(A->loc_id);
    free(A->loc_group);
    free(A->ctx);
    free(A->ctx_index);
    free(A->cnode_stack);
}

/* ---- the rows of one metric ---- */

/* The cnodes (document order) in the order of an INCLUSIVE metric's rows: per root the root,
 * then expand(root), where expand(v) is v's children followed by expand() of each child. */
static size_t *wide_order(const anchor *A)
{
    size_t n = A->ncnodes;
    size_t *first = malloc((n + 1) * sizeof *first), *next = malloc((n + 1) * sizeof *next);
    size_t *last = malloc((n + 1) * sizeof *last), *stack = malloc((n + 1) * sizeof *stack);
    size_t *out = malloc((n + 1) * sizeof *out);
    if (!first || !next || !last || !stack || !out) {
        free(out);
        out = NULL;
        goto done;
    }
    for (size_t k = 0; k <= n; k++)
        first[k] = next[k] = last[k] = SIZE_MAX;
    for (size_t k = 0; k < n; k++) {
        size_t p = A->cnodes[k].parent < 0 ? n : (size_t)A->cnodes[k].parent;
        if (last[p] == SIZE_MAX)
            first[p] = k;
        else
            next[last[p]] = k;
        last[p] = k;
    }
    size_t m = 0;
    for (size_t r = first[n]; r != SIZE_MAX; r = next[r]) {
        size_t sp = 0;
        out[m++] = r;
        stack[sp++] = r;
        while (sp) {
            size_t v = stack[--sp], nc = 0;
            for (size_t c = first[v]; c != SIZE_MAX; c = next[c], nc++)
                out[m++] = c;
            size_t at = sp + nc;
            for (size_t c = first[v]; c != SIZE_MAX; c = next[c])
                stack[--at] = c;
            sp += nc;
        }
    }
done:
    free(first);
    free(next);
    free(last);
    free(stack);
    return out;
}

static uint32_t swap32(uint32_t v) { return __builtin_bswap32(v); }

/* The 8-byte CUBE4 types by name: Cube 4.3 and CubeW write INTEGER (64-bit signed) and FLOAT
 * (a double) where later versions write INT64 and DOUBLE. 1 for a double, 0 for an integer,
 * -1 for a type instr-score does not read. */
static int dtype_is_double(const char *dt)
{
    static const struct { const char *name; int dbl; } eight[] = {
        {"UINT64", 0}, {"INT64", 0}, {"INTEGER", 0}, {"DOUBLE", 1}, {"FLOAT", 1},
        {"MINDOUBLE", 1}, {"MAXDOUBLE", 1}};
    for (size_t i = 0; i < sizeof eight / sizeof *eight; i++)
        if (strcmp(dt, eight[i].name) == 0)
            return eight[i].dbl;
    return -1;
}

static int dtype_is_signed(const char *dt)
{
    return dt && (strcmp(dt, "INT64") == 0 || strcmp(dt, "INTEGER") == 0);
}

/* The own values of metric cm (without its children's) as cells[cnode * nlocs + column]
 * (8-byte words, native byte order, cnodes in document order), and its kind and whether it
 * is a double. NULL with err set. */
static uint64_t *own_cells(const ustar *a, const anchor *A, const size_t *wide,
                           const cmetric *cm, int *inclusive, int *is_double, char *err,
                           size_t errsize)
{
    err[0] = '\0';
    const char *uniq = cm->uniq ? cm->uniq : "";
    const char *dt = cm->dtype ? cm->dtype : "";
    int dbl = dtype_is_double(dt);
    if (dbl < 0) {
        snprintf(err, errsize, "%s: metric %s has dtype %s; instr-score reads UINT64, INT64 "
                               "(INTEGER) and DOUBLE (FLOAT) metrics", a->path, uniq, dt);
        return NULL;
    }
    *inclusive = cm->inclusive;
    *is_double = dbl;
    char iname[64], dname[64];
    snprintf(iname, sizeof iname, "%ld.index", cm->id);
    snprintf(dname, sizeof dname, "%ld.data", cm->id);
    const ustar_member *im = ustar_find(a, iname), *dm = ustar_find(a, dname);
    if (!im || !dm) {
        snprintf(err, errsize, "%s: metric %s has no %s", a->path, uniq, im ? dname : iname);
        return NULL;
    }
    size_t n = A->ncnodes, nl = A->nlocs;
    uint64_t *cells = calloc(n * nl + 1, sizeof *cells);
    uint32_t *rows = NULL;
    char *idx = ustar_load(a, im, MAX_DATA_BYTES, err, errsize), *data = NULL;
    if (!cells || !idx)
        goto bad;
    if (im->size < 18 || memcmp(idx, "CUBEX.INDEX", 11) != 0) {
        snprintf(err, errsize, "%s: %s is not a CUBE index (no CUBEX.INDEX marker)", a->path, iname);
        goto bad;
    }
    uint32_t endian;
    memcpy(&endian, idx + 11, 4);
    int swap = endian != 1;
    if (swap && swap32(endian) != 1) {
        snprintf(err, errsize, "%s: %s: endianness word %u is neither 1 nor 1 swapped", a->path,
                 iname, endian);
        goto bad;
    }
    uint8_t format = (uint8_t)idx[17];
    uint32_t count = (uint32_t)n;
    if (format == 1) {
        if (im->size < 22) {
            snprintf(err, errsize, "%s: %s is cut short", a->path, iname);
            goto bad;
        }
        memcpy(&count, idx + 18, 4);
        if (swap)
            count = swap32(count);
        if (count > n || im->size != 22 + 4ull * count) {
            snprintf(err, errsize, "%s: %s lists %u rows in %llu bytes for %zu cnodes", a->path,
                     iname, count, (unsigned long long)im->size, n);
            goto bad;
        }
    } else if (format != 0) {
        snprintf(err, errsize, "%s: %s: index format %u (0 dense, 1 sparse)", a->path, iname, format);
        goto bad;
    }
    rows = malloc(((size_t)count + 1) * sizeof *rows);
    if (!rows)
        goto oom;
    for (uint32_t k = 0; k < count; k++) {
        if (format == 1) {
            memcpy(&rows[k], idx + 22 + 4 * (size_t)k, 4);
            if (swap)
                rows[k] = swap32(rows[k]);
        } else {
            rows[k] = k;
        }
        if (rows[k] >= n) {
            snprintf(err, errsize, "%s: %s: row %u of %zu cnodes", a->path, iname, rows[k], n);
            goto bad;
        }
    }
    if (dm->size >= 11) {
        char marker[12];
        if (ustar_read_at(a, marker, 11, dm->off) == 0 && memcmp(marker, "ZCUBEX.DATA", 11) == 0) {
            snprintf(err, errsize, "%s: %s is compressed (CubeW with zlib); instr-score reads "
                                   "uncompressed archives: cube_dump or cube_cut can write one",
                     a->path, dname);
            goto bad;
        }
    }
    if (dm->size != 10 + 8ull * count * nl) {
        snprintf(err, errsize, "%s: %s has %llu bytes, %u rows of %zu locations need %llu", a->path,
                 dname, (unsigned long long)dm->size, count, nl, 10 + 8ull * count * nl);
        goto bad;
    }
    data = ustar_load(a, dm, MAX_DATA_BYTES, err, errsize);
    if (!data)
        goto bad;
    if (memcmp(data, "CUBEX.DATA", 10) != 0) {
        snprintf(err, errsize, "%s: %s is not CUBE data (no CUBEX.DATA marker)", a->path, dname);
        goto bad;
    }
    for (uint32_t k = 0; k < count; k++) {
        /* Row position -> cnode: the metric's kind orders its rows. */
        size_t c = cm->inclusive ? wide[rows[k]] : rows[k];
        for (size_t l = 0; l < nl; l++) {
            uint64_t v;
            memcpy(&v, data + 10 + 8 * ((size_t)k * nl + l), 8);
            cells[c * nl + l] = swap ? __builtin_bswap64(v) : v;
        }
    }
    free(idx);
    free(data);
    free(rows);
    return cells;
oom:
    snprintf(err, errsize, "out of memory");
bad:
    free(idx);
    free(data);
    free(rows);
    free(cells);
    if (!err[0])
        snprintf(err, errsize, "out of memory");
    return NULL;
}

/* cells as nanoseconds (doubles in seconds) or counts, exclusive and inclusive: a metric of
 * the other kind is converted (inclusive = the subtree's sum; exclusive = less the
 * children's). Cnodes are in document order: children after their parent. */
static int to_u64(const anchor *A, uint64_t *cells, int is_double, int inclusive,
                  uint64_t **incl, uint64_t **excl)
{
    size_t n = A->ncnodes, nl = A->nlocs;
    for (size_t i = 0; i < n * nl; i++) {
        if (is_double) {
            double d;
            memcpy(&d, &cells[i], sizeof d);
            cells[i] = d > 0 && d < 1.8e10 ? (uint64_t)llround(d * 1e9) : 0;
        } else if ((int64_t)cells[i] < 0) { /* INT64 counts below 0 make no sense here */
            cells[i] = 0;
        }
    }
    uint64_t *other = malloc((n * nl + 1) * sizeof *other);
    if (!other)
        return -1;
    memcpy(other, cells, n * nl * sizeof *other);
    /* Backwards: a node's children are done before it. */
    for (size_t c = n; c-- > 0;) {
        int64_t p = A->cnodes[c].parent;
        if (p < 0)
            continue;
        for (size_t l = 0; l < nl; l++) {
            if (inclusive) /* other: exclusive */
                other[p * nl + l] = other[p * nl + l] > cells[c * nl + l]
                                        ? other[p * nl + l] - cells[c * nl + l] : 0;
            else /* other: inclusive */
                other[p * nl + l] += other[c * nl + l];
        }
    }
    *incl = inclusive ? cells : other;
    *excl = inclusive ? other : cells;
    return 0;
}

/* The values of metric `uniq` in a nested metric tree: its own plus its descendants' (a
 * derived one holds none), as inclusive and exclusive counts or nanoseconds (to_u64) per
 * cnode and column. 0; 1 when the archive has no such metric (or only a derived one); -1
 * with err set. Children come after their parent in document order. */
static int metric_values(const ustar *a, const anchor *A, const size_t *wide, const char *uniq,
                         uint64_t **incl, uint64_t **excl, char *err, size_t errsize)
{
    err[0] = '\0';
    *incl = *excl = NULL;
    size_t top = SIZE_MAX, ncells = A->ncnodes * A->nlocs;
    for (size_t i = 0; i < A->nmetrics && top == SIZE_MAX; i++)
        if (A->metrics[i].uniq && strcmp(A->metrics[i].uniq, uniq) == 0)
            top = i;
    for (size_t i = top; top != SIZE_MAX && i < A->nmetrics; i++) {
        size_t q = i;
        while (q != SIZE_MAX && q != top)
            q = A->metrics[q].parent;
        if (q != top || A->metrics[i].derived)
            continue;
        int kind = 0, dbl = 0;
        uint64_t *raw = own_cells(a, A, wide, &A->metrics[i], &kind, &dbl, err, errsize);
        uint64_t *in = NULL, *ex = NULL;
        if (!raw)
            goto bad;
        if (to_u64(A, raw, dbl, kind, &in, &ex) != 0) {
            free(raw);
            snprintf(err, errsize, "out of memory");
            goto bad;
        }
        if (!*incl) {
            *incl = in;
            *excl = ex;
            continue;
        }
        for (size_t k = 0; k < ncells; k++) {
            (*incl)[k] += in[k];
            (*excl)[k] += ex[k];
        }
        free(in);
        free(ex);
    }
    return *incl ? 0 : 1;
bad:
    if (!err[0])
        snprintf(err, errsize, "out of memory");
    free(*incl);
    free(*excl);
    *incl = *excl = NULL;
    return -1;
}

/* ---- the model ---- */

/* A counter: an INCLUSIVE root metric besides time, with data (instr's and Score-P's
 * strictly synchronous metrics; a nested metric is a part of its root's value). */
static int is_counter(const cmetric *cm)
{
    return cm->inclusive && !cm->derived && cm->parent == SIZE_MAX && cm->uniq &&
           strcmp(cm->uniq, "time") != 0;
}

/* What the synchronous metrics add to each event of each location (*out indexed by column;
 * NULL: none): the counters' (is_counter) totals per location are the sums over the
 * outermost call paths. */
static int metric_costs(const ustar *a, const anchor *A, const size_t *wide,
                        score_metric_cost **out, char *err, size_t errsize)
{
    *out = NULL;
    size_t n = A->ncnodes, nl = A->nlocs, nm = 0;
    for (size_t i = 0; i < A->nmetrics; i++)
        nm += is_counter(&A->metrics[i]);
    if (!nm)
        return 0;
    uint32_t *types = calloc(nm, sizeof *types);
    double *totals = calloc(nl * nm, sizeof *totals);
    *out = calloc(nl, sizeof **out);
    int rc = -1;
    if (!types || !totals || !*out) {
        snprintf(err, errsize, "out of memory");
        goto out;
    }
    size_t j = 0;
    for (size_t i = 0; i < A->nmetrics; i++) {
        const cmetric *cm = &A->metrics[i];
        if (!is_counter(cm))
            continue;
        int incl = 0, dbl = 0;
        uint64_t *cells = own_cells(a, A, wide, cm, &incl, &dbl, err, errsize);
        if (!cells)
            goto out;
        int is_signed = dtype_is_signed(cm->dtype);
        types[j] = dbl ? SCORE_METRIC_DOUBLE : is_signed ? SCORE_METRIC_INT64 : SCORE_METRIC_UINT64;
        for (size_t c = 0; c < n; c++) {
            if (A->cnodes[c].parent >= 0)
                continue;
            for (size_t l = 0; l < nl; l++) {
                uint64_t v = cells[c * nl + l];
                double d;
                memcpy(&d, &v, sizeof d);
                totals[l * nm + j] += dbl ? d : is_signed ? (double)(int64_t)v : (double)v;
            }
        }
        free(cells);
        j++;
    }
    for (size_t l = 0; l < nl; l++)
        (*out)[l] = score_metric_cost_of(nm, types, &totals[l * nm]);
    rc = 0;
out:
    if (rc != 0) {
        free(*out);
        *out = NULL;
    }
    free(types);
    free(totals);
    return rc;
}

static const char *source_of(const char *paradigm)
{
    if (!paradigm)
        return "compiler";
    if (strncmp(paradigm, "mpi", 3) == 0)
        return "mpi";
    if (strncmp(paradigm, "openmp", 6) == 0)
        return "openmp";
    if (strncmp(paradigm, "user", 4) == 0)
        return "manual";
    return "compiler";
}

/* A region's mod that names the library of its adapter rather than a source file (Score-P's
 * names, which instr's writer gives too: docs/profile-format.md): no file of the program, as
 * in profile.json, so that the trace's definitions are estimated alike. */
static int library_mod(const char *mod)
{
    static const char *const libs[] = {"MPI", "MEMORY", "KOKKOS", "POSIX I/O", "ISO C I/O"};
    for (size_t i = 0; mod && i < sizeof libs / sizeof *libs; i++)
        if (strcmp(mod, libs[i]) == 0)
            return 1;
    return 0;
}

static int build(score_profile *p, const ustar *a, anchor *A, char *err, size_t errsize)
{
    size_t n = A->ncnodes, nl = A->nlocs;
    if (!n || !nl || !A->nregions) {
        snprintf(err, errsize, "%s: anchor.xml has %zu regions, %zu cnodes and %zu locations; "
                               "the profile is empty", a->path, A->nregions, n, nl);
        return -1;
    }
    /* Region ids and location Ids: each id once, and small. */
    long max_rid = 0;
    for (size_t i = 0; i < A->nregions; i++)
        if (A->regions[i].id < 0 || (size_t)A->regions[i].id > 16 * A->nregions + 1024) {
            snprintf(err, errsize, "%s: region id %ld is far beyond the %zu regions", a->path,
                     A->regions[i].id, A->nregions);
            return -1;
        } else if (A->regions[i].id > max_rid) {
            max_rid = A->regions[i].id;
        }
    size_t *ridx = malloc(((size_t)max_rid + 1) * sizeof *ridx);
    size_t *col = malloc((nl + 1) * sizeof *col); /* location in document order -> column */
    size_t *wide = wide_order(A), *nregion = malloc((n + 1) * sizeof *nregion);
    int64_t *parents = malloc((n + 1) * sizeof *parents);
    uint64_t *visits = NULL, *tincl = NULL, *texcl = NULL, *sent = NULL, *recv = NULL;
    uint64_t *sent_other = NULL, *recv_other = NULL;
    score_metric_cost *lcost = NULL;
    int rc = -1;
    p->regions = calloc(A->nregions + 1, sizeof *p->regions);
    p->group_callpaths = calloc(A->ngroups + 1, sizeof *p->group_callpaths);
    if (!ridx || !col || !wide || !nregion || !parents || !p->regions || !p->group_callpaths) {
        snprintf(err, errsize, "out of memory");
        goto out;
    }
    for (long i = 0; i <= max_rid; i++)
        ridx[i] = SIZE_MAX;
    for (size_t i = 0; i < A->nregions; i++) {
        if (ridx[A->regions[i].id] != SIZE_MAX) {
            snprintf(err, errsize, "%s: region id %ld twice", a->path, A->regions[i].id);
            goto out;
        }
        ridx[A->regions[i].id] = i;
    }
    for (size_t l = 0; l < nl; l++) {
        if (A->loc_id[l] < 0 || (size_t)A->loc_id[l] >= nl) {
            snprintf(err, errsize, "%s: location Id %ld, but there are %zu locations (Ids are "
                                   "0 .. %zu)", a->path, A->loc_id[l], nl, nl - 1);
            goto out;
        }
        col[l] = (size_t)A->loc_id[l];
    }
    for (size_t c = 0; c < n; c++) {
        long id = A->cnodes[c].callee;
        if (id < 0 || id > max_rid || ridx[id] == SIZE_MAX) {
            snprintf(err, errsize, "%s: cnode %zu calls region %ld, which is not defined", a->path,
                     c, id);
            goto out;
        }
        nregion[c] = ridx[id];
        parents[c] = A->cnodes[c].parent;
    }
    p->nregions = A->nregions;
    p->ngroups = A->ngroups;
    p->nlocations = nl;
    p->ncallpaths = n;
    for (size_t i = 0; i < A->nregions; i++) {
        const cregion *cr = &A->regions[i];
        score_region *sr = &p->regions[i];
        const char *mangled = cr->mangled && cr->mangled[0] ? cr->mangled : cr->name;
        if (score_region_init(sr, cr->name, mangled, library_mod(cr->file) ? "" : cr->file,
                              source_of(cr->paradigm),
                              p->ngroups) != 0) {
            snprintf(err, errsize, "out of memory");
            goto out;
        }
    }
    /* visits and time are required; the message counts are there in MPI jobs. */
    uint64_t *vincl = NULL;
    int got = metric_values(a, A, wide, "visits", &vincl, &visits, err, errsize);
    free(vincl);
    if (got != 0) {
        if (got > 0)
            snprintf(err, errsize, "%s: no metric visits (instr-score needs visits and time)", a->path);
        goto out;
    }
    got = metric_values(a, A, wide, "time", &tincl, &texcl, err, errsize);
    if (got != 0) {
        if (got > 0)
            snprintf(err, errsize, "%s: no metric time (instr-score needs visits and time)", a->path);
        goto out;
    }
    if (metric_values(a, A, wide, "messages_sent", &sent_other, &sent, err, errsize) < 0 ||
        metric_values(a, A, wide, "messages_received", &recv_other, &recv, err, errsize) < 0)
        goto out;
    if (metric_costs(a, A, wide, &lcost, err, errsize) != 0)
        goto out;
    /* Per region: visits and exclusive time over all its call paths, inclusive time over
     * the outermost ones (a recursive region's inner call paths are inside the outer). */
    for (size_t c = 0; c < n; c++) {
        score_region *sr = &p->regions[nregion[c]];
        int outer = 1;
        for (int64_t q = parents[c]; q >= 0 && outer; q = parents[q])
            outer = nregion[q] != nregion[c];
        for (size_t l = 0; l < nl; l++) {
            size_t i = c * nl + col[l];
            uint64_t v = visits[i];
            sr->visits += v;
            sr->excl_ns += texcl[i];
            p->total_excl_ns += texcl[i];
            if (outer)
                sr->incl_ns += tincl[i];
            if (v) {
                size_t g = A->loc_group[l];
                score_add_node(sr, g, v, sent ? sent[i] : 0, recv ? recv[i] : 0,
                               lcost ? &lcost[col[l]] : NULL);
                p->group_callpaths[g]++;
            }
        }
    }
    score_finish(p, parents, nregion, n);
    rc = 0;
out:
    free(ridx);
    free(col);
    free(wide);
    free(nregion);
    free(parents);
    free(visits);
    free(tincl);
    free(texcl);
    free(sent);
    free(recv);
    free(sent_other);
    free(recv_other);
    free(lcost);
    return rc;
}

int score_read_cubex(const char *dir, score_profile *p, char *err, size_t errsize)
{
    memset(p, 0, sizeof *p);
    char path[4096];
    snprintf(path, sizeof path, "%s/profile.cubex", dir);
    snprintf(p->source, sizeof p->source, "profile.cubex");
    char open_why[160];
    uint64_t size = 0;
    ustar a = {instr_input_open(path, &size, open_why, sizeof open_why), path, NULL, 0};
    if (a.fd < 0) {
        snprintf(err, errsize, "%s: %s", path, open_why);
        return -1;
    }
    int rc = -1;
    char *xml = NULL;
    anchor A;
    memset(&A, 0, sizeof A);
    if (ustar_walk(&a, size, err, errsize) != 0)
        goto out;
    const ustar_member *am = ustar_find(&a, "anchor.xml");
    if (!am) {
        snprintf(err, errsize, "%s: no anchor.xml in the archive: not a CUBE4 profile", path);
        goto out;
    }
    if (!(xml = ustar_load(&a, am, MAX_ANCHOR_BYTES, err, errsize)))
        goto out;
    xml_handler h = {&A, on_start, on_end};
    char why[512];
    if (xml_parse(xml, (size_t)am->size, &h, why, sizeof why) != 0) {
        snprintf(err, errsize, "%s: anchor.xml: %s", path, why);
        goto out;
    }
    rc = build(p, &a, &A, err, errsize);
    if (rc != 0)
        score_free(p); /* what build had filled in */
out:
    free(xml);
    anchor_free(&A);
    free(a.m);
    close(a.fd);
    return rc;
}
