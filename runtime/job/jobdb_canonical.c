/* jobdb_canonical.c — the canonical numbering of the job database's definitions (jobdb.h):
 * the same union gets the same ids whatever order the ranks' parts came in. */
#include "jobdb_hash.h"
#include "../util/pages.h"
#include "../util/sort.h"

#include <stdlib.h>
#include <string.h>

#define NONE INSTR_JDB_NONE

static const instr_jdb_defs *sort_defs; /* qsort has no context argument in C11 */

static int region_order(const void *a, const void *b)
{
    const instr_jdb_region *x = &sort_defs->reg[*(const uint32_t *)a];
    const instr_jdb_region *y = &sort_defs->reg[*(const uint32_t *)b];
    const char *s = sort_defs->str;
    int c = strcmp(s + x->name, s + y->name);
    if (!c) c = strcmp(s + x->mangled, s + y->mangled);
    if (!c) c = strcmp(s + x->file, s + y->file);
    if (!c) c = (x->paradigm > y->paradigm) - (x->paradigm < y->paradigm);
    return c;
}

static int path_order(const void *a, const void *b)
{
    const instr_jdb_path *x = &sort_defs->path[*(const uint32_t *)a];
    const instr_jdb_path *y = &sort_defs->path[*(const uint32_t *)b];
    /* parent NONE sorts last; that is fine: roots are taken from their own bucket */
    if (x->parent != y->parent)
        return x->parent < y->parent ? -1 : 1;
    return (x->region > y->region) - (x->region < y->region);
}

int instr_jdb_defs_canonical(instr_jdb_defs *d) { return instr_jdb_defs_canonical_map(d, NULL); }

int instr_jdb_defs_canonical_map(instr_jdb_defs *d, uint32_t *path_newid)
{
    uint32_t nr = d->nreg, np = d->npath;
    uint32_t *order = instr_mem_alloc(((size_t)(nr > np ? nr : np) + 1) * sizeof *order);
    uint32_t *newid = instr_mem_alloc(((size_t)(nr > np ? nr : np) + 1) * sizeof *newid);
    uint32_t *first = instr_mem_alloc(((size_t)np + 2) * sizeof *first);
    uint32_t *stack = instr_mem_alloc(((size_t)np + 1) * sizeof *stack);
    instr_jdb_region *reg = instr_mem_alloc(((size_t)nr + 1) * sizeof *reg);
    instr_jdb_path *path = instr_mem_alloc(((size_t)np + 1) * sizeof *path);
    int rc = -1;
    if (!order || !newid || !first || !stack || !reg || !path)
        goto out;
    /* Regions. */
    for (uint32_t i = 0; i < nr; i++)
        order[i] = i;
    sort_defs = d;
    instr_sort(order, nr, sizeof *order, region_order);
    for (uint32_t i = 0; i < nr; i++) {
        newid[order[i]] = i;
        reg[i] = d->reg[order[i]];
    }
    memcpy(d->reg, reg, (size_t)nr * sizeof *reg);
    for (uint32_t i = 0; i < np; i++)
        d->path[i].region = newid[d->path[i].region];
    /* Paths: sorted by (parent, region), each parent's children are a run; then pre-order. */
    for (uint32_t i = 0; i < np; i++)
        order[i] = i;
    instr_sort(order, np, sizeof *order, path_order);
    /* first[p + 1]: where parent p's children begin in order; first[0]: the roots'. */
    for (uint32_t i = 0; i < np + 2; i++)
        first[i] = NONE;
    for (uint32_t i = np; i-- > 0;) {
        uint32_t p = d->path[order[i]].parent;
        first[p == NONE ? 0 : p + 1] = i;
    }
    uint32_t sp = 0, k = 0;
    /* Push the roots in reverse so that the first pops first. */
    if (first[0] != NONE) {
        uint32_t e = first[0];
        while (e < np && d->path[order[e]].parent == NONE)
            e++;
        for (uint32_t i = e; i-- > first[0];)
            stack[sp++] = order[i];
    }
    while (sp) {
        uint32_t id = stack[--sp];
        newid[id] = k;
        path[k++] = d->path[id];
        uint32_t b = first[id + 1];
        if (b == NONE)
            continue;
        uint32_t e = b;
        while (e < np && d->path[order[e]].parent == id)
            e++;
        for (uint32_t i = e; i-- > b;)
            stack[sp++] = order[i];
    }
    if (k != np) /* cannot happen for a valid set (parents before children) */
        goto out;
    for (uint32_t i = 0; i < np; i++)
        if (path[i].parent != NONE)
            path[i].parent = newid[path[i].parent];
    if (path_newid)
        memcpy(path_newid, newid, (size_t)np * sizeof *newid);
    memcpy(d->path, path, (size_t)np * sizeof *path);
    /* Strings in the order of their first use by the columns, then the regions: the same
     * bytes whatever order the sets were merged in. */
    instr_jdb_defs s;
    if (instr_jdb_defs_init(&s) != 0)
        goto out;
    for (uint32_t i = 0; i < d->ncol; i++) {
        d->col[i].name = instr_jdb_str(&s, d->str + d->col[i].name);
        d->col[i].unit = instr_jdb_str(&s, d->str + d->col[i].unit);
        if (d->col[i].name == NONE || d->col[i].unit == NONE)
            goto strings_failed;
    }
    for (uint32_t i = 0; i < nr; i++) {
        instr_jdb_region *x = &d->reg[i];
        x->name = instr_jdb_str(&s, d->str + x->name);
        x->mangled = instr_jdb_str(&s, d->str + x->mangled);
        x->file = instr_jdb_str(&s, d->str + x->file);
        x->object = instr_jdb_str(&s, d->str + x->object);
        if (x->name == NONE || x->mangled == NONE || x->file == NONE || x->object == NONE)
            goto strings_failed;
    }
    instr_mem_free(d->str);
    instr_mem_free(d->sslots);
    d->str = s.str;
    d->slen = s.slen;
    d->scap = s.scap;
    d->sslots = s.sslots;
    d->sslots_cap = s.sslots_cap;
    d->nstr = s.nstr;
    /* The tables hold ids: rebuilt. */
    instr_mem_free(d->rslots);
    instr_mem_free(d->pslots);
    d->rslots = d->pslots = NULL;
    d->rslots_cap = d->pslots_cap = 0;
    if (instr_jdb_defs_rehash_ids(d) != 0)
        goto out;
    rc = 0;
    goto out;
strings_failed: /* d's offsets are half rewritten: unusable, as the caller is told */
    instr_jdb_defs_free(&s);
out:
    instr_mem_free(order);
    instr_mem_free(newid);
    instr_mem_free(first);
    instr_mem_free(stack);
    instr_mem_free(reg);
    instr_mem_free(path);
    return rc;
}
