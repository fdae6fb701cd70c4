/* region_table.c — regions of an event source by name (region_table.h): chained buckets
 * keyed by an FNV-1a hash of the kind and the name. */
#include "region_table.h"
#include "../util/pages.h"

#include <string.h>

static uint32_t hash(int kind, const char *s)
{
    uint32_t h = 2166136261u ^ (uint32_t)kind;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

const instr_named_region *instr_region_table_get_locked(instr_region_table *t, int kind,
                                                        const char *name,
                                                        instr_region_table_add_fn add,
                                                        void *arg)
{
    uint32_t b = hash(kind, name) % t->nbuckets;
    instr_named_region *e;
    for (e = t->buckets[b]; e; e = e->next)
        if (e->kind == kind && strcmp(e->name, name) == 0)
            return e;
    e = instr_mem_calloc(1, sizeof *e);
    if (!e)
        return NULL;
    if (!(e->name = instr_mem_strdup(name))) {
        instr_mem_free(e);
        return NULL;
    }
    e->kind = kind;
    e->handle = add(kind, name, arg);
    e->next = t->buckets[b];
    t->buckets[b] = e;
    return e;
}
