/* event.h — the event core's hot path: enter and exit of a region on the calling thread.
 *
 * Inlined into every adapter (hooks, cyg, manual). Fast path: one load of the global state,
 * one TLS load, a push or pop on the per-thread stack, one clock read, the dispatch table.
 * Everything unusual (first event of a thread, stack growth, pause, unbalanced exits,
 * start-up, after the end) goes to the out-of-line slow paths in core.c. */
#ifndef INSTR_RT_EVENT_H
#define INSTR_RT_EVENT_H

#include "clock.h"
#include "substrate.h"

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
    uint32_t *stack; /* open regions, innermost last */
    uint32_t depth, cap;
    void *sub[INSTR_MAX_SUBSTRATES];
    uint32_t id;
    int tid;
    int ended;       /* enum instr_location_end */
    uint64_t unmatched_exits, closed_at_end;
};

typedef struct instr_dispatch {
    instr_event_fn fn;
    unsigned slot;
} instr_dispatch;

extern int instr_state;
extern unsigned instr_n_enter, instr_n_exit;
extern instr_dispatch instr_enter_tab[INSTR_MAX_SUBSTRATES];
extern instr_dispatch instr_exit_tab[INSTR_MAX_SUBSTRATES];
extern _Thread_local instr_location *instr_tls_loc __attribute__((tls_model("initial-exec")));

void instr_event_enter_slow(uint32_t region) __attribute__((cold));
void instr_event_exit_slow(uint32_t region) __attribute__((cold));

/* Starts the runtime if needed; 1 when events are being recorded (running or paused). */
int instr_events_wanted(void);

static inline int instr_state_get(void) { return __atomic_load_n(&instr_state, __ATOMIC_ACQUIRE); }

static inline void instr_event_enter(uint32_t region)
{
    instr_location *loc = instr_tls_loc;
    if (__builtin_expect(instr_state_get() != INSTR_STATE_RUNNING || !loc ||
                             loc->depth == loc->cap, 0)) {
        instr_event_enter_slow(region);
        return;
    }
    loc->stack[loc->depth++] = region;
    uint64_t t = instr_clock_now();
    for (unsigned i = 0; i < instr_n_enter; i++)
        instr_enter_tab[i].fn(loc->sub[instr_enter_tab[i].slot], region, t);
}

static inline void instr_event_exit(uint32_t region)
{
    instr_location *loc = instr_tls_loc;
    if (__builtin_expect(instr_state_get() != INSTR_STATE_RUNNING || !loc || loc->depth == 0 ||
                             loc->stack[loc->depth - 1] != region, 0)) {
        instr_event_exit_slow(region);
        return;
    }
    uint64_t t = instr_clock_now();
    loc->depth--;
    for (unsigned i = 0; i < instr_n_exit; i++)
        instr_exit_tab[i].fn(loc->sub[instr_exit_tab[i].slot], region, t);
}

#endif
