/* libfew_hw_counters.so — a test double of a CPU with too few hardware counters, loaded with
 * LD_PRELOAD: perf_event_open(2) of a PERF_TYPE_HARDWARE event, or of any event joining such
 * a group, gives a file descriptor whose reads (of the group leader) return a group record
 * with every value 0, enabled for 1,000,000 ns and running for 250,000 ns (the kernel took
 * turns: a quarter of the time). Every other system call, read and close goes to the C
 * library. So the line that says a group was counted only part of the time can be tested on
 * any machine. */
#include <dlfcn.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_FAKE 256
typedef struct fake_fd {
    int fd, leader; /* leader: the group's leader fd (itself for a leader) */
    uint32_t members;
} fake_fd;
static fake_fd fake[MAX_FAKE];
static int nfake;

static int find(int fd)
{
    for (int i = 0; i < nfake; i++)
        if (fake[i].fd == fd)
            return i;
    return -1;
}

long syscall(long number, ...)
{
    va_list ap;
    va_start(ap, number);
    long a[6];
    for (int i = 0; i < 6; i++)
        a[i] = va_arg(ap, long);
    va_end(ap);
    if (number == SYS_perf_event_open) {
        const struct perf_event_attr *attr = (const void *)a[0];
        int group = (int)a[3], g = group >= 0 ? find(group) : -1;
        if ((attr->type == PERF_TYPE_HARDWARE || g >= 0) && nfake < MAX_FAKE) {
            int fd = memfd_create("fake_perf", MFD_CLOEXEC);
            if (fd < 0)
                return -1;
            int leader = g >= 0 ? fake[g].leader : fd;
            fake[nfake++] = (fake_fd){fd, leader, 1};
            if (g >= 0)
                fake[find(leader)].members++;
            return fd;
        }
    }
    static long (*next)(long, ...);
    if (!next)
        *(void **)&next = dlsym(RTLD_NEXT, "syscall");
    return next(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

ssize_t read(int fd, void *buf, size_t count)
{
    int i = find(fd);
    if (i >= 0 && fake[i].leader == fd) {
        uint64_t rec[3 + MAX_FAKE] = {fake[i].members, 1000000, 250000};
        size_t size = (3 + fake[i].members) * sizeof rec[0];
        if (count < size) {
            errno = ENOSPC;
            return -1;
        }
        memcpy(buf, rec, size);
        return (ssize_t)size;
    }
    static ssize_t (*next)(int, void *, size_t);
    if (!next)
        *(void **)&next = dlsym(RTLD_NEXT, "read");
    return next(fd, buf, count);
}

int close(int fd)
{
    int i = find(fd);
    if (i >= 0)
        fake[i] = fake[--nfake];
    static int (*next)(int);
    if (!next)
        *(void **)&next = dlsym(RTLD_NEXT, "close");
    return next(fd);
}
