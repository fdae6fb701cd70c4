/* pool.c — memory for the trace within the INSTR_TOTAL_MEMORY budget, and buffer flushes.
 *
 * Compact buffers (buffer.c) take their chunks from one pool shared by all threads:
 *   - a chunk comes from the pool's free list (lock-free), else from the budget (mapped with
 *     mmap and charged with instr_mem_charge), up to the trace's share of INSTR_TOTAL_MEMORY;
 *   - a thread's very first chunk is always granted, beyond the budget if need be (counted as
 *     overdraft and reported): a thread is never left without a trace;
 *   - when neither has one, the thread converts its buffer to OTF2 (a buffer flush, counted
 *     here with instr_tpool_note_flush) and gives its chunks back.
 * Chunks given back go to the free list and are reused by any thread, so once the budget is
 * reached nothing is allocated any more. Taking and giving back chunks takes no lock and
 * calls no malloc, so a signal handler's event that needs a chunk can have one.
 *
 * OTF2's event writers get exactly one chunk each, of INSTR_TRACE_EVT_CHUNK bytes (the memory
 * callbacks): when it is full, the next request fails, OTF2 writes the chunk to the event
 * file and asks again, and gets the same chunk back. The chunk is as large as OTF2's file
 * buffer, so OTF2 writes every full chunk directly: OTF2 2.x frees its file buffer when a
 * buffered write fails but keeps using it when the file is closed, which crashes the process
 * on a full disk; a direct write only returns the error. OTF2 writes no BufferFlush records of
 * its own (no post-flush callback): those of the trace are written by buffer.c, for the
 * flushes of the run. Writers exist only for locations converted so far, so at the end, when
 * locations are converted one after another, a few such chunks are reused for all of them.
 *
 * Definition buffers (written only at the end) come from the runtime's pages (instr_mem_alloc),
 * outside the budget. */
#include "trace.h"
#include "../core/clock.h"
#include "../core/config.h"
#include "../core/memory.h"
#include "../util/array.h"
#include "../util/pages.h"

#include <pthread.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* OTF2's and definition chunks */
static uint64_t chunk_size = OTF2_CHUNK_SIZE_MIN, cap, held, overdraft;
static void *evt_free;  /* event writer chunks given back, linked through their first word */
static uint64_t evt_held;
static uint64_t flushes;
static uint64_t last_flush_end; /* ticks: the latest BufferFlush end, for the trace length */
/* One definition chunk kept for the next definition writer: at the end one local definition
 * writer per location is opened and closed in turn, and OTF2 fills each chunk to its end on
 * close, so reusing the chunk saves a page fault per page per location. */
static void *def_cache;
static uint64_t def_cache_size;

/* OTF2's per-buffer data. */
typedef struct tbuf {
    void *chunk;  /* the one chunk of an event buffer, NULL while OTF2 does not hold it */
    void *spare;  /* the same chunk after a flush, for the request that follows it */
    void **chunks; /* definition buffers: every chunk */
    uint32_t n, capn;
    int events;
    uint64_t size;
} tbuf;

void instr_tpool_init(int profiling_too)
{
    uint64_t total = instr_cfg.total_memory;
    /* With the profile on, a quarter stays for its call-tree nodes. */
    cap = profiling_too ? total - total / 4 : total;
    /* Larger chunks flush fewer times; at least 64 chunks in the budget when possible. */
    chunk_size = cap >= (64ull << 20) ? (1ull << 20)
               : cap >= (32ull << 20) ? (512ull << 10)
               : OTF2_CHUNK_SIZE_MIN;
}

/* The free list is a lock-free stack of page-aligned chunks: its top word is the chunk's
 * address with a counter in the low 12 bits, so that a chunk taken and given back meanwhile
 * does not pass for the one seen (the ABA problem). A chunk's first word links to the next.
 * Chunks are never unmapped, so reading the link of a chunk another thread took meanwhile
 * reads memory that is still there (and the exchange fails). */
#define TAG_MASK ((uint64_t)0xfff)
static uint64_t free_top;
/* Chunks the converter thread zeroed before it gave them back (convert_thread.c): taken
 * first, without zeroing them again on the program's thread. */
static uint64_t zeroed_top;

static void *pop_from(uint64_t *list)
{
    uint64_t top = __atomic_load_n(list, __ATOMIC_ACQUIRE);
    for (;;) {
        void *c = (void *)(uintptr_t)(top & ~TAG_MASK);
        if (!c)
            return NULL;
        uint64_t next = __atomic_load_n((uint64_t *)c, __ATOMIC_RELAXED);
        uint64_t want = (next & ~TAG_MASK) | ((top + 1) & TAG_MASK);
        if (__atomic_compare_exchange_n(list, &top, want, 1, __ATOMIC_ACQUIRE,
                                        __ATOMIC_ACQUIRE))
            return c;
    }
}

static void push_to(uint64_t *list, void *c)
{
    uint64_t top = __atomic_load_n(list, __ATOMIC_RELAXED);
    uint64_t want;
    do {
        __atomic_store_n((uint64_t *)c, top & ~TAG_MASK, __ATOMIC_RELAXED);
        want = (uint64_t)(uintptr_t)c | ((top + 1) & TAG_MASK);
    } while (!__atomic_compare_exchange_n(list, &top, want, 1, __ATOMIC_RELEASE,
                                          __ATOMIC_RELAXED));
}

/* A fresh chunk, zeroed, page aligned; mmap is async-signal-safe, malloc is not. */
static void *map_chunk(void)
{
    void *c = mmap(NULL, chunk_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return c == MAP_FAILED ? NULL : c;
}

/* No lock and no malloc: a signal handler's event may need a chunk (buffer.c). */
static void *pool_take(int first)
{
    void *c = pop_from(&zeroed_top);
    if (c) {
        __atomic_store_n((uint64_t *)c, 0, __ATOMIC_RELAXED); /* the link word, as below */
        return c;
    }
    c = pop_from(&free_top);
    if (c) {
        /* the link word may still be read by a thread that lost the race for this chunk */
        __atomic_store_n((uint64_t *)c, 0, __ATOMIC_RELAXED);
        memset((uint64_t *)c + 1, 0, chunk_size - sizeof(uint64_t));
        return c;
    }
    uint64_t h = __atomic_add_fetch(&held, chunk_size, __ATOMIC_RELAXED);
    if (h <= cap && instr_mem_charge(chunk_size) == 0) {
        if ((c = map_chunk()) != NULL)
            return c;
        instr_mem_uncharge(chunk_size);
    }
    if (first && (c = map_chunk()) != NULL) {
        __atomic_add_fetch(&overdraft, chunk_size, __ATOMIC_RELAXED);
        return c;
    }
    __atomic_sub_fetch(&held, chunk_size, __ATOMIC_RELAXED);
    return NULL;
}

void *instr_tpool_take(int first) { return pool_take(first); }

void instr_tpool_give(void *chunk) { push_to(&free_top, chunk); }

void instr_tpool_give_zeroed(void *chunk)
{
    memset((uint64_t *)chunk + 1, 0, chunk_size - sizeof(uint64_t));
    push_to(&zeroed_top, chunk);
}

static void *event_chunk(tbuf *b)
{
    if (b->chunk)
        return NULL; /* full: OTF2 writes it to the file and asks again */
    void *c = b->spare;
    b->spare = NULL;
    if (!c) {
        pthread_mutex_lock(&lock);
        if ((c = evt_free) != NULL)
            evt_free = *(void **)c;
        else
            evt_held += INSTR_TRACE_EVT_CHUNK;
        pthread_mutex_unlock(&lock);
        if (!c && !(c = instr_mem_alloc(INSTR_TRACE_EVT_CHUNK))) {
            pthread_mutex_lock(&lock);
            evt_held -= INSTR_TRACE_EVT_CHUNK;
            pthread_mutex_unlock(&lock);
            return NULL;
        }
    }
    return b->chunk = c;
}

static void *allocate(void *user, OTF2_FileType type, OTF2_LocationRef location, void **per_buffer,
                      uint64_t size)
{
    (void)user;
    (void)location;
    tbuf *b = *per_buffer;
    if (!b) {
        if (!(b = instr_mem_calloc(1, sizeof *b)))
            return NULL;
        b->events = type == OTF2_FILETYPE_EVENTS && size == INSTR_TRACE_EVT_CHUNK;
        b->size = size;
        *per_buffer = b;
    }
    if (b->events)
        return event_chunk(b);
    if (instr_array_grow32(&b->chunks, &b->capn, (size_t)b->n + 1, sizeof *b->chunks, 8) != 0)
        return NULL;
    pthread_mutex_lock(&lock);
    void *c = def_cache && def_cache_size == size ? def_cache : NULL;
    if (c)
        def_cache = NULL;
    pthread_mutex_unlock(&lock);
    if (!c)
        c = instr_mem_alloc(size);
    if (c)
        b->chunks[b->n++] = c;
    return c;
}

static void free_all(void *user, OTF2_FileType type, OTF2_LocationRef location, void **per_buffer,
                     bool final)
{
    (void)user;
    (void)type;
    (void)location;
    tbuf *b = *per_buffer;
    if (!b)
        return;
    if (b->events) {
        void *c = b->chunk ? b->chunk : b->spare;
        b->chunk = b->spare = NULL;
        if (!final) {
            b->spare = c; /* written out: the same chunk for the next request */
        } else if (c) {
            pthread_mutex_lock(&lock);
            *(void **)c = evt_free;
            evt_free = c;
            pthread_mutex_unlock(&lock);
        }
    } else {
        for (uint32_t i = 0; i < b->n; i++) {
            void *c = b->chunks[i];
            pthread_mutex_lock(&lock);
            if (!def_cache) {
                def_cache = c;
                def_cache_size = b->size;
                c = NULL;
            }
            pthread_mutex_unlock(&lock);
            instr_mem_free(c);
        }
        b->n = 0;
    }
    if (final) {
        instr_mem_free(b->chunks);
        instr_mem_free(b);
        *per_buffer = NULL;
    }
}

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef location,
                                void *caller, bool final)
{
    (void)user;
    (void)type;
    (void)location;
    (void)caller;
    (void)final;
    return OTF2_FLUSH;
}

void instr_tpool_note_flush(uint64_t t_end)
{
    __atomic_fetch_add(&flushes, 1, __ATOMIC_RELAXED);
    uint64_t seen = __atomic_load_n(&last_flush_end, __ATOMIC_RELAXED);
    while (t_end > seen &&
           !__atomic_compare_exchange_n(&last_flush_end, &seen, t_end, 1, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED))
        ;
}

static const OTF2_MemoryCallbacks memory_callbacks = {allocate, free_all};
static const OTF2_FlushCallbacks flush_callbacks = {pre_flush, NULL};

OTF2_ErrorCode instr_tpool_attach(OTF2_Archive *archive)
{
    OTF2_ErrorCode rc = OTF2_Archive_SetMemoryCallbacks(archive, &memory_callbacks, NULL);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_Archive_SetFlushCallbacks(archive, &flush_callbacks, NULL);
    return rc;
}

uint64_t instr_tpool_chunk_size(void) { return chunk_size; }

void instr_tpool_stats_get(instr_tpool_stats *out)
{
    pthread_mutex_lock(&lock);
    out->chunk_size = chunk_size;
    out->cap = cap;
    out->held = __atomic_load_n(&held, __ATOMIC_RELAXED);
    out->overdraft = __atomic_load_n(&overdraft, __ATOMIC_RELAXED);
    out->writer_bytes = evt_held;
    pthread_mutex_unlock(&lock);
    out->flushes = __atomic_load_n(&flushes, __ATOMIC_RELAXED);
    out->last_flush_end = __atomic_load_n(&last_flush_end, __ATOMIC_RELAXED);
}
