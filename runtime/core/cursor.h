/* cursor.h — the call-path cursor: one thread's calling-context tree and the cursor in it, the
 * data model the profile writes and the inline part of the event core's cursor path.
 *
 * The node *is* the frame. A node stands for one call path, and a call path is on the
 * thread's stack at most once at a time (recursion makes deeper nodes), so the open visit's
 * own fields (entry time, callee time so far, stack address) live in the node. The cursor,
 * the innermost open region's node, is the thread's only stack while the substrate that owns
 * the cursor (a substrate with INSTR_SUBSTRATE_CURSOR, substrate.h: the profile) is the one
 * that wants enter/exit (docs/performance.md, "hot path"): enter moves the cursor to a child,
 * exit moves it back to the parent. That substrate's location data is the cursor state
 * (instr_pstate) and it implements the cursor's slow paths declared below (profile/cct.c).
 *
 * Signal handlers: the fast paths below change one word (the cursor) to claim or release a
 * frame, and the slow paths park the cursor on a sentinel node while they work, on which
 * every fast path fails; a handler that arrives then is dropped and counted
 * (docs/runtime.md, "signal handlers"). */
#ifndef INSTR_RT_CURSOR_H
#define INSTR_RT_CURSOR_H

#include <stddef.h>
#include <stdint.h>

struct instr_substrate_location;

/* A region handle no registered region has: sentinel nodes carry it, so no event matches them. */
#define INSTR_CCT_NO_REGION 0xfffffffeu

/* One region's counts on one thread, kept on the cursor path by the substrate that counts
 * visits there (INSTR_SUBSTRATE_COUNTS, substrate.h: throttling, runtime/throttle/). The
 * cursor's nodes point to their region's (instr_pnode.rc), so that an event updates them
 * without a lookup; the substrate looks at them itself only when `left` runs out. */
typedef struct instr_rcount {
    uint32_t open;    /* recorded frames of the region open on the thread; other threads read
                       * it (relaxed), so every store is atomic */
    uint32_t unrec;   /* frames of the region entered unrecorded (throttle.h, step 1) */
    int64_t left;     /* exits until the substrate looks at the region again: the exit that
                       * brings it to 0 calls it (never set to 0) */
    uint64_t incl;    /* inclusive ticks of the region's outermost frames closed so far */
    uint64_t t_first; /* entry of the region's outermost open frame; 0: not known (the
                       * cursor path leaves it to its node, instr_cct_counts_firsts) */
} instr_rcount;

/* A recorded enter of the region, on the cursor (the node keeps its time). */
static inline void instr_rcount_enter(instr_rcount *k)
{
    __atomic_store_n(&k->open, k->open + 1, __ATOMIC_RELAXED);
}

/* A recorded exit of a frame of the region that lasted incl ticks (as the profile counts
 * them: t - its entry, 0 when the clock went backwards), before `left` is counted down
 * (instr_rcount_left). */
static inline void instr_rcount_exit(instr_rcount *k, uint64_t incl)
{
    uint32_t o = k->open - 1;
    __atomic_store_n(&k->open, o, __ATOMIC_RELAXED);
    /* The outermost frame closes: the next one's entry is not known yet. */
    if (__builtin_expect(o == 0, 1)) {
        k->incl += incl;
        k->t_first = 0;
    }
}

/* 1 when `left` ran out at this exit (the caller then calls instr_cct_counts_reached). */
static inline int instr_rcount_left(instr_rcount *k) { return --k->left == 0; }

typedef struct instr_pstats {
    uint64_t visits, incl, excl, min_incl, max_incl, min_excl, max_excl; /* ticks */
} instr_pstats;

typedef struct instr_pnode {
    /* The open visit (hot): what enter and exit touch. */
    uint32_t region;
    uint32_t depth;             /* 0 for the root */
    struct instr_pnode *parent;
    struct instr_pnode *last;   /* the child entered most recently: the next one in loops */
    uint64_t t_enter;           /* when the open visit began */
    uint64_t child_ticks;       /* inclusive ticks of the open visit's callees so far */
    uintptr_t sp;               /* stack address of the open visit's caller (longjmp check) */
    uintptr_t key;              /* the adapter's own name of the region, when it has one
                                 * (cyg: the function's address), else 0 */
    instr_rcount *rc;           /* counting on the cursor path (instr_pstate.counting):
                                 * the region's counts on this thread, never NULL; else NULL */
    instr_pstats s;
    /* The tree (cold). Children are a singly linked list. */
    struct instr_pnode *child, *sibling;
    uint32_t merged;            /* index in the merged tree, used only while writing */
    uint64_t *m;                /* with metrics on (metric_sums.c): per metric the inclusive
                                 * sum, the value at the open visit's enter, and the least and
                                 * greatest inclusive value of one visit; NULL otherwise */
} instr_pnode;

/* The cursor path with counts leaves the entry of a region's outermost open frame to that
 * frame's node: this writes it into the counts of every region open from n up, for a path
 * that needs them (the generic one, after instr_pause). */
static inline void instr_cct_counts_firsts(instr_pnode *n)
{
    /* Innermost first: the outermost frame of a region writes last. */
    for (; n && n->depth > 0; n = n->parent)
        if (n->rc)
            n->rc->t_first = n->t_enter;
}

/* A substrate plugin's enter or exit (instr_substrate_region_fn, instr_substrate_plugin.h). */
typedef void (*instr_cct_plugin_fn)(struct instr_substrate_location *loc, uint64_t t,
                                    uint32_t region, const uint64_t *metrics);

/* Per location. */
typedef struct instr_pstate {
    /* The cursor while a slow path or a plugin's function works (never matches). First, so
     * that taking the cursor is one store of the state's own address (cct_plugins.c). */
    instr_pnode busy;
    instr_pnode *cursor;        /* the innermost open region's node; &root when none */
    /* While a plugin's function runs with the cursor taken on the cursor path with plugins:
     * the node that becomes the cursor after it (cct_plugins.c), kept here rather than in a
     * second callee-saved register. */
    instr_pnode *after;
    instr_pnode root;           /* the virtual root; its stack address is the top of all */
    instr_pnode lost;           /* the cursor below a node that could not be created */
    instr_pnode *lost_parent;   /* where the cursor returns when the lost frames are closed */
    uint32_t lost_depth;        /* open frames below lost_parent */
    char *cur, *end;            /* node arena: free part of the current chunk */
    void *chunks;               /* chunks taken, linked through their first word */
    size_t next_chunk;
    uintptr_t stack_lo, stack_hi; /* the thread's own stack: frames elsewhere (sigaltstack,
                                   * coroutines) are never taken for frames left by longjmp */
    uint64_t dropped;           /* enters whose node could not be created */
    uint64_t resynced;          /* frames closed because the stack was left by longjmp */
    struct graft_node *grafts;  /* this location's graft frames, newest first (graft.c) */
    uint64_t *mvals;            /* the location's current metric values (runtime/metrics/) */
    uint32_t nm;                /* how many; 0: no metric is on */
    uint64_t mt;                /* when the slow paths last read them (the time they go to
                                 * the trace's records with, profile/cct.c) */
    /* With metrics on: how the cursor path reads them (metrics.h), else NULL; with substrate
     * plugins too, the location's own copy whose `flat` is 0 (cct_plugins.c). */
    const struct instr_metric_reader *mread;
    /* Substrate plugins on the cursor path (cct_plugins.c): this location's plugin location
     * and the null-terminated lists of the plugins' enter and exit functions; NULL when
     * none. */
    struct instr_substrate_location *ploc;
    const instr_cct_plugin_fn *penter, *pexit;
    /* The list's function when it has one, else NULL; instr_cct_plugins_none until the
     * plugins' location is attached (instr_cct_plugins1_*, cct_plugins.c, call them without
     * a test). */
    instr_cct_plugin_fn penter1, pexit1;
    /* 1: the plugins' functions are reentrant (INSTR_SUBSTRATE_PLUGIN_REENTRANT): called with
     * the cursor where the event leaves it, not taken (instr_cct_plugins_call). */
    int preent;
    /* The cursor path with records (INSTR_FAST_TABLE with the records' substrate, the trace;
     * profile/cct_trace.c): the location's records, which every enter and exit of the cursor,
     * fast or slow, appends to (instr_record_none when the location has none); NULL in every
     * other mode. Set by the event core when the location begins, cleared when it leaves the
     * cursor. */
    struct instr_tloc *rec;
    /* The cursor path with counts (INSTR_FAST_TABLE with the counting substrate, throttling;
     * profile/cct_counts.c): 1 while every node's rc is set and every enter and exit of the
     * cursor, fast or slow, updates it; cnt is the counting substrate's location data (NULL
     * when it has none: the nodes then share rc_none, which never runs out). Set by the event
     * core when the location begins, cleared when it leaves the cursor. */
    int counting;
    void *cnt;
    instr_rcount rc_none;
    /* The cursor path with events (INSTR_FAST_TABLE with a substrate with
     * INSTR_SUBSTRATE_CURSOR_EVENTS, the critical path; profile/cct_events.c): that
     * substrate's enter and exit and its location data, which every enter and exit of the
     * cursor, fast or slow, calls with the cursor taken; NULL in every other mode. Set by the
     * event core when the location begins, cleared when it leaves the cursor. */
    void (*xenter)(void *data, uint32_t region, uint64_t t);
    void (*xexit)(void *data, uint32_t region, uint64_t t);
    void *xdata;
} instr_pstate;

/* Set by the longjmp family (interpose/longjmp.c): this thread's stack was cut since its last
 * slow-path enter. */
extern _Thread_local int instr_cct_jumped __attribute__((tls_model("initial-exec")));

/* Closes the frames whose stack address lies below sp (the thread jumps there: longjmp);
 * returns how many. */
uint64_t instr_cct_cut(instr_pstate *s, uintptr_t sp);

/* The node every sentinel's `last` points to: its region never matches either. */
extern instr_pnode instr_cct_nomatch;

/* Makes the zeroed node n a child of parent for region (the tree's one way to link a node). */
static inline void instr_cct_link(instr_pnode *n, instr_pnode *parent, uint32_t region)
{
    n->region = region;
    n->depth = parent->depth + 1;
    n->parent = parent;
    n->last = &instr_cct_nomatch;
    n->s.min_incl = n->s.min_excl = UINT64_MAX;
    n->sibling = parent->child;
    parent->child = n;
}

/* Stats of one finished visit of n at time t; adds its inclusive time to the parent's open
 * visit. Returns that inclusive time. */
static inline uint64_t instr_cct_close_in(instr_pnode *n, instr_pnode *parent, uint64_t t)
{
    uint64_t incl = t - n->t_enter;
    uint64_t excl = incl - n->child_ticks;
    /* Guards against a clock that went backwards (TSC across sockets): one test for both,
     * since callee time is never negative, a negative incl makes excl negative too. */
    if (__builtin_expect((int64_t)excl < 0, 0)) {
        if ((int64_t)incl < 0)
            incl = 0;
        excl = incl >= n->child_ticks ? incl - n->child_ticks : 0;
    }
    n->s.visits++;
    /* Keeps gcc from packing the two additions into vector instructions (six for two). */
    __asm__("" : "+r"(incl));
    n->s.incl += incl;
    n->s.excl += excl;
    if (__builtin_expect(incl < n->s.min_incl, 0)) n->s.min_incl = incl;
    if (__builtin_expect(incl > n->s.max_incl, 0)) n->s.max_incl = incl;
    if (__builtin_expect(excl < n->s.min_excl, 0)) n->s.min_excl = excl;
    if (__builtin_expect(excl > n->s.max_excl, 0)) n->s.max_excl = excl;
    parent->child_ticks += incl;
    return incl;
}

static inline void instr_cct_close(instr_pnode *n, uint64_t t) { instr_cct_close_in(n, n->parent, t); }

/* Whether n is the region named `what`: its handle, or with by_key its key (a constant at
 * every call, so the compiler keeps one compare). */
static inline int instr_cct_is(const instr_pnode *n, int by_key, uintptr_t what)
{
    return by_key ? n->key == what : n->region == (uint32_t)what;
}

/* Fast enter: the child of the cursor entered last is the region (instr_cct_is) and the
 * caller's stack address lies below the cursor's (a real callee, not a frame left by
 * longjmp). Returns the node, now the cursor, for the caller to stamp; NULL: take the slow
 * path. `sp` 0: an event without a stack frame of its own (manual regions, OpenMP, MPI),
 * which inherits the cursor's. */
static inline instr_pnode *instr_cct_push(instr_pstate *s, int by_key, uintptr_t what,
                                          uintptr_t sp)
{
    instr_pnode *p = s->cursor;
    instr_pnode *n = p->last;
    if (__builtin_expect(!instr_cct_is(n, by_key, what), 0))
        return 0;
    if (sp) {
        if (__builtin_expect(p->sp <= sp, 0))
            return 0;
    } else {
        sp = p->sp;
    }
    /* The cursor first: a handler arriving from here on enters below n, never reuses it. */
    s->cursor = n;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    n->child_ticks = 0;
    n->sp = sp;
    return n;
}

/* Fast exit: the cursor is the region's node. Returns it (still the cursor) or NULL. */
static inline instr_pnode *instr_cct_top(instr_pstate *s, int by_key, uintptr_t what)
{
    instr_pnode *n = s->cursor;
    return __builtin_expect(instr_cct_is(n, by_key, what), 1) ? n : 0;
}

static inline void instr_cct_pop(instr_pstate *s, instr_pnode *n, uint64_t t)
{
    instr_pnode *parent = n->parent;
    instr_cct_close_in(n, parent, t);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    s->cursor = parent;
}

/* The cursor's next node for an enter with a frame of its own (sp != 0): the cursor's last
 * child when it is the region and sp lies below the cursor's frame, else NULL. Nothing is
 * stored: the caller claims the frame (instr_cct_push's steps, or the cursor taken first). */
static inline instr_pnode *instr_cct_next(instr_pstate *s, int by_key, uintptr_t what,
                                          uintptr_t sp)
{
    instr_pnode *p = s->cursor;
    instr_pnode *n = p->last;
    if (__builtin_expect(!instr_cct_is(n, by_key, what) || p->sp <= sp, 0))
        return 0;
    return n;
}

/* instr_cct_push's stores for instr_cct_next's node n: the cursor first (a handler arriving
 * from here on enters below n, never reuses it), then the open visit's fields. */
static inline void instr_cct_claim(instr_pstate *s, instr_pnode *n, uintptr_t sp)
{
    s->cursor = n;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    n->child_ticks = 0;
    n->sp = sp;
}

/* Implemented by the counting substrate (runtime/throttle/), on the location's own thread:
 * the counts of region on the thread of s (s->cnt's), created if needed; &s->rc_none when
 * they cannot be made. Slow paths only (a new node). */
instr_rcount *instr_cct_counts_of(instr_pstate *s, uint32_t region);
/* An exit at t of the node n, whose counts ran out of `left`: the substrate looks at them
 * and sets `left` again. Called with the cursor consistent (given back, or taken by a slow
 * path) and n's parent still open. */
void instr_cct_counts_reached(instr_pstate *s, instr_pnode *n, uint64_t t);

/* The slow paths of the cursor when it is the thread's only stack (event.h), implemented by
 * the substrate that owns the cursor (profile/cct.c). They take the
 * cursor off the fast paths while they work; 0 when done, -1 when the cursor was already
 * taken (a signal handler interrupted a slow path of its thread: the caller drops the event).
 * `sp` as for instr_cct_push. */
int instr_cct_enter_slow(instr_pstate *s, uint32_t region, uintptr_t sp);
int instr_cct_exit_slow(instr_pstate *s, uint32_t region, uint64_t *unmatched);
/* Closes, at t, the open frames deeper than `depth`; returns how many. */
uint64_t instr_cct_close_above(instr_pstate *s, uint32_t depth, uint64_t t);
/* Stack depth of the cursor (open frames). */
uint32_t instr_cct_depth(const instr_pstate *s);
/* The regions of the open frames, outermost first, into out[0..depth-1]; forgets frames
 * below a node that could not be created. Returns the depth. */
uint32_t instr_cct_path(instr_pstate *s, uint32_t *out, uint32_t cap);
/* The innermost open region's node, or NULL when none or unknown. */
instr_pnode *instr_cct_current(instr_pstate *s);

#endif
