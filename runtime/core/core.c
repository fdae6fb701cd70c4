/* core.c — the event core: locations (one per thread), their stacks, and the slow paths of
 * enter/exit (event.h has the fast paths).
 *
 * A location's stack is the call-path cursor (cursor.h) while instr_fast is INSTR_FAST_INLINE
 * or INSTR_FAST_CURSOR; none on the direct trace path (INSTR_FAST_TRACE: the
 * trace's conversion keeps its output nested); else the core's own array of region handles
 * (the generic path). A location leaves the cursor or the direct path for the generic path
 * at its first event after instr_pause(), and never returns to it; a location on the direct
 * path also leaves it when its thread ends or calls exit(), so that its open regions are
 * closed by the core as on the generic path.
 *
 * Signal handlers: a handler's event on a thread that is inside the runtime (the cursor
 * taken by a slow path, loc->busy on the generic path, tls_in_runtime while a location is
 * created or converted) is dropped and counted in instr_events_dropped_in_handlers; its
 * exit then finds no open frame of its own and is dropped as well.
 *
 * A location is created on its thread's first event and registered under instr_loc_lock.
 * When the thread ends, a pthread key destructor closes its open regions and marks it ended,
 * under the same lock, which orders everything the thread recorded before the end of
 * measurement reads it. Locations are never freed before the end: their data is the
 * profile. */
#include "core.h"
#include "log.h"
#include "registry.h"
#include "../util/array.h"
#include "../util/pages.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int instr_state = INSTR_STATE_UNINIT;
unsigned instr_n_enter, instr_n_exit;
instr_dispatch instr_enter_tab[INSTR_MAX_SUBSTRATES];
instr_dispatch instr_exit_tab[INSTR_MAX_SUBSTRATES];
_Thread_local instr_location *instr_tls_loc __attribute__((tls_model("initial-exec")));
int instr_fast = INSTR_FAST_OFF;
_Thread_local int instr_cct_jumped __attribute__((tls_model("initial-exec")));
instr_pnode instr_cct_nomatch = {.region = INSTR_CCT_NO_REGION, .last = &instr_cct_nomatch};
instr_pstate instr_cct_idle = {.cursor = &instr_cct_nomatch};
_Thread_local instr_pstate *instr_tls_cct
    __attribute__((tls_model("initial-exec"))) = &instr_cct_idle;
_Thread_local struct instr_tloc *instr_tls_trace __attribute__((tls_model("initial-exec")));
uint64_t instr_events_dropped_in_handlers;
instr_record_head instr_record_none;
/* Set while this thread creates or converts its location (allocation, locks). */
static _Thread_local int tls_in_runtime __attribute__((tls_model("initial-exec")));
/* Set once this thread's location was handed over: later events on it are ignored, so that
 * key destructors running after ours cannot create a second location for the thread. */
static _Thread_local int tls_ended __attribute__((tls_model("initial-exec")));

const instr_substrate *instr_active[INSTR_MAX_SUBSTRATES];
unsigned instr_nactive;

pthread_mutex_t instr_loc_lock = PTHREAD_MUTEX_INITIALIZER;
static instr_location **locs;
static uint32_t nlocs, caplocs;
static pthread_key_t loc_key;

#define INITIAL_STACK 64

int instr_substrate_slot(const instr_substrate *s)
{
    for (unsigned i = 0; i < instr_nactive; i++)
        if (instr_active[i] == s)
            return (int)i;
    return -1;
}

int instr_substrate_slot_with(unsigned flag)
{
    for (unsigned i = 0; i < instr_nactive; i++)
        if (instr_active[i]->fast_paths & flag)
            return (int)i;
    return -1;
}

static void dispatch_exit(instr_location *loc, uint32_t region, uint64_t t)
{
    for (unsigned i = 0; i < instr_n_exit; i++)
        instr_exit_tab[i].fn(loc->sub[instr_exit_tab[i].slot], region, t);
}

static void dropped_in_handler(void)
{
    __atomic_fetch_add(&instr_events_dropped_in_handlers, 1, __ATOMIC_RELAXED);
}

void instr_event_longjmp(uintptr_t sp)
{
    instr_location *loc = instr_tls_loc;
    if (loc && loc->cct && instr_state_get() == INSTR_STATE_RUNNING)
        instr_cct_cut(loc->cct, sp);
}

int instr_core_guard_begin(void)
{
    if (tls_in_runtime)
        return 0;
    tls_in_runtime = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    return 1;
}

void instr_core_guard_end(void)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    tls_in_runtime = 0;
}

int instr_core_registry_lock(void)
{
    if (!instr_core_guard_begin()) {
        dropped_in_handler();
        return 0;
    }
    instr_registry_lock();
    return 1;
}

void instr_core_registry_unlock(void)
{
    instr_registry_unlock();
    instr_core_guard_end();
}

uint64_t instr_core_close_all(instr_location *loc, uint64_t t)
{
    if (loc->cct)
        return instr_cct_close_above(loc->cct, 0, t);
    uint64_t n = 0;
    /* Acquire: the frames a thread leaving the cursor or the direct trace path wrote before
     * it published its depth (to_generic, direct_to_generic). */
    for (uint32_t d = __atomic_load_n(&loc->depth, __ATOMIC_ACQUIRE); d > 0; d--) {
        uint32_t f = instr_loc_frame(loc, d - 1);
        instr_loc_set_depth(loc, d - 1);
        if (!(f & INSTR_FRAME_UNRECORDED)) {
            dispatch_exit(loc, f, t);
            n++;
        }
    }
    return n;
}

static int generic_begin(instr_location *loc);
static void generic_end(instr_location *loc);

/* On the location's own thread: its open regions become the core's stack, if it was on the
 * direct trace path. */
static void leave_direct(instr_location *loc)
{
    if (loc && loc->direct && !loc->busy && generic_begin(loc))
        generic_end(loc);
}

void instr_core_leave_direct(void) { leave_direct(instr_tls_loc); }

static int direct_refused;

void instr_core_direct_off(void)
{
    __atomic_store_n(&direct_refused, 1, __ATOMIC_SEQ_CST);
    int expected = __atomic_load_n(&instr_fast, __ATOMIC_SEQ_CST);
    if (instr_fast_is_direct(expected) &&
        __atomic_compare_exchange_n(&instr_fast, &expected, INSTR_FAST_OFF, 0, __ATOMIC_SEQ_CST,
                                    __ATOMIC_SEQ_CST))
        instr_event_path_misses();
}

int instr_core_direct_allowed(void) { return !__atomic_load_n(&direct_refused, __ATOMIC_SEQ_CST); }

/* pthread key destructor: the thread ends; hand its data over. */
/* Set once the main thread has ended by pthread_exit: the process then ends on whichever
 * thread ends last, which runs the program's atexit handlers after its key destructors. */
static int main_thread_gone;

/* Under instr_loc_lock: loc's thread is the last one recording while main is gone, so the
 * process ends on it (glibc calls exit() there after the key destructors): it keeps its
 * location, and its atexit handlers are recorded like those after exit() from main. */
static int process_ends_here(const instr_location *loc)
{
    if (loc->tid == (int)getpid()) {
        main_thread_gone = 1;
        return 0;
    }
    if (!main_thread_gone)
        return 0;
    for (uint32_t i = 0; i < nlocs; i++)
        if (locs[i] != loc && !locs[i]->ended)
            return 0;
    return 1;
}

static void location_end(void *p)
{
    instr_location *loc = p;
    leave_direct(loc);
    pthread_mutex_lock(&instr_loc_lock);
    int st = instr_state_get();
    int live = (st == INSTR_STATE_RUNNING || st == INSTR_STATE_PAUSED) && !loc->ended;
    if (live && process_ends_here(loc)) {
        /* This location ends with the program (instr_finalize); the key's value is not set
         * again, so this destructor does not run again. */
        pthread_mutex_unlock(&instr_loc_lock);
        return;
    }
    if (live) {
        uint64_t t = instr_clock_now();
        loc->closed_at_end += instr_core_close_all(loc, t);
        loc->ended = INSTR_LOC_THREAD_EXIT;
        for (unsigned i = 0; i < instr_nactive; i++)
            if (instr_active[i]->location_end)
                instr_active[i]->location_end(loc->sub[i], t);
    }
    pthread_mutex_unlock(&instr_loc_lock);
    instr_tls_cct = &instr_cct_idle;
    instr_tls_trace = NULL;
    instr_tls_loc = NULL;
    tls_ended = 1;
}

int instr_core_init_locations(void) { return pthread_key_create(&loc_key, location_end); }

void instr_core_thread_unmeasured(void) { tls_ended = 1; }

instr_location *const *instr_core_locations(uint32_t *n)
{
    *n = nlocs;
    return locs;
}

static instr_location *location_create_unguarded(void);

/* 1 when the active substrate in `slot` is in the enter dispatch table. */
static int records_want_events(int slot)
{
    for (unsigned i = 0; i < instr_n_enter; i++)
        if (instr_enter_tab[i].slot == (unsigned)slot)
            return 1;
    return 0;
}

/* A handler that arrives meanwhile finds no location and tls_in_runtime set: dropped. */
static instr_location *location_create(void)
{
    if (!instr_core_guard_begin())
        return NULL;
    instr_location *loc = location_create_unguarded();
    instr_core_guard_end();
    return loc;
}

static instr_location *location_create_unguarded(void)
{
    instr_location *loc = instr_mem_calloc(1, sizeof *loc);
    uint32_t *stack = instr_mem_alloc(INITIAL_STACK * sizeof *stack);
    if (!loc || !stack) {
        instr_mem_free(loc);
        instr_mem_free(stack);
        return NULL;
    }
    loc->stack = stack;
    loc->cap = INITIAL_STACK;
    loc->tid = (int)gettid();
    pthread_mutex_lock(&instr_loc_lock);
    int st = instr_state_get();
    if (st != INSTR_STATE_RUNNING && st != INSTR_STATE_PAUSED) {
        pthread_mutex_unlock(&instr_loc_lock);
        instr_mem_free(stack);
        instr_mem_free(loc);
        return NULL;
    }
    if (instr_array_grow32(&locs, &caplocs, (size_t)nlocs + 1, sizeof *locs, 64) != 0) {
        pthread_mutex_unlock(&instr_loc_lock);
        instr_mem_free(stack);
        instr_mem_free(loc);
        return NULL;
    }
    loc->id = nlocs;
    locs[nlocs++] = loc;
    for (unsigned i = 0; i < instr_nactive; i++)
        loc->sub[i] = instr_active[i]->location_begin ? instr_active[i]->location_begin(loc)
                                                      : NULL;
    /* The cursor path: the cursor's substrate is the one with enter/exit; the direct path:
     * the records' substrate is (runtime/compose/). */
    int fast = __atomic_load_n(&instr_fast, __ATOMIC_ACQUIRE);
    int cursor = instr_substrate_slot_with(INSTR_SUBSTRATE_CURSOR);
    if (instr_fast_is_direct(fast))
        loc->direct = loc->sub[instr_enter_tab[0].slot] != NULL;
    else if (fast != INSTR_FAST_OFF && cursor >= 0) { /* none: plugins alone */
        loc->cct = loc->sub[cursor];
        /* The records' substrate wants enter/exit beside the cursor's only on the cursor path
         * with records: the cursor appends its records (cursor.h). */
        int records = instr_substrate_slot_with(INSTR_SUBSTRATE_RECORDS);
        if (loc->cct && records >= 0 && fast == INSTR_FAST_TABLE && records_want_events(records))
            loc->cct->rec = loc->sub[records] ? loc->sub[records]
                                              : (struct instr_tloc *)(void *)&instr_record_none;
        /* The same for the counting substrate on the cursor path with counts: the cursor
         * updates its counts (cursor.h). */
        int counts = instr_substrate_slot_with(INSTR_SUBSTRATE_COUNTS);
        if (loc->cct && counts >= 0 && fast == INSTR_FAST_TABLE && records_want_events(counts)) {
            loc->cct->cnt = loc->sub[counts];
            loc->cct->rc_none.left = INT64_MAX; /* never runs out */
            loc->cct->counting = 1;
        }
        /* The same for a substrate that rides on the cursor with its own enter and exit
         * (the critical path) on the cursor path with events: the cursor calls them. */
        int events = instr_substrate_slot_with(INSTR_SUBSTRATE_CURSOR_EVENTS);
        if (loc->cct && events >= 0 && fast == INSTR_FAST_TABLE && records_want_events(events) &&
            loc->sub[events]) {
            loc->cct->xdata = loc->sub[events];
            loc->cct->xexit = instr_active[events]->exit;
            loc->cct->xenter = instr_active[events]->enter;
        }
    }
    pthread_mutex_unlock(&instr_loc_lock);
    pthread_setspecific(loc_key, loc);
    instr_tls_loc = loc;
    if (loc->cct)
        instr_tls_cct = loc->cct;
    if (loc->direct)
        instr_tls_trace = loc->sub[instr_enter_tab[0].slot];
    return loc;
}

static int grow_stack(instr_location *loc)
{
    return instr_array_grow32(&loc->stack, &loc->cap, (size_t)loc->cap + 1, sizeof *loc->stack,
                              64);
}

/* The thread leaves the cursor for the generic path (after instr_pause): the core's stack is
 * rebuilt from the cursor's path. With loc->busy set, so a handler meanwhile is dropped. */
static void to_generic(instr_location *loc)
{
    instr_pstate *s = loc->cct;
    uint32_t d = instr_cct_depth(s);
    while (loc->cap < d + 1 && grow_stack(loc) == 0)
        ;
    /* Release: the frames the path just wrote, for the end's instr_core_close_all. */
    __atomic_store_n(&loc->depth, instr_cct_path(s, loc->stack, loc->cap), __ATOMIC_RELEASE);
    instr_tls_cct = &instr_cct_idle;
    /* The generic path gives the records' substrate its events itself from now on. */
    s->rec = NULL;
    /* The counting substrate's events come from the generic path too, which keeps the
     * entries of the outermost open frames in the counts. */
    if (s->counting)
        instr_cct_counts_firsts(instr_cct_current(s));
    s->counting = 0;
    /* The same for the substrate with events on the cursor. */
    s->xenter = s->xexit = NULL;
    loc->cct = NULL;
}

/* The thread leaves the direct trace path: the regions open in what the trace recorded become
 * the core's stack. When the trace cannot say now, the stack stays empty and the trace's
 * conversion closes them at the end. With loc->busy set, as above. */
static void direct_to_generic(instr_location *loc)
{
    unsigned slot = instr_enter_tab[0].slot;
    const instr_substrate *trace = instr_active[slot];
    /* First: a handler's events from now on take the slow path (balanced, recorded). */
    instr_tls_trace = NULL;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    uint32_t n = trace->open_regions(loc->sub[slot], loc->stack, loc->cap);
    while (n != UINT32_MAX && n > loc->cap && grow_stack(loc) == 0)
        n = trace->open_regions(loc->sub[slot], loc->stack, loc->cap);
    /* Release: the frames open_regions just wrote, for the end's instr_core_close_all. */
    __atomic_store_n(&loc->depth, n <= loc->cap ? n : 0, __ATOMIC_RELEASE);
    loc->direct = 0;
}

uint32_t instr_core_depth(const instr_location *loc)
{
    return loc->cct ? instr_cct_depth(loc->cct) : instr_loc_depth(loc);
}

instr_location *instr_core_location_self(void)
{
    if (!instr_events_wanted())
        return NULL;
    if (!instr_tls_loc && !tls_ended)
        location_create();
    return instr_tls_loc;
}

uint64_t instr_core_close_above(instr_location *loc, uint32_t depth, uint64_t t)
{
    uint64_t n = 0;
    int st = instr_state_get();
    if (st != INSTR_STATE_RUNNING && st != INSTR_STATE_PAUSED)
        return 0;
    if (loc->cct)
        return instr_cct_close_above(loc->cct, depth, t);
    for (uint32_t d = instr_loc_depth(loc); d > depth; d--) {
        uint32_t f = instr_loc_frame(loc, d - 1);
        instr_loc_set_depth(loc, d - 1);
        if (!(f & INSTR_FRAME_UNRECORDED)) {
            dispatch_exit(loc, f, t);
            n++;
        }
    }
    return n;
}

uint64_t instr_core_close_listed(instr_location *loc, uint32_t depth, const uint32_t *open,
                                 uint32_t n, uint64_t t)
{
    if (!loc->direct)
        return instr_core_close_above(loc, depth, t);
    int st = instr_state_get();
    if (st != INSTR_STATE_RUNNING && st != INSTR_STATE_PAUSED)
        return 0;
    /* On the direct trace path the location's records are its only stack: their Leaves,
     * innermost first, through the trace's exit (its append, which works on another thread's
     * buffer while that thread waits); whatever else is open above them the conversion
     * closes at the same time (trace/convert.c). */
    uint64_t closed = 0;
    for (uint32_t i = n; i-- > 0;)
        if (open[i]) {
            dispatch_exit(loc, open[i], t);
            closed++;
        }
    return closed;
}

int instr_events_wanted(void)
{
    int st = instr_state_get();
    if (st == INSTR_STATE_UNINIT) {
        instr_init();
        st = instr_state_get();
    }
    return st == INSTR_STATE_RUNNING || st == INSTR_STATE_PAUSED;
}

/* The thread's location, created on its first event; NULL when none (not recording, the
 * thread ended, out of memory, or a handler arrived while it was being created). */
static instr_location *location_of_thread(void)
{
    instr_location *loc = instr_tls_loc;
    if (!loc && !tls_ended)
        loc = location_create();
    return loc;
}

/* 1 while the location's stack is the cursor (instr_pause turns that off for good). */
static int on_cursor(const instr_location *loc)
{
    return loc->cct && __atomic_load_n(&instr_fast, __ATOMIC_ACQUIRE) != INSTR_FAST_OFF;
}

/* 1 while the location takes the direct trace path (instr_pause turns that off for good). */
static int on_direct(const instr_location *loc)
{
    return loc->direct && instr_fast_is_direct(__atomic_load_n(&instr_fast, __ATOMIC_ACQUIRE));
}

/* The location's generic stack, converting it first if it still used the cursor or the
 * direct trace path (after instr_pause turned them off, or at its end). 0 when loc->busy
 * was taken. */
static int generic_begin(instr_location *loc)
{
    if (loc->busy) {
        dropped_in_handler();
        return 0;
    }
    loc->busy = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (loc->cct)
        to_generic(loc);
    else if (loc->direct)
        direct_to_generic(loc);
    return 1;
}

static void generic_end(instr_location *loc)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    loc->busy = 0;
}

static void generic_enter(instr_location *loc, uint32_t region)
{
    uint32_t d = instr_loc_depth(loc);
    if (d == loc->cap && grow_stack(loc) != 0)
        return; /* out of memory: the matching exit is counted as unmatched */
    if (instr_state_get() != INSTR_STATE_RUNNING) {
        instr_loc_set_frame(loc, d, region | INSTR_FRAME_UNRECORDED);
        instr_loc_set_depth(loc, d + 1);
        return;
    }
    instr_loc_set_frame(loc, d, region);
    instr_loc_set_depth(loc, d + 1);
    uint64_t t = instr_clock_now();
    for (unsigned i = 0; i < instr_n_enter; i++)
        instr_enter_tab[i].fn(loc->sub[instr_enter_tab[i].slot], region, t);
}

void instr_event_enter_slow(uint32_t region, uintptr_t sp)
{
    /* The cursor with another timer than the TSC: the inline path's steps, with that clock. */
    if (__atomic_load_n(&instr_fast, __ATOMIC_RELAXED) == INSTR_FAST_CURSOR) {
        instr_pnode *n = instr_cct_push(instr_tls_cct, 0, region, sp);
        if (n) {
            n->t_enter = instr_clock_now();
            return;
        }
    }
    if (!instr_events_wanted())
        return;
    instr_location *loc = location_of_thread();
    if (!loc) {
        if (tls_in_runtime)
            dropped_in_handler();
        return;
    }
    if (on_cursor(loc)) {
        if (instr_state_get() == INSTR_STATE_RUNNING &&
            instr_cct_enter_slow(loc->cct, region, sp) != 0)
            dropped_in_handler();
        return;
    }
    if (on_direct(loc)) {
        /* The thread's first event (its location was just made), or a handler's event while
         * the thread leaves the path: the trace's own append. */
        if (instr_state_get() == INSTR_STATE_RUNNING)
            instr_enter_tab[0].fn(loc->sub[instr_enter_tab[0].slot], region, instr_clock_now());
        return;
    }
    if (!generic_begin(loc))
        return;
    generic_enter(loc, region);
    generic_end(loc);
}

static void generic_exit(instr_location *loc, uint32_t region)
{
    uint32_t d = instr_loc_depth(loc);
    if (d && instr_loc_frame(loc, d - 1) == (region | INSTR_FRAME_UNRECORDED)) {
        instr_loc_set_depth(loc, d - 1);
        return;
    }
    if (d && instr_loc_frame(loc, d - 1) == region) {
        /* Paused: a region entered before the pause is still closed, so the tree stays
         * balanced. */
        uint64_t t = instr_clock_now();
        instr_loc_set_depth(loc, d - 1);
        dispatch_exit(loc, region, t);
        return;
    }
    /* Unbalanced input (longjmp, an exit hook missing on some path): an exit for a region
     * further down closes everything above it at the same time; an exit for a region that is
     * not open at all is counted and ignored. */
    uint32_t k = d;
    while (k > 0 && (instr_loc_frame(loc, k - 1) & ~INSTR_FRAME_UNRECORDED) != region)
        k--;
    if (k == 0) {
        loc->unmatched_exits++;
        return;
    }
    uint64_t t = instr_clock_now();
    for (; d >= k; d--) {
        uint32_t f = instr_loc_frame(loc, d - 1);
        instr_loc_set_depth(loc, d - 1);
        if (!(f & INSTR_FRAME_UNRECORDED))
            dispatch_exit(loc, f, t);
    }
}

void instr_event_exit_slow(uint32_t region)
{
    if (__atomic_load_n(&instr_fast, __ATOMIC_RELAXED) == INSTR_FAST_CURSOR) {
        instr_pstate *s = instr_tls_cct;
        instr_pnode *n = instr_cct_top(s, 0, region);
        if (n) {
            instr_cct_pop(s, n, instr_clock_now());
            return;
        }
    }
    int st = instr_state_get();
    if (st != INSTR_STATE_RUNNING && st != INSTR_STATE_PAUSED)
        return;
    instr_location *loc = instr_tls_loc;
    if (!loc)
        return;
    if (on_cursor(loc)) {
        if (instr_cct_exit_slow(loc->cct, region, &loc->unmatched_exits) != 0)
            dropped_in_handler();
        return;
    }
    if (on_direct(loc)) {
        /* The trace's conversion matches it (or leaves it out when nothing is open). */
        instr_exit_tab[0].fn(loc->sub[instr_exit_tab[0].slot], region, instr_clock_now());
        return;
    }
    if (!generic_begin(loc))
        return;
    generic_exit(loc, region);
    generic_end(loc);
}

void instr_event_enter_unrecorded(uint32_t region)
{
    int st = instr_state_get();
    if (st != INSTR_STATE_RUNNING && st != INSTR_STATE_PAUSED)
        return;
    instr_location *loc = location_of_thread();
    if (!loc) {
        if (tls_in_runtime)
            dropped_in_handler();
        return;
    }
    /* The cursor and the direct trace path have no unrecorded frames (on the cursor path
     * with counts, throttling counts them itself: runtime/throttle/). */
    if (on_cursor(loc) || on_direct(loc) || !generic_begin(loc))
        return;
    uint32_t d = instr_loc_depth(loc);
    if (d < loc->cap || grow_stack(loc) == 0) {
        instr_loc_set_frame(loc, d, region | INSTR_FRAME_UNRECORDED);
        instr_loc_set_depth(loc, d + 1);
    }
    generic_end(loc);
}

void instr_event_enter_generic_out(uint32_t region, uintptr_t sp)
{
    instr_event_enter_generic(region, sp);
}

void instr_event_exit_generic_out(uint32_t region) { instr_event_exit_generic(region); }

void instr_core_fork_child(uint64_t t)
{
    instr_location *self = instr_tls_loc;
    /* The other threads do not exist in the child; their locations stay with the parent. */
    nlocs = 0;
    if (!self)
        return;
    self->id = 0;
    self->tid = (int)gettid();
    self->unmatched_exits = 0;
    self->closed_at_end = 0;
    locs[nlocs++] = self;
    for (unsigned i = 0; i < instr_nactive; i++)
        if (instr_active[i]->fork_child && self->sub[i])
            instr_active[i]->fork_child(self->sub[i], t);
}
