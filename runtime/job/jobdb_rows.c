/* jobdb_rows.c — the job database's rows, its summary over ranks, the file's layout and its
 * fixed records (jobdb.h). */
#include "jobdb.h"
#include "../util/array.h"
#include "../util/pages.h"
#include "../util/sort.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t *instr_jdb_rows_add(instr_jdb_rows *r, uint32_t path, uint32_t thread)
{
    uint64_t w = 1 + (uint64_t)r->ncols;
    size_t cap = (size_t)r->cap; /* rows of w values */
    if (instr_array_grow(&r->v, &cap, (size_t)r->n + 1, w * sizeof *r->v, 256) != 0)
        return NULL;
    r->cap = cap;
    uint64_t *row = r->v + r->n++ * w;
    memset(row, 0, w * sizeof *row);
    row[0] = (uint64_t)thread << 32 | path;
    return row + 1;
}

void instr_jdb_rows_free(instr_jdb_rows *r)
{
    instr_mem_free(r->v);
    memset(r, 0, sizeof *r);
}

/* Sorting rows of a width known only at run time: sort (key, index) pairs, then permute. */
typedef struct key_idx {
    uint64_t key; /* path << 32 | thread */
    uint64_t idx;
} key_idx;

static int by_key(const void *a, const void *b)
{
    const key_idx *x = a, *y = b;
    return (x->key > y->key) - (x->key < y->key);
}

static uint64_t sort_key(const uint64_t *row)
{
    return (uint64_t)instr_jdb_row_path(row) << 32 | instr_jdb_row_thread(row);
}

/* Sorts r into out (a new array); 0 or -1. */
static int sorted_copy(const instr_jdb_rows *r, uint64_t **out)
{
    uint64_t w = 1 + (uint64_t)r->ncols;
    key_idx *k = instr_mem_alloc((r->n + 1) * sizeof *k);
    uint64_t *v = instr_mem_alloc((r->n * w + 1) * sizeof *v);
    if (!k || !v) {
        instr_mem_free(k);
        instr_mem_free(v);
        return -1;
    }
    int sorted = 1;
    for (uint64_t i = 0; i < r->n; i++) {
        k[i] = (key_idx){sort_key(instr_jdb_row(r, i)), i};
        sorted &= i == 0 || k[i - 1].key <= k[i].key;
    }
    if (!sorted)
        instr_sort(k, r->n, sizeof *k, by_key);
    for (uint64_t i = 0; i < r->n; i++)
        memcpy(v + i * w, instr_jdb_row(r, k[i].idx), w * sizeof *v);
    instr_mem_free(k);
    *out = v;
    return 0;
}

void instr_jdb_rows_sort(instr_jdb_rows *r)
{
    uint64_t *v;
    if (sorted_copy(r, &v) == 0) {
        instr_mem_free(r->v);
        r->v = v;
        r->cap = r->n;
    }
    /* without memory the rows stay unsorted; instr_jdb_rows_remap reports it */
}

int instr_jdb_rows_remap(const instr_jdb_rows *in, const instr_jdb_map *map, uint32_t ncols,
                         instr_jdb_rows *out)
{
    memset(out, 0, sizeof *out);
    out->ncols = ncols;
    uint64_t w = 1 + (uint64_t)ncols;
    instr_jdb_rows tmp = {ncols, in->n, in->n, instr_mem_alloc((in->n * w + 1) * sizeof(uint64_t))};
    if (!tmp.v)
        return -1;
    for (uint64_t i = 0; i < in->n; i++) {
        const uint64_t *src = instr_jdb_row(in, i);
        uint64_t *dst = instr_jdb_row(&tmp, i);
        memset(dst, 0, w * sizeof *dst);
        dst[0] = (uint64_t)instr_jdb_row_thread(src) << 32 | map->path[instr_jdb_row_path(src)];
        for (uint32_t c = 0; c < in->ncols; c++)
            dst[1 + map->col[c]] = src[1 + c];
    }
    uint64_t *v;
    if (sorted_copy(&tmp, &v) != 0) {
        instr_mem_free(tmp.v);
        return -1;
    }
    instr_mem_free(tmp.v);
    out->v = v;
    out->n = out->cap = in->n;
    return 0;
}

/* ---- the summary ---- */

static double as_double(uint64_t bits)
{
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

static uint64_t bits_of(double d)
{
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

void instr_jdb_summary_init(uint64_t *s, uint32_t npaths, const instr_jdb_column *cols,
                            uint32_t ncols)
{
    uint64_t w = instr_jdb_summary_words(ncols);
    for (uint32_t p = 0; p < npaths; p++) {
        uint64_t *r = s + p * w;
        r[0] = 0;
        for (uint32_t c = 0; c < ncols; c++) {
            uint64_t *x = r + 1 + 4 * (uint64_t)c;
            int dbl = cols[c].kind == INSTR_JDB_KIND_DOUBLE;
            x[0] = bits_of(0.0);
            x[1] = dbl ? bits_of(INFINITY) : UINT64_MAX;
            x[2] = dbl ? bits_of(-INFINITY) : 0;
            x[3] = bits_of(0.0);
        }
    }
}

/* Adds one rank's value v of column c to the record r. */
static void add_value(uint64_t *r, uint32_t c, const instr_jdb_column *col, uint64_t v)
{
    uint64_t *x = r + 1 + 4 * (uint64_t)c;
    if (col->kind == INSTR_JDB_KIND_DOUBLE) {
        double d = as_double(v);
        x[0] = bits_of(as_double(x[0]) + d);
        if (d < as_double(x[1])) x[1] = v;
        if (d > as_double(x[2])) x[2] = v;
        x[3] = bits_of(as_double(x[3]) + d * d);
    } else {
        x[0] += v;
        if (v < x[1]) x[1] = v;
        if (v > x[2]) x[2] = v;
        x[3] = bits_of(as_double(x[3]) + (double)v * (double)v);
    }
}

/* Adds the rows of one path from row *i on (its threads summed into val, nc words) to rec as
 * one rank's values; *i moves past them. */
static void add_path(uint64_t *rec, const instr_jdb_rows *r, uint64_t *i,
                     const instr_jdb_column *cols, uint64_t *val)
{
    uint32_t nc = r->ncols, p = instr_jdb_row_path(instr_jdb_row(r, *i));
    memset(val, 0, (size_t)nc * sizeof *val);
    for (; *i < r->n && instr_jdb_row_path(instr_jdb_row(r, *i)) == p; (*i)++) {
        const uint64_t *row = instr_jdb_row(r, *i) + 1;
        for (uint32_t c = 0; c < nc; c++)
            val[c] = cols[c].kind == INSTR_JDB_KIND_DOUBLE
                         ? bits_of(as_double(val[c]) + as_double(row[c]))
                         : val[c] + row[c];
    }
    rec[0]++;
    for (uint32_t c = 0; c < nc; c++)
        add_value(rec, c, &cols[c], val[c]);
}

void instr_jdb_summary_add_rank(uint64_t *s, const instr_jdb_rows *r,
                                const instr_jdb_column *cols)
{
    uint32_t nc = r->ncols;
    uint64_t w = instr_jdb_summary_words(nc);
    uint64_t *val = instr_mem_calloc((size_t)nc + 1, sizeof *val);
    if (!val)
        return;
    for (uint64_t i = 0; i < r->n;)
        add_path(s + instr_jdb_row_path(instr_jdb_row(r, i)) * w, r, &i, cols, val);
    instr_mem_free(val);
}

int instr_jdb_summary_sparse_of_rank(const instr_jdb_rows *r, const instr_jdb_column *cols,
                                     uint64_t **out, uint64_t *n)
{
    uint32_t nc = r->ncols;
    uint64_t e = 1 + instr_jdb_summary_words(nc), paths = 0;
    for (uint64_t i = 0; i < r->n; i++)
        paths += i == 0 || instr_jdb_row_path(instr_jdb_row(r, i)) !=
                               instr_jdb_row_path(instr_jdb_row(r, i - 1));
    uint64_t *v = instr_mem_alloc((paths * e + 1) * sizeof *v);
    uint64_t *val = instr_mem_calloc((size_t)nc + 1, sizeof *val);
    if (!v || !val) {
        instr_mem_free(v);
        instr_mem_free(val);
        return -1;
    }
    uint64_t k = 0;
    for (uint64_t i = 0; i < r->n; k++) {
        uint64_t *ent = v + k * e;
        ent[0] = instr_jdb_row_path(instr_jdb_row(r, i));
        instr_jdb_summary_init(ent + 1, 1, cols, nc);
        add_path(ent + 1, r, &i, cols, val);
    }
    instr_mem_free(val);
    *out = v;
    *n = paths;
    return 0;
}

int instr_jdb_summary_sparse_merge(const uint64_t *a, uint64_t na, const uint64_t *b,
                                   uint64_t nb, const instr_jdb_column *cols, uint32_t ncols,
                                   uint64_t **out, uint64_t *n)
{
    uint64_t e = 1 + instr_jdb_summary_words(ncols), i = 0, j = 0, k = 0;
    uint64_t *v = instr_mem_alloc(((na + nb) * e + 1) * sizeof *v);
    if (!v)
        return -1;
    while (i < na || j < nb) {
        uint64_t *dst = v + k++ * e;
        if (j == nb || (i < na && a[i * e] < b[j * e])) {
            memcpy(dst, a + i++ * e, e * sizeof *dst);
        } else if (i == na || b[j * e] < a[i * e]) {
            memcpy(dst, b + j++ * e, e * sizeof *dst);
        } else {
            memcpy(dst, a + i++ * e, e * sizeof *dst);
            instr_jdb_summary_combine(dst + 1, b + j++ * e + 1, 1, cols, ncols);
        }
    }
    *out = v;
    *n = k;
    return 0;
}

void instr_jdb_summary_combine(uint64_t *into, const uint64_t *from, uint64_t n,
                               const instr_jdb_column *cols, uint32_t ncols)
{
    uint64_t w = instr_jdb_summary_words(ncols);
    for (uint64_t p = 0; p < n; p++) {
        uint64_t *a = into + p * w;
        const uint64_t *b = from + p * w;
        a[0] += b[0];
        for (uint32_t c = 0; c < ncols; c++) {
            uint64_t *x = a + 1 + 4 * (uint64_t)c;
            const uint64_t *y = b + 1 + 4 * (uint64_t)c;
            if (cols[c].kind == INSTR_JDB_KIND_DOUBLE) {
                x[0] = bits_of(as_double(x[0]) + as_double(y[0]));
                if (as_double(y[1]) < as_double(x[1])) x[1] = y[1];
                if (as_double(y[2]) > as_double(x[2])) x[2] = y[2];
            } else {
                x[0] += y[0];
                if (y[1] < x[1]) x[1] = y[1];
                if (y[2] > x[2]) x[2] = y[2];
            }
            x[3] = bits_of(as_double(x[3]) + as_double(y[3]));
        }
    }
}

void instr_jdb_summary_finish(uint64_t *s, uint32_t npaths, const instr_jdb_column *cols,
                              uint32_t ncols)
{
    (void)cols;
    uint64_t w = instr_jdb_summary_words(ncols);
    for (uint32_t p = 0; p < npaths; p++) {
        uint64_t *r = s + p * w;
        if (r[0])
            continue;
        for (uint32_t c = 0; c < ncols; c++)
            r[2 + 4 * (uint64_t)c] = r[3 + 4 * (uint64_t)c] = 0;
    }
}

/* ---- layout and records ---- */

static uint64_t pad8(uint64_t x) { return (x + 7) & ~7ull; }

void instr_jdb_layout_of(const instr_jdb_defs *d, uint32_t nranks, instr_jdb_layout *l)
{
    l->row_bytes = instr_jdb_row_bytes(d->ncol);
    l->summary_bytes = 8 * instr_jdb_summary_words(d->ncol) * d->npath;
    l->strings = INSTR_JDB_HEADER_SIZE;
    l->strings_len = d->slen;
    l->regions = pad8(l->strings + d->slen);
    l->paths = l->regions + 32ull * d->nreg;
    l->columns = l->paths + 8ull * d->npath;
    l->summary = l->columns + 16ull * d->ncol;
    l->index = l->summary + l->summary_bytes;
    l->rows = l->index + 32ull * nranks;
}


void instr_jdb_header_encode(unsigned char out[INSTR_JDB_HEADER_SIZE], const instr_jdb_defs *d,
                             const instr_jdb_layout *l, const instr_jdb_header_info *h)
{
    memset(out, 0, INSTR_JDB_HEADER_SIZE);
    memcpy(out, INSTR_JDB_MAGIC, 8);
    instr_jdb_put32(out + 8, INSTR_JDB_VERSION);
    instr_jdb_put32(out + 12, INSTR_JDB_HEADER_SIZE);
    instr_jdb_put64(out + 16, h->file_size);
    instr_jdb_put32(out + 24, h->nranks);
    instr_jdb_put32(out + 28, h->present);
    instr_jdb_put32(out + 32, d->nreg);
    instr_jdb_put32(out + 36, d->npath);
    instr_jdb_put32(out + 40, d->ncol);
    instr_jdb_put32(out + 44, (uint32_t)l->row_bytes);
    instr_jdb_put64(out + 48, h->duration_ns);
    instr_jdb_put64(out + 56, l->strings);
    instr_jdb_put64(out + 64, l->strings_len);
    instr_jdb_put64(out + 72, l->regions);
    instr_jdb_put64(out + 80, l->paths);
    instr_jdb_put64(out + 88, l->columns);
    instr_jdb_put64(out + 96, l->summary);
    instr_jdb_put64(out + 104, l->index);
    instr_jdb_put64(out + 112, l->rows);
    instr_jdb_put32(out + 120, h->rounds);
    instr_jdb_put32(out + 124, 0);
}

void instr_jdb_index_encode(unsigned char out[32], uint64_t offset, uint64_t nrows,
                            uint32_t nthreads, uint32_t flags, uint64_t duration_ns)
{
    instr_jdb_put64(out, offset);
    instr_jdb_put64(out + 8, nrows);
    instr_jdb_put32(out + 16, nthreads);
    instr_jdb_put32(out + 20, flags);
    instr_jdb_put64(out + 24, duration_ns);
}

uint32_t instr_jdb_rounds(uint32_t n)
{
    uint32_t k = 0;
    while (k < 32 && (1ull << k) < n)
        k++;
    return k;
}

/* ---- one rank's part as one buffer: u64 definitions' bytes, u32 threads, u32 columns of
 * the rows, u64 duration, u64 rows; the definitions; the rows ---- */

void instr_jdb_local_free(instr_jdb_local *l)
{
    instr_jdb_defs_free(&l->defs);
    instr_jdb_rows_free(&l->rows);
}

int instr_jdb_local_serialize(const instr_jdb_local *l, unsigned char **buf, uint64_t *len)
{
    unsigned char *defs;
    uint64_t dlen;
    if (instr_jdb_defs_serialize(&l->defs, &defs, &dlen) != 0)
        return -1;
    uint64_t rbytes = l->rows.n * instr_jdb_row_bytes(l->rows.ncols);
    uint64_t n = 32 + dlen + rbytes;
    unsigned char *b = instr_mem_alloc(n);
    if (!b) {
        instr_mem_free(defs);
        return -1;
    }
    instr_jdb_put64(b, dlen);
    instr_jdb_put32(b + 8, l->nthreads);
    instr_jdb_put32(b + 12, l->rows.ncols);
    instr_jdb_put64(b + 16, l->duration_ns);
    instr_jdb_put64(b + 24, l->rows.n);
    memcpy(b + 32, defs, dlen);
    if (rbytes)
        memcpy(b + 32 + dlen, l->rows.v, rbytes);
    instr_mem_free(defs);
    *buf = b;
    *len = n;
    return 0;
}

int instr_jdb_local_deserialize(instr_jdb_local *l, const unsigned char *buf, uint64_t len,
                                char *err, size_t errlen)
{
    memset(l, 0, sizeof *l);
    uint64_t dlen, nrows;
    uint32_t ncols;
    if (len < 32) {
        snprintf(err, errlen, "a rank's part is shorter than its 32-byte header");
        return -1;
    }
    memcpy(&dlen, buf, 8);
    memcpy(&l->nthreads, buf + 8, 4);
    memcpy(&ncols, buf + 12, 4);
    memcpy(&l->duration_ns, buf + 16, 8);
    memcpy(&nrows, buf + 24, 8);
    uint64_t rb = instr_jdb_row_bytes(ncols);
    if (dlen > len - 32 || nrows > (len - 32 - dlen) / rb || 32 + dlen + nrows * rb != len) {
        snprintf(err, errlen, "a rank's part does not have the size its counts give");
        return -1;
    }
    if (instr_jdb_defs_deserialize(&l->defs, buf + 32, dlen, err, errlen) != 0)
        return -1;
    if (ncols != l->defs.ncol) {
        snprintf(err, errlen, "a rank's rows have %u columns, its definitions %u", ncols,
                 l->defs.ncol);
        instr_jdb_defs_free(&l->defs);
        return -1;
    }
    l->rows.ncols = ncols;
    l->rows.v = instr_mem_alloc(nrows * rb + 8);
    if (!l->rows.v) {
        snprintf(err, errlen, "out of memory");
        instr_jdb_defs_free(&l->defs);
        return -1;
    }
    memcpy(l->rows.v, buf + 32 + dlen, nrows * rb);
    l->rows.n = l->rows.cap = nrows;
    for (uint64_t i = 0; i < nrows; i++) {
        const uint64_t *row = instr_jdb_row(&l->rows, i);
        if (instr_jdb_row_path(row) >= l->defs.npath || instr_jdb_row_thread(row) >= l->nthreads) {
            snprintf(err, errlen, "row %llu names path %u or thread %u, beyond the rank's %u "
                                  "paths and %u threads",
                     (unsigned long long)i, instr_jdb_row_path(row), instr_jdb_row_thread(row),
                     l->defs.npath, l->nthreads);
            instr_jdb_local_free(l);
            return -1;
        }
    }
    return 0;
}
