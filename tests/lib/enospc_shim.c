/* enospc_shim.c — a test double for a full disk: an LD_PRELOAD library that lets the first N
 * bytes written to regular files through write, writev, pwrite and fwrite pass, then fails
 * every further write to a regular file with ENOSPC, as a full file system does (short writes
 * first, then errors). Standard input, output and error and anything that is not a regular
 * file (pipes, terminals) are never touched, so the program's own output stays as it is.
 *
 *   INSTR_TEST_ENOSPC_AFTER=N   bytes that may still be written (default 0)
 *
 * stdio buffers small fwrite calls and writes them later inside libc, past this shim: bytes
 * are counted when fwrite is called, which is what fails then. Built as the target
 * instr_test_enospc (tests/lib/CMakeLists.txt) for any test that needs a full disk where it
 * cannot mount a small tmpfs. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

static long long left = -1; /* bytes that may still be written; -1: not read yet */

static long long budget(void)
{
    if (left < 0) {
        const char *v = getenv("INSTR_TEST_ENOSPC_AFTER");
        left = v ? atoll(v) : 0;
        if (left < 0)
            left = 0;
    }
    return left;
}

static int regular(int fd)
{
    struct stat st;
    return fd > 2 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

/* How many of `want` bytes may go to fd: all when it is not a regular file. */
static size_t allow(int fd, size_t want)
{
    if (!regular(fd))
        return want;
    long long b = budget();
    size_t n = (unsigned long long)b < want ? (size_t)b : want;
    left = b - (long long)n;
    return n;
}

ssize_t write(int fd, const void *buf, size_t count)
{
    static ssize_t (*real)(int, const void *, size_t);
    if (!real)
        real = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
    size_t n = allow(fd, count);
    if (count && !n) {
        errno = ENOSPC;
        return -1;
    }
    return real(fd, buf, n);
}

ssize_t pwrite(int fd, const void *buf, size_t count, off_t off)
{
    static ssize_t (*real)(int, const void *, size_t, off_t);
    if (!real)
        real = (ssize_t(*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
    size_t n = allow(fd, count);
    if (count && !n) {
        errno = ENOSPC;
        return -1;
    }
    return real(fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t count, off_t off)
{
    return pwrite(fd, buf, count, off);
}

ssize_t writev(int fd, const struct iovec *iov, int iovcnt)
{
    static ssize_t (*real)(int, const struct iovec *, int);
    if (!real)
        real = (ssize_t(*)(int, const struct iovec *, int))dlsym(RTLD_NEXT, "writev");
    size_t total = 0;
    for (int i = 0; i < iovcnt; i++)
        total += iov[i].iov_len;
    if (!regular(fd) || (unsigned long long)budget() >= total) {
        allow(fd, total);
        return real(fd, iov, iovcnt);
    }
    /* The part that fits, as one plain write. */
    if (iovcnt > 0 && budget() > 0)
        return write(fd, iov[0].iov_base, iov[0].iov_len);
    errno = ENOSPC;
    return -1;
}

size_t fwrite(const void *ptr, size_t size, size_t nmemb, FILE *stream)
{
    static size_t (*real)(const void *, size_t, size_t, FILE *);
    if (!real)
        real = (size_t(*)(const void *, size_t, size_t, FILE *))dlsym(RTLD_NEXT, "fwrite");
    if (!size || !nmemb)
        return 0;
    size_t n = allow(fileno(stream), size * nmemb) / size;
    size_t done = n ? real(ptr, size, n, stream) : 0;
    if (done < nmemb)
        errno = ENOSPC;
    return done;
}
