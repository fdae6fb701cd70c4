/* trace_samples.c — samples in the OTF2 trace (docs/sampling.md, docs/tracing.md): each sample
 * is a CallingContextSample event of its thread's location, at the time the handler took it,
 * in time order among the location's Enter/Leave records (the trace's conversion gives this
 * hook its turn before every record, runtime/trace/convert.c).
 *
 * Its calling context is a path of the calling-context tree: the instrumented regions open in
 * the trace at that time (those the Enter/Leave records nest), then the sampled frames beneath
 * the innermost one, resolved as for the profile (attach.c's chain: the function, the
 * functions inlined into it, the source line). One context per distinct (parent, region):
 * the tree is built while the locations are converted, and written with the definitions at
 * the end, each sampled frame with its source code location (file:line).
 *
 * The unwind distance says how much of the path is new since the location's previous sample:
 * the deepest context both share counts as having made progress, but no deeper than the
 * fewest instrumented regions open in between (a region left and entered again is new), and
 * the sampled frames beneath are taken as the same frames when the instrumented regions did
 * not change (sampling cannot tell a frame left and entered again between two samples). */
#ifdef INSTR_RT_HAVE_TRACE
#include "samples.h"
#include "sampling.h"
#include "../core/core.h"
#include "../core/log.h"
#include "../trace/trace.h"
#include "../util/array.h"
#include "../util/hash.h"
#include "../util/pages.h"

#include <stdio.h>

typedef struct ctx {
    uint32_t parent; /* OTF2_UNDEFINED_CALLING_CONTEXT: a root */
    uint32_t region; /* handle */
    uint32_t depth;  /* 1 for a root */
    uint32_t line;
    const char *file; /* a sampled frame's file ("" or NULL: none) */
} ctx;

static ctx *ctxs;
static size_t ctxs_cap;
static uint32_t nctx;
static uint32_t *slots; /* ref + 1, 0: empty */
static size_t slots_cap;
static uint64_t written, without_context;
static int sampling_slot = -2;

#define NONE OTF2_UNDEFINED_CALLING_CONTEXT

static size_t key_hash(uint32_t parent, uint32_t region)
{
    return (size_t)instr_hash_mix(((uint64_t)parent << 32) | region);
}

static int slots_grow(void)
{
    size_t cap = slots_cap ? slots_cap * 2 : 1024;
    uint32_t *c = instr_mem_calloc(cap, sizeof *c);
    if (!c)
        return -1;
    for (size_t i = 0; i < slots_cap; i++) {
        if (!slots[i])
            continue;
        const ctx *x = &ctxs[slots[i] - 1];
        size_t j = key_hash(x->parent, x->region) & (cap - 1);
        while (c[j])
            j = (j + 1) & (cap - 1);
        c[j] = slots[i];
    }
    instr_mem_free(slots);
    slots = c;
    slots_cap = cap;
    return 0;
}

/* The context of region beneath parent; NONE when out of memory. With the lock. */
static uint32_t intern(uint32_t parent, uint32_t region, const char *file, uint32_t line)
{
    if (((size_t)nctx + 1) * 2 > slots_cap && slots_grow() != 0)
        return NONE;
    size_t j = key_hash(parent, region) & (slots_cap - 1);
    while (slots[j]) {
        const ctx *x = &ctxs[slots[j] - 1];
        if (x->parent == parent && x->region == region)
            return slots[j] - 1;
        j = (j + 1) & (slots_cap - 1);
    }
    if (nctx == NONE - 1 || instr_array_grow(&ctxs, &ctxs_cap, (size_t)nctx + 1, sizeof *ctxs, 1024) != 0)
        return NONE;
    ctxs[nctx] = (ctx){parent, region, parent == NONE ? 1 : ctxs[parent].depth + 1, line, file};
    slots[j] = ++nctx;
    return nctx - 1;
}

static uint32_t depth_of(uint32_t c) { return c == NONE ? 0 : ctxs[c].depth; }

/* Newly entered contexts of cur since prev, plus one (see the top). */
static uint32_t unwind_distance(uint32_t prev, uint32_t prev_open, uint32_t cur, uint32_t open,
                                uint32_t keep)
{
    uint32_t a = prev, b = cur;
    while (depth_of(a) > depth_of(b))
        a = ctxs[a].parent;
    while (depth_of(b) > depth_of(a))
        b = ctxs[b].parent;
    while (a != b) {
        a = ctxs[a].parent;
        b = ctxs[b].parent;
    }
    if (!(keep == prev_open && keep == open))
        while (a != NONE && ctxs[a].depth > keep)
            a = ctxs[a].parent;
    return depth_of(cur) - depth_of(a) + 1;
}

static instr_sampler *sampler_of(instr_tloc *s)
{
    if (sampling_slot == -2)
        sampling_slot = instr_substrate_slot(&instr_sampling_substrate);
    if (sampling_slot < 0 || !s->loc)
        return NULL;
    return __atomic_load_n((instr_sampler **)&s->loc->sub[sampling_slot], __ATOMIC_ACQUIRE);
}

static void write_one(instr_tloc *s, instr_sampler *sp, const instr_sample *r)
{
    static instr_sframe *chain[INSTR_SAMPLE_CHAIN_MAX]; /* with the lock held */
    uint32_t c = NONE;
    for (uint32_t i = 0; i < s->nopen; i++)
        c = intern(c, s->open[i], NULL, 0);
    const instr_region_info *ri = s->nopen ? instr_registry_get(s->open[s->nopen - 1]) : NULL;
    unsigned m = instr_sampling_chain(ri, r, chain);
    for (unsigned i = 0; i < m; i++) {
        uint32_t h = instr_sampling_region(chain[i]);
        if (h)
            c = intern(c, h, chain[i]->file, chain[i]->line);
    }
    if (c == NONE) {
        without_context++; /* nothing open and nothing unwound */
        return;
    }
    uint32_t keep = s->sample_keep < s->nopen ? s->sample_keep : s->nopen;
    uint32_t unwind = unwind_distance(sp->trace_prev ? sp->trace_prev - 1 : NONE,
                                      sp->trace_prev_open, c, s->nopen, keep);
    if (instr_trace_sample_write(s, r->time, c, unwind) == 0)
        written++;
    sp->trace_prev = c + 1;
    sp->trace_prev_open = s->nopen;
    s->sample_keep = s->nopen;
}

static void until(instr_tloc *s, uint64_t t)
{
    instr_sampler *sp = sampler_of(s);
    if (!sp)
        return;
    char *end = __atomic_load_n(&sp->cur, __ATOMIC_ACQUIRE);
    if (sp->traced >= end || ((const instr_sample *)(void *)sp->traced)->time > t)
        return;
    instr_sampling_lock();
    while (sp->traced < end) {
        const instr_sample *r = (const instr_sample *)(void *)sp->traced;
        if (r->time > t)
            break;
        write_one(s, sp, r);
        sp->traced += sizeof(instr_sample) + r->n * sizeof(uintptr_t);
    }
    instr_sampling_unlock();
}

static OTF2_ErrorCode generator(OTF2_GlobalDefWriter *w, instr_strtab *st)
{
    static char name[96];
    snprintf(name, sizeof name, "instr sampling: SIGPROF every %llu ns of %s time",
             (unsigned long long)instr_sampling_period_ns,
             instr_sampling_wall ? "wall-clock" : "thread CPU");
    return OTF2_GlobalDefWriter_WriteInterruptGenerator(
        w, 0, instr_strtab_ref(st, name), OTF2_INTERRUPT_GENERATOR_MODE_TIME, OTF2_BASE_DECIMAL,
        -9, instr_sampling_period_ns);
}

/* With the lock. */
static void summary(void)
{
    instr_info(1, "sampling: %llu samples in the trace (CallingContextSample), %u calling "
                  "contexts, %llu samples without one (nothing open, nothing unwound)",
               (unsigned long long)written, nctx, (unsigned long long)without_context);
    instr_sampling_resolve_end();
}

static OTF2_ErrorCode defs(OTF2_GlobalDefWriter *w, instr_strtab *st, uint32_t scl_first)
{
    OTF2_ErrorCode rc = OTF2_SUCCESS;
    instr_sampling_lock();
    uint32_t scl = scl_first;
    for (uint32_t i = 0; i < nctx && rc == OTF2_SUCCESS; i++) {
        const ctx *x = &ctxs[i];
        OTF2_SourceCodeLocationRef where = OTF2_UNDEFINED_SOURCE_CODE_LOCATION;
        if (x->file && *x->file && x->line) {
            rc = OTF2_GlobalDefWriter_WriteSourceCodeLocation(w, scl, instr_strtab_ref(st, x->file),
                                                              x->line);
            where = scl++;
        }
        if (rc == OTF2_SUCCESS)
            rc = OTF2_GlobalDefWriter_WriteCallingContext(w, i, x->region - 1, where, x->parent);
    }
    if (rc == OTF2_SUCCESS)
        rc = generator(w, st);
    summary();
    instr_sampling_unlock();
    return rc;
}

/* An MPI job: the contexts go into the rank's blob after its locations were converted. */
static uint32_t ncontexts(void)
{
    instr_sampling_lock();
    uint32_t n = nctx;
    instr_sampling_unlock();
    return n;
}

static void context_at(uint32_t ref, uint32_t *parent, uint32_t *region, const char **file,
                       uint32_t *line)
{
    const ctx *x = &ctxs[ref];
    *parent = x->parent;
    *region = x->region;
    *file = x->file && *x->file && x->line ? x->file : NULL;
    *line = *file ? x->line : 0;
}

static void job_end(void)
{
    instr_sampling_lock();
    summary();
    instr_sampling_unlock();
}

static const instr_trace_sample_hook hook = {.until = until, .defs = defs,
                                             .ncontexts = ncontexts, .context = context_at,
                                             .job_end = job_end, .generator = generator};

void instr_sampling_trace_init(void) { instr_trace_set_sample_hook(&hook); }

#else
#include "samples.h"
void instr_sampling_trace_init(void) {}
#endif
