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

#endif
