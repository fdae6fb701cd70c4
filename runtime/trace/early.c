/* early.c — events of an MPI job's locations before MPI_Init (trace.c): the archive belongs
 * in the job's experiment directory, which rank 0 names in MPI_Init, so what a rank records
 * before (main's Enter, code run before MPI_Init, MPI_Init's own Enter) is kept here and
 * written into the location's event writer once the archive is open.
 *
 * Memory: at most INSTR_TOTAL_MEMORY/8 over all threads. Beyond that an Enter is dropped
 * together with everything until its Leave (the drop depth), so what is kept stays properly
 * nested; the count is reported at the end. Only the location's own thread adds to its list;
 * the budget counter is shared. */
#include "trace.h"
#include "../core/config.h"
#include "../util/array.h"
#include "../util/pages.h"

#include <stdlib.h>

typedef struct early_rec {
    uint64_t t;
    uint32_t region;
    uint32_t leave;
} early_rec;

typedef struct instr_early {
    early_rec *recs;
    size_t n, cap;
    uint32_t drop_depth; /* > 0: inside a subtree being dropped */
} instr_early;

static uint64_t used, dropped;

static int reserve(instr_early *e)
{
    if (e->n < e->cap)
        return 0;
    size_t cap = instr_grown_cap(e->cap, e->n + 1, 256, SIZE_MAX / sizeof(early_rec));
    uint64_t more = (uint64_t)(cap - e->cap) * sizeof(early_rec);
    if (__atomic_add_fetch(&used, more, __ATOMIC_RELAXED) > instr_cfg.total_memory / 8) {
        __atomic_sub_fetch(&used, more, __ATOMIC_RELAXED);
        return -1;
    }
    early_rec *r = instr_mem_realloc(e->recs, cap * sizeof *r);
    if (!r) {
        __atomic_sub_fetch(&used, more, __ATOMIC_RELAXED);
        return -1;
    }
    e->recs = r;
    e->cap = cap;
    return 0;
}

void instr_early_add(instr_tloc *s, int leave, uint32_t region, uint64_t t)
{
    instr_early *e = s->early;
    if (!e && !(e = s->early = instr_mem_calloc(1, sizeof *e))) {
        __atomic_add_fetch(&dropped, 1, __ATOMIC_RELAXED);
        return; /* out of memory before anything was kept: nothing to unbalance */
    }
    if (e->drop_depth) {
        e->drop_depth += leave ? -1u : 1u;
        __atomic_add_fetch(&dropped, 1, __ATOMIC_RELAXED);
        return;
    }
    if (reserve(e) != 0) {
        if (!leave) {
            e->drop_depth = 1;
            __atomic_add_fetch(&dropped, 1, __ATOMIC_RELAXED);
            return;
        }
        /* A Leave of a kept Enter must be kept: the last slot of a full list is never
         * taken by an Enter, so grow beyond the budget by one record if need be. */
        size_t cap = e->cap + 64;
        early_rec *r = instr_mem_realloc(e->recs, cap * sizeof *r);
        if (!r) {
            __atomic_add_fetch(&dropped, 1, __ATOMIC_RELAXED);
            return;
        }
        __atomic_add_fetch(&used, 64 * sizeof *r, __ATOMIC_RELAXED);
        e->recs = r;
        e->cap = cap;
    }
    e->recs[e->n++] = (early_rec){t, region, (uint32_t)leave};
}

uint64_t instr_early_replay(instr_tloc *s)
{
    instr_early *e = s->early;
    uint64_t refused = 0;
    if (!e)
        return 0;
    for (size_t i = 0; i < e->n && s->writer; i++) {
        const early_rec *r = &e->recs[i];
        uint64_t t = r->t < s->last ? s->last : r->t;
        s->last = t;
        OTF2_ErrorCode rc = r->leave ? OTF2_EvtWriter_Leave(s->writer, NULL, t, r->region - 1)
                                     : OTF2_EvtWriter_Enter(s->writer, NULL, t, r->region - 1);
        if (rc != OTF2_SUCCESS)
            refused++;
    }
    __atomic_sub_fetch(&used, (uint64_t)e->cap * sizeof(early_rec), __ATOMIC_RELAXED);
    instr_mem_free(e->recs);
    instr_mem_free(e);
    s->early = NULL;
    return refused;
}

uint64_t instr_early_dropped(void) { return __atomic_load_n(&dropped, __ATOMIC_RELAXED); }
