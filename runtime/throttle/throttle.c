/* throttle.c — the throttle substrate and the two steps of throttling (throttle.h).
 *
 * Per thread, a two-level table by region handle of {visits, inclusive ticks, open frames,
 * entry of the outermost open frame}; its chunks are mapped (async-signal-safe, like the
 * profile's nodes) on a region's first event and never move, so another thread may read the
 * open counts (step 2's check) without a lock. The inclusive time of a recursive region
 * counts its outermost frames; the check at an exit adds the outermost open frame's time so
 * far, so a region can be throttled while it is open (recursion).
 *
 * The steps take locks (the sources', to rewrite the regions' handles) and are rare: once
 * per region, and step 2 is tried on every 16th event of a draining region. They run on the
 * event's thread inside instr_core_guard_begin and only try-lock, so a signal handler or a
 * fork in between makes them wait for a later event, never deadlock.
 *
 * The one race left (docs/runtime.md): a thread that read the region's handle just before
 * step 1 and is preempted before its enter reaches this substrate may record a frame after
 * step 2's check; its exit is then skipped at the call site and the core closes the frame at
 * its caller's exit (as for longjmp): the trace stays balanced, that one frame's time is too
 * long. Step 2 waits at least 16 events after step 1, which makes this unlikely. */
#include "throttle.h"
#include "../core/clock.h"
#include "../core/config.h"
#include "../core/core.h"
#include "../core/log.h"
#include "../core/memory.h"
#include "../core/registry.h"
#include "../core/sources.h"
#include "../util/text.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_BITS 10
#define CHUNK (1u << CHUNK_BITS)
#define MAX_CHUNKS 4096u /* the registry's limit: 4 Mi regions */
/* Step 2 is tried on every DRAIN_EVERY-th event of a draining region. */
#define DRAIN_EVERY 16u

/* One region on one thread. The part the cursor path with counts updates inline (open
 * frames, read by other threads for step 2; the outermost frames' time; `left`) is the
 * cursor's instr_rcount (core/cursor.h), which the generic path's events update the same
 * way. Visits so far: visits + armed - c.left. */
typedef struct counts {
    instr_rcount c;   /* first: the cursor's nodes point to it */
    uint64_t visits;  /* visits when `left` was last set */
    int64_t armed;    /* what `left` was set to then */
    uint32_t settled; /* 1: never decided again on this thread (throttled, or not throttleable) */
} counts;

typedef struct throttle_loc {
    counts *chunk[MAX_CHUNKS];
} throttle_loc;

typedef struct throttle_thread {
    throttle_loc tl; /* first: drain() reads loc->sub[slot] as a throttle_loc */
    instr_location *loc;
} throttle_thread;

enum { OPEN = 0, DRAINING, EXCLUDED };

/* One region, process-wide. */
typedef struct region_state {
    uint32_t state; /* OPEN, DRAINING, EXCLUDED */
    uint32_t tries; /* draining events so far */
    instr_throttle_mark mark;
} region_state;

static region_state *states[MAX_CHUNKS];
static uint64_t max_visits;
static double ns_per_tick = 1.0;
/* Serialises the steps (never held across an event of the program). */
static pthread_mutex_t steps_lock = PTHREAD_MUTEX_INITIALIZER;

static counts *counts_of(throttle_loc *tl, uint32_t region, int create)
{
    uint32_t c = region >> CHUNK_BITS;
    if (c >= MAX_CHUNKS)
        return NULL;
    counts *chunk = tl->chunk[c];
    if (!chunk) {
        if (!create || !(chunk = instr_mem_chunk_mapped(CHUNK * sizeof *chunk)))
            return NULL;
        /* No visit yet: the first look at the threshold (`left` never starts at 0). */
        for (uint32_t i = 0; i < CHUNK; i++)
            chunk[i].c.left = chunk[i].armed = (int64_t)max_visits;
        __atomic_store_n(&tl->chunk[c], chunk, __ATOMIC_RELEASE);
    }
    return &chunk[region & (CHUNK - 1)];
}

static region_state *state_of(uint32_t region, int create)
{
    uint32_t c = region >> CHUNK_BITS;
    if (c >= MAX_CHUNKS)
        return NULL;
    region_state *chunk = __atomic_load_n(&states[c], __ATOMIC_ACQUIRE);
    if (!chunk) {
        /* Only under steps_lock. */
        if (!create || !(chunk = instr_mem_chunk_mapped(CHUNK * sizeof *chunk)))
            return NULL;
        __atomic_store_n(&states[c], chunk, __ATOMIC_RELEASE);
    }
    return &chunk[region & (CHUNK - 1)];
}

/* ---- the adapters' handles ------------------------------------------------------------- */

/* The regions whose source can change their handle (sources.h: hooks, cyg, XRay). */
static int throttleable(const instr_region_info *info)
{
    const instr_source *src = info ? instr_source_of(info->source) : NULL;
    return src && src->set_handle;
}

/* Publishes handle h for the region in its source; 0; -1 when that must wait (a lock is
 * taken); 1 when the source has no handle of the region's to change (a descriptor without
 * an address): the region cannot be throttled. */
static int set_handle(const instr_region_info *info, uint32_t h, int unpatch)
{
    const instr_source *src = instr_source_of(info->source);
    return src && src->set_handle ? src->set_handle(info->addr, h, unpatch) : 1;
}

/* Step 1, on the deciding thread at the exit that crossed the threshold. */
static void throttle(uint32_t region, instr_location *loc, counts *k, uint64_t incl)
{
    const instr_region_info *info = instr_registry_get(region);
    if (!throttleable(info)) {
        k->settled = 1;
        return;
    }
    if (!instr_core_guard_begin())
        return; /* a signal handler inside the runtime: decide at a later exit */
    if (pthread_mutex_trylock(&steps_lock) != 0) {
        instr_core_guard_end();
        return;
    }
    region_state *st = state_of(region, 1);
    int set = st && st->state == OPEN ? set_handle(info, region | INSTR_HANDLE_THROTTLING, 0) : -1;
    if (set == 1)
        k->settled = 1;
    if (set == 0) {
        st->mark.visit = k->visits;
        st->mark.mean_ns = (uint64_t)((double)incl * ns_per_tick / (double)k->visits);
        st->mark.location = loc->id;
        __atomic_store_n(&st->state, DRAINING, __ATOMIC_RELEASE);
        if (instr_verbose >= 1) {
            char shown[256];
            instr_info(1, "throttle: %s after %llu visits of %llu ns on average (thread %u)",
                       instr_escaped(shown, sizeof shown, info->name),
                       (unsigned long long)k->visits, (unsigned long long)st->mark.mean_ns,
                       loc->id);
        }
    }
    if (st && st->state != OPEN)
        k->settled = 1;
    pthread_mutex_unlock(&steps_lock);
    instr_core_guard_end();
}

/* Step 2 when no recorded frame of the region is open on any thread. */
static void drain(uint32_t region)
{
    region_state *st = state_of(region, 0);
    if (!st || __atomic_load_n(&st->state, __ATOMIC_ACQUIRE) != DRAINING ||
        __atomic_add_fetch(&st->tries, 1, __ATOMIC_RELAXED) % DRAIN_EVERY != 0)
        return;
    int slot = instr_substrate_slot(&instr_throttle_substrate);
    if (slot < 0 || !instr_core_guard_begin())
        return;
    if (pthread_mutex_trylock(&steps_lock) != 0) {
        instr_core_guard_end();
        return;
    }
    int open = -1;
    if (st->state == DRAINING && pthread_mutex_trylock(&instr_loc_lock) == 0) {
        uint32_t n;
        instr_location *const *locs = instr_core_locations(&n);
        open = 0;
        for (uint32_t i = 0; i < n && !open; i++) {
            throttle_loc *tl = locs[i]->sub[slot];
            counts *chunk = tl ? __atomic_load_n(&tl->chunk[region >> CHUNK_BITS],
                                                 __ATOMIC_ACQUIRE)
                               : NULL;
            if (chunk && __atomic_load_n(&chunk[region & (CHUNK - 1)].c.open, __ATOMIC_RELAXED))
                open = 1;
        }
        pthread_mutex_unlock(&instr_loc_lock);
    }
    const instr_region_info *info = instr_registry_get(region);
    if (open == 0 && info && set_handle(info, INSTR_HANDLE_EXCLUDED, 1) == 0) {
        st->mark.excluded = 1;
        __atomic_store_n(&st->state, EXCLUDED, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&steps_lock);
    instr_core_guard_end();
}

/* The calling thread's counts of region while its location is on the cursor path with
 * counts, else NULL. */
static counts *cursor_counts(uint32_t region)
{
    instr_pstate *s = instr_tls_cct;
    throttle_thread *th = s->cnt;
    if (!s->counting || !th || instr_fast_get() != INSTR_FAST_TABLE)
        return NULL;
    return counts_of(&th->tl, region, 1);
}

/* The calling thread's counts of region, if it has them. */
static counts *own_counts(uint32_t region)
{
    instr_location *loc = instr_tls_loc;
    int slot = instr_substrate_slot(&instr_throttle_substrate);
    throttle_thread *th = loc && slot >= 0 ? loc->sub[slot] : NULL;
    return th ? counts_of(&th->tl, region, 0) : NULL;
}

void instr_throttle_enter(uint32_t region)
{
    /* The cursor has no unrecorded frames: on its path the counts keep them. */
    counts *k = cursor_counts(region);
    if (k)
        k->c.unrec++;
    else
        instr_event_enter_unrecorded(region);
    drain(region);
}

void instr_throttle_exit(uint32_t region)
{
    /* The innermost frame of the region: an unrecorded one is dropped (by the core's slow
     * path, or here when the counts keep it), a recorded one (entered before step 1) gets
     * its exit. Unrecorded frames are entered after every recorded one of the region. */
    counts *k = own_counts(region);
    if (k && k->c.unrec)
        k->c.unrec--;
    else
        instr_event_exit_generic_out(region);
    drain(region);
}

/* ---- the substrate ------------------------------------------------------------------- */

static int wanted(void)
{
#ifdef INSTR_RT_HAVE_TRACE
    int tracing = instr_cfg.enable_tracing;
#else
    int tracing = 0;
#endif
    /* Alone it would record nothing. */
    return instr_cfg.throttle_visits && (instr_cfg.enable_profiling || tracing);
}

static int init(void)
{
    /* Counted down in an int64_t (instr_rcount.left). */
    max_visits = instr_cfg.throttle_visits < (uint64_t)INT64_MAX ? instr_cfg.throttle_visits
                                                                 : (uint64_t)INT64_MAX;
    ns_per_tick = instr_clock_ns_per_tick_early();
    instr_info(1, "throttle: regions visited %llu times or more with less than %llu ns per "
                  "visit on a thread are no longer recorded",
               (unsigned long long)instr_cfg.throttle_visits,
               (unsigned long long)instr_cfg.throttle_ns);
    return 0;
}

static void *location_begin(instr_location *loc)
{
    throttle_thread *t = instr_mem_chunk_mapped(sizeof *t);
    if (t)
        t->loc = loc;
    return t;
}

static void count_enter(void *data, uint32_t region, uint64_t t)
{
    throttle_thread *th = data;
    counts *k = th ? counts_of(&th->tl, region, 1) : NULL;
    if (!k)
        return;
    if (k->c.open == 0)
        k->c.t_first = t;
    instr_rcount_enter(&k->c);
}

/* An exit whose counts ran out of `left` (at the threshold of visits, and at every exit
 * after it while the region is not settled): the decision, then `left` set again. On the
 * cursor path with counts, `from` is the exited frame's parent: the entry of the region's
 * outermost open frame is its node's, when the counts do not know it. */
static void reached(throttle_thread *th, counts *k, uint32_t region, uint64_t t,
                    const instr_pnode *from)
{
    k->visits += (uint64_t)(k->armed - k->c.left);
    if (k->visits >= max_visits && !k->settled) {
        if (k->c.open && !k->c.t_first && from) {
            for (const instr_pnode *p = from; p->depth > 0; p = p->parent)
                if (p->region == region)
                    k->c.t_first = p->t_enter;
        }
        uint64_t incl = k->c.incl + (k->c.open && t > k->c.t_first ? t - k->c.t_first : 0);
        if ((double)incl * ns_per_tick < (double)instr_cfg.throttle_ns * (double)k->visits)
            throttle(region, th->loc, k, incl);
    }
    k->armed = k->settled ? INT64_MAX : k->visits >= max_visits ? 1
                                                                : (int64_t)(max_visits - k->visits);
    k->c.left = k->armed;
}

static void count_exit(void *data, uint32_t region, uint64_t t)
{
    throttle_thread *th = data;
    counts *k = th ? counts_of(&th->tl, region, 0) : NULL;
    if (!k || k->c.open == 0)
        return;
    instr_rcount_exit(&k->c, t > k->c.t_first ? t - k->c.t_first : 0);
    if (instr_rcount_left(&k->c))
        reached(th, k, region, t, NULL);
}

/* ---- the cursor path with counts (core/cursor.h) -------------------------------------- */

instr_rcount *instr_cct_counts_of(instr_pstate *s, uint32_t region)
{
    throttle_thread *th = s->cnt;
    counts *k = th ? counts_of(&th->tl, region, 1) : NULL;
    return k ? &k->c : &s->rc_none;
}

void instr_cct_counts_reached(instr_pstate *s, instr_pnode *n, uint64_t t)
{
    throttle_thread *th = s->cnt;
    if (th && n->rc != &s->rc_none)
        reached(th, (counts *)(void *)n->rc, n->region, t, n->parent);
}

/* The forking thread alone goes on in the child: a step another thread was taking at the fork
 * never ends there, so its lock starts free. The thread's own counts stay (its open frames
 * stay open in the child). */
static void fork_child(void *data, uint64_t t)
{
    (void)data;
    (void)t;
    pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
    steps_lock = fresh;
}

const instr_substrate instr_throttle_substrate = {
    .name = "throttle",
    .wanted = wanted,
    .init = init,
    .location_begin = location_begin,
    .fast_paths = INSTR_SUBSTRATE_COUNTS, /* the cursor path with counts (cct_counts.c) */
    .enter = count_enter,
    .exit = count_exit,
    .fork_child = fork_child,
};

/* ---- what the writers show ----------------------------------------------------------- */

int instr_throttle_mark_of(uint32_t region, instr_throttle_mark *out)
{
    region_state *st = state_of(region, 0);
    if (!st || __atomic_load_n(&st->state, __ATOMIC_ACQUIRE) == OPEN)
        return 0;
    *out = st->mark;
    return 1;
}
