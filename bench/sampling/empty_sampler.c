/* empty_sampler.c — a sampler that does nothing but take its signals: preloaded into a
 * program, it arms for the main thread the same timer the sampling runtime arms (the thread's
 * task clock as a perf_event software event signalling SIGPROF to the thread every period),
 * with a handler that only counts. What a program pays for it is what any signal-based sampler
 * at that period pays the kernel (the timer's interrupt, the signal's delivery and return)
 * before its handler does anything (bench/sampling/overhead.py, docs/performance.md).
 *
 *     cc -O2 -shared -fPIC -o empty_sampler.so bench/sampling/empty_sampler.c
 *     EMPTY_SAMPLER_PERIOD_NS=1000000 LD_PRELOAD=./empty_sampler.so PROGRAM ...
 *
 * EMPTY_SAMPLER_TIMER=posix arms timer_create on the thread's CPU-time clock instead. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile long signals;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)si;
    (void)uc;
    signals++;
}

__attribute__((constructor)) static void empty_sampler_start(void)
{
    const char *p = getenv("EMPTY_SAMPLER_PERIOD_NS");
    const char *mode = getenv("EMPTY_SAMPLER_TIMER");
    long period = p ? atol(p) : 1000000;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigfillset(&sa.sa_mask);
    sigaction(SIGPROF, &sa, NULL);
    int tid = (int)syscall(SYS_gettid);
    if (mode && strcmp(mode, "posix") == 0) {
        struct sigevent ev;
        timer_t timer;
        memset(&ev, 0, sizeof ev);
        ev.sigev_signo = SIGPROF;
        ev.sigev_notify = SIGEV_THREAD_ID;
        ev._sigev_un._tid = tid;
        struct itimerspec when;
        when.it_interval.tv_sec = period / 1000000000;
        when.it_interval.tv_nsec = period % 1000000000;
        when.it_value = when.it_interval;
        if (timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &timer) != 0 ||
            timer_settime(timer, 0, &when, NULL) != 0)
            abort();
        return;
    }
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    a.sample_period = (unsigned long long)period;
    a.disabled = 1;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    a.wakeup_events = 1;
    int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    struct f_owner_ex owner = {F_OWNER_TID, tid};
    if (fd < 0 || fcntl(fd, F_SETSIG, SIGPROF) != 0 || fcntl(fd, F_SETOWN_EX, &owner) != 0 ||
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC) != 0 ||
        ioctl(fd, PERF_EVENT_IOC_RESET, 0) != 0 || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) != 0)
        abort();
}
