/* pool.c — event chunks for OTF2 from the INSTR_TOTAL_MEMORY budget, and buffer flushes.
 *
 * OTF2 asks for memory one chunk at a time through the memory callbacks, for each event
 * writer (location) separately. All threads share one pool:
 *   - a chunk comes from the pool's free list, else from the budget (instr_mem_chunk), up to
 *     the trace's share of INSTR_TOTAL_MEMORY;
 *   - when neither has one, the callback returns NULL and OTF2 flushes that writer's chunks
 *     to its event file (pre-flush callback: OTF2_FLUSH), gives them back (free_all, not
 *     final), takes a chunk again and writes a BufferFlush record whose end time comes from
 *     the post-flush callback. The writer keeps one of its chunks across the flush (`spare`)
 *     so that this second request always succeeds, whatever the other threads do;
 *   - a writer's very first chunk is always granted, beyond the budget if need be (counted
 *     as overdraft and reported): a thread is never left without a trace.
 * Chunks given back go to the free list and are reused by any thread, so once the budget is
 * reached nothing is allocated any more. The pool lock is taken once per chunk (hundreds of
 * KiB of records), never per event. OTF2 calls the memory callbacks without its own locks,
 * from any thread.
 *
 * The compact buffers of buffer.c take their chunks from the same pool (instr_tpool_take), so
 * the budget covers both: records waiting for conversion and OTF2's buffers.
 *
 * Definition buffers (written only at the end) are plain malloc'd memory outside the budget. */
#include "trace.h"
#include "../core/clock.h"
#include "../core/config.h"
#include "../core/memory.h"

#include <pthread.h>
#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void *free_list; /* chunks linked through their first word */
static uint64_t chunk_size = OTF2_CHUNK_SIZE_MIN, cap, held, overdraft;
static uint64_t flushes;
static uint64_t last_flush_end; /* ticks: the latest BufferFlush end, for the trace length */
/* One definition chunk kept for the next definition writer: at the end one local definition
 * writer per location is opened and closed in turn, and OTF2 fills each chunk to its end on
 * close, so reusing the chunk saves a page fault per page per location. */
static void *def_cache;
static uint64_t def_cache_size;

/* OTF2's per-buffer data: the chunks this buffer holds now. */
typedef struct tbuf {
    void **chunks;
    uint32_t n, capn;
    void *spare;  /* kept across a flush for the request that follows it */
    int pooled;   /* event chunks from the pool; else malloc'd definition memory */
    int started;  /* 1 once the buffer had its first chunk */
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

static void *pool_take(int first)
{
    void *c = NULL;
    pthread_mutex_lock(&lock);
    if (free_list) {
        c = free_list;
        free_list = *(void **)c;
    } else if (held + chunk_size <= cap &&
               instr_mem_used() + chunk_size <= instr_cfg.total_memory &&
               (c = instr_mem_chunk(chunk_size)) != NULL) {
        held += chunk_size;
    } else if (first && (c = malloc(chunk_size)) != NULL) {
        held += chunk_size;
        overdraft += chunk_size;
    }
    pthread_mutex_unlock(&lock);
    return c;
}

/* With `lock` held. */
static void pool_give(void *c)
{
    *(void **)c = free_list;
    free_list = c;
}

void *instr_tpool_take(int first) { return pool_take(first); }

void instr_tpool_give(void *chunk)
{
    pthread_mutex_lock(&lock);
    pool_give(chunk);
    pthread_mutex_unlock(&lock);
}

static void *allocate(void *user, OTF2_FileType type, OTF2_LocationRef location, void **per_buffer,
                      uint64_t size)
{
    (void)user;
    (void)location;
    tbuf *b = *per_buffer;
    if (!b) {
        if (!(b = calloc(1, sizeof *b)))
            return NULL;
        b->pooled = type == OTF2_FILETYPE_EVENTS && size == chunk_size;
        b->size = size;
        *per_buffer = b;
    }
    if (b->n == b->capn) {
        uint32_t n = b->capn ? 2 * b->capn : 8;
        void **grown = realloc(b->chunks, n * sizeof *grown);
        if (!grown)
            return NULL;
        b->chunks = grown;
        b->capn = n;
    }
    void *c;
    if (b->spare) {
        c = b->spare;
        b->spare = NULL;
    } else if (b->pooled) {
        c = pool_take(!b->started);
    } else {
        pthread_mutex_lock(&lock);
        c = def_cache && def_cache_size == size ? def_cache : NULL;
        if (c)
            def_cache = NULL;
        pthread_mutex_unlock(&lock);
        if (!c)
            c = malloc(size);
    }
    if (c) {
        b->chunks[b->n++] = c;
        b->started = 1;
    }
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
    if (!b->pooled) {
        for (uint32_t i = 0; i < b->n; i++) {
            void *c = b->chunks[i];
            pthread_mutex_lock(&lock);
            if (!def_cache) {
                def_cache = c;
                def_cache_size = b->size;
                c = NULL;
            }
            pthread_mutex_unlock(&lock);
            free(c);
        }
        b->n = 0;
    } else {
        void *keep = NULL;
        if (!final && !b->spare && b->n > 0)
            keep = b->chunks[--b->n];
        pthread_mutex_lock(&lock);
        for (uint32_t i = 0; i < b->n; i++)
            pool_give(b->chunks[i]);
        if (final && b->spare)
            pool_give(b->spare);
        pthread_mutex_unlock(&lock);
        b->n = 0;
        if (final)
            b->spare = NULL;
        else if (keep)
            b->spare = keep;
    }
    if (final) {
        free(b->chunks);
        free(b);
        *per_buffer = NULL;
    }
}

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef location,
                                void *caller, bool final)
{
    (void)user;
    (void)location;
    (void)caller;
    if (type == OTF2_FILETYPE_EVENTS && !final)
        __atomic_fetch_add(&flushes, 1, __ATOMIC_RELAXED);
    return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *user, OTF2_FileType type, OTF2_LocationRef location)
{
    (void)user;
    (void)type;
    (void)location;
    uint64_t t = instr_clock_now();
    uint64_t seen = __atomic_load_n(&last_flush_end, __ATOMIC_RELAXED);
    while (t > seen &&
           !__atomic_compare_exchange_n(&last_flush_end, &seen, t, 1, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED))
        ;
    return t;
}

static const OTF2_MemoryCallbacks memory_callbacks = {allocate, free_all};
static const OTF2_FlushCallbacks flush_callbacks = {pre_flush, post_flush};

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
    out->held = held;
    out->overdraft = overdraft;
    pthread_mutex_unlock(&lock);
    out->flushes = __atomic_load_n(&flushes, __ATOMIC_RELAXED);
    out->last_flush_end = __atomic_load_n(&last_flush_end, __ATOMIC_RELAXED);
}
