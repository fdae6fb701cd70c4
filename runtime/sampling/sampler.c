/* sampler.c — the sampling timer of each thread and its signal handler (docs/sampling.md).
 *
 * Each thread gets its own timer when its location is made (instr_sampling_substrate's
 * location_begin), delivering SIGPROF to that very thread: with INSTR_SAMPLING_CLOCK=cpu (the
 * default) the thread's task clock as a perf_event software event (an hrtimer: the period
 * holds below the scheduler tick) whose overflow signals the thread (F_SETSIG, F_OWNER_TID),
 * or, where perf_event_open is refused, timer_create on the thread's CPU-time clock with
 * SIGEV_THREAD_ID (the kernel checks those at its tick: at shorter periods a signal stands
 * for several, its overrun count); with wall, timer_create on CLOCK_MONOTONIC, which also
 * samples waits. The thread's CPU clock counts only while the thread runs, so samples fall
 * where the thread spends its CPU time, and the thread that is interrupted is the one whose
 * time was counted; setitimer's process-wide ITIMER_PROF would interrupt whichever thread
 * the kernel picks. The timer is deleted when the thread ends, around fork (disarmed
 * in the parent, made anew in the child for the forking thread) and at the end.
 *
 * The handler is async-signal-safe and lock-free: it reads the thread's cursor, unwinds with
 * libunwind's local unwinder from the interrupted context (the ucontext, no frame pointers
 * assumed) and appends the program counters to the thread's buffer, which was mapped when the
 * thread registered; a full buffer counts the sample as dropped. libunwind's caches are
 * filled once at start-up (warm_up) so that the common case reads its own tables only. */
#include "samples.h"
#include "sampling.h"
#include "../core/clock.h"
#include "../core/config.h"
#include "../core/core.h"
#include "../core/log.h"

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

uint64_t instr_sampling_period_ns = 1000000;
#define INSTR_SAMPLING_PERIOD_MIN_NS 100000ull
int instr_sampling_wall;

static int enabled;
static size_t buffer_bytes = (size_t)8 << 20;
static uint64_t period_ticks; /* the configured period in the event clock's ticks */
static int sampling_on; /* 0: the handler returns at once */
/* A fork is under way (fork_prepare to the end of the fork): handlers return at once, so that
 * no thread is inside libunwind or the dynamic loader's dl_iterate_phdr when the process is
 * copied; a lock held there would stay held in the child, whose handlers would then wait on
 * it forever. in_handlers counts the handlers running on every thread. */
static int forking;
static int in_handlers;
static instr_sampler *all; /* newest first; linked with a CAS, never unlinked */
static _Thread_local instr_sampler *tls_sampler __attribute__((tls_model("initial-exec")));

instr_sampler *instr_samplers(void) { return __atomic_load_n(&all, __ATOMIC_ACQUIRE); }

/* "1ms", "250us", "2000000ns", "0.5ms", or a number of microseconds. 0 when valid. */
static int parse_period(const char *text, uint64_t *ns)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || v <= 0)
        return -1;
    double scale = 1e3;
    if (*end == 0 || strcmp(end, "us") == 0)
        scale = 1e3;
    else if (strcmp(end, "ns") == 0)
        scale = 1;
    else if (strcmp(end, "ms") == 0)
        scale = 1e6;
    else if (strcmp(end, "s") == 0)
        scale = 1e9;
    else
        return -1;
    double r = v * scale;
    if (r < 10e3 || r > 10e9) /* 10 us to 10 s */
        return -1;
    *ns = (uint64_t)r;
    return 0;
}

static int wanted(void)
{
    const char *v = instr_env("INSTR_SAMPLING");
    enabled = 0;
    if (v && instr_parse_bool(v, &enabled) != 0) {
        instr_warn("INSTR_SAMPLING=%s is not a boolean (1/0, yes/no, on/off): using 0", v);
        enabled = 0;
    }
    if (!enabled)
        return 0;
    const char *p = instr_env("INSTR_SAMPLING_PERIOD");
    if (p && parse_period(p, &instr_sampling_period_ns) != 0) {
        instr_warn("INSTR_SAMPLING_PERIOD=%s is not a period from 10us to 10s (e.g. 1ms, "
                   "500us, or a number of microseconds): using 1ms", p);
        instr_sampling_period_ns = 1000000;
    }
    /* Each timer interrupt and signal costs the kernel tens of microseconds in a virtual
     * machine, charged to the thread's clock: at 20 us the interrupts alone left the program
     * no time, even with an empty handler (docs/sampling.md, "The period"). */
    if (instr_sampling_period_ns < INSTR_SAMPLING_PERIOD_MIN_NS) {
        instr_warn("INSTR_SAMPLING_PERIOD=%s is below %lluus, the shortest period sampled "
                   "(shorter ones leave the program too little time): using %lluus", p,
                   (unsigned long long)INSTR_SAMPLING_PERIOD_MIN_NS / 1000,
                   (unsigned long long)INSTR_SAMPLING_PERIOD_MIN_NS / 1000);
        instr_sampling_period_ns = INSTR_SAMPLING_PERIOD_MIN_NS;
    }
    const char *c = instr_env("INSTR_SAMPLING_CLOCK");
    instr_sampling_wall = 0;
    if (c) {
        if (strcasecmp(c, "wall") == 0)
            instr_sampling_wall = 1;
        else if (strcasecmp(c, "cpu") != 0)
            instr_warn("INSTR_SAMPLING_CLOCK=%s is neither cpu nor wall: using cpu", c);
    }
    const char *b = instr_env("INSTR_SAMPLING_BUFFER");
    uint64_t size;
    if (b) {
        if (instr_parse_size(b, &size) != 0 || size < 4096 || size > ((uint64_t)1 << 34))
            instr_warn("INSTR_SAMPLING_BUFFER=%s is not a size from 4K to 16G: using 8M", b);
        else
            buffer_bytes = (size_t)size;
    }
    return 1;
}

/* The thread's call-path node now, and the stack address above which frames are the callers
 * of its instrumented function (cursor.h: a node's sp is its caller's stack address, which
 * every frame of the function and of its callees lies at or below). */
static instr_pnode *current_node(const instr_sampler *t, uintptr_t *stop)
{
    *stop = UINTPTR_MAX;
    if (t->slot < 0)
        return NULL;
    instr_pstate *s = __atomic_load_n((instr_pstate **)&t->loc->sub[t->slot], __ATOMIC_RELAXED);
    if (!s)
        return NULL;
    instr_pnode *n = __atomic_load_n(&s->cursor, __ATOMIC_RELAXED);
    if (n == &s->busy)
        return NULL; /* inside the runtime's slow path: the frames say so (runtime) */
    if (n == &s->lost)
        n = s->lost_parent;
    if (!n || n == &s->root)
        return NULL;
    *stop = n->sp;
    return n;
}

/* The unwinding's own cache (docs/sampling.md). libunwind's local unwinder takes a lock
 * around its cache of register states at every step, and blocks all signals for it with two
 * sigprocmask system calls (Debian's build has no per-thread cache: UNW_CACHE_PER_THREAD
 * falls back to the global one); at 2-3 us each in a virtual machine they were most of a
 * sample's cost. So each thread keeps, by address, how the caller's frame follows from a
 * frame's sp and rbp (instr_frame_rule), learnt from libunwind's step the first time the
 * address is met, and steps from it without libunwind, without a system call, the next
 * times. A rule is used only as far as it is known: "either" (the CFA was sp + sp_off and
 * rbp + bp_off) while both give the same address; when they disagree libunwind decides once
 * which one it is. */
static instr_frame_rule *rule_of(instr_sampler *t, uintptr_t key)
{
    return &t->rules[(key * 0x9E3779B97F4A7C15ull) >> (64 - 8)];
}

_Static_assert(INSTR_FRAME_RULES == 256, "rule_of takes 8 bits of the hash");

/* One frame up from (ip, sp, bp) by the frame's rule; 0 when there is none to trust. */
static int fast_step(instr_sampler *t, uintptr_t key, uintptr_t *ip, uintptr_t *sp, uintptr_t *bp)
{
    const instr_frame_rule *e = rule_of(t, key);
    if (e->key != key)
        return 0;
    uintptr_t cfa;
    if (e->rule == INSTR_RULE_SP)
        cfa = *sp + (intptr_t)e->sp_off;
    else if (e->rule == INSTR_RULE_BP)
        cfa = *bp + (intptr_t)e->bp_off;
    else if (e->rule == INSTR_RULE_EITHER && *sp + (intptr_t)e->sp_off == *bp + (intptr_t)e->bp_off)
        cfa = *sp + (intptr_t)e->sp_off;
    else
        return 0;
    /* The caller's frame lies above this one, and not far (a wrong rbp reads nothing). */
    if (cfa < *sp + 8 || cfa - *sp > ((uintptr_t)1 << 20))
        return 0;
    uintptr_t nbp = e->rbp_save ? *(const uintptr_t *)(cfa + (intptr_t)e->rbp_save) : *bp;
    *ip = *(const uintptr_t *)(cfa - 8);
    *sp = cfa;
    *bp = nbp;
    return 1;
}

/* After libunwind's step from (sp, bp) at key to the caller's (nip, nsp, nbp): the rule, when
 * the step was a plain one (the caller's sp is the CFA, the return address at CFA - 8, the
 * caller's rbp saved in this frame or untouched), checked against what was known. */
static void learn(instr_sampler *t, uintptr_t key, uintptr_t sp, uintptr_t bp, uintptr_t nip,
                  uintptr_t nsp, uintptr_t nbp, unw_cursor_t *c)
{
    instr_frame_rule *e = rule_of(t, key);
    int plain = nsp >= sp + 8 && nsp - sp <= ((uintptr_t)1 << 20) &&
                *(const uintptr_t *)(nsp - 8) == nip;
    int64_t so = (int64_t)(nsp - sp), bo = (int64_t)nsp - (int64_t)bp;
    int bp_known = bo >= INT32_MIN && bo <= INT32_MAX;
    int32_t save = 0;
    unw_save_loc_t sl;
    if (plain && unw_get_save_loc(c, UNW_X86_64_RBP, &sl) == 0 && sl.type == UNW_SLT_MEMORY &&
        sl.u.addr >= sp && sl.u.addr + 8 <= nsp)
        save = (int32_t)((int64_t)sl.u.addr - (int64_t)nsp);
    plain = plain && (save ? *(const uintptr_t *)(nsp + (intptr_t)save) == nbp : nbp == bp);
    if (e->key == key) {
        if (!plain || save != e->rbp_save)
            e->rule = INSTR_RULE_NONE;
        else if (e->rule == INSTR_RULE_EITHER) {
            int s_ok = so == e->sp_off, b_ok = bp_known && bo == e->bp_off;
            e->rule = s_ok && b_ok ? INSTR_RULE_EITHER
                      : s_ok       ? INSTR_RULE_SP
                      : b_ok       ? INSTR_RULE_BP
                                   : INSTR_RULE_NONE;
        } else if ((e->rule == INSTR_RULE_SP && so != e->sp_off) ||
                   (e->rule == INSTR_RULE_BP && (!bp_known || bo != e->bp_off)))
            e->rule = INSTR_RULE_NONE;
        return;
    }
    e->key = 0; /* a nested signal of the same thread never sees half an entry */
    e->sp_off = (int32_t)so;
    e->bp_off = bp_known ? (int32_t)bo : 0;
    e->rbp_save = save;
    e->rule = !plain ? INSTR_RULE_NONE : bp_known ? INSTR_RULE_EITHER : INSTR_RULE_SP;
    e->key = key;
}

/* The handler's share of the thread's time stays under a quarter (docs/sampling.md, "The
 * period"). A signal that comes while the handler runs waits until it returns and is then
 * delivered at once: a handler that takes as long as the period leaves the thread nothing
 * else (the first sample of a thread binds the handler's calls lazily and may unwind through
 * libunwind's slow path, which validates addresses with system calls: milliseconds). So when
 * two samples in a row took more than a quarter of the period (one alone may have been
 * preempted: its time is wall-clock time) or left the program less than a quarter of it (the
 * wall-clock time between two handlers bounds the program's time from above), the thread's
 * timer gets the next power of two x the configured period at which the shorter of the two
 * would not have (one ioctl or timer_settime, both async-signal-safe), doubled once more for
 * a starved program, and its samples weigh as many periods. After STRETCH_CALM samples in a
 * row under a sixteenth of the period, with at least half of it for the program, the period
 * comes down to where the longest of them would have taken an eighth, at least halving. */
#define STRETCH_CALM 4

static void set_stretch(instr_sampler *t, uint32_t m)
{
    /* The end may delete the timer from another thread meanwhile (stop_all sets stopped
     * first): then nothing is to be changed any more. */
    if (!__atomic_load_n(&t->armed, __ATOMIC_ACQUIRE) || __atomic_load_n(&t->stopped, __ATOMIC_ACQUIRE))
        return;
    uint64_t ns = instr_sampling_period_ns * m;
    int ok;
    if (t->fd >= 0) {
        ok = ioctl(t->fd, PERF_EVENT_IOC_PERIOD, &ns) == 0;
    } else {
        struct itimerspec when;
        when.it_interval.tv_sec = (time_t)(ns / 1000000000u);
        when.it_interval.tv_nsec = (long)(ns % 1000000000u);
        when.it_value = when.it_interval;
        ok = timer_settime(t->timer, 0, &when, NULL) == 0;
    }
    if (!ok)
        return;
    t->stretch = m;
    if (m > t->stretch_max)
        t->stretch_max = m;
}

static void pace(instr_sampler *t, uint64_t gap, uint64_t spent)
{
    uint64_t now = period_ticks * t->stretch;
    int starved = gap < now / 4;
    if (spent > now / 4 || starved) {
        t->calm = 0;
        t->calm_max = 0;
        /* The handler's time is wall-clock time: one that was preempted looks long. Only the
         * second such sample in a row counts, with the shorter of the two times. */
        if (!t->strike) {
            t->strike = spent | 1;
            return;
        }
        uint64_t s = spent < t->strike ? spent : t->strike;
        t->strike = 0;
        uint32_t m = t->stretch;
        /* Up to the longest period there is (10 s). */
        uint32_t most = (uint32_t)(10000000000ull / instr_sampling_period_ns);
        if (starved && m * 2 <= most)
            m *= 2; /* the program had under a quarter of the period */
        while (s > period_ticks * m / 4 && m * 2 <= most)
            m *= 2;
        if (m != t->stretch)
            set_stretch(t, m);
        return;
    }
    t->strike = 0;
    if (t->stretch > 1 && spent <= now / 16 && gap >= now / 2) {
        if (spent > t->calm_max)
            t->calm_max = spent;
        if (++t->calm >= STRETCH_CALM) {
            /* Down to where the calm samples would still have taken under an eighth. */
            uint32_t m = 1;
            while (m < t->stretch / 2 && t->calm_max > period_ticks * m / 8)
                m *= 2;
            t->calm = 0;
            t->calm_max = 0;
            set_stretch(t, m < t->stretch / 2 ? m : t->stretch / 2);
        }
    } else {
        t->calm = 0;
        t->calm_max = 0;
    }
}

static void take_sample(instr_sampler *t, siginfo_t *si, void *ucv)
{
    /* Only our timer's signal: the POSIX timer's, or the task clock's overflow (F_SETSIG). */
    if (si->si_code != SI_TIMER && !(t->fd >= 0 && si->si_fd == t->fd))
        return;
    int saved = errno;
    uint64_t t0 = instr_clock_now();
    uint32_t weight = 1;
    if (si->si_code == SI_TIMER && si->si_overrun > 0)
        weight += (uint32_t)si->si_overrun;
    weight *= t->stretch;
    if (t->stretch > 1)
        t->stretched += weight;
    size_t need = sizeof(instr_sample) + INSTR_SAMPLE_MAX_FRAMES * sizeof(uintptr_t);
    if ((size_t)(t->end - t->cur) < need) {
        t->dropped += weight;
        t->handled++;
        t->handler_ticks += instr_clock_now() - t0;
        t->calm = 0;
        errno = saved;
        return;
    }
    instr_sample *r = (instr_sample *)(void *)t->cur;
    uintptr_t stop;
    r->node = current_node(t, &stop);
    r->time = t0;
    r->weight = weight;
    const ucontext_t *uc = ucv;
    uintptr_t ip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
    uintptr_t sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
    uintptr_t bp = (uintptr_t)uc->uc_mcontext.gregs[REG_RBP];
    unw_cursor_t c;
    int slow = 0; /* 1: libunwind's cursor c stands at the current frame */
    uint32_t n = 0;
    while (ip && n < INSTR_SAMPLE_MAX_FRAMES) {
        /* A caller of the node's function: the node's own frame was the last one. */
        if (n > 0 && sp > stop)
            break;
        /* Return addresses point after the call: one back lies in the calling line. */
        uintptr_t key = n == 0 ? ip : ip - 1;
        r->pc[n++] = key;
        if (n == INSTR_SAMPLE_MAX_FRAMES)
            break;
        if (!slow) {
            if (fast_step(t, key, &ip, &sp, &bp)) {
                t->steps_fast++;
                continue;
            }
            /* Not known yet: libunwind from here on, from this frame's registers (the
             * interrupted context's, with the frame's pc, sp and rbp). */
            ucontext_t here;
            const ucontext_t *from = uc;
            if (n > 1) {
                here = *uc;
                here.uc_mcontext.gregs[REG_RIP] = (greg_t)ip;
                here.uc_mcontext.gregs[REG_RSP] = (greg_t)sp;
                here.uc_mcontext.gregs[REG_RBP] = (greg_t)bp;
                from = &here;
            }
            if (unw_init_local2(&c, (unw_context_t *)from, n == 1 ? UNW_INIT_SIGNAL_FRAME : 0) != 0)
                break;
            slow = 1;
        }
        t->steps_libunwind++;
        unw_word_t nip = 0, nsp = 0, nbp = 0;
        if (unw_step(&c) <= 0 || unw_get_reg(&c, UNW_REG_IP, &nip) < 0 ||
            unw_get_reg(&c, UNW_REG_SP, &nsp) < 0 || unw_get_reg(&c, UNW_X86_64_RBP, &nbp) < 0)
            break;
        learn(t, key, sp, bp, (uintptr_t)nip, (uintptr_t)nsp, (uintptr_t)nbp, &c);
        ip = (uintptr_t)nip;
        sp = (uintptr_t)nsp;
        bp = (uintptr_t)nbp;
    }
    if (n == 0) {
        /* Nothing to attribute below the node: the node itself keeps the sample. */
        t->unwound_none++;
    }
    r->n = n;
    __atomic_store_n(&t->cur, t->cur + sizeof(instr_sample) + n * sizeof(uintptr_t),
                     __ATOMIC_RELEASE);
    t->taken += weight;
    t->handled++;
    uint64_t t1 = instr_clock_now(), spent = t1 - t0;
    t->handler_ticks += spent;
    /* The program's time since the last sample is at most the wall-clock time between the
     * handlers (the first sample of a timer has none: it counts as a whole period). */
    pace(t, t->last_exit && t0 > t->last_exit ? t0 - t->last_exit : UINT64_MAX, spent);
    t->last_exit = instr_clock_now();
    errno = saved;
}

static void on_sample(int sig, siginfo_t *si, void *ucv)
{
    (void)sig;
    instr_sampler *t = tls_sampler;
    if (!t || !__atomic_load_n(&sampling_on, __ATOMIC_RELAXED) ||
        __atomic_load_n(&t->stopped, __ATOMIC_ACQUIRE))
        return;
    /* Counted before the test of forking, which fork_prepare sets before it reads the count
     * (both sequentially consistent): either fork_prepare waits for this handler, or this
     * handler sees the fork and returns. */
    __atomic_add_fetch(&in_handlers, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&forking, __ATOMIC_SEQ_CST))
        t->in_fork += t->stretch;
    else
        take_sample(t, si, ucv);
    __atomic_sub_fetch(&in_handlers, 1, __ATOMIC_RELEASE);
}

/* The thread's task clock as a perf_event software event whose overflow, every period of
 * the thread's CPU time, sends SIGPROF to the thread (F_SETSIG, F_SETOWN_EX): an hrtimer
 * in the kernel, so the period is kept also below the scheduler tick, which the POSIX
 * CPU-time timers wait for. 0 when armed. */
static int arm_task_clock(instr_sampler *t)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    a.sample_period = instr_sampling_period_ns;
    a.disabled = 1;
    a.exclude_kernel = 1; /* allowed to unprivileged processes (perf_event_paranoid 2) */
    a.exclude_hv = 1;
    a.wakeup_events = 1;
    int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0)
        return -1;
    struct f_owner_ex owner = {F_OWNER_TID, t->tid};
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETSIG, SIGPROF) != 0 || fcntl(fd, F_SETOWN_EX, &owner) != 0 ||
        fcntl(fd, F_SETFL, fl | O_ASYNC) != 0 || ioctl(fd, PERF_EVENT_IOC_RESET, 0) != 0) {
        close(fd);
        return -1;
    }
    t->fd = fd;
    __atomic_store_n(&t->armed, 1, __ATOMIC_RELEASE);
    if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) != 0) {
        __atomic_store_n(&t->armed, 0, __ATOMIC_RELEASE);
        t->fd = -1;
        close(fd);
        return -1;
    }
    return 0;
}

static int use_task_clock = 1; /* until perf_event_open fails once */

static int arm(instr_sampler *t)
{
    t->fd = -1;
    t->stretch = 1; /* the configured period */
    t->calm = 0;
    t->strike = 0;
    t->last_exit = 0;
    if (!instr_sampling_wall && __atomic_load_n(&use_task_clock, __ATOMIC_RELAXED)) {
        if (arm_task_clock(t) == 0)
            return 0;
        if (__atomic_exchange_n(&use_task_clock, 0, __ATOMIC_RELAXED))
            instr_info(1, "sampling: no perf_event task clock (%s): POSIX CPU-time timers, "
                          "which the kernel checks at its scheduler tick",
                       strerror(errno));
    }
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_signo = SIGPROF;
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev._sigev_un._tid = t->tid; /* glibc's name of sigev_notify_thread_id */
    clockid_t clock = CLOCK_MONOTONIC;
    if (!instr_sampling_wall && pthread_getcpuclockid(pthread_self(), &clock) != 0)
        clock = CLOCK_THREAD_CPUTIME_ID;
    if (timer_create(clock, &ev, &t->timer) != 0)
        return -1;
    struct itimerspec when;
    when.it_interval.tv_sec = (time_t)(instr_sampling_period_ns / 1000000000u);
    when.it_interval.tv_nsec = (long)(instr_sampling_period_ns % 1000000000u);
    when.it_value = when.it_interval;
    if (timer_settime(t->timer, 0, &when, NULL) != 0) {
        timer_delete(t->timer);
        return -1;
    }
    __atomic_store_n(&t->armed, 1, __ATOMIC_RELEASE);
    return 0;
}

static void disarm(instr_sampler *t)
{
    if (!__atomic_exchange_n(&t->armed, 0, __ATOMIC_ACQ_REL))
        return;
    if (t->fd >= 0) {
        ioctl(t->fd, PERF_EVENT_IOC_DISABLE, 0);
        close(t->fd);
        t->fd = -1;
    } else {
        timer_delete(t->timer);
    }
}

/* On the location's own thread, when its location is made. */
static void *location_begin(instr_location *loc)
{
    size_t size = sizeof(instr_sampler) + buffer_bytes;
    void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (m == MAP_FAILED) {
        instr_warn("sampling: no memory for the sample buffer of thread %d: not sampled",
                   loc->tid);
        return NULL;
    }
    instr_sampler *t = m;
    t->fd = -1;
    t->loc = loc;
    t->slot = instr_substrate_slot_with(INSTR_SUBSTRATE_CURSOR);
    t->tid = (int)syscall(SYS_gettid);
    t->buf = t->cur = (char *)m + ((sizeof(instr_sampler) + 15) & ~(size_t)15);
    t->traced = t->buf;
    t->end = (char *)m + size;
    t->next = __atomic_load_n(&all, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(&all, &t->next, t, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
        ;
    tls_sampler = t;
    if (arm(t) != 0)
        instr_warn("sampling: cannot create the timer of thread %d (%s): not sampled", t->tid,
                   strerror(errno));
    return t;
}

static void location_end(void *data, uint64_t t)
{
    (void)t;
    instr_sampler *s = data;
    if (!s)
        return;
    disarm(s);
    if (tls_sampler == s)
        tls_sampler = NULL;
}

void instr_sampling_stop_all(void)
{
    __atomic_store_n(&sampling_on, 0, __ATOMIC_RELEASE);
    for (instr_sampler *t = instr_samplers(); t; t = t->next) {
        __atomic_store_n(&t->stopped, 1, __ATOMIC_RELEASE);
        disarm(t);
    }
}

/* Fork: the timers are not inherited. The forking thread's timer is deleted before and made
 * again after, in the parent and (for its location, the child's only one) in the child. */
static void fork_prepare(void)
{
    if (tls_sampler)
        disarm(tls_sampler);
    __atomic_store_n(&forking, 1, __ATOMIC_SEQ_CST);
    /* A handler takes microseconds; one preempted on a loaded machine, a time slice or a few.
     * After a second the fork goes ahead regardless (a handler that never ends is a hang of
     * its own, not to be made worse by a fork that never happens). */
    struct timespec nap = {0, 20000};
    for (int i = 0; i < 50000 && __atomic_load_n(&in_handlers, __ATOMIC_SEQ_CST); i++)
        nanosleep(&nap, NULL);
}

static void fork_parent(void)
{
    __atomic_store_n(&forking, 0, __ATOMIC_RELEASE);
    instr_sampler *t = tls_sampler;
    if (t && __atomic_load_n(&sampling_on, __ATOMIC_ACQUIRE) && !t->stopped)
        arm(t);
}

/* In the child, the other threads and their handlers do not exist. Also an atfork child
 * handler of its own: the forking thread may have no sampler (fork_child_thread is then not
 * called), and before that handler its timer may already fire (it is armed anew there). */
static void fork_child_handlers(void)
{
    __atomic_store_n(&in_handlers, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&forking, 0, __ATOMIC_RELEASE);
}

static void fork_child_thread(void *data, uint64_t t0)
{
    (void)t0;
    instr_sampler *t = data;
    fork_child_handlers();
    /* The other threads' samplers stay mapped but their threads do not exist here. */
    for (instr_sampler *o = instr_samplers(); o; o = o->next) {
        /* The parent's task clocks: our copies of their descriptors are closed, never
         * disabled (the events are the parent's threads'); POSIX timers are not inherited. */
        if (__atomic_exchange_n(&o->armed, 0, __ATOMIC_ACQ_REL) && o->fd >= 0)
            close(o->fd);
        o->fd = -1;
        if (o != t)
            __atomic_store_n(&o->stopped, 1, __ATOMIC_RELEASE);
    }
    if (!t)
        return;
    /* The parent's samples stay with the parent's profile. */
    t->cur = t->traced = t->buf;
    t->trace_prev = t->trace_prev_open = 0;
    t->taken = t->dropped = t->in_fork = t->unwound_none = t->stretched = 0;
    t->stretch_max = 0;
    t->tid = (int)syscall(SYS_gettid);
    if (__atomic_load_n(&sampling_on, __ATOMIC_ACQUIRE))
        arm(t);
}

/* One unwinding before the first sample, so that libunwind makes its own caches and looks
 * up the tables of the objects loaded so far outside of a signal handler. */
static void warm_up(void)
{
    unw_context_t uc;
    unw_cursor_t c;
    if (unw_getcontext(&uc) != 0 || unw_init_local(&c, &uc) != 0)
        return;
    for (int i = 0; i < INSTR_SAMPLE_MAX_FRAMES && unw_step(&c) > 0; i++)
        ;
    /* And every other library call the handler makes, once, so that the dynamic loader binds
     * them now rather than in a thread's first sample (lazy binding in the handler took long
     * enough there for the next signal to be due). */
    unw_word_t w;
    unw_save_loc_t sl;
    if (unw_getcontext(&uc) == 0 && unw_init_local2(&c, &uc, 0) == 0 && unw_step(&c) > 0) {
        unw_get_reg(&c, UNW_REG_IP, &w);
        unw_get_save_loc(&c, UNW_X86_64_RBP, &sl);
    }
    int saved = errno;
    uint64_t ns = 0;
    ioctl(-1, PERF_EVENT_IOC_PERIOD, &ns);
    timer_settime((timer_t)0, 0, NULL, NULL);
    errno = saved;
}

static int init(void)
{
    struct sigaction old;
    if (sigaction(SIGPROF, NULL, &old) == 0 &&
        ((old.sa_flags & SA_SIGINFO) || (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN))) {
        instr_warn("INSTR_SAMPLING=1: the program handles SIGPROF itself; no sampling");
        return -1;
    }
    double ns_per_tick = instr_clock_ns_per_tick_early();
    period_ticks = ns_per_tick > 0 ? (uint64_t)((double)instr_sampling_period_ns / ns_per_tick)
                                   : instr_sampling_period_ns;
    if (period_ticks == 0)
        period_ticks = 1;
    unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
    warm_up();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sample;
    sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
    sigfillset(&sa.sa_mask);
    if (sigaction(SIGPROF, &sa, NULL) != 0) {
        instr_warn("INSTR_SAMPLING=1: cannot install the SIGPROF handler (%s); no sampling",
                   strerror(errno));
        return -1;
    }
    pthread_atfork(fork_prepare, fork_parent, fork_child_handlers);
    instr_sampling_trace_init();
    __atomic_store_n(&sampling_on, 1, __ATOMIC_RELEASE);
    instr_info(1, "sampling: every %llu ns of %s time, SIGPROF, %zu bytes of buffer per thread",
               (unsigned long long)instr_sampling_period_ns,
               instr_sampling_wall ? "wall-clock" : "thread CPU", buffer_bytes);
    return 0;
}

int instr_sampling_active(void) { return __atomic_load_n(&sampling_on, __ATOMIC_ACQUIRE); }

void instr_sampling_started(void)
{
    if (__atomic_load_n(&sampling_on, __ATOMIC_ACQUIRE))
        instr_core_location_self();
}

static int write_samples(const instr_run *run, char *files, size_t size)
{
    (void)files;
    (void)size;
    instr_sampling_stop_all();
    instr_sampling_attach(run);
    return 0;
}

const instr_substrate instr_sampling_substrate = {
    .name = "sampling",
    .wanted = wanted,
    .init = init,
    .location_begin = location_begin,
    .location_end = location_end,
    .fork_child = fork_child_thread,
    .write = write_samples,
};
