/* record.h — the compact event record and its append: what the event core's direct path
 * (event.h, INSTR_FAST_TRACE) needs to append a record itself. The substrate that supports
 * the direct path (INSTR_SUBSTRATE_DIRECT, substrate.h: the trace) keeps the records of a
 * location in its location data and defines instr_record_put (trace/events.c); converting
 * them (to OTF2) is its own business. */
#ifndef INSTR_RT_RECORD_H
#define INSTR_RT_RECORD_H

#include <stdint.h>

/* One compact record: what happened (kind and region, or a thread count) and when. Kept
 * until the location's buffer is converted to OTF2 (trace/convert.c): when the INSTR_TOTAL_MEMORY
 * budget is full, before an MPI record, and at the end. 12 bytes, as an OTF2 record. */
typedef struct __attribute__((packed, aligned(4))) instr_trec {
    uint64_t t;
    uint32_t w; /* kind << INSTR_TREC_KIND_SHIFT | region handle (or thread count); never 0
                 * once written (0: the slot is reserved, its record not written yet) */
} instr_trec;

/* INSTR_TREC_METRIC: a metric value (in `t`, not a time) of the event that follows; the
 * argument is the metric's index (trace/metric_events.c). INSTR_TREC_ATTR: an attribute value
 * (in `t`) of the memory region's Enter or Leave that follows; the argument is the attribute
 * (trace/memory_events.c). */
enum instr_trec_kind {
    INSTR_TREC_ENTER = 0, INSTR_TREC_LEAVE, INSTR_TREC_FORK, INSTR_TREC_JOIN, INSTR_TREC_METRIC,
    INSTR_TREC_ATTR
};
#define INSTR_TREC_KIND_SHIFT 29
#define INSTR_TREC_ARG_MASK ((1u << INSTR_TREC_KIND_SHIFT) - 1)

/* A location's data of the direct path's substrate (the trace's, trace/trace.h). */
struct instr_tloc;
/* Appends one record to the calling thread's own buffer; async-signal-safe against the
 * thread's own handlers. */
void instr_record_put(struct instr_tloc *s, uint32_t w, uint64_t t);
/* The append's slow path (no chunk yet, the chunk full, the buffer cut), which the records'
 * substrate implements; also for a location's records that are not the calling thread's. */
void instr_record_put_slow(struct instr_tloc *s, uint32_t w, uint64_t t);

/* What the append touches: the current chunk's next free record and its end. The first
 * member of the records' substrate's location data (struct instr_tloc), so that a path that
 * records beside another substrate's steps (the cursor path with records, profile/cct_trace.c)
 * inlines the append (instr_record_append) instead of calling it. */
typedef struct instr_record_head {
    instr_trec *pos;
    instr_trec *lim;
} instr_record_head;

/* Records of a location that has none (its substrate's location data could not be made):
 * pos and lim are NULL, so every append takes the slow path, which leaves it alone. */
extern instr_record_head instr_record_none __attribute__((visibility("hidden")));

/* pos: p -> next if it is still p. Atomic against a signal handler on the same thread. */
static inline int instr_record_commit(instr_trec **pos, instr_trec *p, instr_trec *next)
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

/* The append (instr_record_put) inline. The slot is reserved first, by one instruction that
 * moves `pos` on only if nobody else did meanwhile (a signal handler of this thread that
 * interrupts the append appends after the reserved slot, or, before the reservation, the
 * interrupted append retries after the handler's records), and written after; w last and
 * never 0, so a record is complete once w is there (release, for the end's reading of
 * another thread's buffer). */
static inline __attribute__((always_inline)) void instr_record_append(struct instr_tloc *s,
                                                                      uint32_t w, uint64_t t)
{
    instr_record_head *h = (instr_record_head *)(void *)s;
    instr_trec *p;
    do {
        p = __atomic_load_n(&h->pos, __ATOMIC_RELAXED);
        if (__builtin_expect(p >= __atomic_load_n(&h->lim, __ATOMIC_RELAXED), 0)) {
            instr_record_put_slow(s, w, t);
            return;
        }
    } while (__builtin_expect(!instr_record_commit(&h->pos, p, p + 1), 0));
    p->t = t;
    __atomic_store_n(&p->w, w, __ATOMIC_RELEASE);
}

/* instr_record_append_values's way when the chunk has no room for all: one append each (the
 * records' substrate's slow path takes the next chunk), out of line. */
static __attribute__((noinline, cold, unused)) void instr_record_append_each(
    struct instr_tloc *s, const uint64_t *v, uint32_t n, uint32_t w, uint64_t t)
{
    for (uint32_t i = 0; i < n; i++)
        instr_record_append(s, (uint32_t)INSTR_TREC_METRIC << INSTR_TREC_KIND_SHIFT | i, v[i]);
    instr_record_append(s, w, t);
}

/* The values v[0 .. n) of the run's synchronous metrics (INSTR_TREC_METRIC records, argument
 * i for v[i]) and then the event they go with (w at t): n + 1 records reserved by the one
 * instruction of instr_record_append and written after, each w last, so that a signal
 * handler's records never come between an event and its values. */
static inline __attribute__((always_inline)) void instr_record_append_values(
    struct instr_tloc *s, const uint64_t *v, uint32_t n, uint32_t w, uint64_t t)
{
    instr_record_head *h = (instr_record_head *)(void *)s;
    instr_trec *p;
    uintptr_t size = ((uintptr_t)n + 1) * sizeof *p;
    do {
        p = __atomic_load_n(&h->pos, __ATOMIC_RELAXED);
        /* Room for n + 1 (none at all in instr_record_none, whose pos and lim are NULL). */
        if (__builtin_expect((uintptr_t)__atomic_load_n(&h->lim, __ATOMIC_RELAXED) -
                                     (uintptr_t)p < size, 0)) {
            instr_record_append_each(s, v, n, w, t);
            return;
        }
    } while (__builtin_expect(!instr_record_commit(&h->pos, p, p + n + 1), 0));
    const uint32_t value = (uint32_t)INSTR_TREC_METRIC << INSTR_TREC_KIND_SHIFT;
    /* One metric, the common case: no loop. */
    if (__builtin_expect(n == 1, 1)) {
        p->t = v[0];
        __atomic_store_n(&p->w, value, __ATOMIC_RELEASE);
        p++;
    } else {
        for (uint32_t i = 0; i < n; i++, p++) {
            p->t = v[i];
            __atomic_store_n(&p->w, value | i, __ATOMIC_RELEASE);
        }
    }
    p->t = t;
    __atomic_store_n(&p->w, w, __ATOMIC_RELEASE);
}

#endif
