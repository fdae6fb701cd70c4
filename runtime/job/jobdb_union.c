/* jobdb_union.c — the union of two sets of the job database's definitions and the mapping
 * of one onto the other (jobdb.h). */
#include "jobdb_hash.h"
#include "../util/pages.h"

#include <stdlib.h>
#include <string.h>

#define NONE INSTR_JDB_NONE

void instr_jdb_map_free(instr_jdb_map *m)
{
    instr_mem_free(m->region);
    instr_mem_free(m->path);
    instr_mem_free(m->col);
    memset(m, 0, sizeof *m);
}

/* Lookups that never add (instr_jdb_defs_find): NONE when absent. */
static uint32_t str_find(const instr_jdb_defs *d, const char *s)
{
    if (!*s)
        return 0;
    if (!d->sslots_cap)
        return NONE;
    uint64_t slot = str_hash(s) & (d->sslots_cap - 1);
    for (; d->sslots[slot]; slot = (slot + 1) & (d->sslots_cap - 1))
        if (strcmp(d->str + d->sslots[slot] - 1, s) == 0)
            return d->sslots[slot] - 1;
    return NONE;
}

static uint32_t region_find(const instr_jdb_defs *d, const instr_jdb_region *r)
{
    if (!d->rslots_cap)
        return NONE;
    uint64_t s = region_hash_rec(r) & (d->rslots_cap - 1);
    for (; d->rslots[s]; s = (s + 1) & (d->rslots_cap - 1))
        if (same_region(&d->reg[d->rslots[s] - 1], r))
            return d->rslots[s] - 1;
    return NONE;
}

static uint32_t path_find(const instr_jdb_defs *d, uint32_t parent, uint32_t region)
{
    if (!d->pslots_cap || region == NONE)
        return NONE;
    uint64_t s = instr_hash_mix((uint64_t)parent << 32 | region) & (d->pslots_cap - 1);
    for (; d->pslots[s]; s = (s + 1) & (d->pslots_cap - 1)) {
        const instr_jdb_path *x = &d->path[d->pslots[s] - 1];
        if (x->parent == parent && x->region == region)
            return d->pslots[s] - 1;
    }
    return NONE;
}

int instr_jdb_defs_find(const instr_jdb_defs *in, const instr_jdb_defs *from, instr_jdb_map *map)
{
    map->region = instr_mem_alloc(((size_t)from->nreg + 1) * sizeof *map->region);
    map->path = instr_mem_alloc(((size_t)from->npath + 1) * sizeof *map->path);
    map->col = instr_mem_alloc(((size_t)from->ncol + 1) * sizeof *map->col);
    if (!map->region || !map->path || !map->col)
        goto fail;
    for (uint32_t i = 0; i < from->nreg; i++) {
        const instr_jdb_region *r = &from->reg[i];
        instr_jdb_region x = *r;
        x.name = str_find(in, from->str + r->name);
        x.mangled = str_find(in, from->str + r->mangled);
        x.file = str_find(in, from->str + r->file);
        if (x.name == NONE || x.mangled == NONE || x.file == NONE ||
            (map->region[i] = region_find(in, &x)) == NONE)
            goto fail;
    }
    for (uint32_t i = 0; i < from->npath; i++) {
        const instr_jdb_path *p = &from->path[i];
        uint32_t parent = p->parent == NONE ? NONE : map->path[p->parent];
        if (p->parent != NONE && parent == NONE)
            goto fail;
        if ((map->path[i] = path_find(in, parent, map->region[p->region])) == NONE)
            goto fail;
    }
    for (uint32_t i = 0; i < from->ncol; i++) {
        map->col[i] = NONE;
        for (uint32_t k = 0; k < in->ncol; k++)
            if (strcmp(in->str + in->col[k].name, from->str + from->col[i].name) == 0)
                map->col[i] = k;
        if (map->col[i] == NONE)
            goto fail;
    }
    return 0;
fail:
    instr_jdb_map_free(map);
    return -1;
}

int instr_jdb_defs_merge(instr_jdb_defs *into, const instr_jdb_defs *from, instr_jdb_map *map)
{
    uint32_t *reg = instr_mem_alloc(((size_t)from->nreg + 1) * sizeof *reg);
    uint32_t *path = instr_mem_alloc(((size_t)from->npath + 1) * sizeof *path);
    uint32_t *col = instr_mem_alloc(((size_t)from->ncol + 1) * sizeof *col);
    int rc = -1;
    if (!reg || !path || !col)
        goto out;
    for (uint32_t i = 0; i < from->nreg; i++) {
        const instr_jdb_region *r = &from->reg[i];
        instr_jdb_region x = *r;
        x.name = instr_jdb_str(into, from->str + r->name);
        x.mangled = instr_jdb_str(into, from->str + r->mangled);
        x.file = instr_jdb_str(into, from->str + r->file);
        x.object = instr_jdb_str(into, from->str + r->object);
        if (x.name == NONE || x.mangled == NONE || x.file == NONE || x.object == NONE ||
            (reg[i] = instr_jdb_region_id(into, &x)) == NONE)
            goto out;
    }
    for (uint32_t i = 0; i < from->npath; i++) {
        const instr_jdb_path *p = &from->path[i];
        uint32_t parent = p->parent == NONE ? NONE : path[p->parent];
        if ((path[i] = instr_jdb_path_id(into, parent, reg[p->region])) == NONE)
            goto out;
    }
    for (uint32_t i = 0; i < from->ncol; i++) {
        const instr_jdb_column *c = &from->col[i];
        if ((col[i] = instr_jdb_column_id(into, from->str + c->name, from->str + c->unit,
                                          c->kind, c->flags)) == NONE)
            goto out;
    }
    rc = 0;
out:
    if (rc == 0 && map) {
        *map = (instr_jdb_map){reg, path, col};
    } else {
        instr_mem_free(reg);
        instr_mem_free(path);
        instr_mem_free(col);
    }
    return rc;
}
