/* events.c — the trace substrate's hot path.
 *
 * One compact record (timestamp, kind and region: 12 bytes) appended to the calling thread's
 * own buffer: no OTF2 call, no lock, no allocation, no system call. The records become OTF2
 * records later, off the hot path (convert.c): when the INSTR_TOTAL_MEMORY budget is full,
 * before an MPI record of the same thread, and at the end.
 *
 * Signals: `busy` is set around the append, so a signal handler that interrupts it (or the
 * slow path, buffer.c) on the same thread finds it set, and its events are dropped and
 * counted (instr_trace_put_slow) instead of landing in the middle of the interrupted record.
 * A handler that runs while the thread is not inside the trace substrate records normally:
 * it finishes before the interrupted code goes on, so every record stays whole. */
#include "trace.h"

static inline void put(instr_tloc *s, uint32_t w, uint64_t t)
{
    if (__builtin_expect(__atomic_load_n(&s->busy, __ATOMIC_RELAXED), 0)) {
        instr_trace_put_busy(s);
        return;
    }
    __atomic_store_n(&s->busy, 1, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    instr_trec *p = s->pos;
    if (__builtin_expect(p >= s->lim, 0)) {
        instr_trace_put_slow(s, w, t);
    } else {
        p->t = t;
        p->w = w;
        /* release: the end reads a running thread's records up to `pos` (buffer.c) */
        __atomic_store_n(&s->pos, p + 1, __ATOMIC_RELEASE);
    }
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    __atomic_store_n(&s->busy, 0, __ATOMIC_RELAXED);
}

void instr_trace_enter(void *data, uint32_t region, uint64_t t)
{
    if (__builtin_expect(data != NULL, 1))
        put(data, region, t);
}

void instr_trace_exit(void *data, uint32_t region, uint64_t t)
{
    if (__builtin_expect(data != NULL, 1))
        put(data, (uint32_t)INSTR_TREC_LEAVE << INSTR_TREC_KIND_SHIFT | region, t);
}

void instr_trace_put(instr_tloc *s, uint32_t w, uint64_t t) { put(s, w, t); }
