/* event.h — the event core's hot path: enter and exit of a region on the calling thread.
 *
 * Inlined into every adapter (hooks, cyg, manual, XRay, OpenMP, MPI). Two paths:
 *
 * - Cursor path (instr_fast == INSTR_FAST_INLINE): the profile is the only substrate that
 *   wants enter/exit and the clock is the TSC. The profile's call-path cursor is the thread's
 *   only stack (cursor.h): enter is one thread-local load, one flag test, one compare
 *   with the child entered last, a stack-address compare, the clock; exit is one compare,
 *   the clock and the statistics. No table, no second stack, no call.
 * - Direct trace path (instr_fast == INSTR_FAST_TRACE): the trace is the only substrate that
 *   wants enter/exit and the clock is the TSC. The hook appends the compact record (record.h)
 *   itself: one thread-local load (the thread's trace state), a range check of the handle, the
 *   clock and one call of the append (instr_record_put, trace/events.c), whose slot reservation
 *   is safe against the thread's own signal handlers. No core stack: the trace's conversion
 *   keeps the output nested (trace/convert.c), and the open regions become the core's stack
 *   again when the thread leaves the path (pause, thread end, exit()). The hooks reach it
 *   through instr_event_path_table (below, adapters/hooks.c); other adapters test the flag here.
 * - Out of line through instr_event_path_table (instr_fast == INSTR_FAST_TABLE), with the TSC:
 *   the hooks and cyg read the flag once (instr_event_enter_framed): off the inline cursor
 *   path they jump through instr_event_path_table (event_path.h) once, whatever the mode, to
 *   what the flag's last change set there: the adapter's slow path, the direct trace path,
 *   or, with this mode, what the composition unit (runtime/compose/) chose at start-up for
 *   the substrates that want enter/exit, by the fast paths they declare (substrate.h):
 *   - the profile and the metrics substrate, and perhaps substrate plugins: the cursor path
 *     with metrics (profile/cct_metrics.c), which also calls the plugins;
 *   - the profile and substrate plugins: the cursor path with plugins (profile/cct_plugins.c),
 *     the profile's steps and the plugins' functions called directly;
 *   - the profile and the trace: the cursor path with records (profile/cct_trace.c), the
 *     cursor's steps and the trace's record appended inline (record.h);
 *   - substrate plugins alone: their functions called directly on the core's stack
 *     (plugins/direct.c).
 *   Other adapters' events take the core's slow path (the cursor's slow paths, which call
 *   the plugins too) or, with the plugins alone, the generic path.
 * - The direct trace path with another timer than the TSC (INSTR_FAST_TRACE_CLOCK): the
 *   same records, out of line: the hooks jump through instr_event_path_table to their
 *   direct path with that clock (adapters/hooks.c), the other adapters' inline tests fail and
 *   their slow paths append with it (core.c).
 * - Generic path (other combinations, other timers, or after the first pause): the core keeps its
 *   own stack of region handles and calls every substrate that wants the event through the
 *   dispatch table. With the profile alone and another timer than the TSC, the cursor is
 *   still the stack, updated by the slow path (INSTR_FAST_CURSOR).
 *
 * Everything unusual (first event of a thread, stack growth, pause, unbalanced exits, frames
 * left by longjmp, start-up, after the end, a signal handler that interrupts the runtime on
 * its own thread) goes to the out-of-line slow paths in core.c. */
#ifndef INSTR_RT_EVENT_H
#define INSTR_RT_EVENT_H

#include "clock.h"
#include "substrate.h"
#include "cursor.h"
#include "event_path.h"
#include "record.h"

#include <stdint.h>

enum instr_state {
    INSTR_STATE_UNINIT = 0,
    INSTR_STATE_IDLE,     /* nothing to record (no substrate, or no experiment directory) */
    INSTR_STATE_RUNNING,
    INSTR_STATE_PAUSED,   /* instr_pause(): new regions are not recorded */
    INSTR_STATE_FINISHED  /* results written; later events are ignored */
};

/* A stack entry is the region handle; this bit marks a region entered while paused, whose
 * exit must not be dispatched either. */
#define INSTR_FRAME_UNRECORDED 0x80000000u

enum instr_location_end { INSTR_LOC_RUNNING = 0, INSTR_LOC_THREAD_EXIT, INSTR_LOC_PROGRAM_END };

struct instr_location {
    instr_pstate *cct; /* the profile's cursor when it is this location's stack, else NULL */
    uint32_t *stack;   /* generic path: open regions, innermost last */
    uint32_t depth, cap;
    int busy;          /* generic path: inside a substrate; a handler's events are dropped */
    int direct;        /* on the direct trace path: no core stack (instr_tls_trace) */
    void *sub[INSTR_MAX_SUBSTRATES];
    uint32_t id;
    int tid;
    int ended;       /* enum instr_location_end */
    uint64_t unmatched_exits, closed_at_end;
};

/* A location's stack depth and frames: the thread that ends the process reads (and closes)
 * them while the location's thread may still be inside an event (instr_core_close_all), so
 * every access is atomic. Relaxed: the ending thread takes a snapshot and reads nothing the
 * values would cover; on x86-64 these are the plain movs the accesses were before. */
static inline uint32_t instr_loc_depth(const instr_location *loc)
{
    return __atomic_load_n(&loc->depth, __ATOMIC_RELAXED);
}

static inline void instr_loc_set_depth(instr_location *loc, uint32_t d)
{
    __atomic_store_n(&loc->depth, d, __ATOMIC_RELAXED);
}

static inline uint32_t instr_loc_frame(const instr_location *loc, uint32_t i)
{
    return __atomic_load_n(&loc->stack[i], __ATOMIC_RELAXED);
}

static inline void instr_loc_set_frame(instr_location *loc, uint32_t i, uint32_t f)
{
    __atomic_store_n(&loc->stack[i], f, __ATOMIC_RELAXED);
}

/* instr_fast: which path events take. */
enum {
    INSTR_FAST_OFF = 0, /* the generic path (or not recording) */
    INSTR_FAST_INLINE,  /* the cursor path, inline (profile only, TSC) */
    INSTR_FAST_CURSOR,  /* the cursor is the stack, through the slow path (other timers) */
    INSTR_FAST_TRACE,   /* the direct trace path, inline (trace only, TSC) */
    INSTR_FAST_TABLE,   /* hooks and cyg through the jump table instr_event_path_table, other
                         * adapters through the slow paths: the cursor with metrics, plugins
                         * or both, or the plugins alone (TSC) */
    INSTR_FAST_TRACE_CLOCK /* the direct trace path out of line (trace only, other timers):
                            * the hooks through instr_event_path_table, other adapters through
                            * the slow paths, which append with that clock */
};
/* 1 for both flags of the direct trace path. */
static inline int instr_fast_is_direct(int fast)
{
    return fast == INSTR_FAST_TRACE || fast == INSTR_FAST_TRACE_CLOCK;
}
extern int instr_fast __attribute__((visibility("hidden")));
/* The calling thread's cursor state: its location's, or instr_cct_idle (whose cursor never
 * matches) before the thread's first event, after its end and on the generic path. */
extern _Thread_local instr_pstate *instr_tls_cct __attribute__((tls_model("initial-exec")));
extern instr_pstate instr_cct_idle;
/* The calling thread's trace state while its location is on the direct trace path, else
 * NULL (before its first event, after it left the path, after its end). */
extern _Thread_local struct instr_tloc *instr_tls_trace __attribute__((tls_model("initial-exec")));
/* Events dropped because a signal handler arrived while its thread was inside the runtime. */
extern uint64_t instr_events_dropped_in_handlers;

/* The caller's stack address at a hook: the hook's canonical frame address (one lea with
 * gcc). Hooks pass it so that frames left by longjmp are noticed (cursor.h). */
#define INSTR_CALLER_SP() ((uintptr_t)__builtin_dwarf_cfa())

typedef struct instr_dispatch {
    instr_event_fn fn;
    unsigned slot;
} instr_dispatch;

extern int instr_state;
extern unsigned instr_n_enter, instr_n_exit;
extern instr_dispatch instr_enter_tab[INSTR_MAX_SUBSTRATES];
extern instr_dispatch instr_exit_tab[INSTR_MAX_SUBSTRATES];
extern _Thread_local instr_location *instr_tls_loc __attribute__((tls_model("initial-exec")));

/* sp: the caller's stack address (INSTR_CALLER_SP), or 0 for events without a frame of their
 * own (manual regions, OpenMP constructs, MPI calls, XRay). */
void instr_event_enter_slow(uint32_t region, uintptr_t sp) __attribute__((cold));
void instr_event_exit_slow(uint32_t region) __attribute__((cold));

/* Around work that takes a lock or allocates on the calling thread outside the hot path
 * (registering a region): 0 when the thread is already inside such work (a signal handler
 * interrupted it), in which case the caller drops its event; else 1, and the caller ends it
 * with instr_core_guard_end. */
int instr_core_guard_begin(void);
void instr_core_guard_end(void);
/* The calling thread jumps to stack pointer sp (longjmp): its frames below are closed now. */
void instr_event_longjmp(uintptr_t sp);
/* An event source's first sight of a function (its registration), from any event: 1 with
 * the registry locked inside instr_core_guard_begin, ended by instr_core_registry_unlock; 0,
 * with no lock taken and the event counted as dropped, when a signal handler interrupted
 * this thread inside the runtime. */
int instr_core_registry_lock(void);
void instr_core_registry_unlock(void);

/* Starts the runtime if needed; 1 when events are being recorded (running or paused). */
int instr_events_wanted(void);

static inline int instr_state_get(void) { return __atomic_load_n(&instr_state, __ATOMIC_ACQUIRE); }

/* instr_fast, read once per event by the hooks and cyg (relaxed: the flag only ever goes
 * off, and an event that still sees it on belongs to the time before). */
static inline int instr_fast_get(void) { return __atomic_load_n(&instr_fast, __ATOMIC_RELAXED); }

/* The direct trace path's append when `on` (the caller's test of its flag): the record of
 * region's event (`kind`) at now(), the clock's read inlined; 0 when the thread is not on
 * the path or the handle is not a region's. */
static inline __attribute__((always_inline)) int instr_event_trace_put(int on, uint32_t region,
                                                                     uint32_t kind,
                                                                     uint64_t (*now)(void))
{
#ifdef INSTR_RT_HAVE_TRACE
    struct instr_tloc *s = instr_tls_trace;
    if (__builtin_expect(!on || !s || region - 1 >= INSTR_TREC_ARG_MASK, 0))
        return 0;
    instr_record_put(s, kind << INSTR_TREC_KIND_SHIFT | region, now());
    return 1;
#else
    (void)on;
    (void)region;
    (void)kind;
    (void)now;
    return 0;
#endif
}

/* instr_event_trace_direct with the flag the caller read (`fast`). Always inlined, also into
 * cold callers (cyg's slow paths), which gcc would otherwise give a call of it. */
static inline __attribute__((always_inline)) int instr_event_trace_direct_in(int fast, uint32_t region, uint32_t kind)
{
    return instr_event_trace_put(fast == INSTR_FAST_TRACE, region, kind, instr_clock_tsc);
}

/* The same on the direct trace path with another timer than the TSC (INSTR_FAST_TRACE_CLOCK),
 * for the hooks' functions in instr_event_path_table, which run only with that flag. */
static inline __attribute__((always_inline)) int instr_event_trace_direct_clock(uint32_t region,
                                                                              uint32_t kind)
{
    return instr_event_trace_put(1, region, kind, instr_clock_other);
}

/* 1 when the event was recorded by the direct trace path: `kind` is INSTR_TREC_ENTER or
 * INSTR_TREC_LEAVE. Handles outside 1..INSTR_TREC_ARG_MASK (INSTR_HANDLE_UNREGISTERED,
 * INSTR_HANDLE_EXCLUDED) are not recorded here. The flag's own load, so that the cursor
 * path's test stays one compare with memory. */
static inline __attribute__((always_inline)) int instr_event_trace_direct(uint32_t region,
                                                                        uint32_t kind)
{
    return instr_event_trace_direct_in(instr_fast_get(), region, kind);
}

/* 1 when the event was recorded by the cursor path (or, for a region handle, the direct
 * trace path); the region named by its handle, or with by_key by the key the adapter gave
 * its node (instr_event_key). */
static inline int instr_event_enter_fast_by(int by_key, uintptr_t what, uintptr_t sp)
{
    instr_pstate *s = instr_tls_cct;
    /* A relaxed load (one compare with memory): the flag only ever goes off, and an event
     * that still sees it on belongs to the time before. */
    if (__builtin_expect(__atomic_load_n(&instr_fast, __ATOMIC_RELAXED) != INSTR_FAST_INLINE, 0))
        return !by_key && instr_event_trace_direct((uint32_t)what, 0);
    instr_pnode *n = instr_cct_push(s, by_key, what, sp);
    if (__builtin_expect(!n, 0))
        return 0;
    n->t_enter = instr_clock_tsc();
    return 1;
}

static inline int instr_event_exit_fast_by(int by_key, uintptr_t what)
{
    instr_pstate *s = instr_tls_cct;
    if (__builtin_expect(__atomic_load_n(&instr_fast, __ATOMIC_RELAXED) != INSTR_FAST_INLINE, 0))
        return !by_key && instr_event_trace_direct((uint32_t)what, 1);
    instr_pnode *n = instr_cct_top(s, by_key, what);
    if (__builtin_expect(!n, 0))
        return 0;
    instr_cct_pop(s, n, instr_clock_tsc());
    return 1;
}

/* The way in of the adapters whose events have a stack frame of their own (hooks by region
 * handle, cyg by key), which read the flag once: the inline cursor path; in every other mode
 * one jump through instr_event_path_table (event_path.h), which start-up and every change of the
 * flag set to what the mode does (the cursor path with metrics or plugins, the plugins alone,
 * the direct trace path, or the adapter's slow path), so that no mode pays a test for
 * another. 1 when the event was taken care of (recorded, or handed to instr_event_path_table, which
 * takes the adapter's slow path itself when it does not record it); 0: the inline cursor
 * path missed, the caller takes its slow path. */
static inline int instr_event_enter_framed(int by_key, uintptr_t what, uintptr_t sp, void *ctx)
{
    instr_pstate *s = instr_tls_cct;
    if (__builtin_expect(instr_fast_get() == INSTR_FAST_INLINE, 1)) {
        instr_pnode *n = instr_cct_push(s, by_key, what, sp);
        if (__builtin_expect(!n, 0))
            return 0;
        n->t_enter = instr_clock_tsc();
        return 1;
    }
    (by_key ? instr_event_path_table.enter_key
            : instr_event_path_table.enter_region)(ctx, what, s, sp);
    return 1;
}

static inline int instr_event_exit_framed(int by_key, uintptr_t what)
{
    instr_pstate *s = instr_tls_cct;
    if (__builtin_expect(instr_fast_get() == INSTR_FAST_INLINE, 1)) {
        instr_pnode *n = instr_cct_top(s, by_key, what);
        if (__builtin_expect(!n, 0))
            return 0;
        instr_cct_pop(s, n, instr_clock_tsc());
        return 1;
    }
    (by_key ? instr_event_path_table.exit_key : instr_event_path_table.exit_region)(s, what);
    return 1;
}

static inline int instr_event_enter_fast(uint32_t region, uintptr_t sp)
{
    return instr_event_enter_fast_by(0, region, sp);
}

static inline int instr_event_exit_fast(uint32_t region) { return instr_event_exit_fast_by(0, region); }

/* Names the calling thread's innermost open node, when it is `region`'s, with the adapter's
 * key for it (never 0), so that later events find it by key without a lookup of their own. */
static inline void instr_event_key(uint32_t region, uintptr_t key)
{
    instr_pnode *n = instr_tls_cct->cursor;
    if (n->region == region)
        n->key = key;
}

/* The generic path. Adapters whose events have a stack frame of their own (hooks, cyg) call
 * instr_event_enter_fast(region, INSTR_CALLER_SP()) and this from their own slow path. */
static inline void instr_event_enter_generic(uint32_t region, uintptr_t sp)
{
    instr_location *loc = instr_tls_loc;
    if (__builtin_expect(instr_state_get() != INSTR_STATE_RUNNING || !loc || loc->cct ||
                             loc->direct || loc->busy || instr_loc_depth(loc) == loc->cap, 0)) {
        instr_event_enter_slow(region, sp);
        return;
    }
    /* Depth first: a handler arriving in between pushes above this frame, not onto it. */
    uint32_t d = instr_loc_depth(loc);
    instr_loc_set_depth(loc, d + 1);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    instr_loc_set_frame(loc, d, region);
    uint64_t t = instr_clock_now();
    loc->busy = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    for (unsigned i = 0; i < instr_n_enter; i++)
        instr_enter_tab[i].fn(loc->sub[instr_enter_tab[i].slot], region, t);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    loc->busy = 0;
}

static inline void instr_event_exit_generic(uint32_t region)
{
    instr_location *loc = instr_tls_loc;
    uint32_t d;
    if (__builtin_expect(instr_state_get() != INSTR_STATE_RUNNING || !loc || loc->cct ||
                             loc->direct || loc->busy || (d = instr_loc_depth(loc)) == 0 ||
                             instr_loc_frame(loc, d - 1) != region, 0)) {
        instr_event_exit_slow(region);
        return;
    }
    uint64_t t = instr_clock_now();
    instr_loc_set_depth(loc, d - 1);
    loc->busy = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    for (unsigned i = 0; i < instr_n_exit; i++)
        instr_exit_tab[i].fn(loc->sub[instr_exit_tab[i].slot], region, t);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    loc->busy = 0;
}

/* An enter that is not recorded (a region being throttled, runtime/throttle/): the generic
 * path's stack gets an unrecorded frame, so that the region's next exit closes this frame
 * and not a recorded one of the same region further down; no substrate sees either. */
void instr_event_enter_unrecorded(uint32_t region) __attribute__((cold));

/* The generic path out of line (core.c), so that an adapter's cursor path needs no stack
 * frame of its own. */
void instr_event_enter_generic_out(uint32_t region, uintptr_t sp) __attribute__((cold));
void instr_event_exit_generic_out(uint32_t region) __attribute__((cold));

/* Enter of a region without a frame of its own (manual, XRay, OpenMP, MPI). */
static inline void instr_event_enter(uint32_t region)
{
    if (!instr_event_enter_fast(region, 0))
        instr_event_enter_generic_out(region, 0);
}

static inline void instr_event_exit(uint32_t region)
{
    if (!instr_event_exit_fast(region))
        instr_event_exit_generic_out(region);
}

#endif
