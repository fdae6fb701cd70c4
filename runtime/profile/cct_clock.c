/* cct_clock.c — the cursor path with another timer than the TSC (INSTR_FAST_CURSOR; core/event.h,
 * cct.h).
 *
 * The profile alone with a clock_gettime clock (INSTR_TIMER=monotonic, monotonic_raw,
 * realtime, or auto where the TSC is not invariant): the inline cursor path reads the TSC, so
 * the hooks and cyg jump through instr_event_path_table to these functions, which take the
 * inline path's steps with instr_clock_now, instead of going through their slow paths to the
 * core's (core.c, INSTR_FAST_CURSOR), which the other sources keep taking. A miss goes to the
 * adapter's slow path, as on every cursor path.
 *
 * Hot: no locks, no allocation; the clock's read is the vDSO's (no system call where the
 * kernel gives the clock one). */
#include "profile.h"
#include "../core/clock.h"
#include "../core/event.h"

static inline __attribute__((always_inline)) void enter_node(instr_pstate *s, instr_pnode *n,
                                                             uintptr_t sp)
{
    instr_cct_claim(s, n, sp);
    n->t_enter = instr_clock_other();
}

static inline __attribute__((always_inline)) void exit_node(instr_pstate *s, instr_pnode *n)
{
    instr_cct_pop(s, n, instr_clock_other());
}

INSTR_CCT_MODE_ENTRY_POINTS(clock, enter_node, exit_node)

void instr_cct_path_clock(void) { instr_event_path_set(&instr_cct_clock_ops); }
