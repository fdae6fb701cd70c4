/* cct.c — one thread's calling-context tree: node creation, the cursor's slow paths, and the
 * profile substrate's enter/exit for the event core's generic path (cct.h has the fast paths).
 *
 * No locks (the tree belongs to its thread), no allocation once the thread's call paths have
 * been seen (nodes come from chunks mapped from the INSTR_TOTAL_MEMORY budget, 4 KiB first,
 * doubling to 1 MiB: an mmap per chunk, async-signal-safe, no malloc), no other system
 * calls. */
#include "profile.h"
#include "graft.h"
#include "../core/clock.h"
#include "../core/memory.h"
#include "../core/record.h"
#include "../metrics/metrics.h"
#include "../util/pages.h"
#include "../util/stack.h"

#include <stdlib.h>
#include <string.h>

#define FIRST_CHUNK 4096u
#define MAX_CHUNK (1u << 20)
#define CHUNK_LINK 16u /* a chunk's first bytes: the link to the previous chunk */


static void sentinel(instr_pnode *n)
{
    memset(n, 0, sizeof *n);
    n->region = INSTR_CCT_NO_REGION;
    n->last = &instr_cct_nomatch;
}

static void reset_tree(instr_pstate *s)
{
    sentinel(&s->root);
    s->root.sp = UINTPTR_MAX; /* every frame's stack address lies below it */
    sentinel(&s->busy);
    sentinel(&s->lost);
    s->cursor = &s->root;
    s->lost_parent = NULL;
    s->lost_depth = 0;
    s->cur = s->end = NULL;
    s->next_chunk = FIRST_CHUNK;
    s->dropped = s->resynced = 0;
}

/* The calling thread's stack; everything when unknown. */
static void own_stack(instr_pstate *s)
{
    s->stack_lo = 0;
    s->stack_hi = UINTPTR_MAX;
    uintptr_t lo, hi;
    if (instr_thread_stack(&lo, &hi) == 0) {
        s->stack_lo = lo;
        s->stack_hi = hi;
    }
}

static int on_own_stack(const instr_pstate *s, uintptr_t sp)
{
    return sp >= s->stack_lo && sp <= s->stack_hi;
}

/* On a stack of another kind; UINTPTR_MAX (the root's, inherited by frames without one of
 * their own) is above everything, not elsewhere. */
static int on_other_stack(const instr_pstate *s, uintptr_t sp)
{
    return sp != UINTPTR_MAX && !on_own_stack(s, sp);
}

/* Called on the location's own thread (its first event). */
void *instr_profile_location_begin(instr_location *loc)
{
    instr_pstate *s = instr_mem_calloc(1, sizeof *s);
    if (s) {
        reset_tree(s);
        own_stack(s);
        s->penter1 = s->pexit1 = instr_cct_plugins_none;
        s->mvals = instr_metrics_values_of(loc, &s->nm);
        s->mread = s->nm ? instr_metrics_reader_of(loc) : NULL;
    }
    return s;
}

static instr_pnode *new_node(instr_pstate *s, instr_pnode *parent, uint32_t region)
{
    size_t size = sizeof(instr_pnode) + instr_pnode_metrics_size(s->nm);
    if ((size_t)(s->end - s->cur) < size) {
        /* A node with many metrics (5 rows of 8 bytes per metric) outgrows the first
         * chunks: the chunk holds at least one node past its link. */
        while (s->next_chunk < CHUNK_LINK + size)
            s->next_chunk *= 2;
        char *chunk = instr_mem_chunk_mapped(s->next_chunk);
        if (!chunk)
            return NULL;
        /* Chunks stay linked (also the parent's in a forked child); mapped, because a signal
         * handler may land here (cct.h). */
        *(void **)(void *)chunk = s->chunks;
        s->chunks = chunk;
        s->cur = chunk + CHUNK_LINK;
        s->end = chunk + s->next_chunk;
        if (s->next_chunk < MAX_CHUNK)
            s->next_chunk *= 2;
    }
    instr_pnode *n = (instr_pnode *)(void *)s->cur;
    s->cur += size;
    instr_cct_link(n, parent, region);
    if (s->nm)
        instr_pnode_metrics_init(n, (uint64_t *)(void *)(n + 1), s->nm);
    return n;
}

/* The child of parent for region, created if needed (NULL: out of memory). */
static instr_pnode *child_of(instr_pstate *s, instr_pnode *parent, uint32_t region)
{
    instr_pnode *n = parent->last;
    if (n->region == region)
        return n;
    for (n = parent->child; n; n = n->sibling)
        if (n->region == region)
            break;
    if (!n && !(n = new_node(s, parent, region)))
        return NULL;
    /* The cursor path with counts: every node it enters has its region's (also one that the
     * OpenMP adapter's grafts made, graft.c). */
    if (s->counting && !n->rc)
        n->rc = instr_cct_counts_of(s, region);
    parent->last = n;
    return n;
}

instr_pnode *instr_profile_sampled_child(instr_pstate *s, instr_pnode *parent, uint32_t region)
{
    instr_pnode *n;
    for (n = parent->child; n; n = n->sibling)
        if (n->region == region)
            return n;
    return new_node(s, parent, region);
}

/* Enters region below p (the cursor, which the caller has taken) at time t; count: the
 * cursor path with counts counts the enter (not when a forked child re-creates its open
 * frames, which the counts still have). */
static void enter_below(instr_pstate *s, instr_pnode *p, uint32_t region, uintptr_t sp,
                        int take_time, uint64_t t, int count)
{
    instr_pnode *n = child_of(s, p, region);
    if (!n) {
        s->dropped++;
        s->lost_parent = p;
        s->lost_depth = 1;
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        s->cursor = &s->lost;
        return;
    }
    n->child_ticks = 0;
    n->sp = sp ? sp : p->sp;
    n->t_enter = take_time ? instr_clock_now() : t;
    if (count && s->counting && n->rc)
        instr_rcount_enter(n->rc);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    s->cursor = n;
}

/* The cursor path with metrics (s->mread): the slow paths read the values once, into
 * s->mvals, for the frames they close and the node they enter. A thread that closes another
 * thread's frames (the end of the run, an OpenMP master) cannot read that thread's counters:
 * those frames close with the values of their thread's latest exit. */
static void metrics_now(instr_pstate *s)
{
    if (s->mread && instr_metrics_reader_own(s->mread)) {
        s->mt = instr_clock_now();
        instr_metrics_read(s->mread, s->mvals, s->mt);
    }
}

/* The values the plugins see with an event of a slow path. */
static const uint64_t *plugin_metrics(const instr_pstate *s) { return s->nm ? s->mvals : NULL; }

/* The cursor path with records (s->rec, cct_trace.c): one record of what a slow path does. */
static void record(instr_pstate *s, uint32_t kind, uint32_t region, uint64_t t)
{
#ifdef INSTR_RT_HAVE_TRACE
    /* With metrics (the cursor path with metrics and records, cct_metrics.c): the values
     * the slow path read first, as the generic path gives the trace an event's values. */
    if (s->mread)
        instr_cct_metrics_record(s, s->mvals, s->mt);
    instr_record_append(s->rec, kind << INSTR_TREC_KIND_SHIFT | region, t);
#else
    (void)s, (void)kind, (void)region, (void)t;
#endif
}

/* Substrate plugins on the cursor path see every frame the cursor closes (longjmp, unbalanced
 * exits, the end of the thread or program) as an exit, as on the generic path; but for the
 * OpenMP adapter's graft frames (region 0, graft.h), which were never an enter. */
static void close_frame(instr_pstate *s, instr_pnode *p, uint64_t t)
{
    if (s->ploc && p->region != 0)
        INSTR_CCT_PLUGINS_EXIT(s, p->region, t, plugin_metrics(s));
    if (s->mread)
        instr_pnode_metrics_exit(s, p);
    /* The cursor path with counts: every frame the cursor closes is an exit of its region,
     * as the generic path gives the counting substrate (graft frames are the profile's). */
    if (s->counting && p->rc && p->region != 0) {
        instr_rcount_exit(p->rc, t > p->t_enter ? t - p->t_enter : 0);
        if (instr_rcount_left(p->rc))
            instr_cct_counts_reached(s, p, t);
    }
    instr_cct_close(p, t);
    /* The cursor path with records: the frame's Leave, as the generic path gives the trace
     * every frame the core closes (graft frames are the profile's own). */
    if (s->rec && p->region != 0)
        record(s, INSTR_TREC_LEAVE, p->region, t);
    /* The cursor path with events: the same exit for its substrate (cct_events.c). */
    if (s->xexit && p->region != 0)
        s->xexit(s->xdata, p->region, t);
}

/* Takes the cursor off the fast paths; NULL when a slow path of this thread already has it. */
static instr_pnode *take(instr_pstate *s)
{
    instr_pnode *p = s->cursor;
    if (p == &s->busy)
        return NULL;
    s->cursor = &s->busy;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    return p;
}

static void give(instr_pstate *s, instr_pnode *p)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    s->cursor = p;
}

int instr_cct_enter_slow(instr_pstate *s, uint32_t region, uintptr_t sp)
{
    instr_pnode *p = take(s);
    if (!p)
        return -1;
    if (p == &s->lost) {
        s->lost_depth++;
        /* The records have the frame the profile could not make a node for. */
        if (s->rec || s->xenter) {
            if (s->rec)
                metrics_now(s);
            uint64_t now = instr_clock_now();
            if (s->rec)
                record(s, INSTR_TREC_ENTER, region, now);
            /* The substrate with events, too, sees the frame the profile could not make. */
            if (s->xenter)
                s->xenter(s->xdata, region, now);
        }
        give(s, p);
        return 0;
    }
    /* Frames whose caller's stack address is not above this event's were left without their
     * exit (longjmp, or an exception caught by a frame without hooks): close them now. The
     * same address with the same region is such a frame too (the same call site reached
     * again); with another region it is one as well after a longjmp, else a callee whose
     * hooks were inlined into the caller (-finstrument-functions, GCC plugin before
     * inlining), which shares its frame. */
    uint64_t t = 0;
    int timed = 0;
    metrics_now(s);
    /* A frame on another stack (a handler on its sigaltstack, a coroutine) is a callee. */
    if (sp && on_own_stack(s, sp)) {
        int jumped = instr_cct_jumped;
        instr_cct_jumped = 0;
        while (p != &s->root &&
               (p->sp < sp || (p->sp == sp && (p->region == region || jumped)))) {
            if (!timed) {
                t = instr_clock_now();
                timed = 1;
            }
            close_frame(s, p, t);
            s->resynced++;
            p = p->parent;
        }
    }
    /* The cursor path with records: the Enter while the cursor is still taken (a handler's
     * events meanwhile are dropped, as on the generic path), at the node's time. */
    if (s->rec || s->xenter) {
        if (!timed) {
            t = instr_clock_now();
            timed = 1;
        }
        if (s->rec)
            record(s, INSTR_TREC_ENTER, region, t);
        /* The cursor path with events: its substrate's enter, the same way. */
        if (s->xenter)
            s->xenter(s->xdata, region, t);
    }
    enter_below(s, p, region, sp, !timed, t, 1);
    if (s->cursor != &s->lost) {
        if (s->mread)
            instr_pnode_metrics_enter(s, s->cursor);
        /* An enter below a node that could not be created is not seen, nor is its exit. */
        if (s->ploc)
            INSTR_CCT_PLUGINS_ENTER(s, region, s->cursor->t_enter, plugin_metrics(s));
    }
    return 0;
}

int instr_cct_exit_slow(instr_pstate *s, uint32_t region, uint64_t *unmatched)
{
    instr_pnode *p = take(s);
    if (!p)
        return -1;
    if (p == &s->lost) {
        if (--s->lost_depth == 0)
            p = s->lost_parent;
        if (s->rec || s->xexit) {
            if (s->rec)
                metrics_now(s);
            uint64_t now = instr_clock_now();
            if (s->rec)
                record(s, INSTR_TREC_LEAVE, region, now);
            if (s->xexit)
                s->xexit(s->xdata, region, now);
        }
        give(s, p);
        return 0;
    }
    /* Unbalanced input (longjmp, an exit hook missing on some path): an exit for a region
     * further up closes everything below it at the same time; an exit for a region that is
     * not open at all is counted and ignored. */
    instr_pnode *k = p;
    while (k != &s->root && k->region != region)
        k = k->parent;
    if (k == &s->root) {
        (*unmatched)++;
        give(s, p);
        return 0;
    }
    uint64_t t = instr_clock_now();
    metrics_now(s);
    for (;; p = p->parent) {
        close_frame(s, p, t);
        if (p == k)
            break;
    }
    give(s, k->parent);
    return 0;
}

uint64_t instr_cct_cut(instr_pstate *s, uintptr_t sp)
{
    instr_pnode *p = take(s);
    if (!p)
        return 0;
    if (p == &s->lost) {
        /* Frames below a node that could not be created have no stack address. */
        give(s, p);
        return 0;
    }
    /* Only jumps within this thread's own stack: one to another stack (a coroutine library
     * switching stacks with longjmp) leaves nothing the cursor could tell. Such a jump also
     * leaves every frame on another stack (out of a handler running on its sigaltstack). */
    if (!on_own_stack(s, sp)) {
        give(s, p);
        return 0;
    }
    uint64_t n = 0, t = 0;
    while (p != &s->root && (p->sp < sp || on_other_stack(s, p->sp))) {
        if (!n++) {
            t = instr_clock_now();
            metrics_now(s);
        }
        close_frame(s, p, t);
        p = p->parent;
    }
    s->resynced += n;
    give(s, p);
    return n;
}

uint32_t instr_cct_depth(const instr_pstate *s)
{
    const instr_pnode *p = s->cursor;
    if (p == &s->lost)
        return s->lost_parent->depth + s->lost_depth;
    return p == &s->busy ? 0 : p->depth;
}

uint64_t instr_cct_close_above(instr_pstate *s, uint32_t depth, uint64_t t)
{
    instr_pnode *p = take(s);
    if (!p)
        return 0;
    uint64_t n = 0;
    if (p == &s->lost) {
        /* Frames below a node that could not be created have no region here: with records,
         * the trace's conversion closes them at the end. */
        uint32_t base = s->lost_parent->depth;
        uint32_t keep = depth > base ? depth - base : 0;
        if (keep >= s->lost_depth) {
            give(s, p);
            return 0;
        }
        n += s->lost_depth - keep;
        s->lost_depth = keep;
        if (keep) {
            give(s, p);
            return n;
        }
        p = s->lost_parent;
    }
    if (p->depth > depth)
        metrics_now(s);
    while (p->depth > depth) {
        close_frame(s, p, t);
        p = p->parent;
        n++;
    }
    give(s, p);
    return n;
}

uint32_t instr_cct_path(instr_pstate *s, uint32_t *out, uint32_t cap)
{
    if (s->cursor == &s->lost) {
        s->cursor = s->lost_parent;
        s->lost_depth = 0;
    }
    instr_pnode *p = s->cursor;
    if (p == &s->busy)
        return 0;
    uint32_t d = p->depth;
    if (d > cap)
        return 0;
    for (uint32_t i = d; i > 0; i--, p = p->parent)
        out[i - 1] = p->region;
    return d;
}

instr_pnode *instr_cct_current(instr_pstate *s)
{
    instr_pnode *p = s->cursor;
    return p == &s->root || p == &s->busy || p == &s->lost ? NULL : p;
}

/* ---- the profile substrate's enter/exit (generic path: balanced events, core's stack) ---- */

void instr_profile_enter(void *data, uint32_t region, uint64_t t)
{
    instr_pstate *s = data;
    if (__builtin_expect(!s, 0))
        return;
    instr_pnode *p = s->cursor;
    if (p == &s->lost) {
        s->lost_depth++;
        return;
    }
    enter_below(s, p, region, 0, 0, t, 1);
    if (s->nm && s->cursor != &s->lost)
        instr_pnode_metrics_enter(s, s->cursor);
}

void instr_profile_exit(void *data, uint32_t region, uint64_t t)
{
    instr_pstate *s = data;
    if (__builtin_expect(!s, 0))
        return;
    instr_pnode *n = s->cursor;
    if (n == &s->lost) {
        if (--s->lost_depth == 0)
            s->cursor = s->lost_parent;
        return;
    }
    /* The core delivers balanced events, but knows nothing of the OpenMP adapter's graft
     * frames (graft.h), which may still be open here. */
    if (__builtin_expect(n->region != region, 0))
        n = instr_profile_close_grafts(s, n, region, t);
    if (n != &s->root) {
        if (s->nm)
            instr_pnode_metrics_exit(s, n);
        instr_cct_pop(s, n, t);
    }
}

void instr_profile_fork_child(void *data, uint64_t t)
{
    instr_pstate *s = data;
    /* The parent's nodes are the parent's results: start an empty tree (the old chunks are
     * left alone) and re-create the open call path, entered at the fork. */
    uint32_t lost = s->cursor == &s->lost ? s->lost_depth : 0;
    instr_pnode *p = s->cursor == &s->lost ? s->lost_parent : s->cursor;
    uint32_t d = p == &s->busy ? 0 : p->depth;
    uint32_t *regions = d ? instr_mem_alloc(d * sizeof *regions) : NULL;
    uintptr_t *sps = d ? instr_mem_alloc(d * sizeof *sps) : NULL;
    if (d && (!regions || !sps))
        d = 0;
    for (uint32_t i = d; i > 0; i--, p = p->parent) {
        regions[i - 1] = p->region;
        sps[i - 1] = p->sp;
    }
    reset_tree(s);
    metrics_now(s);
    for (uint32_t i = 0; i < d; i++) {
        instr_pnode *c = s->cursor;
        if (c == &s->lost) {
            s->lost_depth++;
            continue;
        }
        enter_below(s, c, regions[i], sps[i], 0, t, 0);
        if (s->nm && s->cursor != &s->lost)
            instr_pnode_metrics_enter(s, s->cursor);
    }
    if (lost) {
        if (s->cursor != &s->lost) {
            s->lost_parent = s->cursor;
            s->cursor = &s->lost;
        }
        s->lost_depth += lost;
    }
    instr_mem_free(regions);
    instr_mem_free(sps);
}
