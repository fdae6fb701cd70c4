/* jobdb_pruned.c — the pruned section's core (jobdb_pruned.h): the set from the summary, a
 * rank's rows of it, the layout and the header's fields. */
#include "jobdb_pruned.h"
#include "../util/pages.h"

#include <string.h>

/* A path's summary sum of time_incl as the reader takes it: a u64 as a double, a kind 4
 * value as its bits. */
static double incl_sum(const uint64_t *sum, uint64_t w, uint32_t p, int dbl)
{
    const uint64_t *v = &sum[p * w + 1 + 4 * (uint64_t)INSTR_JDB_COL_TIME_INCL];
    double d;
    if (!dbl)
        return (double)*v;
    memcpy(&d, v, 8);
    return d;
}

int instr_jdb_pruned_set(const uint64_t *sum, const instr_jdb_defs *u, uint32_t threshold,
                         uint32_t **set, uint32_t *nset)
{
    uint64_t w = instr_jdb_summary_words(u->ncol);
    int inclusive = (u->col[INSTR_JDB_COL_TIME_INCL].flags & INSTR_JDB_COLUMN_INCLUSIVE) != 0;
    int dbl = u->col[INSTR_JDB_COL_TIME_INCL].kind == INSTR_JDB_KIND_DOUBLE;
#define VALUE(p) incl_sum(sum, w, p, dbl)
    double total = 0;
    for (uint32_t p = 0; p < u->npath; p++)
        if (!inclusive || u->path[p].parent == INSTR_JDB_NONE)
            total += VALUE(p);
    double bound = threshold / 100.0 / 100.0 * total;
    uint32_t n = 0;
    for (uint32_t p = 0; p < u->npath; p++)
        n += VALUE(p) >= bound;
    uint32_t *s = instr_mem_alloc(4ull * n + 4);
    if (!s)
        return -1;
    n = 0;
    for (uint32_t p = 0; p < u->npath; p++)
        if (VALUE(p) >= bound)
            s[n++] = p;
#undef VALUE
    *set = s;
    *nset = n;
    return 0;
}

int instr_jdb_pruned_rows(const instr_jdb_rows *in, const uint32_t *set, uint32_t nset,
                          instr_jdb_rows *out)
{
    uint64_t words = 1 + (uint64_t)in->ncols, n = 0;
    out->ncols = in->ncols;
    out->n = out->cap = 0;
    out->v = NULL;
    /* both ascending by path: one merge */
    for (uint64_t i = 0, k = 0; i < in->n && k < nset; i++) {
        uint32_t p = instr_jdb_row_path(instr_jdb_row(in, i));
        while (k < nset && set[k] < p)
            k++;
        n += k < nset && set[k] == p;
    }
    if (!(out->v = instr_mem_alloc(8 * words * n + 8)))
        return -1;
    out->cap = n;
    for (uint64_t i = 0, k = 0; i < in->n && k < nset; i++) {
        const uint64_t *row = instr_jdb_row(in, i);
        uint32_t p = instr_jdb_row_path(row);
        while (k < nset && set[k] < p)
            k++;
        if (k < nset && set[k] == p)
            memcpy(out->v + words * out->n++, row, 8 * words);
    }
    return 0;
}

static uint64_t pad8(uint64_t x) { return (x + 7) & ~7ull; }

void instr_jdb_pruned_place(instr_jdb_layout *l, uint32_t nranks, uint32_t nset,
                            uint64_t rows_bytes, uint32_t threshold, instr_jdb_pruned_layout *p)
{
    p->nset = nset;
    p->threshold = threshold;
    p->set = l->rows;
    p->index = pad8(p->set + 4ull * nset);
    p->rows = p->index + 16ull * nranks;
    p->rows_bytes = rows_bytes;
    l->rows = p->rows + rows_bytes; /* rows are whole words: aligned */
}


void instr_jdb_pruned_header(unsigned char hdr[INSTR_JDB_HEADER_SIZE],
                             const instr_jdb_pruned_layout *p)
{
    uint32_t flags;
    memcpy(&flags, hdr + 124, 4);
    instr_jdb_put32(hdr + 124, flags | INSTR_JDB_FLAG_PRUNED);
    instr_jdb_put64(hdr + 128, p->set);
    instr_jdb_put32(hdr + 136, p->nset);
    instr_jdb_put32(hdr + 140, p->threshold);
    instr_jdb_put64(hdr + 144, p->index);
    instr_jdb_put64(hdr + 152, p->rows);
    instr_jdb_put64(hdr + 160, p->rows_bytes);
}

void instr_jdb_pruned_index_encode(unsigned char out[16], uint64_t offset, uint64_t nrows)
{
    instr_jdb_put64(out, offset);
    instr_jdb_put64(out + 8, nrows);
}
