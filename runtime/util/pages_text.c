/* pages_text.c — what the page allocator offers on top of its blocks (pages.h): zeroed
 * blocks, copies of strings, formatted strings. Apart from pages.c so that a library that
 * takes its blocks from another's allocator (libinstr-rt-mpi from libinstr-rt's) builds
 * these on them. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* strnlen */
#endif
#include "pages.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *instr_mem_calloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    void *p = instr_mem_alloc(n * size);
    /* A large block is a fresh mapping, zero from the kernel: writing it would commit every
     * page of it. A small one may come from a free list. */
    if (p && n * size <= INSTR_MEM_SMALL_MAX)
        memset(p, 0, n * size);
    return p;
}

char *instr_mem_strdup(const char *s)
{
    return instr_mem_strndup(s, strlen(s));
}

char *instr_mem_strndup(const char *s, size_t n)
{
    size_t len = strnlen(s, n);
    char *d = instr_mem_alloc(len + 1);
    if (d) {
        memcpy(d, s, len);
        d[len] = '\0';
    }
    return d;
}

int instr_mem_vasprintf(char **out, const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    if (n < 0 || !(*out = instr_mem_alloc((size_t)n + 1))) {
        va_end(again);
        return -1;
    }
    vsnprintf(*out, (size_t)n + 1, fmt, again);
    va_end(again);
    return n;
}

int instr_mem_asprintf(char **out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = instr_mem_vasprintf(out, fmt, ap);
    va_end(ap);
    return n;
}

char *instr_mem_from_libc(char *buf, size_t len)
{
    char *own = buf ? instr_mem_alloc(len + 1) : NULL;
    if (own) {
        memcpy(own, buf, len);
        own[len] = '\0';
    }
    free(buf);
    return own;
}
