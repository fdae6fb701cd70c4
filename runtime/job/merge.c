/* merge.c — the job's merged profile (rank 0; model.h): its regions, merged by (name,
 * mangled, file, source), its call paths, merged by (merged parent, region), its processes
 * and their life. The ranks' blobs come in through blob_parse.c, the tree through
 * tree_from_jdb.c. */
#include "jobdb.h"
#include "model.h"
#include "../util/hash.h"
#include "../util/table.h"
#include "../util/pages.h"

#include <stdlib.h>
#include <string.h>

/* Grows the array whose pointer is at `pp` (any T **) to hold `need` elements
 * (merged_metrics.h). */
int instr_job_grow(void *pp, uint32_t *cap, uint32_t need, size_t elem)
{
    return instr_jdb_grow(pp, cap, need, elem);
}

/* FNV-1a from the start value the job's tables always used (a digit short of FNV's own). */
static uint64_t str_hash(const char *s) { return instr_fnv1a_str(1469598103934665603ull, s); }

static uint64_t region_key_hash(const void *job, uint32_t id)
{
    return str_hash(((const instr_job *)job)->regions[id].key);
}

INSTR_EXT_EXPORT instr_job *instr_ext_job_new(void) { return instr_mem_calloc(1, sizeof(instr_job)); }

INSTR_EXT_EXPORT void instr_ext_job_free(instr_job *j)
{
    if (!j)
        return;
    for (uint32_t i = 0; i < j->n; i++) {
        for (uint32_t k = 0; k < j->nodes[i].nlocs; k++) {
            instr_mem_free(j->nodes[i].locs[k].m);
            instr_mem_free(j->nodes[i].locs[k].io);
            instr_mem_free(j->nodes[i].locs[k].mem);
        }
        instr_mem_free(j->nodes[i].locs);
        instr_mem_free(j->nodes[i].m);
        instr_mem_free(j->nodes[i].io);
        instr_mem_free(j->nodes[i].mem);
    }
    instr_job_metrics_free(&j->metrics);
    for (uint32_t i = 0; i < j->nregions; i++)
        instr_mem_free(j->regions[i].key);
    instr_mem_free(j->nodes);
    instr_path_map_free(&j->paths);
    instr_mem_free(j->regions);
    instr_mem_free(j->rslots);
    instr_mem_free(j->locs);
    instr_mem_free(j->groups);
    instr_mem_free(j->path_node);
    instr_mem_free(j);
}

jgroup *instr_job_group(instr_job *j, int rank)
{
    /* The blobs come one rank at a time: its group is the last one, but for its first line. */
    if (j->ngroups && j->groups[j->ngroups - 1].rank == rank)
        return &j->groups[j->ngroups - 1];
    /* New when the groups came in rank order so far and it is past the last: no search, so
     * that a job's groups are found in linear time. */
    int past = !j->groups_unordered && (!j->ngroups || j->groups[j->ngroups - 1].rank < rank);
    for (uint32_t i = 0; i < j->ngroups && !past; i++)
        if (j->groups[i].rank == rank)
            return &j->groups[i];
    if (j->ngroups && j->groups[j->ngroups - 1].rank > rank)
        j->groups_unordered = 1;
    if (instr_job_grow(&j->groups, &j->capgroups, j->ngroups + 1, sizeof *j->groups) != 0)
        return NULL;
    jgroup *g = &j->groups[j->ngroups++];
    memset(g, 0, sizeof *g);
    g->rank = rank;
    return g;
}

INSTR_EXT_EXPORT void instr_ext_job_missing(instr_job *j, int rank)
{
    if (!j)
        return;
    jgroup *g = instr_job_group(j, rank);
    if (g)
        g->present = 0;
}

/* The region id of key (tab-separated fields, copied), created when new; 0 on failure. */
uint32_t instr_job_region_id(instr_job *j, const char *key, uint32_t lb, uint32_t le)
{
    if (2 * (j->nregions + 1) > j->rcap) {
        if (instr_id_index_build(&j->rslots, &j->rcap, j->rcap ? 2 * j->rcap : 256, j->nregions,
                                 region_key_hash, j) != 0)
            return 0;
    }
    uint32_t s = (uint32_t)str_hash(key) & (j->rcap - 1);
    while (j->rslots[s]) {
        if (strcmp(j->regions[j->rslots[s] - 1].key, key) == 0)
            return j->rslots[s];
        s = (s + 1) & (j->rcap - 1);
    }
    if (instr_job_grow(&j->regions, &j->capregions, j->nregions + 1, sizeof *j->regions) != 0)
        return 0;
    jregion *r = &j->regions[j->nregions];
    memset(r, 0, sizeof *r);
    /* The key, then a copy of it split at the tabs into the fields. */
    size_t klen = strlen(key);
    r->key = instr_mem_alloc(2 * klen + 2);
    if (!r->key)
        return 0;
    memcpy(r->key, key, klen + 1);
    char *copy = r->key + klen + 1;
    memcpy(copy, key, klen + 1);
    const char **out[] = {&r->source, &r->name, &r->mangled, &r->file, &r->object};
    char *p = copy;
    for (size_t k = 0; k < 5; k++) {
        *out[k] = p;
        char *tab = p ? strchr(p, '\t') : NULL;
        if (tab) {
            *tab = '\0';
            p = tab + 1;
        } else {
            p = copy + klen; /* missing fields are "" */
        }
    }
    r->line_begin = lb;
    r->line_end = le;
    j->rslots[s] = ++j->nregions;
    return j->nregions;
}

uint32_t instr_job_node_id(instr_job *j, int32_t parent, uint32_t region)
{
    int found;
    int64_t slot = instr_path_map_slot(&j->paths, parent, region, &found);
    if (slot < 0)
        return UINT32_MAX;
    if (found)
        return instr_path_map_val(&j->paths, slot);
    if (instr_job_grow(&j->nodes, &j->cap, j->n + 1, sizeof *j->nodes) != 0)
        return UINT32_MAX;
    jnode *n = &j->nodes[j->n];
    memset(n, 0, sizeof *n);
    n->parent = parent;
    n->region = region;
    n->depth = parent < 0 ? 0 : j->nodes[parent].depth + 1;
    n->s.t.min_incl = n->s.t.min_excl = UINT64_MAX;
    instr_path_map_set(&j->paths, (uint32_t)slot, parent, region, j->n);
    return j->n++;
}
