/* buffer.c — a location's compact buffer: a list of chunks from the pool (pool.c) holding
 * compact records (events.c) until they are converted to OTF2 (convert.c).
 *
 * Only the owning thread appends and converts while it runs. The slow path (`slow` set, the
 * asynchronous signals blocked) takes the next chunk; when the INSTR_TOTAL_MEMORY budget has
 * none left it converts the whole buffer into the location's OTF2 writer (which writes to
 * disk as its own buffer fills), writes a BufferFlush record, and goes on in the current
 * chunk.
 *
 * The end (write.c) may find threads still running. instr_trace_cut sets `cut` and waits until
 * the thread is out of the slow path (sequentially consistent on both sides: either the slow
 * path sees `cut`, or the end sees `slow`); from then on the thread never converts or changes
 * its chunk list again, so the records up to `pos` (stored with release after each record) are
 * final and are converted by the ending thread. What the thread appends after that lies beyond
 * `pos` or after the end time and is left out; its open regions are closed at the end time.
 *
 * With the converter thread (INSTR_TRACE_CONVERT=thread, convert_thread.c) a chunk that the
 * slow path leaves full is handed to it: the chunk's `end` is set before its `next` (release),
 * and the converter takes only chunks whose `next` is set, from the head, so the owning thread
 * and the converter never touch the same chunk's records (but for a slot a handler left
 * reserved: the converter stops before it and comes back). The owner changes only the tail;
 * the converter only the head (and `conv_done`). Every conversion and every walk of the chunks
 * from the head holds the conversion lock (instr_tconv_lock) meanwhile. */
#include "trace.h"
#include "../core/clock.h"
#include "../core/event.h"
#include "../core/log.h"
#include "../core/registry.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct instr_tchunk {
    uint64_t pool_link; /* the pool's, while the chunk is free (pool.c) */
    struct instr_tchunk *next;
    instr_trec *end; /* records end here once the chunk is full (the current one: `pos`) */
} chunk;

static _Thread_local instr_tloc *self __attribute__((tls_model("initial-exec")));
static uint64_t dropped_busy_all, dropped_full_all;

static instr_trec *recs(chunk *c) { return (instr_trec *)(c + 1); }

/* The chunk's first record not converted yet: the head chunk may be converted in part by the
 * converter thread. */
static instr_trec *unconverted(instr_tloc *s, chunk *c)
{
    return recs(c) + (c == s->head ? s->conv_done : 0);
}

static chunk *head_of(instr_tloc *s) { return __atomic_load_n(&s->head, __ATOMIC_ACQUIRE); }

static instr_trec *limit(chunk *c)
{
    return recs(c) + (instr_tpool_chunk_size() - sizeof *c) / sizeof(instr_trec);
}

void instr_trace_set_self(instr_tloc *s) { self = s; }

enum after { KEEP_CURRENT, FREE_ALL, LEAVE_ALONE };

/* 1 when a slot below `pos` is reserved but not written yet: a signal handler interrupted an
 * append of this thread (events.c), which writes the slot when it goes on. */
static int pending(instr_tloc *s)
{
    instr_trec *pos = s->rec.pos;
    for (chunk *c = head_of(s); c; c = c == s->tail ? NULL : c->next) {
        instr_trec *end = c == s->tail ? pos : c->end;
        for (instr_trec *r = unconverted(s, c); r < end; r++)
            if (__atomic_load_n(&r->w, __ATOMIC_RELAXED) == 0)
                return 1;
    }
    return 0;
}

/* Converts every record of the buffer up to `pos`, records after t_max left out. Then the
 * chunks go back to the pool except the current one, emptied (KEEP_CURRENT); or all of them
 * (FREE_ALL: the thread records no more); or none, and nothing is changed (LEAVE_ALONE: the
 * thread may still be writing beyond `pos` at the end). */
static void convert_all(instr_tloc *s, uint64_t t_max, enum after after)
{
    instr_trec *pos = __atomic_load_n(&s->rec.pos, __ATOMIC_ACQUIRE);
    for (chunk *c = head_of(s), *next; c; c = next) {
        next = c == s->tail ? NULL : c->next;
        instr_trec *end = c == s->tail ? pos : c->end;
        instr_trec *from = unconverted(s, c);
        instr_trace_convert(s, from, (size_t)(end - from), t_max);
        if (after == FREE_ALL || (after == KEEP_CURRENT && c != s->tail))
            instr_tpool_give(c);
    }
    if (after != LEAVE_ALONE)
        s->conv_done = 0;
    if (after == KEEP_CURRENT && s->tail) {
        __atomic_store_n(&s->head, s->tail, __ATOMIC_RELEASE);
        s->tail->next = NULL;
        memset(recs(s->tail), 0, (size_t)((char *)pos - (char *)recs(s->tail)));
        __atomic_store_n(&s->rec.pos, recs(s->tail), __ATOMIC_RELEASE);
    } else if (after == FREE_ALL) {
        __atomic_store_n(&s->head, NULL, __ATOMIC_RELEASE);
        s->tail = NULL;
        __atomic_store_n(&s->rec.lim, NULL, __ATOMIC_RELAXED);
        __atomic_store_n(&s->rec.pos, NULL, __ATOMIC_RELEASE);
    }
}

/* Blocks the asynchronous signals for the slow path, so that no handler runs while the chunk
 * list changes or the buffer is converted: a handler's events wait until the end of it and
 * are then recorded as usual. Signals raised by a fault stay open (blocking them would kill
 * the process). */
static void block_signals(sigset_t *old)
{
    sigset_t all;
    sigfillset(&all);
    sigdelset(&all, SIGSEGV);
    sigdelset(&all, SIGBUS);
    sigdelset(&all, SIGFPE);
    sigdelset(&all, SIGILL);
    sigdelset(&all, SIGTRAP);
    sigdelset(&all, SIGSYS);
    pthread_sigmask(SIG_BLOCK, &all, old);
}

/* With `slow` set and signals blocked: the record at the next free slot, taking the next
 * chunk, or converting the buffer when the budget has none. */
static void append_slow(instr_tloc *s, uint32_t w, uint64_t t)
{
    if (s->rec.pos >= s->rec.lim) {
        chunk *c = instr_tpool_take(s->tail == NULL);
        if (c) {
            /* zeroed: a reserved slot reads as unwritten until its record is there */
            chunk *full = s->tail;
            if (full) {
                full->end = s->rec.pos;
                /* the chunk is the converter's from here on (its end first) */
                __atomic_store_n(&full->next, c, __ATOMIC_RELEASE);
            } else {
                __atomic_store_n(&s->head, c, __ATOMIC_RELEASE);
            }
            s->tail = c;
            __atomic_store_n(&s->rec.pos, recs(c), __ATOMIC_RELEASE);
            __atomic_store_n(&s->rec.lim, limit(c), __ATOMIC_RELAXED);
            if (full && __atomic_load_n(&instr_tconv_on, __ATOMIC_RELAXED))
                instr_tconv_kick();
        } else if (s->tail) {
            int taken = instr_tconv_lock();
            if (pending(s)) {
                /* The budget is spent, and this is a signal handler that interrupted an
                 * append whose slot is not written yet: the buffer cannot be converted now. */
                instr_tconv_unlock(taken);
                s->dropped_busy++;
                return;
            }
            /* The budget is spent: everything recorded so far goes to OTF2 (and so to disk),
             * and the current chunk is used again. */
            convert_all(s, UINT64_MAX, KEEP_CURRENT);
            /* A metric or attribute record's t is its value, not a time. */
            unsigned kind = w >> INSTR_TREC_KIND_SHIFT;
            instr_trace_flush_record(s, kind == INSTR_TREC_METRIC || kind == INSTR_TREC_ATTR
                                            ? s->last : t,
                                     instr_clock_now());
            instr_tconv_unlock(taken);
        }
    }
    instr_trec *p = s->rec.pos;
    if (!p || p >= s->rec.lim) {
        s->dropped_full++;
        return;
    }
    p->t = t;
    p->w = w;
    __atomic_store_n(&s->rec.pos, p + 1, __ATOMIC_RELEASE);
}

void instr_trace_put_slow(instr_tloc *s, uint32_t w, uint64_t t)
{
    if (s != self)
        return; /* the end closing a running thread's regions: the conversion does that */
    if (__atomic_load_n(&s->slow, __ATOMIC_RELAXED)) {
        /* A handler of a synchronous signal (a fault) raised inside the slow path itself. */
        s->dropped_busy++;
        return;
    }
    if (__atomic_load_n(&s->cut, __ATOMIC_RELAXED))
        return; /* after the end: not recorded */
    sigset_t old;
    block_signals(&old);
    __atomic_store_n(&s->slow, 1, __ATOMIC_SEQ_CST);
    if (!__atomic_load_n(&s->cut, __ATOMIC_SEQ_CST))
        append_slow(s, w, t);
    __atomic_store_n(&s->slow, 0, __ATOMIC_RELEASE);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void instr_trace_drain(instr_tloc *s)
{
    if (s != self || __atomic_load_n(&s->slow, __ATOMIC_RELAXED))
        return;
    sigset_t old;
    block_signals(&old);
    __atomic_store_n(&s->slow, 1, __ATOMIC_SEQ_CST);
    if (!__atomic_load_n(&s->cut, __ATOMIC_SEQ_CST)) {
        int taken = instr_tconv_lock();
        if (!pending(s))
            convert_all(s, UINT64_MAX, KEEP_CURRENT);
        instr_tconv_unlock(taken);
    }
    __atomic_store_n(&s->slow, 0, __ATOMIC_RELEASE);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* The nesting the conversion would give (convert.c), without converting: regions open in
 * what was converted, then the records not converted yet applied to them. Nothing is
 * written, so no OTF2 writer is made here. Out of space: a number above cap. */
static uint32_t open_after(instr_tloc *s, uint32_t *out, uint32_t cap)
{
    uint32_t n = s->nopen, nregions = instr_registry_count();
    if (n > cap)
        return n;
    if (n)
        memcpy(out, s->open, n * sizeof *out);
    instr_trec *pos = s->rec.pos;
    for (chunk *c = head_of(s); c; c = c == s->tail ? NULL : c->next) {
        instr_trec *end = c == s->tail ? pos : c->end;
        for (instr_trec *r = unconverted(s, c); r < end; r++) {
            uint32_t w = __atomic_load_n(&r->w, __ATOMIC_RELAXED);
            uint32_t arg = w & INSTR_TREC_ARG_MASK;
            /* The common records first (as convert.c's convert_run): an Enter of a defined
             * region with room, the Leave of the innermost. */
            if (w == arg && arg - 1u < nregions && n < cap) {
                out[n++] = arg;
                continue;
            }
            if (w == ((uint32_t)INSTR_TREC_LEAVE << INSTR_TREC_KIND_SHIFT | arg) && n &&
                out[n - 1] == arg) {
                n--;
                continue;
            }
            if (w == 0)
                return UINT32_MAX; /* an append of this thread was interrupted */
            switch (w >> INSTR_TREC_KIND_SHIFT) {
            case INSTR_TREC_ENTER:
                if (arg == 0 || arg > nregions)
                    break;
                if (n == cap)
                    return cap + 1;
                out[n++] = arg;
                break;
            case INSTR_TREC_LEAVE: {
                uint32_t k = n;
                while (k > 0 && out[k - 1] != arg)
                    k--;
                if (k > 0)
                    n = k - 1; /* closes what is above it too; a Leave of nothing: left out */
                break;
            }
            default: break;
            }
        }
    }
    return n;
}

uint32_t instr_trace_open_regions(void *data, uint32_t *out, uint32_t cap)
{
    instr_tloc *s = data;
    if (!s || s != self || __atomic_load_n(&s->slow, __ATOMIC_RELAXED) ||
        __atomic_load_n(&s->cut, __ATOMIC_SEQ_CST))
        return UINT32_MAX;
    /* No handler may change the chunk list meanwhile; and `slow`, as on the slow path, so that
     * the end (instr_trace_cut) does not convert the buffer while it is read here. */
    sigset_t old;
    block_signals(&old);
    __atomic_store_n(&s->slow, 1, __ATOMIC_SEQ_CST);
    uint32_t n = UINT32_MAX;
    if (!__atomic_load_n(&s->cut, __ATOMIC_SEQ_CST)) {
        int taken = instr_tconv_lock();
        if (!pending(s)) {
            /* Converted now (as a drain): the records are read once, where reading their
             * nesting first and converting them at the end read them twice. */
            convert_all(s, UINT64_MAX, KEEP_CURRENT);
            n = s->nopen;
            if (n && n <= cap)
                memcpy(out, s->open, n * sizeof *out);
        } else {
            n = open_after(s, out, cap); /* a handler interrupted an append: read only */
        }
        instr_tconv_unlock(taken);
    }
    __atomic_store_n(&s->slow, 0, __ATOMIC_RELEASE);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return n;
}

void instr_trace_cut(instr_tloc *s, uint64_t t_end)
{
    if (__atomic_exchange_n(&s->cut, 1, __ATOMIC_SEQ_CST))
        return;
    int own = s == self;
    if (own && __atomic_load_n(&s->slow, __ATOMIC_ACQUIRE)) {
        /* exit() from a signal handler that interrupted this thread's own slow path: the chunk
         * list may be half changed; what was converted before stays, the rest is lost. */
        int taken = instr_tconv_lock();
        __atomic_store_n(&s->head, NULL, __ATOMIC_RELEASE);
        s->tail = NULL;
        instr_tconv_unlock(taken);
        instr_warn("trace: the program ended inside the trace's own buffer work on thread %u "
                   "(exit from a signal handler): its latest events are missing", s->id);
    }
    /* Another thread is out of the slow path within one chunk switch or conversion. */
    for (int i = 0; !own && __atomic_load_n(&s->slow, __ATOMIC_SEQ_CST); i++) {
        if (i == 20000) {
            instr_warn("trace: thread %u stayed inside the trace's buffer work at the end: its "
                       "events are missing", s->id);
            return;
        }
        if (i < 100) {
            sched_yield();
        } else {
            struct timespec ts = {0, 100000};
            nanosleep(&ts, NULL);
        }
    }
    /* A thread that ended, or this one, writes no more: its chunks go back to the pool. */
    int gone = own || (s->loc && s->loc->ended == INSTR_LOC_THREAD_EXIT) || instr_trace_forked;
    int taken = instr_tconv_lock(); /* the converter thread may be converting its chunks */
    convert_all(s, t_end, gone ? FREE_ALL : LEAVE_ALONE);
    instr_trace_close_open(s, t_end != UINT64_MAX && t_end > s->last ? t_end : s->last);
    instr_tconv_unlock(taken);
    __atomic_add_fetch(&dropped_busy_all, s->dropped_busy, __ATOMIC_RELAXED);
    __atomic_add_fetch(&dropped_full_all, s->dropped_full, __ATOMIC_RELAXED);
}

void instr_trace_dropped(uint64_t *busy, uint64_t *full)
{
    *busy = __atomic_load_n(&dropped_busy_all, __ATOMIC_RELAXED);
    *full = __atomic_load_n(&dropped_full_all, __ATOMIC_RELAXED);
}

int instr_trace_convert_full(instr_tloc *s)
{
    chunk *c = head_of(s);
    if (!c)
        return 0;
    chunk *next = __atomic_load_n(&c->next, __ATOMIC_ACQUIRE);
    if (!next)
        return 0; /* the thread's current chunk */
    instr_trec *from = recs(c) + s->conv_done;
    size_t n = (size_t)(c->end - from);
    s->partial = 1;
    size_t done = instr_trace_convert(s, from, n, UINT64_MAX);
    s->partial = 0;
    if (done < n) {
        s->conv_done += (uint32_t)done; /* a slot not written yet: later */
        return 0;
    }
    s->conv_done = 0;
    __atomic_store_n(&s->head, next, __ATOMIC_RELEASE);
    instr_tpool_give_zeroed(c);
    instr_tconv_chunks++;
    return 1;
}
