/* memory_report.c — memory recording's sections of profile.txt and profile.json
 * (docs/memory.md, docs/profile-format.md): the recorder's counts per thread's node summed
 * over the merged tree's call paths, the threads' and the process's high-water marks, and
 * the blocks still live at the end by the call path that allocated them. Written after the
 * end of measurement, when nothing is recorded any more. */
#include "memory.h"
#include "report_path.h"
#include "../profile/profile.h"
#include "../core/registry.h"
#include "../util/pages.h"
#include "../util/sort.h"
#include "../util/text.h"

#include <stdlib.h>
#include <string.h>

#define TEXT_TOP_PATHS 25
#define TEXT_TOP_LEAKS 20
#define NONE UINT32_MAX

typedef struct leak {
    uint64_t bytes, blocks;
} leak;

/* What both sections show, gathered once per writer. */
typedef struct report {
    const instr_mtree *t;
    instr_memrec_counts *paths;  /* per merged node */
    instr_memrec_counts outside; /* allocations and releases outside any region */
    leak *leaks;              /* per merged node */
    leak leak_outside;        /* blocks allocated outside any region or on a path not in the
                               * profile */
    instr_memrec_counts total;
    uint64_t live_blocks;
    instr_memrec_totals g;
    /* thread nodes to merged nodes, open addressing */
    const instr_pnode **keys;
    uint32_t *vals, cap;
} report;

static uint32_t key_hash(const instr_pnode *n, uint32_t cap)
{
    uint64_t h = (uint64_t)((uintptr_t)n >> 4) * 0x9e3779b97f4a7c15ull;
    return (uint32_t)(h >> 32) & (cap - 1);
}

static uint32_t merged_of(const report *r, const instr_pnode *n)
{
    if (!n || !r->cap)
        return NONE;
    for (uint32_t i = key_hash(n, r->cap);; i = (i + 1) & (r->cap - 1)) {
        if (r->keys[i] == n)
            return r->vals[i];
        if (!r->keys[i])
            return NONE;
    }
}

static void add_counts(instr_memrec_counts *to, const instr_memrec_counts *c)
{
    to->allocs += c->allocs;
    to->frees += c->frees;
    to->bytes_allocated += c->bytes_allocated;
    to->bytes_freed += c->bytes_freed;
}

static void add_block(const instr_memrec_block *b, void *arg)
{
    report *r = arg;
    uint32_t m = merged_of(r, b->node);
    leak *l = m == NONE ? &r->leak_outside : &r->leaks[m];
    l->bytes += b->size;
    l->blocks++;
    r->live_blocks++;
}

static instr_memrec_thread *thread_of(uint32_t location)
{
    for (instr_memrec_thread *th = instr_memrec_threads(); th; th = th->next)
        if (th->loc && th->loc->id == location)
            return th;
    return NULL;
}

static void report_free(report *r)
{
    instr_mem_free(r->paths);
    instr_mem_free(r->leaks);
    instr_mem_free(r->keys);
    instr_mem_free(r->vals);
}

static int report_build(report *r, const instr_mtree *t)
{
    memset(r, 0, sizeof *r);
    r->t = t;
    uint32_t nkeys = 0;
    for (uint32_t i = 0; i < t->n; i++)
        nkeys += t->nodes[i].nlocs;
    r->cap = 16;
    while (r->cap < 2 * (nkeys + 1))
        r->cap *= 2;
    r->paths = instr_mem_calloc(t->n + 1, sizeof *r->paths);
    r->leaks = instr_mem_calloc(t->n + 1, sizeof *r->leaks);
    r->keys = instr_mem_calloc(r->cap, sizeof *r->keys);
    r->vals = instr_mem_calloc(r->cap, sizeof *r->vals);
    if (!r->paths || !r->leaks || !r->keys || !r->vals) {
        report_free(r);
        return -1;
    }
    for (uint32_t i = 0; i < t->n; i++) {
        const instr_mnode *mn = &t->nodes[i];
        for (uint32_t k = 0; k < mn->nlocs; k++) {
            const instr_pnode *n = mn->locs[k].node;
            uint32_t h = key_hash(n, r->cap);
            while (r->keys[h])
                h = (h + 1) & (r->cap - 1);
            r->keys[h] = n;
            r->vals[h] = i;
            const instr_memrec_thread *th = thread_of(mn->locs[k].location);
            if (th) {
                instr_memrec_counts c = instr_memrec_counts_of(th, n);
                add_counts(&r->paths[i], &c);
            }
        }
    }
    for (const instr_memrec_thread *th = instr_memrec_threads(); th; th = th->next) {
        instr_memrec_counts c = instr_memrec_counts_of(th, NULL);
        add_counts(&r->outside, &c);
        add_counts(&r->total, &th->total);
    }
    instr_memrec_get_totals(&r->g);
    instr_memrec_each_block(add_block, r);
    return 0;
}

/* ---- profile.txt ---- */


static const report *sort_report;

static int by_allocated(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    const instr_memrec_counts *cx = x == NONE ? &sort_report->outside : &sort_report->paths[x];
    const instr_memrec_counts *cy = y == NONE ? &sort_report->outside : &sort_report->paths[y];
    if (cx->bytes_allocated != cy->bytes_allocated)
        return cx->bytes_allocated < cy->bytes_allocated ? 1 : -1;
    return x < y ? -1 : x > y;
}

static int by_live(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    const leak *lx = x == NONE ? &sort_report->leak_outside : &sort_report->leaks[x];
    const leak *ly = y == NONE ? &sort_report->leak_outside : &sort_report->leaks[y];
    if (lx->bytes != ly->bytes)
        return lx->bytes < ly->bytes ? 1 : -1;
    return x < y ? -1 : x > y;
}

static int has_counts(const instr_memrec_counts *c) { return c->allocs || c->frees; }

/* The merged nodes (NONE for outside any region) that keep(i) selects, sorted by cmp. */
static uint32_t *select_sorted(const report *r, int leaks, uint32_t *n_out)
{
    const instr_mtree *t = r->t;
    uint32_t *order = instr_mem_alloc(((size_t)t->n + 1) * sizeof *order), n = 0;
    if (!order)
        return NULL;
    for (uint32_t i = 0; i < t->n; i++)
        if (leaks ? r->leaks[i].blocks != 0 : has_counts(&r->paths[i]))
            order[n++] = i;
    if (leaks ? r->leak_outside.blocks != 0 : has_counts(&r->outside))
        order[n++] = NONE;
    sort_report = r;
    instr_sort(order, n, sizeof *order, leaks ? by_live : by_allocated);
    *n_out = n;
    return order;
}

static void write_text(instr_writer *f, const instr_run *run, const instr_mtree *t)
{
    (void)run;
    report r;
    if (report_build(&r, t) != 0)
        return;
    instr_wr_printf(f, "\nMemory (INSTR_MEMORY=1: the program's malloc family and C++ new/delete; "
               "docs/memory.md)\n\n");
    instr_wr_printf(f, "  allocations  %llu (%llu bytes), releases %llu (%llu bytes)\n",
            (unsigned long long)r.total.allocs, (unsigned long long)r.total.bytes_allocated,
            (unsigned long long)r.total.frees, (unsigned long long)r.total.bytes_freed);
    instr_wr_printf(f, "  high-water   %llu bytes live (process)\n",
            (unsigned long long)r.g.high_water);
    instr_wr_printf(f, "  at the end   %llu bytes still live in %llu blocks\n",
            (unsigned long long)r.g.live, (unsigned long long)r.live_blocks);
    if (r.g.dropped || r.g.stale)
        instr_wr_printf(f, "  note         %llu calls from signal handlers not recorded, %llu releases "
                   "not recorded\n",
                (unsigned long long)r.g.dropped, (unsigned long long)r.g.stale);
    for (const instr_memrec_thread *th = instr_memrec_threads(); th; th = th->next) {
        if (th->loc)
            instr_wr_printf(f, "  thread %-5u", th->loc->id);
        else
            instr_wr_printf(f, "  thread -    ");
        instr_wr_printf(f, " high-water %llu bytes, %llu allocations, %llu releases (tid %d)\n",
                (unsigned long long)th->high_water, (unsigned long long)th->total.allocs,
                (unsigned long long)th->total.frees, th->tid);
    }
    uint32_t n;
    uint32_t *order = select_sorted(&r, 0, &n);
    if (order) {
        instr_wr_printf(f, "\n  (top %u of %u call paths by bytes allocated)\n",
                n < TEXT_TOP_PATHS ? n : TEXT_TOP_PATHS, n);
        instr_wr_printf(f, "      allocs       frees  bytes allocated      bytes freed | call path\n");
        for (uint32_t k = 0; k < n && k < TEXT_TOP_PATHS; k++) {
            const instr_memrec_counts *c = order[k] == NONE ? &r.outside : &r.paths[order[k]];
            instr_wr_printf(f, " %11llu %11llu %16llu %16llu | ", (unsigned long long)c->allocs,
                    (unsigned long long)c->frees, (unsigned long long)c->bytes_allocated,
                    (unsigned long long)c->bytes_freed);
            instr_interpose_put_path(f, t, order[k]);
        }
        instr_mem_free(order);
    }
    order = select_sorted(&r, 1, &n);
    if (order) {
        instr_wr_printf(f, "\nStill live at the end (top %u of %u call paths by bytes; all in "
                   "profile.json)\n\n",
                n < TEXT_TOP_LEAKS ? n : TEXT_TOP_LEAKS, n);
        instr_wr_printf(f, "           bytes      blocks | allocated in\n");
        for (uint32_t k = 0; k < n && k < TEXT_TOP_LEAKS; k++) {
            const leak *l = order[k] == NONE ? &r.leak_outside : &r.leaks[order[k]];
            instr_wr_printf(f, " %15llu %11llu | ", (unsigned long long)l->bytes,
                    (unsigned long long)l->blocks);
            instr_interpose_put_path(f, t, order[k]);
        }
        instr_mem_free(order);
    }
    report_free(&r);
}

/* ---- profile.json ---- */

static void json_node(instr_writer *f, uint32_t i)
{
    if (i == NONE)
        instr_wr_puts(f, "\"node\": null");
    else
        instr_wr_printf(f, "\"node\": %u", i);
}

static void json_counts(instr_writer *f, const instr_memrec_counts *c)
{
    instr_wr_printf(f, "\"allocations\": %llu, \"frees\": %llu, \"bytes_allocated\": %llu, "
               "\"bytes_freed\": %llu",
            (unsigned long long)c->allocs, (unsigned long long)c->frees,
            (unsigned long long)c->bytes_allocated, (unsigned long long)c->bytes_freed);
}

static void write_json(instr_writer *f, const instr_run *run, const instr_mtree *t)
{
    (void)run;
    report r;
    if (report_build(&r, t) != 0)
        return;
    instr_wr_puts(f, ",\n  \"memory\": {");
    json_counts(f, &r.total);
    instr_wr_printf(f, ", \"high_water_bytes\": %llu, \"live_bytes\": %llu, \"live_blocks\": %llu, "
               "\"dropped_in_handlers\": %llu, \"unrecorded_releases\": %llu,\n    \"threads\": [",
            (unsigned long long)r.g.high_water, (unsigned long long)r.g.live,
            (unsigned long long)r.live_blocks, (unsigned long long)r.g.dropped,
            (unsigned long long)r.g.stale);
    int first = 1;
    for (const instr_memrec_thread *th = instr_memrec_threads(); th; th = th->next) {
        instr_wr_puts(f, first ? "\n      {\"location\": " : ",\n      {\"location\": ");
        if (th->loc)
            instr_wr_printf(f, "%u, ", th->loc->id);
        else
            instr_wr_puts(f, "null, ");
        json_counts(f, &th->total);
        instr_wr_printf(f, ", \"high_water_bytes\": %llu, \"live_bytes\": %llu}",
                (unsigned long long)th->high_water, (unsigned long long)th->live);
        first = 0;
    }
    instr_wr_puts(f, first ? "],\n    \"call_paths\": [" : "\n    ],\n    \"call_paths\": [");
    uint32_t n;
    uint32_t *order = select_sorted(&r, 0, &n);
    for (uint32_t k = 0; order && k < n; k++) {
        const instr_memrec_counts *c = order[k] == NONE ? &r.outside : &r.paths[order[k]];
        instr_wr_puts(f, k ? ",\n      {" : "\n      {");
        json_node(f, order[k]);
        instr_wr_puts(f, ", ");
        json_counts(f, c);
        instr_wr_putc(f, '}');
    }
    instr_wr_puts(f, order && n ? "\n    ],\n    \"leaks\": [" : "],\n    \"leaks\": [");
    instr_mem_free(order);
    order = select_sorted(&r, 1, &n);
    for (uint32_t k = 0; order && k < n; k++) {
        const leak *l = order[k] == NONE ? &r.leak_outside : &r.leaks[order[k]];
        instr_wr_puts(f, k ? ",\n      {" : "\n      {");
        json_node(f, order[k]);
        instr_wr_printf(f, ", \"bytes\": %llu, \"blocks\": %llu}", (unsigned long long)l->bytes,
                (unsigned long long)l->blocks);
    }
    instr_wr_puts(f, order && n ? "\n    ]\n  }" : "]\n  }");
    instr_mem_free(order);
    report_free(&r);
}

static void count_block(const instr_memrec_block *b, void *arg)
{
    (void)b;
    (*(uint64_t *)arg)++;
}

static void totals(instr_profile_mem_totals *out)
{
    memset(out, 0, sizeof *out);
    for (const instr_memrec_thread *th = instr_memrec_threads(); th; th = th->next) {
        out->allocs += th->total.allocs;
        out->frees += th->total.frees;
        out->bytes_allocated += th->total.bytes_allocated;
        out->bytes_freed += th->total.bytes_freed;
    }
    instr_memrec_totals g;
    instr_memrec_get_totals(&g);
    out->high_water = g.high_water;
    out->live_bytes = g.live;
    instr_memrec_each_block(count_block, &out->live_blocks);
}

static const void *cube_thread(uint32_t location_id) { return thread_of(location_id); }

static void cube_cell(const void *thread, const instr_pnode *node, uint64_t out[4])
{
    instr_memrec_counts c = instr_memrec_counts_of(thread, node);
    out[0] = c.allocs;
    out[1] = c.frees;
    out[2] = c.bytes_allocated;
    out[3] = c.bytes_freed;
}

static uint64_t cube_high_water(const void *thread)
{
    return ((const instr_memrec_thread *)thread)->high_water;
}

const instr_profile_memory instr_memrec_profile_writers = {
    .text = write_text,
    .json = write_json,
    .totals = totals,
    .thread_of = cube_thread,
    .cell = cube_cell,
    .high_water = cube_high_water,
};
