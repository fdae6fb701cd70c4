/* enospc_double.c — a test double for a full disk, as an LD_PRELOAD library: writes to
 * regular files through write(2), writev(2), pwrite(2) and fwrite(3) fail with ENOSPC once
 * ENOSPC_DOUBLE_AFTER bytes (all files together) were written, after a short write, as a
 * disk that fills up. Other descriptors (pipes, terminals) are never touched, so the
 * program's own output still reaches the test. The runtime's files are written through
 * write(2) (runtime/core/experiment.c); the OTF2 library writes its archive with fwrite.
 * stdio buffers small fwrite calls and writes them later inside libc, past this double:
 * bytes are counted when fwrite is called, which is what fails then. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*real_writev)(int, const struct iovec *, int);
static size_t (*real_fwrite)(const void *, size_t, size_t, FILE *);
static unsigned long long budget, used;
static int ready;

static void init(void)
{
    real_write = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
    real_pwrite = (ssize_t(*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
    real_writev = (ssize_t(*)(int, const struct iovec *, int))dlsym(RTLD_NEXT, "writev");
    real_fwrite = (size_t(*)(const void *, size_t, size_t, FILE *))dlsym(RTLD_NEXT, "fwrite");
    const char *after = getenv("ENOSPC_DOUBLE_AFTER");
    budget = after ? strtoull(after, NULL, 10) : 0;
    ready = 1;
}

/* How many of n bytes may go to fd now (all of them when it is not a regular file); 0 with
 * errno = ENOSPC when the disk is full. */
static size_t allow(int fd, size_t n)
{
    if (!ready)
        init();
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return n;
    if (used >= budget) {
        errno = ENOSPC;
        return 0;
    }
    if (n > budget - used)
        n = (size_t)(budget - used); /* a short write, as a disk that fills up */
    used += n;
    return n;
}

ssize_t write(int fd, const void *buf, size_t n)
{
    size_t k = allow(fd, n);
    if (n && !k)
        return -1;
    return real_write(fd, buf, k);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
    size_t k = allow(fd, n);
    if (n && !k)
        return -1;
    return real_pwrite(fd, buf, k, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off) { return pwrite(fd, buf, n, off); }

ssize_t writev(int fd, const struct iovec *iov, int iovcnt)
{
    size_t total = 0;
    for (int i = 0; i < iovcnt; i++)
        total += iov[i].iov_len;
    size_t k = allow(fd, total);
    if (k == total)
        return real_writev(fd, iov, iovcnt);
    if (!k)
        return -1;
    /* the part that fits, as a short write */
    struct iovec part[64];
    int n = 0;
    for (int i = 0; i < iovcnt && i < 64 && k > 0; i++, n++) {
        part[i] = iov[i];
        if (part[i].iov_len > k)
            part[i].iov_len = k;
        k -= part[i].iov_len;
    }
    return real_writev(fd, part, n);
}

size_t fwrite(const void *ptr, size_t size, size_t nmemb, FILE *stream)
{
    if (!ready)
        init();
    if (!size || !nmemb)
        return 0;
    size_t k = allow(fileno(stream), size * nmemb) / size;
    size_t done = k ? real_fwrite(ptr, size, k, stream) : 0;
    if (done < nmemb)
        errno = ENOSPC;
    return done;
}
