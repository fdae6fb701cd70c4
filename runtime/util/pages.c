/* pages.c — the runtime's own allocator over mmap'd pages (pages.h).
 *
 * Every block has a 16-byte header before it: its size class, or for a large block the
 * length of its mapping. Small blocks (up to 64 KiB with the header) are powers of two from
 * 32 bytes, carved from 1 MiB chunks and kept on one free list per class when freed; a chunk
 * is never unmapped (the runtime's memory grows to its working set, which INSTR_TOTAL_MEMORY
 * bounds where it is per-thread data). A larger block is a mapping of its own. The address
 * ranges of chunks and large blocks sit in a sorted table (itself mapped), so that
 * instr_mem_owns is exact and instr_mem_free can refuse a pointer that is not its own. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* MAP_ANONYMOUS, strnlen: some users build util/ without it */
#endif
#include "pages.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define INSTR_PAGES_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define INSTR_PAGES_ASAN 1
#endif
#endif
#ifdef INSTR_PAGES_ASAN
/* ASan does not see mmap'd memory as heap: free blocks are poisoned so that a use after
 * instr_mem_free is still caught, and the mappings are LeakSanitizer's roots, since what a
 * library allocated may be reachable only from the runtime's blocks. */
#include <sanitizer/asan_interface.h>
#include <sanitizer/lsan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#define ROOT_ADD(p, n) __lsan_register_root_region((p), (n))
#define ROOT_DEL(p, n) __lsan_unregister_root_region((p), (n))
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#define ROOT_ADD(p, n) ((void)(p), (void)(n))
#define ROOT_DEL(p, n) ((void)(p), (void)(n))
#endif

#define HDR 16u
#define MIN_SHIFT 5u   /* the smallest block: 32 bytes, 16 of them usable */
#define NCLASS 12u     /* 32 B .. 64 KiB */
#define CHUNK ((size_t)1 << 20)
#define MAGIC_LIVE 0x696e7374u
#define MAGIC_FREE 0x66726565u
#define CLASS_LARGE 0xffffffffu
_Static_assert(INSTR_MEM_SMALL_MAX == ((size_t)1 << (NCLASS - 1 + MIN_SHIFT)) - HDR,
               "pages.h's INSTR_MEM_SMALL_MAX is the largest size class's usable bytes");

struct hdr {
    uint32_t magic;
    uint32_t cls;  /* size class, or CLASS_LARGE */
    size_t length; /* a large block's mapping; a small block's block size */
};
_Static_assert(sizeof(struct hdr) == HDR, "the header keeps blocks 16-byte aligned");

struct range {
    uintptr_t lo, hi;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void *free_list[NCLASS];
static char *bump, *bump_end;
static struct range *ranges;
static size_t n_ranges, cap_ranges;
static size_t mapped;

static void *map(size_t len)
{
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

#define HUGE ((size_t)2 << 20)
#define HUGE_MIN ((size_t)1 << 20) /* large blocks from here on are whole huge pages */

/* len bytes (whole pages) at an address aligned to HUGE. */
static void *map_aligned(size_t len)
{
    char *m = map(len);
    if (!m || ((uintptr_t)m & (HUGE - 1)) == 0)
        return m;
    munmap(m, len);
    if (!(m = map(len + HUGE)))
        return NULL;
    char *a = (char *)(((uintptr_t)m + HUGE - 1) & ~(uintptr_t)(HUGE - 1));
    if (a > m)
        munmap(m, (size_t)(a - m));
    if (a + len < m + len + HUGE)
        munmap(a + len, (size_t)(m + len + HUGE - (a + len)));
    return a;
}

static size_t page_round(size_t n)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    return (n + pg - 1) / pg * pg;
}

/* The index of the first range whose hi > a. */
static size_t range_find(uintptr_t a)
{
    size_t lo = 0, hi = n_ranges;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (ranges[mid].hi <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int range_add(void *p, size_t len)
{
    if (n_ranges == cap_ranges) {
        size_t ncap = cap_ranges ? cap_ranges * 2 : 256;
        struct range *n = map(page_round(ncap * sizeof *n));
        if (!n)
            return -1;
        if (ranges) {
            memcpy(n, ranges, n_ranges * sizeof *n);
            munmap(ranges, page_round(cap_ranges * sizeof *n));
        }
        ranges = n;
        cap_ranges = ncap;
    }
    uintptr_t a = (uintptr_t)p;
    size_t i = range_find(a);
    memmove(ranges + i + 1, ranges + i, (n_ranges - i) * sizeof *ranges);
    ranges[i] = (struct range){a, a + len};
    n_ranges++;
    mapped += len;
    ROOT_ADD(p, len);
    return 0;
}

static void range_del(void *p)
{
    size_t i = range_find((uintptr_t)p);
    size_t len = ranges[i].hi - ranges[i].lo;
    memmove(ranges + i, ranges + i + 1, (n_ranges - i - 1) * sizeof *ranges);
    n_ranges--;
    mapped -= len;
    ROOT_DEL(p, len);
}

static int owns_locked(const void *p)
{
    uintptr_t a = (uintptr_t)p;
    size_t i = range_find(a);
    return i < n_ranges && ranges[i].lo <= a;
}

/* The smallest class whose blocks hold `size` usable bytes, or NCLASS. */
static unsigned class_of(size_t size)
{
    if (size > ((size_t)1 << (NCLASS - 1 + MIN_SHIFT)))
        return NCLASS; /* also keeps size + HDR from wrapping */
    size_t need = size + HDR;
    for (unsigned c = 0; c < NCLASS; c++)
        if (need <= (size_t)1 << (c + MIN_SHIFT))
            return c;
    return NCLASS;
}

static void push_free(unsigned c, char *block)
{
    struct hdr *h = (struct hdr *)block;
    h->magic = MAGIC_FREE;
    h->cls = c;
    h->length = (size_t)1 << (c + MIN_SHIFT);
    *(void **)(block + HDR) = free_list[c];
    free_list[c] = block + HDR;
    POISON(block + HDR, h->length - HDR);
}

/* A fresh chunk; the rest of the old one goes to the free lists, largest blocks first. */
static int new_chunk(void)
{
    char *c = map(CHUNK);
    if (!c)
        return -1;
    if (range_add(c, CHUNK) != 0) {
        munmap(c, CHUNK);
        return -1;
    }
    for (int k = (int)NCLASS - 1; k >= 0 && bump; k--) {
        size_t bs = (size_t)1 << (k + MIN_SHIFT);
        while ((size_t)(bump_end - bump) >= bs) {
            push_free((unsigned)k, bump);
            bump += bs;
        }
    }
    bump = c;
    bump_end = c + CHUNK;
    return 0;
}

static void *alloc_small(unsigned c)
{
    size_t bs = (size_t)1 << (c + MIN_SHIFT);
    char *user;
    if (free_list[c]) {
        user = free_list[c];
        UNPOISON(user, bs - HDR);
        free_list[c] = *(void **)user;
    } else {
        if ((size_t)(bump_end - bump) < bs && new_chunk() != 0)
            return NULL;
        user = bump + HDR;
        bump += bs;
    }
    struct hdr *h = (struct hdr *)(user - HDR);
    h->magic = MAGIC_LIVE;
    h->cls = c;
    h->length = bs;
    return user;
}

static void *alloc_large(size_t size)
{
    if (size > SIZE_MAX / 2)
        return NULL;
    size_t len = page_round(size + HDR);
    char *m;
#ifdef MADV_HUGEPAGE
    if (len >= HUGE_MIN) {
        /* Aligned huge pages: the kernel backs only the aligned 2 MiB stretches of a mapping
         * with them, and aligns a mapping itself only when its length is a multiple of 2 MiB.
         * A fresh 4 KiB page costs tens of microseconds in a virtual machine, a 2 MiB one
         * about as much as 10 of them: a 1.4 MB block in 4 KiB pages costs 13 ms, in one
         * huge page 0.3 ms. A block under 2 MiB becomes one (at most a doubling, under 1 MiB
         * more); a larger one keeps its length, its tail in 4 KiB pages. */
        if (len < HUGE)
            len = HUGE;
        if ((m = map_aligned(len)) != NULL)
            madvise(m, len, MADV_HUGEPAGE);
    } else
#endif
        m = map(len);
    if (!m)
        return NULL;
    if (range_add(m, len) != 0) {
        munmap(m, len);
        return NULL;
    }
    struct hdr *h = (struct hdr *)m;
    h->magic = MAGIC_LIVE;
    h->cls = CLASS_LARGE;
    h->length = len;
    return m + HDR;
}

void *instr_mem_alloc(size_t size)
{
    unsigned c = class_of(size);
    pthread_mutex_lock(&lock);
    void *p = c < NCLASS ? alloc_small(c) : alloc_large(size);
    pthread_mutex_unlock(&lock);
    return p;
}

static struct hdr *header_locked(const void *p)
{
    struct hdr *h = (struct hdr *)((char *)p - HDR);
    if (!owns_locked(p) || h->magic != MAGIC_LIVE) {
        /* Not the runtime's block, or freed twice: a mismatch of allocators is a bug to
         * stop at, not a leak or a corruption to carry on with. */
        static const char msg[] = "instr: runtime error: a block freed that the runtime's "
                                  "allocator does not own or has freed already\n";
        if (write(2, msg, sizeof msg - 1) < 0) {
        }
        abort();
    }
    return h;
}

void instr_mem_free(void *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&lock);
    struct hdr *h = header_locked(p);
    if (h->cls == CLASS_LARGE) {
        size_t len = h->length;
        range_del(h);
        munmap(h, len);
    } else {
        push_free(h->cls, (char *)h);
    }
    pthread_mutex_unlock(&lock);
}

size_t instr_mem_usable(const void *p)
{
    pthread_mutex_lock(&lock);
    struct hdr *h = header_locked(p);
    size_t n = h->length - HDR;
    pthread_mutex_unlock(&lock);
    return n;
}

void *instr_mem_realloc(void *p, size_t size)
{
    if (!p)
        return instr_mem_alloc(size);
    if (size == 0) {
        instr_mem_free(p);
        return NULL;
    }
    size_t have = instr_mem_usable(p);
    /* Keep a block that fits unless it would be more than twice too big. */
    if (size <= have && (have <= 16 || size > have / 2))
        return p;
    void *n = instr_mem_alloc(size);
    if (!n)
        return NULL;
    memcpy(n, p, size < have ? size : have);
    instr_mem_free(p);
    return n;
}

int instr_mem_owns(const void *p)
{
    pthread_mutex_lock(&lock);
    int r = owns_locked(p);
    pthread_mutex_unlock(&lock);
    return r;
}

size_t instr_mem_mapped(void)
{
    pthread_mutex_lock(&lock);
    size_t n = mapped;
    pthread_mutex_unlock(&lock);
    return n;
}

void instr_mem_fork_prepare(void) { pthread_mutex_lock(&lock); }
void instr_mem_fork_parent(void) { pthread_mutex_unlock(&lock); }

void instr_mem_fork_child(void)
{
    /* Held by this thread since instr_mem_fork_prepare: given back as the core gives back
     * instr_loc_lock (made fresh instead, it stayed held for ThreadSanitizer, whose lock order
     * then had it before instr_loc_lock in the child's end, against location_create's). */
    pthread_mutex_unlock(&lock);
}
