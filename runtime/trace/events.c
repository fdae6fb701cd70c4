/* events.c — the trace substrate's hot path.
 *
 * One Enter or Leave record into the calling thread's own OTF2 event writer: no lock (OTF2
 * takes its archive lock only when a writer is created or closed), no allocation (event
 * chunks come from pool.c, recycled once the budget is reached), no system call except when
 * the thread's buffer is full and OTF2 flushes it to disk (recorded as a BufferFlush).
 *
 * A location without a writer takes the slow path: an MPI job's location waiting for
 * MPI_Init (trace.c), or one that is not traced.
 *
 * Region handles are 1..n; OTF2 region references are handle - 1, so the definitions are
 * dense from 0. */
#include "trace.h"

static inline uint64_t monotone(instr_tloc *s, uint64_t t)
{
    /* A location's records must not go back in time. The clock is invariant TSC or
     * CLOCK_MONOTONIC, so this only matters for a TSC that differs between cores. */
    if (__builtin_expect(t < s->last, 0))
        t = s->last;
    s->last = t;
    return t;
}

void instr_trace_enter(void *data, uint32_t region, uint64_t t)
{
    instr_tloc *s = data;
    if (__builtin_expect(!s || !s->writer, 0)) {
        instr_trace_no_writer(s, 0, region, t);
        return;
    }
    t = monotone(s, t);
    if (__builtin_expect(OTF2_EvtWriter_Enter(s->writer, NULL, t, region - 1) != OTF2_SUCCESS, 0))
        s->refused++;
}

void instr_trace_exit(void *data, uint32_t region, uint64_t t)
{
    instr_tloc *s = data;
    if (__builtin_expect(!s || !s->writer, 0)) {
        instr_trace_no_writer(s, 1, region, t);
        return;
    }
    t = monotone(s, t);
    if (__builtin_expect(OTF2_EvtWriter_Leave(s->writer, NULL, t, region - 1) != OTF2_SUCCESS, 0))
        s->refused++;
}
