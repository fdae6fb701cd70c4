/* malloc_reentry_double.c — a test double for "a signal arrives inside malloc", as an
 * LD_PRELOAD library. malloc, calloc, realloc and free go to glibc's own entry points; a
 * request of exactly MALLOC_REENTRY_DOUBLE_SIZE bytes raises SIGUSR1 from inside the
 * allocator, as a timer signal landing there would. An allocator call made while another is
 * in progress on the same thread (a signal handler's path reaching malloc) is the deadlock
 * or heap corruption a real program would meet: the double says so on stderr and ends the
 * process with status 86. */
#define _GNU_SOURCE
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

static __thread int inside;
static size_t raise_size; /* 0: never */
static int size_read;

static void begin(size_t size)
{
    if (inside) {
        static const char msg[] = "malloc_reentry_double: the allocator was re-entered from a "
                                  "signal handler that interrupted it\n";
        ssize_t ignored = write(2, msg, sizeof msg - 1);
        (void)ignored;
        _exit(86);
    }
    inside = 1;
    if (!size_read) {
        const char *s = getenv("MALLOC_REENTRY_DOUBLE_SIZE"); /* getenv does not allocate */
        raise_size = s ? (size_t)strtoull(s, NULL, 10) : 0;
        size_read = 1;
    }
    if (raise_size && size == raise_size)
        raise(SIGUSR1);
}

static void end(void) { inside = 0; }

void *malloc(size_t n)
{
    begin(n);
    void *p = __libc_malloc(n);
    end();
    return p;
}

void *calloc(size_t n, size_t size)
{
    begin(0);
    void *p = __libc_calloc(n, size);
    end();
    return p;
}

void *realloc(void *old, size_t n)
{
    begin(0);
    void *p = __libc_realloc(old, n);
    end();
    return p;
}

void free(void *p)
{
    begin(0);
    __libc_free(p);
    end();
}
