/* stack.c — the calling thread's stack from /proc/self/maps, read with read(2) (stack.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* gettid */
#endif
#include "stack.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static uintptr_t hex(const char **p)
{
    uintptr_t v = 0;
    for (;; (*p)++) {
        char c = **p;
        if (c >= '0' && c <= '9')
            v = v * 16 + (uintptr_t)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v = v * 16 + (uintptr_t)(c - 'a' + 10);
        else
            return v;
    }
}

int instr_thread_stack(uintptr_t *lo, uintptr_t *hi)
{
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    char buf[4096];
    size_t have = 0;
    uintptr_t prev_end = 0, start = 0, end = 0;
    int found = 0;
    for (;;) {
        ssize_t n = read(fd, buf + have, sizeof buf - have);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        have += (size_t)n;
        char *line = buf, *nl;
        while (!found && (nl = memchr(line, '\n', have - (size_t)(line - buf)))) {
            const char *p = line;
            uintptr_t a = hex(&p);
            uintptr_t b = *p == '-' ? (p++, hex(&p)) : 0;
            if (sp >= a && sp < b) {
                start = a;
                end = b;
                found = 1;
            } else {
                prev_end = b;
            }
            line = nl + 1;
        }
        if (found)
            break;
        have -= (size_t)(line - buf);
        memmove(buf, line, have);
        if (have == sizeof buf)
            have = 0; /* no line is that long */
    }
    close(fd);
    if (!found)
        return -1;
    if (gettid() == getpid()) {
        /* The main thread's stack grows on demand, as far as its limit lets it. */
        struct rlimit rl;
        uintptr_t limit_lo = prev_end;
        if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
            rl.rlim_cur < end && end - rl.rlim_cur > prev_end)
            limit_lo = end - rl.rlim_cur;
        start = limit_lo < start ? limit_lo : start;
    }
    *lo = start;
    *hi = end;
    return 0;
}
