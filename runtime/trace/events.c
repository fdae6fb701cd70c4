/* events.c — the trace substrate's hot path.
 *
 * One compact record (timestamp, kind and region: 12 bytes) appended to the calling thread's
 * own buffer: no OTF2 call, no lock, no allocation, no system call. The records become OTF2
 * records later, off the hot path (convert.c): when the INSTR_TOTAL_MEMORY budget is full,
 * before an MPI record of the same thread, and at the end.
 *
 * Signals: the slot is reserved first, by one instruction that moves `pos` on only if
 * nobody else did meanwhile (a compare-and-exchange: one instruction cannot be cut in two by
 * a signal handler), and written after. A handler that interrupts the append on the same
 * thread appends its own records after the reserved slot (or, before the reservation, the
 * interrupted append retries after the handler's records), so every record of both is
 * recorded, none overwrites another. A reserved slot whose record is not written yet reads
 * as w == 0 (chunks are zeroed when they are taken): conversions leave it out, and a
 * conversion that would free its chunk waits for a later slow path (buffer.c). The slow path
 * runs with asynchronous signals blocked. */
#include "trace.h"

/* pos: p -> next if it is still p. Atomic against a signal handler on the same thread. */
static inline int commit(instr_trec **pos, instr_trec *p, instr_trec *next)
{
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
    /* Without the lock prefix: only this thread moves `pos` on. */
    int same;
    __asm__ volatile("cmpxchgq %3, %1"
                     : "=@ccz"(same), "+m"(*pos), "+a"(p)
                     : "r"(next)
                     : "memory");
    return same;
#else
    return __atomic_compare_exchange_n(pos, &p, next, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
#endif
}

static inline void put(instr_tloc *s, uint32_t w, uint64_t t)
{
    instr_trec *p;
    do {
        p = __atomic_load_n(&s->pos, __ATOMIC_RELAXED);
        if (__builtin_expect(p >= __atomic_load_n(&s->lim, __ATOMIC_RELAXED), 0)) {
            instr_trace_put_slow(s, w, t);
            return;
        }
    } while (__builtin_expect(!commit(&s->pos, p, p + 1), 0));
    p->t = t;
    /* w last and never 0: the record is complete once w is there (release, for the end's
     * reading of another thread's buffer) */
    __atomic_store_n(&p->w, w, __ATOMIC_RELEASE);
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

void instr_record_put(instr_tloc *s, uint32_t w, uint64_t t) { put(s, w, t); }
