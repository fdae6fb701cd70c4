/* xcharge.h — the charge of a substrate that rides on the cursor with its own events
 * (INSTR_SUBSTRATE_CURSOR_EVENTS, substrate.h: the critical path), in the part the cursor
 * path with events does inline (profile/cct_events.c).
 *
 * Such a substrate charges the ticks between two events of a thread to the region open
 * innermost in between: per region handle in its current segment, and in a sum of every
 * charge. The common event, computation inside an open region, is a few adds and stores;
 * calling the substrate's enter and exit for it cost more than that (the call, the
 * registers it clobbers, the tests it repeats), so the substrate's location data begins
 * with this state and the cursor does that common case itself. Whatever else the
 * substrate counts it marks in `hold`: while any of it is nonzero, and when no region or
 * too many are open, the cursor calls the substrate's own enter and exit instead, which
 * keep the same state (its stack and depth included).
 *
 * Hot: no locks, no calls; the arrays are reserved by the substrate for every handle. */
#ifndef INSTR_RT_XCHARGE_H
#define INSTR_RT_XCHARGE_H

#include <stdint.h>

#define INSTR_XCHARGE_HANDLES (4u << 20) /* the registry's limit (registry.c) */
/* The handle under which the stack keeps a region without one (any handle from
 * INSTR_XCHARGE_HANDLES on): its ticks are outside every region, which the substrate adds
 * when it closes the segment (seg and touched have room for it). */
#define INSTR_XCHARGE_NONE INSTR_XCHARGE_HANDLES
#define INSTR_XCHARGE_DEPTH 4096u        /* deeper frames: the substrate's own enter/exit */

typedef struct instr_xcharge {
    /* The substrate's reasons to see every event itself (its own counters, one each), read
     * as one word by the cursor. */
    union {
        uint16_t by[4];
        uint64_t any;
    } hold;
    uint64_t t_last;   /* ticks of the last charge */
    uint32_t depth;    /* open regions */
    uint32_t ntouched; /* handles in touched */
    uint64_t useful;   /* ticks charged to computation in the segment (regions' and outside) */
    uint64_t outside;  /* of them, outside every region (and, once the segment is closed,
                        * in regions without a handle: seg[INSTR_XCHARGE_NONE]) */
    uint64_t *seg;     /* per handle (INSTR_XCHARGE_HANDLES + 1): ticks in the segment;
                        * nonzero once touched */
    uint32_t *touched; /* the handles touched in the segment (room for as many) */
    uint32_t stack[INSTR_XCHARGE_DEPTH]; /* the open regions' handles, outermost first */
} instr_xcharge;

/* 1 when the cursor may do the event itself with d regions open: nothing held, at least
 * one region open and room for one more. */
static inline int instr_xcharge_inline(const instr_xcharge *x, uint32_t d)
{
    return (x->hold.any == 0) & (d - 1u < INSTR_XCHARGE_DEPTH - 1u);
}

/* The first charge of handle h in the segment: out of line, so that the common charge keeps
 * few registers. */
static __attribute__((noinline, cold, unused)) void instr_xcharge_first(instr_xcharge *x,
                                                                      uint32_t h, uint64_t dt)
{
    x->touched[x->ntouched++] = h;
    x->seg[h] = dt | !dt; /* a touched handle never reads as untouched */
}

/* Charges the ticks up to t to the innermost of d >= 1 open regions (d <= the depth kept):
 * the common case of every event. */
static inline __attribute__((always_inline)) void instr_xcharge_top(instr_xcharge *x, uint32_t d,
                                                                    uint64_t t)
{
    uint64_t dt = t > x->t_last ? t - x->t_last : 0;
    x->t_last = t;
    x->useful += dt;
    uint32_t h = x->stack[d - 1];
    uint64_t v = x->seg[h];
    if (__builtin_expect(!v, 0)) {
        instr_xcharge_first(x, h, dt);
        return;
    }
    x->seg[h] = v + dt;
}

/* The handle the stack keeps for region. */
static inline uint32_t instr_xcharge_handle(uint32_t region)
{
    return region < INSTR_XCHARGE_HANDLES ? region : INSTR_XCHARGE_NONE;
}

/* The common enter of region at t (instr_xcharge_inline said so for d = x->depth). */
static inline __attribute__((always_inline)) void instr_xcharge_enter(instr_xcharge *x, uint32_t d,
                                                                      uint32_t region, uint64_t t)
{
    instr_xcharge_top(x, d, t);
    x->stack[d] = instr_xcharge_handle(region);
    x->depth = d + 1;
}

/* The common exit at t, the same way. */
static inline __attribute__((always_inline)) void instr_xcharge_exit(instr_xcharge *x, uint32_t d,
                                                                     uint64_t t)
{
    instr_xcharge_top(x, d, t);
    x->depth = d - 1;
}

#endif
