/* pages.h — the runtime's own allocator: memory from its own mmap'd pages, never from the
 * program's malloc heap (docs/runtime.md, "The runtime's memory").
 *
 * The runtime shares the process with a program whose heap must stay the program's: a block
 * the runtime took from malloc would change where glibc's heap grows and when it is trimmed,
 * and so the program's own system calls and page faults. Small blocks come from size
 * classes with free lists, carved from chunks mapped for them; a large block is a mapping of
 * its own, unmapped when freed. Thread-safe (one lock: never taken on the hot path, whose
 * memory is taken in chunks at warm-up). Not async-signal-safe.
 *
 * The functions behave as their C library namesakes; a pointer from them goes back only to
 * instr_mem_free/instr_mem_realloc, and a pointer a library allocated (getline, the
 * demangler, libyaml) goes only to instr_mem_free(3): instr_mem_free aborts on a pointer it does not
 * own, so a mismatch cannot pass unnoticed. */
#ifndef INSTR_UTIL_PAGES_H
#define INSTR_UTIL_PAGES_H

#include <stdarg.h>
#include <stddef.h>

/* Blocks above this size are mappings of their own: zero when they come, and untouched
 * (no page of them is committed before its first use; from 1 MiB on they are whole 2 MiB
 * huge pages where the kernel has them, committed 2 MiB at a time). */
#define INSTR_MEM_SMALL_MAX (((size_t)1 << 16) - 16)

void *instr_mem_alloc(size_t size);
/* Zeroed; a large block is not written at all (a critical path's per-thread tables of 48 MiB
 * cost nothing before they are used). */
void *instr_mem_calloc(size_t n, size_t size);
void *instr_mem_realloc(void *p, size_t size);
void instr_mem_free(void *p);
char *instr_mem_strdup(const char *s);
char *instr_mem_strndup(const char *s, size_t n);
/* instr_mem_asprintf(3) and instr_mem_vasprintf(3): the length, or -1 with *out undefined. */
int instr_mem_asprintf(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int instr_mem_vasprintf(char **out, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

/* A copy of `len` bytes (and a terminating NUL) that a library allocated with malloc, for
 * a caller that keeps it in the runtime's memory: `buf` goes back to free(3); NULL when
 * the copy fails (buf is freed all the same). */
char *instr_mem_from_libc(char *buf, size_t len);

/* 1 when p points into a block of this allocator (any byte of it), else 0. */
int instr_mem_owns(const void *p);
/* The bytes usable at p (at least what was asked for). */
size_t instr_mem_usable(const void *p);
/* Bytes mapped by the allocator now (chunks and large blocks). */
size_t instr_mem_mapped(void);
/* Around fork(): prepare takes the lock (after every lock whose holder may allocate), so that
 * the child never inherits it held by a thread that does not exist there; parent and child
 * give it back. */
void instr_mem_fork_prepare(void);
void instr_mem_fork_parent(void);
void instr_mem_fork_child(void);

#endif
