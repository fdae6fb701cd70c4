/* hung_disk_double.c — a test double for a disk that stops answering (a hung NFS server), as
 * an LD_PRELOAD library: write(2) to a file whose name starts with HUNG_DOUBLE_PREFIX never
 * returns. Everything else is written normally. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

ssize_t write(int fd, const void *buf, size_t n)
{
    static ssize_t (*real_write)(int, const void *, size_t);
    if (!real_write)
        real_write = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
    const char *prefix = getenv("HUNG_DOUBLE_PREFIX");
    char link[64], path[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t len = prefix ? readlink(link, path, sizeof path - 1) : -1;
    if (len > 0) {
        path[len] = '\0';
        const char *base = strrchr(path, '/');
        if (base && strncmp(base + 1, prefix, strlen(prefix)) == 0)
            for (;;)
                pause();
    }
    return real_write(fd, buf, n);
}
