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
 * runs with asynchronous signals blocked. The append itself is the event core's
 * (instr_record_append, core/record.h), so that the cursor path with records inlines it. */
#include "trace.h"

static inline __attribute__((always_inline)) void put(instr_tloc *s, uint32_t w, uint64_t t)
{
    instr_record_append(s, w, t);
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

void instr_record_put_slow(instr_tloc *s, uint32_t w, uint64_t t) { instr_trace_put_slow(s, w, t); }
