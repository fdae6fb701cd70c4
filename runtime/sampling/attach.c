/* attach.c — the samples become nodes of the profile, at the end, before the profile is
 * written (docs/sampling.md): beneath the instrumented node a sample fell in, one node per
 * sampled frame (the function, the functions inlined into it, the source line), each a region
 * of its own (source "sampled", registered here by name). A sampled node's `visits` count its
 * samples (inclusive) and its times are samples × period; the instrumented node keeps its
 * visits and inclusive time, and gives the time of its sampled children out of its exclusive
 * time, never more than it has, so that exclusive times still add up to the total and
 * children stay within their parent. */
#include "samples.h"
#include "../core/clock.h"
#include "../core/event.h"
#include "../core/log.h"
#include "../core/registry.h"
#include "../profile/profile.h"
#include "../util/hash.h"
#include "../util/pages.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Sampled regions by name: one region per distinct name, over every thread. */
typedef struct named {
    const char *name;
    uint32_t region;
} named;
static named *names;
static size_t names_cap, names_n;

static int names_grow(void)
{
    size_t cap = names_cap ? names_cap * 2 : 1024;
    named *c = instr_mem_calloc(cap, sizeof *c);
    if (!c)
        return -1;
    for (size_t i = 0; i < names_cap; i++) {
        if (!names[i].name)
            continue;
        size_t j = instr_fnv1a_str(14695981039346656037ull, names[i].name) & (cap - 1);
        while (c[j].name)
            j = (j + 1) & (cap - 1);
        c[j] = names[i];
    }
    instr_mem_free(names);
    names = c;
    names_cap = cap;
    return 0;
}

uint32_t instr_sampling_region(instr_sframe *f)
{
    if (f->region)
        return f->region;
    if ((names_n + 1) * 4 > names_cap * 3 && names_grow() != 0)
        return 0;
    size_t j = instr_fnv1a_str(14695981039346656037ull, f->name) & (names_cap - 1);
    while (names[j].name) {
        if (strcmp(names[j].name, f->name) == 0)
            return f->region = names[j].region;
        j = (j + 1) & (names_cap - 1);
    }
    instr_region_info info = {.name = f->name, .mangled = f->func, .file = f->file,
                              .object = f->object ? f->object : "", .line_begin = f->line, .line_end = f->line,
                              .addr = (const void *)f->entry, .source = INSTR_SOURCE_SAMPLED};
    instr_registry_lock();
    uint32_t h = instr_registry_add_locked(&info);
    instr_registry_unlock();
    if (!h)
        return 0;
    names[j].name = f->name;
    names[j].region = h;
    names_n++;
    return f->region = h;
}

/* The sample's outermost frame is the instrumented function of its node itself (not a frame
 * of its own beneath it). */
static int is_node_function(const instr_sframe *f, const instr_region_info *ri)
{
    if (!ri || ri->source == INSTR_SOURCE_SAMPLED)
        return 0;
    if (f->entry && ri->addr && (uintptr_t)ri->addr == f->entry)
        return 1;
    return ri->name && strcmp(ri->name, f->func) == 0;
}

/* A frame of instr's runtime, the MPI library or the OpenMP runtime (resolve.c). */
static int in_part(const instr_spc *v) { return v && v->n && v->frames[0].collapse; }

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
void instr_sampling_lock(void) { pthread_mutex_lock(&lock); }
void instr_sampling_unlock(void) { pthread_mutex_unlock(&lock); }

static instr_pnode *child(instr_pstate *s, instr_pnode *cur, instr_sframe *f)
{
    uint32_t h = instr_sampling_region(f);
    instr_pnode *n = h ? instr_profile_sampled_child(s, cur, h) : NULL;
    return n ? n : cur;
}

/* The sampled frames of one sample beneath its node, outermost first.
 *
 * The frames kept are those inside the node's function: the handler stops unwinding at the
 * node's stack address, and where that cannot be known (XRay's events, regions without a
 * frame of their own, a trace without the profile) the innermost frame of the node's
 * function is looked for here. A node that is no function (an OpenMP construct, an MPI call)
 * keeps the frames below the innermost runtime frame that calls back into the program (the
 * outlined body of a parallel region below libgomp). Runtime frames between frames of the
 * program are passed over; the runtime frames a sample ends in become one node, named after
 * the one the program called ("[OpenMP runtime] GOMP_barrier"). */
unsigned instr_sampling_chain(const instr_region_info *ri, const instr_sample *r,
                              instr_sframe **out)
{
    const instr_spc *v[INSTR_SAMPLE_MAX_FRAMES];
    uint32_t n = r->n < INSTR_SAMPLE_MAX_FRAMES ? r->n : INSTR_SAMPLE_MAX_FRAMES;
    for (uint32_t i = 0; i < n; i++)
        v[i] = instr_sampling_resolve(r->pc[i]);
    uint32_t top = n;
    int own = 0; /* the outermost frame kept is the node's function itself */
    for (uint32_t i = 0; ri && i < n; i++) {
        if (v[i] && v[i]->n && is_node_function(&v[i]->frames[0], ri)) {
            top = i + 1;
            own = 1;
            break;
        }
    }
    if (!own && ri) {
        for (uint32_t j = 1; j < n; j++) {
            if (in_part(v[j]) && !in_part(v[j - 1])) {
                top = j;
                break;
            }
        }
        /* No call back into the program: the sample waits in the runtime (a worker in
         * libgomp's barrier at the end of a region); the frames above the runtime's (the
         * thread's start, the caller of the construct) are not the construct's. */
        if (top == n) {
            uint32_t b = 0;
            while (b < n && in_part(v[b]))
                b++;
            if (b > 0)
                top = b;
        }
    }
    uint32_t bottom = 0; /* the runtime frames the sample ends in: [0, bottom) */
    while (bottom < top && in_part(v[bottom]))
        bottom++;
    unsigned m = 0;
    for (uint32_t i = top; i-- > bottom;) {
        if (!v[i] || in_part(v[i]))
            continue;
        for (unsigned k = 0; k < v[i]->n && m < INSTR_SAMPLE_CHAIN_MAX; k++) {
            if (i == top - 1 && k == 0 && own)
                continue;
            out[m++] = &v[i]->frames[k];
        }
        if (i == 0 && v[i]->line.name && m < INSTR_SAMPLE_CHAIN_MAX)
            out[m++] = (instr_sframe *)&v[i]->line;
    }
    if (bottom > 0 && v[bottom - 1] && m < INSTR_SAMPLE_CHAIN_MAX)
        out[m++] = &v[bottom - 1]->frames[0];
    return m;
}

/* Attaches one sample below base; returns its innermost node (base when none). */
static instr_pnode *attach_one(instr_pstate *s, instr_pnode *base, const instr_sample *r)
{
    const instr_region_info *ri = base != &s->root ? instr_registry_get(base->region) : NULL;
    static instr_sframe *chain[INSTR_SAMPLE_CHAIN_MAX]; /* with the lock held */
    unsigned m = instr_sampling_chain(ri, r, chain);
    instr_pnode *cur = base;
    for (unsigned i = 0; i < m; i++)
        cur = child(s, cur, chain[i]);
    return cur;
}

uint64_t instr_sampling_attach(const instr_run *run)
{
    (void)run;
    int slot = instr_substrate_slot_with(INSTR_SUBSTRATE_CURSOR);
    uint64_t period = (uint64_t)((double)instr_sampling_period_ns * instr_clock_hz() / 1e9 + 0.5);
    uint64_t taken = 0, dropped = 0, attached = 0, unplaced = 0, handled = 0, hticks = 0;
    uint64_t fast = 0, slow = 0, stretched = 0, in_fork = 0;
    uint32_t stretch_max = 1;
    size_t bytes = 0;
    uint64_t t0 = instr_clock_now();
    instr_sampling_lock();
    for (instr_sampler *t = instr_samplers(); t; t = t->next) {
        taken += t->taken;
        dropped += t->dropped;
        in_fork += t->in_fork;
        handled += t->handled;
        hticks += t->handler_ticks;
        fast += t->steps_fast;
        slow += t->steps_libunwind;
        stretched += t->stretched;
        if (t->stretch_max > stretch_max)
            stretch_max = t->stretch_max;
        instr_pstate *s = slot >= 0 ? t->loc->sub[slot] : NULL;
        char *end = __atomic_load_n(&t->cur, __ATOMIC_ACQUIRE);
        bytes += (size_t)(end - t->buf);
        for (char *p = t->buf; p < end;) {
            const instr_sample *r = (const instr_sample *)(void *)p;
            p += sizeof(instr_sample) + r->n * sizeof(uintptr_t);
            if (!s) {
                unplaced += r->weight;
                continue;
            }
            instr_pnode *base = r->node ? r->node : &s->root;
            instr_pnode *leaf = attach_one(s, base, r);
            uint64_t w = r->weight, ticks = w * period;
            attached += w;
            if (leaf == base)
                continue; /* nothing beneath the node: its own exclusive time has it */
            /* Never more than the node's measured exclusive time has left: its children's
             * inclusive times stay within its inclusive time. */
            if (base != &s->root && ticks > base->s.excl)
                ticks = base->s.excl;
            leaf->s.excl += ticks;
            for (instr_pnode *x = leaf; x != base; x = x->parent) {
                x->s.visits += w;
                x->s.incl += ticks;
            }
            if (base != &s->root) {
                instr_pstats *b = &base->s;
                b->excl = b->excl > ticks ? b->excl - ticks : 0;
                /* How the samples' time fell on single visits is unknown: the extremes of
                 * one visit's exclusive time stay within the new sum. */
                if (b->max_excl > b->excl)
                    b->max_excl = b->excl;
                if (b->min_excl > b->max_excl && b->min_excl != UINT64_MAX)
                    b->min_excl = b->max_excl;
            }
        }
    }
    instr_sampling_unlock();
    uint64_t t1 = instr_clock_now();
    size_t distinct = instr_sampling_resolved();
    instr_info(1, "sampling: %llu samples in %llu signals (%llu dropped: buffer full, %llu "
                  "without a profile), %.2f us per signal in the handler (unwind and record), %.1f bytes of buffer "
                  "per sample; %zu distinct addresses resolved in %.3f s (%.1f us each)",
               (unsigned long long)taken, (unsigned long long)handled,
               (unsigned long long)dropped, (unsigned long long)unplaced,
               handled ? (double)instr_clock_to_ns(hticks) / 1e3 / (double)handled : 0.0,
               handled ? (double)bytes / (double)handled : 0.0, distinct,
               (double)instr_clock_to_ns(t1 - t0) / 1e9,
               distinct ? (double)instr_clock_to_ns(t1 - t0) / 1e3 / (double)distinct : 0.0);
    instr_info(1, "sampling: %llu frames unwound from the unwinding cache, %llu by libunwind",
               (unsigned long long)fast, (unsigned long long)slow);
    if (stretched)
        instr_info(1, "sampling: %llu of the samples' periods fell where the handler took more "
                      "than a quarter of the period: the period was lengthened up to %u x %llu ns "
                      "meanwhile (the samples weigh as many periods)",
                   (unsigned long long)stretched, stretch_max,
                   (unsigned long long)instr_sampling_period_ns);
    if (in_fork)
        instr_info(1, "sampling: %llu samples not taken while a fork was under way (no thread "
                      "unwinds while the process is copied)",
                   (unsigned long long)in_fork);
    if (dropped)
        instr_warn("sampling: %llu of %llu samples were dropped because a thread's buffer was "
                   "full; raise INSTR_SAMPLING_BUFFER",
                   (unsigned long long)dropped, (unsigned long long)(taken + dropped));
    instr_sampling_resolve_end();
    return attached;
}
