/* delivery.c — what a sampling signal costs the thread apart from instr's handler: the timer's
 * interrupt and the kernel's delivery of the signal (docs/sampling.md, "The period").
 *
 * A fixed loop runs without a timer, with the same timer the sampling runtime arms (the
 * thread's task clock as a perf_event software event signalling SIGPROF to the thread) whose
 * handler only counts, and without it again. Other timers, to tell the timer's part from the
 * signal's: "cpu_clock" (the perf_event software cpu clock, what `perf record -e cpu-clock`
 * counts, signalling the same way), "timer_only" (the task clock with its overflow every
 * period but no signal: the hrtimer's interrupt alone), "sigtrap" (the task clock with the
 * perf_event attribute sigtrap: the kernel sends SIGTRAP to the thread when it next returns to
 * user mode, instead of waking the file's owner through an interrupt of its own), "posix" (timer_create on the thread's
 * CPU-time clock, checked at the scheduler tick). It prints the loop's CPU time with the timer and without it (the mean of the runs
 * before and after) and the extra CPU time per signal: the handler's own time is a few
 * nanoseconds, so the rest is the kernel's.
 *
 *     cc -O2 -o delivery bench/sampling/delivery.c
 *     ./delivery PERIOD_NS [ITERATIONS] [task_clock|cpu_clock|timer_only|sigtrap|posix]
 *
 * bench/sampling/delivery.py runs it repeatedly, interleaved, and takes medians. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
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

static double seconds(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int fd = -1;
static timer_t timer;

static int arm_perf(long period, unsigned long long config, int signal, int sigtrap)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = config;
    a.sample_period = (unsigned long long)period;
    a.disabled = 1;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    a.wakeup_events = 1;
    if (sigtrap) {
        a.sigtrap = 1;
        a.remove_on_exec = 1; /* required with sigtrap */
        signal = 0;
    }
    fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0)
        return -1;
    struct f_owner_ex owner = {F_OWNER_TID, (int)syscall(SYS_gettid)};
    if (!signal)
        return ioctl(fd, PERF_EVENT_IOC_RESET, 0) != 0 || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) != 0
                   ? -1
                   : 0;
    if (fcntl(fd, F_SETSIG, SIGPROF) != 0 || fcntl(fd, F_SETOWN_EX, &owner) != 0 ||
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC) != 0 ||
        ioctl(fd, PERF_EVENT_IOC_RESET, 0) != 0 || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) != 0)
        return -1;
    return 0;
}

static int arm_posix(long period)
{
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_signo = SIGPROF;
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev._sigev_un._tid = (int)syscall(SYS_gettid);
    if (timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &timer) != 0)
        return -1;
    struct itimerspec when;
    when.it_interval.tv_sec = period / 1000000000;
    when.it_interval.tv_nsec = period % 1000000000;
    when.it_value = when.it_interval;
    return timer_settime(timer, 0, &when, NULL);
}

static double loop(long iterations)
{
    volatile double s = 0;
    double c0 = seconds(CLOCK_THREAD_CPUTIME_ID);
    for (long i = 0; i < iterations; i++)
        s += (double)(i & 7);
    return seconds(CLOCK_THREAD_CPUTIME_ID) - c0;
}

int main(int argc, char **argv)
{
    long period = argc > 1 ? atol(argv[1]) : 1000000;
    long iterations = argc > 2 ? atol(argv[2]) : 50000000;
    const char *mode = argc > 3 ? argv[3] : "task_clock";
    int posix = strcmp(mode, "posix") == 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigfillset(&sa.sa_mask);
    sigaction(SIGPROF, &sa, NULL);
    sigaction(SIGTRAP, &sa, NULL);
    double plain = loop(iterations);
    int armed = posix                             ? arm_posix(period)
                : strcmp(mode, "task_clock") == 0 ? arm_perf(period, PERF_COUNT_SW_TASK_CLOCK, 1, 0)
                : strcmp(mode, "cpu_clock") == 0  ? arm_perf(period, PERF_COUNT_SW_CPU_CLOCK, 1, 0)
                : strcmp(mode, "timer_only") == 0 ? arm_perf(period, PERF_COUNT_SW_TASK_CLOCK, 0, 0)
                : strcmp(mode, "sigtrap") == 0    ? arm_perf(period, PERF_COUNT_SW_TASK_CLOCK, 0, 1)
                                                  : -1;
    if (armed != 0) {
        perror("timer");
        return 1;
    }
    double timed = loop(iterations);
    if (posix)
        timer_delete(timer);
    else
        close(fd);
    plain = (plain + loop(iterations)) / 2; /* before and after: no drift of the machine */
    printf("period_ns %ld timer %s plain_s %.6f timed_s %.6f signals %ld us_per_signal %.2f\n",
           period, mode, plain, timed, signals,
           signals ? (timed - plain) * 1e6 / (double)signals : 0.0);
    return 0;
}
