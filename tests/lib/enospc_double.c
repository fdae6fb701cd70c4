/* enospc_double.c — a test double for a full disk, as an LD_PRELOAD library: write(2) to a
 * regular file fails with ENOSPC once ENOSPC_DOUBLE_AFTER bytes (all files together) were
 * written. Other descriptors (pipes, terminals) are never touched, so the program's own
 * output still reaches the test. The runtime's files are written through write(2)
 * (runtime/core/experiment.c), so this is the path a full disk takes. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static ssize_t (*real_write)(int, const void *, size_t);
static unsigned long long budget, used;
static int ready;

static void init(void)
{
    real_write = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
    const char *after = getenv("ENOSPC_DOUBLE_AFTER");
    budget = after ? strtoull(after, NULL, 10) : 0;
    ready = 1;
}

ssize_t write(int fd, const void *buf, size_t n)
{
    if (!ready)
        init();
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        if (used >= budget) {
            errno = ENOSPC;
            return -1;
        }
        if (n > budget - used)
            n = (size_t)(budget - used); /* a short write, as a disk that fills up */
        used += n;
    }
    return real_write(fd, buf, n);
}
