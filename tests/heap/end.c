/* end.c — the end of the run leaves the program's heap alone (docs/runtime.md, "The
 * runtime's memory"): the runtime writes its files after main returned (atexit), and nothing
 * it does then may take memory from the program's malloc.
 *
 * The test double: this program's own malloc, calloc, realloc, free, memalign,
 * aligned_alloc, posix_memalign (an executable's definitions come first in the lookup, before
 * the runtime's and the C library's) hand every call to the C library; once main has
 * returned, each call also writes one line "instr-heap-test: <function> after main" with
 * write(2). The program itself allocates nothing after main, so every such line is a call
 * made for the runtime (or a library it called). check_end.py counts them.
 *
 * With the argument "self-test", main allocates once more after the mark: the line must
 * appear (the double works). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);
extern void *__libc_memalign(size_t align, size_t n);

static volatile int after_main;

static void seen(const char *fn)
{
    if (!after_main)
        return;
    char line[96];
    int n = snprintf(line, sizeof line, "instr-heap-test: %s after main\n", fn);
    if (write(2, line, (size_t)n) < 0)
        _exit(3);
}

void *malloc(size_t n)
{
    seen("malloc");
    return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
    seen("calloc");
    return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
    seen("realloc");
    return __libc_realloc(p, n);
}

void free(void *p)
{
    if (p)
        seen("free");
    __libc_free(p);
}

void *memalign(size_t align, size_t n)
{
    seen("memalign");
    return __libc_memalign(align, n);
}

void *aligned_alloc(size_t align, size_t n)
{
    seen("aligned_alloc");
    return __libc_memalign(align, n);
}

int posix_memalign(void **out, size_t align, size_t n)
{
    seen("posix_memalign");
    void *p = __libc_memalign(align, n);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

__attribute__((noinline)) static unsigned work(unsigned n)
{
    unsigned s = 0;
    for (unsigned i = 0; i < n; i++)
        s += i * 2654435761u;
    return s;
}

__attribute__((noinline)) static unsigned level(unsigned d)
{
    return d ? level(d - 1) + work(100 + d) : work(10);
}

int main(int argc, char **argv)
{
    unsigned s = 0;
    for (int i = 0; i < 1000; i++)
        s += level((unsigned)i % 8);
    char *keep = malloc(100); /* the program's own, before the mark */
    memset(keep, (int)(s & 0x7f), 100);
    after_main = 1;
    if (argc > 1 && strcmp(argv[1], "self-test") == 0) {
        char *volatile p = malloc(10); /* volatile: the pair is not optimised away */
        free(p);
    }
    return keep[0] == 1;
}
