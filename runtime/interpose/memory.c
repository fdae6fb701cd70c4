/* memory.c — memory recording (INSTR_MEMORY=1, docs/memory.md): the C library's allocation
 * functions, interposed in the shared runtime only, count the program's allocations and
 * releases per call path (the calling thread's cursor node), the live bytes per thread and
 * per process and their high-water marks, and keep every live block's size and allocating
 * call path in a side table keyed by address, so that a release is attributed exactly and
 * the blocks still live at the end are reported with the call paths that allocated them.
 * The program's blocks are the C library's own: no header, no change of layout or alignment.
 *
 * C++ operator new and delete (every form: sized, array, aligned, nothrow) and Fortran's
 * ALLOCATE reach these functions through their runtime libraries (libstdc++, libc++,
 * libgfortran call malloc, aligned_alloc/posix_memalign and free), so they are recorded here
 * with the call path of the code that called them; the runtime defines no operator new.
 *
 * Off (INSTR_MEMORY unset), each wrapper is one load and one predictable branch in front of
 * the C library's function, called directly by its __libc_ name: no dlsym, so nothing to
 * resolve early and no bootstrap through calloc.
 *
 * Reentrancy: the runtime's own calls go straight to the C library, unrecorded: calls from
 * the runtime's own code (by return address), calls while the thread holds the registry lock
 * (naming a region reads ELF files and debug information), while a cursor slow path or a
 * substrate plugin has the cursor, while a substrate works on the generic path, and before
 * measurement starts or after it ends. The recorder works inside the event core's guard
 * (instr_core_guard_begin); a call that finds it taken comes from the runtime's own work on
 * that thread or from a signal handler that interrupted it or the recorder (counted).
 *
 * Traced (INSTR_ENABLE_TRACING=1), each recorded call is also an Enter and a Leave of a region
 * named after the function, with its sizes and addresses as attributes (trace/memory_events.c),
 * appended to the thread's compact trace buffer from inside the recorder. */
#include "memory.h"
#include "../core/config.h"
#include "../core/log.h"
#include "../core/registry.h"
#include "../profile/profile.h"
#ifdef INSTR_RT_HAVE_TRACE
#include "../core/clock.h"
#include "../trace/memory_events.h"
#endif

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default"), no_instrument_function))

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);
extern void *__libc_memalign(size_t align, size_t n);
extern void *__libc_valloc(size_t n);
extern void *__libc_pvalloc(size_t n);

/* The one flag the wrappers test. */
static int on;

/* ---- the side table: live blocks by address, in shards each behind a spin lock ---- */

#define SHARD_BITS 6
#define SHARDS (1u << SHARD_BITS)
#define SHARD_FIRST_CAP 1024u

typedef struct shard {
    int lock;
    uint32_t cap, n;
    instr_memrec_block *b; /* cap entries, addr 0: empty; mmap'd */
} __attribute__((aligned(64))) shard;

static shard shards[SHARDS];

static instr_memrec_thread *threads;
static uint64_t g_live, g_high_water, g_dropped, g_stale, g_in_runtime;
static int cursor_slot = -2; /* the cursor's substrate slot; -2: not looked up yet */

static _Thread_local instr_memrec_thread *tls_thread __attribute__((tls_model("initial-exec")));
/* 1 while this thread is inside the recorder: a call then comes from a signal handler. */
static _Thread_local int tls_recording __attribute__((tls_model("initial-exec")));

static uint64_t hash(uintptr_t a)
{
    uint64_t h = (uint64_t)(a >> 4) * 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 29);
}

static shard *shard_of(uint64_t h) { return &shards[h >> (64 - SHARD_BITS)]; }

static void lock(shard *s)
{
    while (__atomic_exchange_n(&s->lock, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(&s->lock, __ATOMIC_RELAXED))
            __builtin_ia32_pause();
}

static void unlock(shard *s) { __atomic_store_n(&s->lock, 0, __ATOMIC_RELEASE); }

static void *map(size_t size)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* Places b in a table of cap entries (there is room, b->addr is not in it). */
static void place(instr_memrec_block *t, uint32_t cap, const instr_memrec_block *b)
{
    uint32_t i = (uint32_t)hash(b->addr) & (cap - 1);
    while (t[i].addr)
        i = (i + 1) & (cap - 1);
    t[i] = *b;
}

/* With the shard locked: room for one more entry; -1 when no memory. */
static int room(shard *s)
{
    if (s->b && (uint64_t)(s->n + 1) * 10 <= (uint64_t)s->cap * 7)
        return 0;
    uint32_t cap = s->b ? s->cap * 2 : SHARD_FIRST_CAP;
    instr_memrec_block *t = map((size_t)cap * sizeof *t);
    if (!t)
        return -1;
    for (uint32_t i = 0; s->b && i < s->cap; i++)
        if (s->b[i].addr)
            place(t, cap, &s->b[i]);
    if (s->b)
        munmap(s->b, (size_t)s->cap * sizeof *s->b);
    s->b = t;
    s->cap = cap;
    return 0;
}

/* With the shard locked: the index of addr, or -1. */
static int64_t find(const shard *s, uintptr_t addr, uint64_t h)
{
    if (!s->b)
        return -1;
    for (uint32_t i = (uint32_t)h & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
        if (s->b[i].addr == addr)
            return i;
        if (!s->b[i].addr)
            return -1;
    }
}

/* With the shard locked: empties entry i, moving later entries of its run back (no
 * tombstones). */
static void erase(shard *s, uint32_t i)
{
    uint32_t mask = s->cap - 1;
    for (uint32_t j = (i + 1) & mask; s->b[j].addr; j = (j + 1) & mask) {
        uint32_t home = (uint32_t)hash(s->b[j].addr) & mask;
        /* j's entry may move to i when its home is not in (i, j] cyclically. */
        if (((j - home) & mask) >= ((j - i) & mask)) {
            s->b[i] = s->b[j];
            i = j;
        }
    }
    s->b[i].addr = 0;
    s->n--;
}

static void live_sub(instr_memrec_thread *owner, uint64_t size)
{
    __atomic_fetch_sub(&owner->live, size, __ATOMIC_RELAXED);
    __atomic_fetch_sub(&g_live, size, __ATOMIC_RELAXED);
}

static void live_add(instr_memrec_thread *th, uint64_t size)
{
    uint64_t t = __atomic_add_fetch(&th->live, size, __ATOMIC_RELAXED);
    if (t > th->high_water) /* only the owner raises it; others only lower live */
        __atomic_store_n(&th->high_water, t, __ATOMIC_RELAXED);
    uint64_t g = __atomic_add_fetch(&g_live, size, __ATOMIC_RELAXED);
    uint64_t hw = __atomic_load_n(&g_high_water, __ATOMIC_RELAXED);
    while (g > hw && !__atomic_compare_exchange_n(&g_high_water, &hw, g, 1, __ATOMIC_RELAXED,
                                                  __ATOMIC_RELAXED))
        ;
}

/* Records block b; 0, or -1 when the table has no room (the block stays unrecorded). One
 * probe: the address's entry, or the first empty one. */
static int insert(const instr_memrec_block *b)
{
    uint64_t h = hash(b->addr);
    shard *s = shard_of(h);
    lock(s);
    if (room(s) != 0) {
        unlock(s);
        return -1;
    }
    uint32_t mask = s->cap - 1, i = (uint32_t)h & mask;
    while (s->b[i].addr && s->b[i].addr != b->addr)
        i = (i + 1) & mask;
    instr_memrec_block old = s->b[i];
    s->b[i] = *b;
    if (!old.addr) {
        s->n++;
        unlock(s);
        return 0;
    }
    unlock(s);
    /* Still recorded at an address the C library handed out again: its release was not
     * recorded (a signal handler's call while this thread was inside the runtime). */
    live_sub(old.owner, old.size);
    __atomic_fetch_add(&g_stale, 1, __ATOMIC_RELAXED);
    return 0;
}

/* Takes addr's record out into *out; 0 when it has none. */
static int take(uintptr_t addr, instr_memrec_block *out)
{
    uint64_t h = hash(addr);
    shard *s = shard_of(h);
    lock(s);
    int64_t i = find(s, addr, h);
    if (i >= 0) {
        *out = s->b[i];
        erase(s, (uint32_t)i);
    }
    unlock(s);
    return i >= 0;
}

/* ---- per thread: counts per call path ---- */

static instr_memrec_thread *thread_self(void)
{
    instr_memrec_thread *th = tls_thread;
    if (th)
        return th;
    th = map(sizeof *th);
    if (!th)
        return NULL;
    th->tid = (int)syscall(SYS_gettid);
    th->next = __atomic_load_n(&threads, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(&threads, &th->next, th, 1, __ATOMIC_RELEASE,
                                        __ATOMIC_RELAXED))
        ;
    return tls_thread = th;
}

static uint32_t slot_hash(const instr_pnode *n, uint32_t cap)
{
    return (uint32_t)hash((uintptr_t)n) & (cap - 1);
}

/* The thread's counts of node (NULL: outside any region); NULL when no memory. Only the
 * thread itself adds slots; the report reads them after the end. Tables outgrown stay mapped
 * (a reader may still hold one): at most as much again. */
static instr_memrec_counts *counts(instr_memrec_thread *th, const instr_pnode *node)
{
    if (!node) {
        th->has_outside = 1;
        return &th->outside.c;
    }
    if (th->slots) {
        for (uint32_t i = slot_hash(node, th->cap);; i = (i + 1) & (th->cap - 1)) {
            if (th->slots[i].node == node)
                return &th->slots[i].c;
            if (!th->slots[i].node)
                break;
        }
    }
    if (!th->slots || (th->n + 1) * 2 > th->cap) {
        uint32_t cap = th->slots ? th->cap * 2 : 256;
        instr_memrec_slot *t = map((size_t)cap * sizeof *t);
        if (!t)
            return NULL;
        for (uint32_t i = 0; th->slots && i < th->cap; i++) {
            if (!th->slots[i].node)
                continue;
            uint32_t k = slot_hash(th->slots[i].node, cap);
            while (t[k].node)
                k = (k + 1) & (cap - 1);
            t[k] = th->slots[i];
        }
        __atomic_store_n(&th->cap, cap, __ATOMIC_RELAXED);
        __atomic_store_n(&th->slots, t, __ATOMIC_RELEASE);
    }
    uint32_t i = slot_hash(node, th->cap);
    while (th->slots[i].node)
        i = (i + 1) & (th->cap - 1);
    th->slots[i].node = node;
    th->n++;
    return &th->slots[i].c;
}

/* ---- one recorded call ---- */

typedef struct rec {
    instr_memrec_thread *th;
    const instr_pnode *node;
    instr_location *loc;
} rec;

/* The functions, as the trace names their regions. */
enum fn {
    F_MALLOC, F_CALLOC, F_REALLOC, F_REALLOCARRAY, F_FREE, F_MEMALIGN, F_ALIGNED_ALLOC,
    F_POSIX_MEMALIGN, F_VALLOC, F_PVALLOC, NFN
};

#ifdef INSTR_RT_HAVE_TRACE
static const char *const fn_name[NFN] = {
    "malloc", "calloc", "realloc", "reallocarray", "free", "memalign", "aligned_alloc",
    "posix_memalign", "valloc", "pvalloc",
};
static uint32_t fn_region[NFN];
static int fn_regions_done;

/* The regions of the functions, registered at the first traced call (inside the core's
 * guard, so the registry's own allocations are not recorded). */
static uint32_t fn_region_of(enum fn f)
{
    if (!__atomic_load_n(&fn_regions_done, __ATOMIC_ACQUIRE)) {
        instr_registry_lock();
        for (int i = 0; !fn_regions_done && i < NFN; i++) {
            instr_region_info info = {.name = fn_name[i], .mangled = fn_name[i], .file = "",
                                      .object = "", .source = INSTR_SOURCE_MEMORY};
            fn_region[i] = instr_registry_add_locked(&info);
        }
        __atomic_store_n(&fn_regions_done, 1, __ATOMIC_RELEASE);
        instr_registry_unlock();
    }
    return fn_region[f];
}

static uint64_t now(void) { return instr_clock_now(); }

/* The call in the trace, when the thread is traced: Enter at t0, Leave now. size: bytes asked
 * for (UINT64_MAX: none); arg, result: blocks passed in and handed out (0: none); freed: the
 * recorded size of the block released (UINT64_MAX: none). */
static void trace_call(const rec *r, enum fn f, uint64_t t0, uint64_t size, uintptr_t arg,
                       uintptr_t result, uint64_t freed)
{
    if (!instr_trace_memory_wanted(r->loc))
        return;
    instr_trace_memcall c = {.region = fn_region_of(f), .t_enter = t0, .t_leave = now()};
    if (size != UINT64_MAX) {
        c.has |= 1u << INSTR_TRACE_ALLOCATION_SIZE;
        c.value[INSTR_TRACE_ALLOCATION_SIZE] = size;
    }
    if (arg) {
        c.has |= 1u << INSTR_TRACE_ARGUMENT_ADDRESS;
        c.value[INSTR_TRACE_ARGUMENT_ADDRESS] = arg;
    }
    if (result) {
        c.has |= 1u << INSTR_TRACE_RESULT_ADDRESS;
        c.value[INSTR_TRACE_RESULT_ADDRESS] = result;
    }
    if (freed != UINT64_MAX) {
        c.has |= 1u << INSTR_TRACE_DEALLOCATION_SIZE;
        c.value[INSTR_TRACE_DEALLOCATION_SIZE] = freed;
    }
    /* The trace's own work: OTF2 allocates a thread's attribute list at its first call, and
     * those calls (guard taken) are the runtime's, not a signal handler's dropped ones. */
    tls_recording = 0;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    instr_trace_memory_call(r->loc, &c);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    tls_recording = 1;
}
#else
static uint64_t now(void) { return 0; }
static void trace_call(const rec *r, enum fn f, uint64_t t0, uint64_t size, uintptr_t arg,
                       uintptr_t result, uint64_t freed)
{
    (void)r, (void)f, (void)t0, (void)size, (void)arg, (void)result, (void)freed;
}
#endif

static void dropped(void) { __atomic_fetch_add(&g_dropped, 1, __ATOMIC_RELAXED); }

/* The runtime's own code: the executable segments of libinstr-rt and libinstr-rt-mpi. A
 * call from there is the runtime's own allocation, whatever the thread is doing. */
#define OWN_MAX 4
static uintptr_t own_lo[OWN_MAX], own_hi[OWN_MAX];
static unsigned own_n;

static int own_caller(uintptr_t ra)
{
    for (unsigned i = 0; i < own_n; i++)
        if (ra - own_lo[i] < own_hi[i] - own_lo[i])
            return 1;
    return 0;
}

/* Whether this call (from return address ra) is recorded: inside the core's guard (end with
 * rec_end) with the thread and its call path in *r; 0: the call goes to the C library
 * unrecorded. */
static int rec_begin(rec *r, uintptr_t ra)
{
    if (own_caller(ra))
        return 0; /* the runtime's own */
    int st = instr_state_get();
    if (st != INSTR_STATE_RUNNING && st != INSTR_STATE_PAUSED)
        return 0; /* before measurement starts or after it ends: the runtime's own time */
    if (!instr_core_guard_begin()) {
        /* The runtime's own call (not recorded, not counted), or a signal handler's that
         * interrupted the recorder (dropped and counted) or the runtime on this thread
         * (not told from the runtime's own: a release then shows up as a stale record). */
        if (tls_recording)
            dropped();
        else
            __atomic_fetch_add(&g_in_runtime, 1, __ATOMIC_RELAXED);
        return 0;
    }
    r->node = NULL;
    r->loc = NULL;
    if (instr_registry_held)
        goto runtime; /* a region is being named: the runtime's own allocations */
    instr_location *loc = instr_tls_loc;
    if (loc) {
        if (loc->busy)
            goto runtime; /* a substrate works on the generic path: its own allocation */
        int slot = __atomic_load_n(&cursor_slot, __ATOMIC_RELAXED);
        if (slot == -2) {
            slot = instr_substrate_slot_with(INSTR_SUBSTRATE_CURSOR);
            __atomic_store_n(&cursor_slot, slot, __ATOMIC_RELAXED);
        }
        instr_pstate *ps = loc->cct ? loc->cct : slot >= 0 ? loc->sub[slot] : NULL;
        if (ps) {
            if (ps->cursor == &ps->busy)
                goto runtime; /* a cursor slow path or a substrate plugin works */
            r->node = instr_cct_current(ps);
        }
    }
    if (!(r->th = thread_self()))
        goto runtime;
    if (!r->th->loc && loc)
        r->th->loc = loc;
    r->loc = loc;
    tls_recording = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    return 1;
runtime:
    instr_core_guard_end();
    return 0;
}

static void rec_end(void)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    tls_recording = 0;
    instr_core_guard_end();
}

/* 1 when recorded; 0: the side table had no room (dropped). */
static int count_alloc(rec *r, uintptr_t addr, uint64_t size)
{
    instr_memrec_block b = {addr, size, r->node, r->th};
    if (insert(&b) != 0) {
        dropped();
        return 0;
    }
    instr_memrec_counts *c = counts(r->th, r->node);
    if (c) {
        c->allocs++;
        c->bytes_allocated += size;
    }
    r->th->total.allocs++;
    r->th->total.bytes_allocated += size;
    live_add(r->th, size);
    return 1;
}

static void count_free(rec *r, const instr_memrec_block *b)
{
    instr_memrec_counts *c = counts(r->th, r->node);
    if (c) {
        c->frees++;
        c->bytes_freed += b->size;
    }
    r->th->total.frees++;
    r->th->total.bytes_freed += b->size;
    live_sub(b->owner, b->size);
}

/* t0: the time the call began (the trace's Enter). */
static void record_alloc(void *p, uint64_t size, uintptr_t ra, enum fn f, uint64_t t0)
{
    rec r;
    if (!p || !rec_begin(&r, ra))
        return;
    if (count_alloc(&r, (uintptr_t)p, size))
        trace_call(&r, f, t0, size, 0, (uintptr_t)p, UINT64_MAX);
    rec_end();
}

#define RA() ((uintptr_t)__builtin_return_address(0))

static __attribute__((noinline)) void *rec_malloc(size_t n, uintptr_t ra)
{
    uint64_t t0 = now();
    void *p = __libc_malloc(n);
    record_alloc(p, n, ra, F_MALLOC, t0);
    return p;
}

static __attribute__((noinline)) void *rec_calloc(size_t n, size_t size, uintptr_t ra)
{
    uint64_t t0 = now();
    void *p = __libc_calloc(n, size);
    record_alloc(p, (uint64_t)n * size, ra, F_CALLOC, t0);
    return p;
}

static __attribute__((noinline)) void *rec_memalign(size_t align, size_t n, uintptr_t ra,
                                                    enum fn f)
{
    uint64_t t0 = now();
    void *p = __libc_memalign(align, n);
    record_alloc(p, n, ra, f, t0);
    return p;
}

/* The record is taken out before the C library gets the block back: from then on another
 * thread may get the same address. */
static __attribute__((noinline)) void rec_free(void *p, uintptr_t ra)
{
    rec r;
    uint64_t t0 = now();
    if (rec_begin(&r, ra)) {
        instr_memrec_block b;
        int had = take((uintptr_t)p, &b);
        if (had)
            count_free(&r, &b);
        /* A block not recorded (allocated before measurement began): a call, no release. */
        trace_call(&r, F_FREE, t0, UINT64_MAX, (uintptr_t)p, 0, had ? b.size : UINT64_MAX);
        rec_end();
    }
    __libc_free(p);
}

static __attribute__((noinline)) void *rec_realloc(void *p, size_t n, uintptr_t ra, enum fn f)
{
    rec r;
    uint64_t t0 = now();
    if (!rec_begin(&r, ra))
        return __libc_realloc(p, n);
    instr_memrec_block old;
    int had = p && take((uintptr_t)p, &old);
    void *q = __libc_realloc(p, n);
    if (!q && p && n) {
        /* Failed: the old block stays. */
        if (had && insert(&old) != 0)
            dropped();
        trace_call(&r, f, t0, n, (uintptr_t)p, 0, UINT64_MAX);
    } else {
        if (had)
            count_free(&r, &old);
        int added = q && count_alloc(&r, (uintptr_t)q, n);
        trace_call(&r, f, t0, n, (uintptr_t)p, added ? (uintptr_t)q : 0,
                   had ? old.size : UINT64_MAX);
    }
    rec_end();
    return q;
}

/* ---- the C library's names ---- */

EXPORT void *malloc(size_t n)
{
    if (__builtin_expect(!on, 1))
        return __libc_malloc(n);
    return rec_malloc(n, RA());
}

EXPORT void *calloc(size_t n, size_t size)
{
    if (__builtin_expect(!on, 1))
        return __libc_calloc(n, size);
    return rec_calloc(n, size, RA());
}

EXPORT void *realloc(void *p, size_t n)
{
    if (__builtin_expect(!on, 1))
        return __libc_realloc(p, n);
    return rec_realloc(p, n, RA(), F_REALLOC);
}

EXPORT void free(void *p)
{
    if (__builtin_expect(!on || !p, 1)) {
        __libc_free(p);
        return;
    }
    rec_free(p, RA());
}

EXPORT void *reallocarray(void *p, size_t n, size_t size)
{
    size_t bytes;
    if (__builtin_mul_overflow(n, size, &bytes)) {
        errno = ENOMEM;
        return NULL;
    }
    if (__builtin_expect(!on, 1))
        return __libc_realloc(p, bytes);
    return rec_realloc(p, bytes, RA(), F_REALLOCARRAY);
}

EXPORT void *memalign(size_t align, size_t n)
{
    if (__builtin_expect(!on, 1))
        return __libc_memalign(align, n);
    return rec_memalign(align, n, RA(), F_MEMALIGN);
}

EXPORT void *aligned_alloc(size_t align, size_t n)
{
    if (__builtin_expect(!on, 1))
        return __libc_memalign(align, n);
    return rec_memalign(align, n, RA(), F_ALIGNED_ALLOC);
}

EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
    if (align % sizeof(void *) != 0 || (align & (align - 1)) != 0 || align == 0)
        return EINVAL;
    int e = errno;
    void *p = __builtin_expect(!on, 1) ? __libc_memalign(align, n)
                                       : rec_memalign(align, n, RA(), F_POSIX_MEMALIGN);
    if (!p)
        return ENOMEM;
    errno = e;
    *out = p;
    return 0;
}

EXPORT void *valloc(size_t n)
{
    uint64_t t0 = __builtin_expect(on, 0) ? now() : 0;
    void *p = __libc_valloc(n);
    if (__builtin_expect(on, 0))
        record_alloc(p, n, RA(), F_VALLOC, t0);
    return p;
}

EXPORT void *pvalloc(size_t n)
{
    uint64_t t0 = __builtin_expect(on, 0) ? now() : 0;
    void *p = __libc_pvalloc(n);
    if (__builtin_expect(on, 0))
        record_alloc(p, n, RA(), F_PVALLOC, t0);
    return p;
}

/* ---- what the report reads ---- */

int instr_memrec_recording(void) { return on; }

instr_memrec_thread *instr_memrec_threads(void) { return __atomic_load_n(&threads, __ATOMIC_ACQUIRE); }

void instr_memrec_get_totals(instr_memrec_totals *out)
{
    out->live = __atomic_load_n(&g_live, __ATOMIC_RELAXED);
    out->high_water = __atomic_load_n(&g_high_water, __ATOMIC_RELAXED);
    out->dropped = __atomic_load_n(&g_dropped, __ATOMIC_RELAXED);
    out->stale = __atomic_load_n(&g_stale, __ATOMIC_RELAXED);
    out->in_runtime = __atomic_load_n(&g_in_runtime, __ATOMIC_RELAXED);
}

void instr_memrec_each_block(void (*fn)(const instr_memrec_block *b, void *arg), void *arg)
{
    for (uint32_t k = 0; k < SHARDS; k++) {
        shard *s = &shards[k];
        lock(s);
        for (uint32_t i = 0; s->b && i < s->cap; i++)
            if (s->b[i].addr)
                fn(&s->b[i], arg);
        unlock(s);
    }
}

instr_memrec_counts instr_memrec_counts_of(const instr_memrec_thread *th, const instr_pnode *node)
{
    instr_memrec_counts none = {0};
    if (!node)
        return th->has_outside ? th->outside.c : none;
    const instr_memrec_slot *t = __atomic_load_n(&th->slots, __ATOMIC_ACQUIRE);
    uint32_t cap = __atomic_load_n(&th->cap, __ATOMIC_RELAXED);
    if (!t)
        return none;
    for (uint32_t i = slot_hash(node, cap);; i = (i + 1) & (cap - 1)) {
        if (t[i].node == node)
            return t[i].c;
        if (!t[i].node)
            return none;
    }
}

/* ---- start ---- */

/* fork: no shard stays locked in the child by a thread it does not have. */
static void fork_prepare(void)
{
    for (uint32_t k = 0; k < SHARDS; k++)
        lock(&shards[k]);
}

static void fork_after(void)
{
    for (uint32_t k = SHARDS; k-- > 0;)
        unlock(&shards[k]);
}

extern const instr_profile_memory instr_memrec_profile_writers; /* memory_report.c */

/* The executable segments of this library (its load address in *data) and of
 * libinstr-rt-mpi. */
static int own_segments(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    int mine = info->dlpi_addr == (uintptr_t)data ||
               (info->dlpi_name && strstr(info->dlpi_name, "libinstr-rt-mpi"));
    for (int i = 0; mine && i < info->dlpi_phnum && own_n < OWN_MAX; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            own_lo[own_n] = info->dlpi_addr + ph->p_vaddr;
            own_hi[own_n++] = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
        }
    }
    return 0;
}

/* At load time, before the program's main: whether recording is on. Where another malloc
 * comes first in the lookup order (AddressSanitizer's, another allocator's), the program's
 * calls never reach this library: recording is off, and said so. */
__attribute__((constructor)) static void start(void)
{
    const char *v = instr_env("INSTR_MEMORY");
    int want = 0;
    if (!v || !*v || instr_parse_bool(v, &want) != 0 || !want) {
        if (v && *v && instr_parse_bool(v, &want) != 0)
            instr_warn("INSTR_MEMORY=%s is not a boolean: memory recording is off", v);
        return;
    }
    void *first = dlsym(RTLD_DEFAULT, "malloc");
    Dl_info self, info;
    int found = first && dladdr(first, &info) && dladdr((void *)start, &self);
    if (found && info.dli_fbase != self.dli_fbase) {
        const char *who = info.dli_fname ? info.dli_fname : "?";
        const char *why = dlsym(RTLD_DEFAULT, "__asan_init") ? "AddressSanitizer's"
                                                               : "another library's";
        instr_warn("INSTR_MEMORY=1: memory recording is off: %s malloc (in %s) comes before "
                   "instr's runtime, so the program's allocations never reach it "
                   "(docs/memory.md)", why, who);
        return;
    }
    if (found)
        dl_iterate_phdr(own_segments, self.dli_fbase);
    pthread_atfork(fork_prepare, fork_after, fork_after);
#ifdef INSTR_RT_HAVE_TRACE
    instr_trace_memory_enable();
#endif
    instr_profile_set_memory(&instr_memrec_profile_writers);
    __atomic_store_n(&on, 1, __ATOMIC_RELEASE);
    instr_info(1, "memory recording: on (INSTR_MEMORY=1)");
}
