/* jobdb_defs.c — the job database's definitions: strings, regions, paths and columns, and
 * their serialisation (jobdb.h); their union is in jobdb_union.c, their canonical numbering
 * in jobdb_canonical.c. */
#include "jobdb_hash.h"
#include "../util/array.h"
#include "../util/table.h"
#include "../util/pages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE INSTR_JDB_NONE

/* jobdb.h */
int instr_jdb_grow(void *pp, uint32_t *cap, uint64_t need, size_t elem)
{
    if (need > UINT32_MAX - 1) /* ids stay below INSTR_JDB_NONE */
        return -1;
    return instr_array_grow32(pp, cap, (size_t)need, elem, 64);
}

/* Open-addressing tables of id + 1 (0: free), rebuilt when half full. */
static uint64_t hash_region(const void *defs, uint32_t id)
{
    return region_hash_rec(&((const instr_jdb_defs *)defs)->reg[id]);
}
static uint64_t hash_path(const void *defs, uint32_t id)
{
    const instr_jdb_path *p = &((const instr_jdb_defs *)defs)->path[id];
    return instr_hash_mix((uint64_t)p->parent << 32 | p->region);
}

static int rehash(const instr_jdb_defs *d, uint32_t **slots, uint32_t *cap, uint32_t n,
                  instr_id_hash *h)
{
    size_t c = instr_grown_cap(*cap, 2 * ((size_t)n + 1), 256, (size_t)1 << 31);
    if (c == *cap)
        return 0;
    return c ? instr_id_index_build(slots, cap, (uint32_t)c, n, h, d) : -1;
}

int instr_jdb_defs_init(instr_jdb_defs *d)
{
    memset(d, 0, sizeof *d);
    d->str = instr_mem_alloc(256);
    if (!d->str)
        return -1;
    d->scap = 256;
    d->str[0] = '\0';
    d->slen = 1;
    return 0;
}

void instr_jdb_defs_free(instr_jdb_defs *d)
{
    instr_mem_free(d->str);
    instr_mem_free(d->sslots);
    instr_mem_free(d->reg);
    instr_mem_free(d->rslots);
    instr_mem_free(d->path);
    instr_mem_free(d->pslots);
    instr_mem_free(d->col);
    memset(d, 0, sizeof *d);
}

/* The string table's hash over the offsets of its strings (offsets need not be ids: they
 * are found by walking the section). */
static int str_rehash(instr_jdb_defs *d)
{
    if (2 * ((uint64_t)d->nstr + 1) <= d->sslots_cap)
        return 0;
    size_t c = instr_grown_cap(d->sslots_cap, 2 * ((size_t)d->nstr + 1), 256, (size_t)1 << 31);
    if (!c)
        return -1;
    uint32_t *t = instr_mem_calloc(c, sizeof *t);
    if (!t)
        return -1;
    for (uint64_t off = 1; off < d->slen; off += strlen(d->str + off) + 1) {
        uint64_t s = str_hash(d->str + off) & (c - 1);
        while (t[s])
            s = (s + 1) & (c - 1);
        t[s] = (uint32_t)off + 1;
    }
    instr_mem_free(d->sslots);
    d->sslots = t;
    d->sslots_cap = (uint32_t)c;
    return 0;
}

uint32_t instr_jdb_str(instr_jdb_defs *d, const char *s)
{
    if (!s || !*s)
        return 0;
    if (str_rehash(d) != 0)
        return NONE;
    uint64_t slot = str_hash(s) & (d->sslots_cap - 1);
    while (d->sslots[slot]) {
        if (strcmp(d->str + d->sslots[slot] - 1, s) == 0)
            return d->sslots[slot] - 1;
        slot = (slot + 1) & (d->sslots_cap - 1);
    }
    size_t l = strlen(s) + 1;
    if (d->slen + l >= UINT32_MAX)
        return NONE;
    if (d->slen + l > d->scap) {
        uint64_t c = d->scap;
        while (c < d->slen + l)
            c *= 2;
        char *q = instr_mem_realloc(d->str, c);
        if (!q)
            return NONE;
        d->str = q;
        d->scap = c;
    }
    uint32_t off = (uint32_t)d->slen;
    memcpy(d->str + off, s, l);
    d->slen += l;
    d->nstr++;
    d->sslots[slot] = off + 1;
    return off;
}

uint32_t instr_jdb_region_id(instr_jdb_defs *d, const instr_jdb_region *r)
{
    if (rehash(d, &d->rslots, &d->rslots_cap, d->nreg, hash_region) != 0)
        return NONE;
    uint64_t s = region_hash_rec(r) & (d->rslots_cap - 1);
    while (d->rslots[s]) {
        instr_jdb_region *x = &d->reg[d->rslots[s] - 1];
        if (same_region(x, r)) {
            x->flags |= r->flags;
            return d->rslots[s] - 1;
        }
        s = (s + 1) & (d->rslots_cap - 1);
    }
    if (instr_jdb_grow(&d->reg, &d->capreg, (uint64_t)d->nreg + 1, sizeof *d->reg) != 0)
        return NONE;
    d->reg[d->nreg] = *r;
    d->rslots[s] = d->nreg + 1;
    return d->nreg++;
}

uint32_t instr_jdb_path_id(instr_jdb_defs *d, uint32_t parent, uint32_t region)
{
    if (rehash(d, &d->pslots, &d->pslots_cap, d->npath, hash_path) != 0)
        return NONE;
    uint64_t s = instr_hash_mix((uint64_t)parent << 32 | region) & (d->pslots_cap - 1);
    while (d->pslots[s]) {
        const instr_jdb_path *x = &d->path[d->pslots[s] - 1];
        if (x->parent == parent && x->region == region)
            return d->pslots[s] - 1;
        s = (s + 1) & (d->pslots_cap - 1);
    }
    if (instr_jdb_grow(&d->path, &d->cappath, (uint64_t)d->npath + 1, sizeof *d->path) != 0)
        return NONE;
    d->path[d->npath] = (instr_jdb_path){parent, region};
    d->pslots[s] = d->npath + 1;
    return d->npath++;
}

uint32_t instr_jdb_column_id(instr_jdb_defs *d, const char *name, const char *unit,
                             uint32_t kind, uint32_t flags)
{
    /* Few columns: a linear search. */
    for (uint32_t i = 0; i < d->ncol; i++)
        if (strcmp(d->str + d->col[i].name, name) == 0)
            return i;
    uint32_t n = instr_jdb_str(d, name), u = instr_jdb_str(d, unit);
    if (n == NONE || u == NONE ||
        instr_jdb_grow(&d->col, &d->capcol, (uint64_t)d->ncol + 1, sizeof *d->col) != 0)
        return NONE;
    d->col[d->ncol] = (instr_jdb_column){n, u, kind, flags};
    return d->ncol++;
}

int instr_jdb_base_columns(instr_jdb_defs *d)
{
    static const struct { const char *name, *unit; uint32_t kind, flags; } base[] = {
        {"visits", "", INSTR_JDB_KIND_COUNT, 0},
        {"time_incl", "ns", INSTR_JDB_KIND_TIME, INSTR_JDB_COLUMN_INCLUSIVE},
        {"time_excl", "ns", INSTR_JDB_KIND_TIME, 0},
        {"bytes_sent", "bytes", INSTR_JDB_KIND_BYTES, 0},
        {"bytes_received", "bytes", INSTR_JDB_KIND_BYTES, 0},
        {"messages_sent", "", INSTR_JDB_KIND_COUNT, 0},
        {"messages_received", "", INSTR_JDB_KIND_COUNT, 0},
    };
    for (uint32_t i = 0; i < INSTR_JDB_NBASE_COLS; i++)
        if (instr_jdb_column_id(d, base[i].name, base[i].unit, base[i].kind, base[i].flags) != i)
            return -1;
    return 0;
}

void instr_jdb_io_column(int paradigm, int figure, char *name, const char **unit,
                         uint32_t *kind)
{
    static const char *const par[INSTR_JDB_IO_PARADIGMS] = {"posix", "stdio", "mpiio"};
    static const struct { const char *name, *unit; uint32_t kind; } fig[INSTR_JDB_IO_FIGURES] = {
        {"operations", "", INSTR_JDB_KIND_COUNT}, {"failed", "", INSTR_JDB_KIND_COUNT},
        {"bytes_read", "bytes", INSTR_JDB_KIND_BYTES},
        {"bytes_written", "bytes", INSTR_JDB_KIND_BYTES}, {"time", "ns", INSTR_JDB_KIND_TIME},
    };
    snprintf(name, INSTR_JDB_REC_NAME, "io_%s_%s", par[paradigm], fig[figure].name);
    if (unit)
        *unit = fig[figure].unit;
    if (kind)
        *kind = fig[figure].kind;
}

void instr_jdb_mem_column(int figure, char *name, const char **unit, uint32_t *kind)
{
    static const char *const fig[INSTR_JDB_MEM_FIGURES] = {"allocations", "frees",
                                                           "bytes_allocated", "bytes_freed"};
    snprintf(name, INSTR_JDB_REC_NAME, "memory_%s", fig[figure]);
    if (unit)
        *unit = figure < 2 ? "" : "bytes";
    if (kind)
        *kind = figure < 2 ? INSTR_JDB_KIND_COUNT : INSTR_JDB_KIND_BYTES;
}

/* ---- serialisation: u64 string bytes, u32 regions, paths, columns, zero; then the
 * sections back to back (strings padded to 8) ---- */

static uint64_t pad8(uint64_t x) { return (x + 7) & ~7ull; }

int instr_jdb_defs_serialize(const instr_jdb_defs *d, unsigned char **buf, uint64_t *len)
{
    uint64_t n = 24 + pad8(d->slen) + 32ull * d->nreg + 8ull * d->npath + 16ull * d->ncol;
    unsigned char *b = instr_mem_calloc(1, n);
    if (!b)
        return -1;
    uint32_t counts[4] = {d->nreg, d->npath, d->ncol, 0};
    memcpy(b, &d->slen, 8);
    memcpy(b + 8, counts, 16);
    uint64_t o = 24;
    memcpy(b + o, d->str, d->slen);
    o += pad8(d->slen);
    memcpy(b + o, d->reg, 32ull * d->nreg);
    o += 32ull * d->nreg;
    memcpy(b + o, d->path, 8ull * d->npath);
    o += 8ull * d->npath;
    memcpy(b + o, d->col, 16ull * d->ncol);
    *buf = b;
    *len = n;
    return 0;
}

static int bad(char *err, size_t errlen, const char *what)
{
    snprintf(err, errlen, "%s", what);
    return -1;
}

/* Whether off names a string of d (the start of one, inside the section). */
static int str_ok(const instr_jdb_defs *d, uint32_t off, const unsigned char *starts)
{
    return off < d->slen && starts[off];
}

int instr_jdb_defs_deserialize(instr_jdb_defs *d, const unsigned char *buf, uint64_t len,
                               char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    uint64_t slen;
    uint32_t counts[4];
    if (len < 24)
        return bad(err, errlen, "definitions shorter than their 24-byte header");
    memcpy(&slen, buf, 8);
    memcpy(counts, buf + 8, 16);
    if (slen < 1 || slen >= UINT32_MAX || slen > len)
        return bad(err, errlen, "string section length out of range");
    uint64_t need = 24 + pad8(slen) + 32ull * counts[0] + 8ull * counts[1] + 16ull * counts[2];
    if (need != len)
        return bad(err, errlen, "definitions' size does not match their counts");
    const unsigned char *s = buf + 24;
    if (s[0] != '\0' || s[slen - 1] != '\0')
        return bad(err, errlen, "string section does not begin and end with a NUL");
    unsigned char *starts = instr_mem_calloc(slen, 1);
    if (!starts)
        return bad(err, errlen, "out of memory");
    starts[0] = 1;
    uint32_t nstr = 0;
    for (uint64_t o = 1; o < slen; o += strlen((const char *)s + o) + 1) {
        starts[o] = 1;
        nstr++;
    }
    d->str = instr_mem_alloc(slen);
    d->reg = instr_mem_alloc(32ull * counts[0] + 1);
    d->path = instr_mem_alloc(8ull * counts[1] + 1);
    d->col = instr_mem_alloc(16ull * counts[2] + 1);
    if (!d->str || !d->reg || !d->path || !d->col) {
        instr_mem_free(starts);
        instr_jdb_defs_free(d);
        return bad(err, errlen, "out of memory");
    }
    memcpy(d->str, s, slen);
    d->slen = d->scap = slen;
    d->nstr = nstr;
    uint64_t o = 24 + pad8(slen);
    d->nreg = d->capreg = counts[0];
    memcpy(d->reg, buf + o, 32ull * counts[0]);
    o += 32ull * counts[0];
    d->npath = d->cappath = counts[1];
    memcpy(d->path, buf + o, 8ull * counts[1]);
    o += 8ull * counts[1];
    d->ncol = d->capcol = counts[2];
    memcpy(d->col, buf + o, 16ull * counts[2]);
    const char *what = NULL;
    for (uint32_t i = 0; i < d->nreg && !what; i++) {
        const instr_jdb_region *r = &d->reg[i];
        if (!str_ok(d, r->name, starts) || !str_ok(d, r->mangled, starts) ||
            !str_ok(d, r->file, starts) || !str_ok(d, r->object, starts))
            what = "a region's string offset is not a string";
    }
    for (uint32_t i = 0; i < d->npath && !what; i++)
        if ((d->path[i].parent != NONE && d->path[i].parent >= i) || d->path[i].region >= d->nreg)
            what = "a path's parent is not before it or its region does not exist";
    for (uint32_t i = 0; i < d->ncol && !what; i++)
        if (!str_ok(d, d->col[i].name, starts) || !str_ok(d, d->col[i].unit, starts))
            what = "a column's string offset is not a string";
    instr_mem_free(starts);
    if (!what && (rehash(d, &d->rslots, &d->rslots_cap, d->nreg, hash_region) != 0 ||
                  rehash(d, &d->pslots, &d->pslots_cap, d->npath, hash_path) != 0 ||
                  str_rehash(d) != 0))
        what = "out of memory";
    if (what) {
        instr_jdb_defs_free(d);
        return bad(err, errlen, what);
    }
    return 0;
}

/* jobdb_hash.h */
int instr_jdb_defs_rehash_ids(instr_jdb_defs *d)
{
    if (rehash(d, &d->rslots, &d->rslots_cap, d->nreg, hash_region) != 0 ||
        rehash(d, &d->pslots, &d->pslots_cap, d->npath, hash_path) != 0)
        return -1;
    return 0;
}
