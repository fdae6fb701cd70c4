/* merge.c — merges the per-thread trees into one tree by call path, at the end of
 * measurement. Iterative everywhere: deep recursion in the program gives deep trees. */
#include "profile.h"
#include "path_map.h"
#include "../core/clock.h"
#include "../core/event.h"
#include "../core/registry.h"
#include "../metrics/metrics.h"
#include "../util/array.h"
#include "../util/pages.h"
#include "../util/sort.h"

#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

/* Index of the merged node (parent, region), created when new; NONE when out of memory. */
static uint32_t find_or_add(instr_mtree *t, instr_path_map *m, int32_t parent, uint32_t region)
{
    int found;
    int64_t slot = instr_path_map_slot(m, parent, region, &found);
    if (slot < 0)
        return NONE;
    if (found)
        return instr_path_map_val(m, slot);
    if (instr_array_grow32(&t->nodes, &t->cap, (size_t)t->n + 1, sizeof *t->nodes, 256) != 0)
        return NONE;
    uint32_t idx = t->n++;
    instr_mnode *mn = &t->nodes[idx];
    memset(mn, 0, sizeof *mn);
    mn->region = region;
    mn->parent = parent;
    mn->depth = parent < 0 ? 0 : t->nodes[parent].depth + 1;
    mn->first_child = mn->next_sibling = NONE;
    mn->s.min_incl = mn->s.min_excl = UINT64_MAX;
    instr_path_map_set(m, (uint32_t)slot, parent, region, idx);
    return idx;
}

/* Adds one location's metric rows `from` into `to` (the node's, over all locations). */
static void add_metric_rows(uint64_t *to, const uint64_t *from, uint32_t nm, int first)
{
    for (uint32_t i = 0; i < nm; i++) {
        uint32_t type = instr_metrics_sync[i].value_type;
        uint64_t *lo = &to[INSTR_MROW_MIN * nm + i], *hi = &to[INSTR_MROW_MAX * nm + i];
        to[INSTR_MROW_INCL * nm + i] = instr_metric_sum(type, to[INSTR_MROW_INCL * nm + i],
                                                        from[INSTR_MROW_INCL * nm + i]);
        to[INSTR_MROW_EXCL * nm + i] = instr_metric_sum(type, to[INSTR_MROW_EXCL * nm + i],
                                                        from[INSTR_MROW_EXCL * nm + i]);
        if (first || instr_metric_less(type, from[INSTR_MROW_MIN * nm + i], *lo))
            *lo = from[INSTR_MROW_MIN * nm + i];
        if (first || instr_metric_less(type, *hi, from[INSTR_MROW_MAX * nm + i]))
            *hi = from[INSTR_MROW_MAX * nm + i];
    }
}

/* A thread's node's metric rows: its sums (exclusive derived now), min and max. */
static uint64_t *node_metric_rows(const instr_pnode *n, uint32_t nm)
{
    uint64_t *r = instr_mem_alloc(INSTR_MROWS * (size_t)nm * sizeof *r);
    if (!r)
        return NULL;
    instr_pnode_metrics_rows(n, nm, r);
    return r;
}

static int add_loc_metrics(instr_mnode *mn, const instr_pnode *n, uint32_t nm)
{
    instr_mloc *l = &mn->locs[mn->nlocs - 1];
    if (!n->m)
        return 0;
    if (!mn->m && !(mn->m = instr_mem_calloc(INSTR_MROWS * (size_t)nm, sizeof *mn->m)))
        return -1;
    if (!(l->m = node_metric_rows(n, nm)))
        return -1;
    if (mn->nlocs == 1)
        for (uint32_t i = 0; i < nm; i++)
            mn->m[INSTR_MROW_INCL * nm + i] = mn->m[INSTR_MROW_EXCL * nm + i] =
                instr_metric_zero(instr_metrics_sync[i].value_type);
    add_metric_rows(mn->m, l->m, nm, mn->nlocs == 1);
    return 0;
}

static int add_loc(instr_mnode *mn, uint32_t location, const instr_pnode *n)
{
    const instr_pstats *s = &n->s;
    if (instr_array_grow32(&mn->locs, &mn->caplocs, (size_t)mn->nlocs + 1, sizeof *mn->locs,
                           2) != 0)
        return -1;
    mn->locs[mn->nlocs++] = (instr_mloc){location, *s, NULL, n};
    instr_pstats_add(&mn->s, s);
    return 0;
}

static int merge_location(instr_mtree *t, instr_path_map *m, uint32_t location, instr_pstate *ps)
{
    instr_pnode *root = &ps->root;
    t->dropped += ps->dropped;
    t->resynced += ps->resynced;
    for (instr_pnode *n = root->child; n; n = instr_pnode_next(root, n)) {
        int32_t parent = n->parent == root ? -1 : (int32_t)n->parent->merged;
        uint32_t idx = find_or_add(t, m, parent, n->region);
        if (idx == NONE || add_loc(&t->nodes[idx], location, n) != 0)
            return -1;
        if (t->nm && add_loc_metrics(&t->nodes[idx], n, t->nm) != 0)
            return -1;
        n->merged = idx;
    }
    return 0;
}

static int by_incl_desc(const void *a, const void *b)
{
    const instr_mnode *x = *(instr_mnode *const *)a, *y = *(instr_mnode *const *)b;
    if (x->s.incl != y->s.incl)
        return x->s.incl < y->s.incl ? 1 : -1;
    return x->region < y->region ? -1 : x->region > y->region;
}

/* Reorders t->nodes into pre-order with children (and roots) sorted by inclusive time. */
static int preorder(instr_mtree *t)
{
    uint32_t n = t->n;
    if (n == 0)
        return 0;
    instr_mnode **sorted = instr_mem_alloc(n * sizeof *sorted);
    uint32_t *newidx = instr_mem_alloc(n * sizeof *newidx);
    uint32_t *stack = instr_mem_alloc(n * sizeof *stack);
    instr_mnode *out = instr_mem_alloc(n * sizeof *out);
    int rc = -1;
    if (!sorted || !newidx || !stack || !out)
        goto done;
    /* Link children in sorted order: sort all nodes once, then prepend in reverse. */
    for (uint32_t i = 0; i < n; i++)
        sorted[i] = &t->nodes[i];
    instr_sort(sorted, n, sizeof *sorted, by_incl_desc);
    uint32_t roots = NONE;
    for (uint32_t i = n; i-- > 0;) {
        instr_mnode *mn = sorted[i];
        uint32_t idx = (uint32_t)(mn - t->nodes);
        if (mn->parent < 0) {
            mn->next_sibling = roots;
            roots = idx;
        } else {
            mn->next_sibling = t->nodes[mn->parent].first_child;
            t->nodes[mn->parent].first_child = idx;
        }
    }
    /* Depth-first with an explicit stack: push siblings in reverse so the first pops first. */
    uint32_t sp = 0, k = 0;
    uint32_t tmp_count = 0;
    for (uint32_t r = roots; r != NONE; r = t->nodes[r].next_sibling)
        tmp_count++;
    {
        uint32_t i = 0;
        for (uint32_t r = roots; r != NONE; r = t->nodes[r].next_sibling)
            stack[sp + tmp_count - 1 - i++] = r;
        sp += tmp_count;
    }
    while (sp > 0) {
        uint32_t idx = stack[--sp];
        newidx[idx] = k;
        out[k++] = t->nodes[idx];
        uint32_t c = 0;
        for (uint32_t ch = t->nodes[idx].first_child; ch != NONE; ch = t->nodes[ch].next_sibling)
            c++;
        uint32_t i = 0;
        for (uint32_t ch = t->nodes[idx].first_child; ch != NONE; ch = t->nodes[ch].next_sibling)
            stack[sp + c - 1 - i++] = ch;
        sp += c;
    }
    /* Remap links to the new positions. */
    for (uint32_t i = 0; i < n; i++) {
        instr_mnode *mn = &out[i];
        if (mn->parent >= 0)
            mn->parent = (int32_t)newidx[mn->parent];
        if (mn->first_child != NONE)
            mn->first_child = newidx[mn->first_child];
        if (mn->next_sibling != NONE)
            mn->next_sibling = newidx[mn->next_sibling];
    }
    instr_mem_free(t->nodes);
    t->nodes = out;
    t->cap = n;
    out = NULL;
    rc = 0;
done:
    instr_mem_free(sorted);
    instr_mem_free(newidx);
    instr_mem_free(stack);
    instr_mem_free(out);
    return rc;
}

/* Per region: visits and exclusive over all nodes; inclusive over outermost nodes only. */
static int flat(instr_mtree *t)
{
    t->nregions = instr_registry_count();
    t->flat = instr_mem_calloc((size_t)t->nregions + 1, sizeof *t->flat);
    uint32_t *onpath = instr_mem_calloc((size_t)t->nregions + 1, sizeof *onpath);
    uint32_t *path = instr_mem_alloc(((size_t)t->n + 1) * sizeof *path);
    if (!t->flat || !onpath || !path) {
        instr_mem_free(onpath);
        instr_mem_free(path);
        return -1;
    }
    uint32_t depth = 0;
    for (uint32_t i = 0; i < t->n; i++) {
        instr_mnode *mn = &t->nodes[i];
        while (depth > mn->depth)
            onpath[path[--depth]]--;
        uint32_t r = mn->region <= t->nregions ? mn->region : 0;
        instr_flat *f = &t->flat[r];
        f->visits += mn->s.visits;
        f->excl += mn->s.excl;
        if (onpath[r] == 0)
            f->incl += mn->s.incl;
        onpath[r]++;
        path[depth++] = r;
        if (mn->parent < 0)
            t->total_incl += mn->s.incl;
    }
    instr_mem_free(onpath);
    instr_mem_free(path);
    return 0;
}

int instr_mtree_build(instr_mtree *t, const instr_run *run, int slot)
{
    memset(t, 0, sizeof *t);
    instr_path_map m = {0};
    int rc = 0;
    for (uint32_t i = 0; i < run->nlocations; i++) {
        instr_pstate *ps = run->locations[i]->sub[slot];
        if (ps && ps->nm)
            t->nm = ps->nm;
    }
    for (uint32_t i = 0; i < run->nlocations && rc == 0; i++) {
        instr_pstate *ps = run->locations[i]->sub[slot];
        if (ps)
            rc = merge_location(t, &m, run->locations[i]->id, ps);
    }
    instr_path_map_free(&m);
    if (rc == 0)
        rc = preorder(t);
    if (rc == 0)
        rc = flat(t);
    return rc;
}

void instr_mtree_free(instr_mtree *t)
{
    for (uint32_t i = 0; i < t->n; i++) {
        for (uint32_t k = 0; k < t->nodes[i].nlocs; k++)
            instr_mem_free(t->nodes[i].locs[k].m);
        instr_mem_free(t->nodes[i].locs);
        instr_mem_free(t->nodes[i].m);
    }
    instr_mem_free(t->nodes);
    instr_mem_free(t->flat);
    memset(t, 0, sizeof *t);
}

uint64_t instr_profile_ns(uint64_t ticks) { return instr_clock_to_ns(ticks); }

uint64_t instr_profile_min_ns(uint64_t ticks)
{
    return ticks == UINT64_MAX ? 0 : instr_clock_to_ns(ticks);
}
