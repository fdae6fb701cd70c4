/* libno_hw_counters.so — a test double of a machine without hardware counters, loaded with
 * LD_PRELOAD: perf_event_open(2) of a PERF_TYPE_HARDWARE event fails with ENOENT, as a
 * virtual machine's kernel answers; every other system call goes to the C library. So the
 * "event is not available" line can be tested on any machine. */
#include <dlfcn.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <sys/syscall.h>

long syscall(long number, ...)
{
    va_list ap;
    va_start(ap, number);
    long a[6];
    for (int i = 0; i < 6; i++)
        a[i] = va_arg(ap, long);
    va_end(ap);
    if (number == SYS_perf_event_open &&
        ((const struct perf_event_attr *)a[0])->type == PERF_TYPE_HARDWARE) {
        errno = ENOENT;
        return -1;
    }
    static long (*next)(long, ...);
    if (!next)
        *(void **)&next = dlsym(RTLD_NEXT, "syscall");
    return next(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}
