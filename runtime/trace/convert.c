/* convert.c — compact records (events.c) into the location's OTF2 event writer.
 *
 * The conversion keeps the trace well formed whatever the buffer holds: timestamps never go
 * back, a region that is not defined is left out, a Leave closes what is open down to its
 * Enter (and a Leave of nothing open is left out), and the end closes what is still open. In
 * a normal run none of this changes a record: the event core balances every location's
 * enter/exit. It matters at the end, when a thread that still runs had its regions closed by
 * the ending thread while it kept recording (buffer.c).
 *
 * After the first failed OTF2 write (a full disk, a file-size limit) no writer is fed any
 * more: the records are counted as lost, and the end says so (write.c). */
#include "trace.h"
#include "../core/registry.h"
#include "../util/array.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int failed_errno; /* 0: no failure yet */
static uint64_t lost;

void instr_trace_note_failure(int err)
{
    int zero = 0;
    __atomic_compare_exchange_n(&failed_errno, &zero, err ? err : EIO, 0, __ATOMIC_RELAXED,
                                __ATOMIC_RELAXED);
}

int instr_trace_write_failed(void) { return __atomic_load_n(&failed_errno, __ATOMIC_RELAXED) != 0; }
uint64_t instr_trace_lost_after_failure(void) { return __atomic_load_n(&lost, __ATOMIC_RELAXED); }
const char *instr_trace_failure_reason(void) { return strerror(failed_errno); }

/* A record for a location without a working writer: kept for MPI_Init, or counted. */
static void emit_slow(instr_tloc *s, unsigned kind, uint32_t arg, uint64_t t)
{
    if (instr_trace_write_failed()) {
        __atomic_add_fetch(&lost, 1, __ATOMIC_RELAXED);
        return;
    }
    if (s->waiting) {
        if (kind <= INSTR_TREC_LEAVE)
            instr_early_add(s, kind == INSTR_TREC_LEAVE, arg, t); /* before MPI_Init */
        return;
    }
    s->dropped_full++; /* no writer could be had (said when it happened) */
}

static void emit_failed(instr_tloc *s)
{
    int err = errno; /* of the failed write, unless OTF2's error callback took it first */
    s->refused++;
    /* The records are valid: a failure is a failed flush (full disk, file-size limit), which
     * leaves OTF2's buffer in no state to be written into again. */
    instr_trace_note_failure(err);
}

/* A memory call's Enter or Leave with its attributes (memory_events.c), or an I/O call's
 * with its I/O events (io_events.c): out of line, so that
 * the conversion of every other record stays as it was. */
__attribute__((noinline, cold)) static void emit_with_attributes(instr_tloc *s, unsigned kind,
                                                                 uint32_t arg, uint64_t t)
{
    if (s->aset & INSTR_TRACE_IO_PENDING) {
        int io = instr_trace_io_emit(s, kind, arg, t); /* an I/O call's (io_events.c) */
        if (io < 0)
            emit_failed(s);
        else if (io > 0 && s->mpend_n)
            instr_trace_metric_emit(s, t);
        if (io)
            return;
    }
    OTF2_AttributeList *al = instr_trace_memory_attrs(s, arg);
    OTF2_ErrorCode rc = kind == INSTR_TREC_ENTER ? OTF2_EvtWriter_Enter(s->writer, al, t, arg - 1)
                                                 : OTF2_EvtWriter_Leave(s->writer, al, t, arg - 1);
    if (al)
        instr_trace_memory_written(s);
    if (rc != OTF2_SUCCESS)
        emit_failed(s);
    else if (s->mpend_n)
        instr_trace_metric_emit(s, t);
}

/* Inlined into each record's case: out of line it costs the conversion a call per record. */
static inline __attribute__((always_inline)) void emit(instr_tloc *s, unsigned kind, uint32_t arg,
                                                       uint64_t t)
{
    if (__builtin_expect(!s->writer || failed_errno, 0)) {
        if (!s->writer && !failed_errno)
            instr_trace_writer_ready(s); /* created now, or attached once MPI_Init ran */
        if (!s->writer || failed_errno) {
            if (s->aset && kind <= INSTR_TREC_LEAVE && instr_trace_memory_attrs(s, arg))
                instr_trace_memory_written(s); /* the attributes go with it */
            emit_slow(s, kind, arg, t);
            return;
        }
    }
    if (t < s->last)
        t = s->last;
    s->last = t;
    if (__builtin_expect(s->aset != 0, 0) && kind <= INSTR_TREC_LEAVE) {
        emit_with_attributes(s, kind, arg, t);
        return;
    }
    OTF2_ErrorCode rc;
    switch (kind) {
    case INSTR_TREC_ENTER: rc = OTF2_EvtWriter_Enter(s->writer, NULL, t, arg - 1); break;
    case INSTR_TREC_LEAVE: rc = OTF2_EvtWriter_Leave(s->writer, NULL, t, arg - 1); break;
    case INSTR_TREC_FORK:
        rc = OTF2_EvtWriter_ThreadFork(s->writer, NULL, t, OTF2_PARADIGM_OPENMP, arg);
        break;
    default: rc = OTF2_EvtWriter_ThreadJoin(s->writer, NULL, t, OTF2_PARADIGM_OPENMP); break;
    }
    if (__builtin_expect(rc != OTF2_SUCCESS, 0))
        emit_failed(s);
    else if (s->mpend_n && kind <= INSTR_TREC_LEAVE)
        instr_trace_metric_emit(s, t);
}

/* Out of line and cold: the conversion loop stays compiled as without it. */
__attribute__((noinline, cold)) static int grow_open(instr_tloc *s)
{
    return instr_array_grow32(&s->open, &s->capopen, (size_t)s->capopen + 1, sizeof *s->open, 64);
}

static inline int push(instr_tloc *s, uint32_t region)
{
    if (__builtin_expect(s->nopen == s->capopen, 0) && grow_open(s) != 0)
        return -1;
    s->open[s->nopen++] = region;
    return 0;
}

/* The samples of the location up to t, before a record at t (cold: only with sampling on). */
__attribute__((noinline, cold)) static void samples_until(instr_tloc *s, uint64_t t)
{
    instr_trace_samples->until(s, t);
}

/* The common run of records, in a loop of its own: an Enter of a defined region with room on
 * the stack of open regions, and the Leave of the innermost open region, before t_max, on a
 * location whose writer works and that has nothing pending (no metric values, attributes or
 * I/O values for the next record). The state it needs stays in registers (the OTF2 call
 * would make the compiler reload it from `s` every record). Everything else (a record of
 * another kind, one not written yet, a repair of the nesting, a failed write) stops it: the
 * general loop below takes that record, then this one goes on. The records it consumed. */
static size_t convert_run(instr_tloc *s, const instr_trec *r, size_t n, uint64_t t_max,
                          uint32_t nregions)
{
    OTF2_EvtWriter *wr = s->writer;
    uint32_t *open = s->open;
    uint32_t nopen = s->nopen, cap = s->capopen;
    uint64_t last = s->last;
    size_t i = 0;
    for (; i < n; i++) {
        uint32_t w = __atomic_load_n(&r[i].w, __ATOMIC_ACQUIRE);
        uint32_t arg = w & INSTR_TREC_ARG_MASK;
        int enter = w == arg; /* an Enter (kind 0), or 0: not written yet (no region 0) */
        if (enter ? arg - 1u >= nregions || nopen == cap
                  : w != ((uint32_t)INSTR_TREC_LEAVE << INSTR_TREC_KIND_SHIFT | arg) ||
                        !nopen || open[nopen - 1] != arg)
            break;
        /* The time only once w is there: the slot of a record not written yet is the owning
         * thread's (its append writes t before w, w with release). */
        uint64_t t = r[i].t;
        if (t > t_max)
            break;
        if (t < last)
            t = last;
        last = t;
        OTF2_ErrorCode rc;
        if (enter) {
            open[nopen++] = arg;
            rc = OTF2_EvtWriter_Enter(wr, NULL, t, arg - 1);
        } else {
            nopen--;
            rc = OTF2_EvtWriter_Leave(wr, NULL, t, arg - 1);
        }
        if (__builtin_expect(rc != OTF2_SUCCESS, 0)) {
            s->nopen = nopen;
            s->last = last;
            emit_failed(s); /* the general loop counts the rest as lost */
            return i + 1;
        }
    }
    s->nopen = nopen;
    s->last = last;
    return i;
}

/* Compiled twice: without samples exactly as it always was, and with the sample hook's turn
 * before every record. Without samples, runs of common records go through convert_run. */
static inline __attribute__((always_inline)) size_t convert(instr_tloc *s, const instr_trec *r,
                                                            size_t n, uint64_t t_max,
                                                            const int samples)
{
    uint32_t nregions = instr_registry_count();
    for (size_t i = 0; i < n; i++) {
        if (!samples && s->writer && !s->aset && !s->mpend_n &&
            !__atomic_load_n(&failed_errno, __ATOMIC_RELAXED)) {
            i += convert_run(s, r + i, n - i, t_max, nregions);
            if (i >= n)
                break;
        }
        uint32_t w = __atomic_load_n(&r[i].w, __ATOMIC_ACQUIRE);
        if (w == 0) {
            /* Reserved, not written: the converter thread comes back for it (a handler of
             * the owning thread interrupted the append); the end came in the middle of an
             * append, and it is left out. */
            if (s->partial)
                return i;
            continue;
        }
        uint64_t t = r[i].t;
        unsigned kind = w >> INSTR_TREC_KIND_SHIFT;
        uint32_t arg = w & INSTR_TREC_ARG_MASK;
        if (__builtin_expect(kind >= INSTR_TREC_METRIC, 0)) {
            /* t is the value of the Enter or Leave that follows, not a time. */
            if (kind == INSTR_TREC_METRIC)
                instr_trace_metric_record(s, arg, t);
            else if (kind == INSTR_TREC_ATTR)
                instr_trace_memory_attr(s, arg, t);
            else
                s->repaired++;
            continue;
        }
        if (t > t_max)
            return n; /* after the end: this and everything later is left out */
        if (samples)
            samples_until(s, t);
        switch (kind) {
        case INSTR_TREC_ENTER:
            if (__builtin_expect(arg == 0 || arg > nregions, 0) || push(s, arg) != 0) {
                s->repaired++;
                continue;
            }
            emit(s, kind, arg, t);
            break;
        case INSTR_TREC_LEAVE: {
            if (__builtin_expect(s->nopen && s->open[s->nopen - 1] == arg, 1)) {
                s->nopen--;
                if (samples && s->nopen < s->sample_keep)
                    s->sample_keep = s->nopen;
                emit(s, kind, arg, t);
                break;
            }
            uint32_t k = s->nopen;
            while (k > 0 && s->open[k - 1] != arg)
                k--;
            if (k == 0) {
                s->repaired++;
                continue;
            }
            while (s->nopen >= k) {
                uint32_t open = s->open[--s->nopen];
                if (open != arg)
                    s->repaired++;
                emit(s, INSTR_TREC_LEAVE, open, t);
            }
            if (samples && s->nopen < s->sample_keep)
                s->sample_keep = s->nopen;
            break;
        }
        case INSTR_TREC_FORK:
        case INSTR_TREC_JOIN: emit(s, kind, arg, t); break;
        default: s->repaired++; break;
        }
    }
    return n;
}

const instr_trace_sample_hook *instr_trace_samples;

void instr_trace_set_sample_hook(const instr_trace_sample_hook *h)
{
    __atomic_store_n(&instr_trace_samples, h, __ATOMIC_RELEASE);
}

/* The two copies, each a function of its own: neither is laid out as the other's cold part. */
__attribute__((noinline)) static size_t convert_sampled(instr_tloc *s, const instr_trec *r,
                                                        size_t n, uint64_t t_max)
{
    return convert(s, r, n, t_max, 1);
}

__attribute__((noinline)) static size_t convert_plain(instr_tloc *s, const instr_trec *r,
                                                      size_t n, uint64_t t_max)
{
    return convert(s, r, n, t_max, 0);
}

size_t instr_trace_convert(instr_tloc *s, const instr_trec *r, size_t n, uint64_t t_max)
{
    if (instr_trace_samples && instr_trace_samples_wanted(s))
        return convert_sampled(s, r, n, t_max);
    return convert_plain(s, r, n, t_max);
}

int instr_trace_samples_wanted(instr_tloc *s)
{
    return instr_trace_samples && !s->waiting &&
           !(instr_trace_job_pending && instr_trace_job_rank < 0) && !instr_trace_forked;
}

int instr_trace_sample_write(instr_tloc *s, uint64_t t, uint32_t context, uint32_t unwind)
{
    if (!s->writer && !failed_errno)
        instr_trace_writer_ready(s);
    if (!s->writer || failed_errno) {
        if (failed_errno)
            __atomic_add_fetch(&lost, 1, __ATOMIC_RELAXED);
        else
            s->dropped_full++;
        return -1;
    }
    if (t < s->last)
        t = s->last;
    s->last = t;
    if (OTF2_EvtWriter_CallingContextSample(s->writer, NULL, t, context, unwind, 0) !=
        OTF2_SUCCESS) {
        emit_failed(s);
        return -1;
    }
    return 0;
}

void instr_trace_flush_record(instr_tloc *s, uint64_t t_begin, uint64_t t_end)
{
    if (!s->writer || instr_trace_write_failed())
        return;
    if (t_begin < s->last)
        t_begin = s->last;
    if (t_end < t_begin)
        t_end = t_begin;
    s->last = t_begin;
    errno = 0;
    if (OTF2_EvtWriter_BufferFlush(s->writer, NULL, t_begin, t_end) != OTF2_SUCCESS) {
        s->refused++;
        instr_trace_note_failure(errno);
        return;
    }
    instr_tpool_note_flush(t_end);
}

void instr_trace_close_open(instr_tloc *s, uint64_t t)
{
    /* The samples after the last record (also those after the end's time: every sample the
     * profile counts is in the trace); the regions still open close after them. */
    if (instr_trace_samples_wanted(s))
        samples_until(s, UINT64_MAX);
    while (s->nopen > 0) {
        s->repaired++;
        emit(s, INSTR_TREC_LEAVE, s->open[--s->nopen], t);
    }
}
