/* cct_trace.c — the cursor path with records: the profile and the trace together
 * (INSTR_FAST_TABLE with the records' substrate; core/event.h, cct.h).
 *
 * While the profile and the trace are the only substrates that want enter/exit, the cursor stays the thread's only stack and every event of the cursor appends
 * the trace's compact record itself (core/record.h, inlined): no dispatch table, no core
 * stack, no call into the trace. The cursor's slow paths (cct.c) append the records of what
 * they do: a new call path, frames closed by longjmp, unbalanced exits, the end of a thread
 * or of the program; so the trace gets the same balanced Enter/Leave records, at the same
 * times as the profile's, as on the generic path. With another timer than the TSC, the same
 * steps read that clock (trace_clock); the other sources' slow paths read it too.
 *
 * The cursor is taken while the record is appended, as the generic path sets its busy flag
 * around the substrates: a signal handler's events meanwhile are dropped and counted, so the
 * profile and the trace never disagree on where a handler's frames are.
 *
 * Hot: no locks, no allocation, no system call (the append's slow path, when its chunk is
 * full, is the trace's). */
#include "profile.h"
#include "../core/clock.h"
#include "../core/event.h"
#include "../core/record.h"

#ifdef INSTR_RT_HAVE_TRACE
/* With another timer than the TSC, the same steps with that clock (trace_clock). */
void instr_cct_path_trace(void)
{
    instr_event_path_set(instr_clock_use_tsc ? &instr_cct_trace_ops : &instr_cct_trace_clock_ops);
}

/* The node n, instr_cct_next's: the cursor taken (one store: busy is the state's first
 * member), n's open visit and its time, its Enter record, n made the cursor. now: the
 * clock's read, inlined. */
static inline __attribute__((always_inline)) void enter_with(instr_pstate *s, instr_pnode *n,
                                                             uintptr_t sp, uint64_t (*now)(void))
{
    s->cursor = &s->busy;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    n->child_ticks = 0;
    n->sp = sp;
    uint64_t t = now();
    n->t_enter = t;
    instr_record_append(s->rec, (uint32_t)INSTR_TREC_ENTER << INSTR_TREC_KIND_SHIFT | n->region, t);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    s->cursor = n;
}

/* The cursor taken, the node's statistics, its Leave record, the parent made the cursor. */
static inline __attribute__((always_inline)) void exit_with(instr_pstate *s, instr_pnode *n,
                                                            uint64_t (*now)(void))
{
    uint64_t t = now();
    instr_pnode *parent = n->parent;
    s->cursor = &s->busy;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    instr_cct_close_in(n, parent, t);
    instr_record_append(s->rec, (uint32_t)INSTR_TREC_LEAVE << INSTR_TREC_KIND_SHIFT | n->region, t);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    s->cursor = parent;
}

#define ENTER_TSC(s, n, sp) enter_with(s, n, sp, instr_clock_tsc)
#define EXIT_TSC(s, n) exit_with(s, n, instr_clock_tsc)
#define ENTER_CLOCK(s, n, sp) enter_with(s, n, sp, instr_clock_other)
#define EXIT_CLOCK(s, n) exit_with(s, n, instr_clock_other)
INSTR_CCT_MODE_ENTRY_POINTS(trace, ENTER_TSC, EXIT_TSC)
INSTR_CCT_MODE_ENTRY_POINTS(trace_clock, ENTER_CLOCK, EXIT_CLOCK)
#endif
