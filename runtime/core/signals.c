/* signals.c — termination signals and SIGXFSZ (see signals.h).
 *
 * What is not async-signal-safe, and how it is contained: writing the profile from a handler
 * takes the runtime's locks, allocates and uses stdio. When the signal interrupted code that
 * holds one of those (malloc, the registry, a stdio lock), the write would wait forever.
 * So before writing, a one-shot timer is armed that sends the same signal again after
 * INSTR_SIGNAL_WRITE_SECONDS; its disposition is the default by then (SA_RESETHAND), so the
 * process dies by the signal it was sent and the exit status stays the plain program's,
 * only the profile is lost. A second signal of the same kind (a second Ctrl-C) kills at
 * once for the same reason (SA_NODEFER). A fault inside the write dies by the first
 * signal.
 *
 * The thread the signal interrupted may be inside the runtime itself, half-way through an
 * event (a record half written, a stack popped but the substrates not told yet) or holding
 * one of its locks. Writing then would close its regions twice or wait on itself. So when
 * the interrupted instruction lies in the runtime's own code (the shared library's
 * executable segments, found at start-up) or in what an event calls (OTF2, the vDSO's
 * clock), the handler puts itself back, asks for the same signal again 1 ms later on the
 * same thread, and returns: the event completes, and the signal comes back where the
 * program is outside the runtime (up to 1,000 times; then it writes anyway). Where the
 * runtime is linked statically into the program its code cannot be told from the
 * program's, and the handler writes at once. Other threads still inside an event at that
 * moment are the same case as threads still running at exit() (docs/reliability.md). */
#include "signals.h"
#include "config.h"

#include <link.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

void (*instr_signal_finalize)(void);
void (*instr_signal_job_hook)(int sig);

static const int term_signals[] = {SIGTERM, SIGINT, SIGHUP, SIGXCPU, SIGUSR1, SIGUSR2};
static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
#define COUNT(a) (sizeof a / sizeof *a)

static int first_signal;

/* ---- where the runtime's own code is */

enum { MAX_RANGES = 16, MAX_DEFERS = 1000 };
static uintptr_t code_lo[MAX_RANGES], code_hi[MAX_RANGES];
static int ncode;

/* Libraries the runtime calls while an event is half done: OTF2 (the trace writer's record
 * encoding) and the vDSO (clock_gettime). */
static int called_in_events(const char *name)
{
    return strstr(name, "libotf2") || strstr(name, "open-trace-format") ||
           strstr(name, "linux-vdso") || strstr(name, "linux-gate");
}

static int find_own_code(struct dl_phdr_info *info, size_t size, void *self)
{
    (void)size;
    int mine = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (ph->p_type == PT_LOAD && (uintptr_t)self >= lo && (uintptr_t)self < hi)
            mine = 1;
    }
    const char *name = info->dlpi_name ? info->dlpi_name : "";
    if (mine && !name[0])
        return 1; /* linked into the program: its code and ours are one, nothing is known */
    if (!mine && !called_in_events(name))
        return 0;
    for (int i = 0; i < info->dlpi_phnum && ncode < MAX_RANGES; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            code_lo[ncode] = info->dlpi_addr + ph->p_vaddr;
            code_hi[ncode] = code_lo[ncode] + ph->p_memsz;
            ncode++;
        }
    }
    return 0;
}

static int in_runtime(const void *ucontext)
{
    const ucontext_t *uc = ucontext;
    uintptr_t pc;
#if defined(__x86_64__)
    pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    pc = (uintptr_t)uc->uc_mcontext.pc;
#else
    (void)uc;
    return 0;
#endif
    for (int i = 0; i < ncode; i++)
        if (pc >= code_lo[i] && pc < code_hi[i])
            return 1;
    return 0;
}

static void on_signal(int sig, siginfo_t *info, void *ucontext);

static void set_handler(int sig)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    /* Back to the default on entry, and not blocked while the handler runs: the signal
     * sent again (a second Ctrl-C, the watchdog) ends the process as the plain program. */
    sa.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_NODEFER | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < COUNT(term_signals); i++)
        if (term_signals[i] != sig)
            sigaddset(&sa.sa_mask, term_signals[i]);
    sigaction(sig, &sa, NULL);
}

/* The same signal again after `ms` milliseconds, to this thread where the kernel allows.
 * One timer per use (retry, watchdog), made once and re-armed. */
static void send_again(int sig, long ms, timer_t *t, int *made)
{
    if (!*made) {
        struct sigevent ev;
        memset(&ev, 0, sizeof ev);
        ev.sigev_signo = sig;
#if defined(SIGEV_THREAD_ID) && defined(sigev_notify_thread_id)
        ev.sigev_notify = SIGEV_THREAD_ID;
        ev.sigev_notify_thread_id = (pid_t)syscall(SYS_gettid);
#elif defined(SIGEV_THREAD_ID) && defined(__GLIBC__)
        ev.sigev_notify = SIGEV_THREAD_ID;
        ev._sigev_un._tid = (pid_t)syscall(SYS_gettid); /* glibc without the POSIX name */
#else
        ev.sigev_notify = SIGEV_SIGNAL;
#endif
        if (timer_create(CLOCK_MONOTONIC, &ev, t) != 0)
            return;
        *made = 1;
    }
    struct itimerspec when;
    memset(&when, 0, sizeof when);
    when.it_value.tv_sec = ms / 1000;
    when.it_value.tv_nsec = (ms % 1000) * 1000000L;
    timer_settime(*t, 0, &when, NULL);
}

static void die(int sig)
{
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, sig);
    pthread_sigmask(SIG_UNBLOCK, &s, NULL);
    raise(sig);
    _exit(128 + sig); /* a signal whose default is to be ignored: not one of ours */
}

/* A fault while writing after a signal: die by the signal that started it. */
static void on_fault_while_writing(int sig)
{
    (void)sig;
    die(__atomic_load_n(&first_signal, __ATOMIC_SEQ_CST));
}

static void on_signal(int sig, siginfo_t *info, void *ucontext)
{
    (void)info;
    static int defers, retry_made, watchdog_made, retry_sig;
    static timer_t retry, watchdog;
    if (__atomic_load_n(&first_signal, __ATOMIC_SEQ_CST) == 0 && defers < MAX_DEFERS &&
        in_runtime(ucontext) && (!retry_made || retry_sig == sig)) {
        defers++;
        retry_sig = sig;
        set_handler(sig);
        send_again(sig, 1, &retry, &retry_made);
        return;
    }
    int none = 0;
    if (!__atomic_compare_exchange_n(&first_signal, &none, sig, 0, __ATOMIC_SEQ_CST,
                                     __ATOMIC_SEQ_CST))
        die(none); /* another thread is writing already for an earlier signal */
    /* The watchdog: the same signal again, now with its default action, if the write
     * gets stuck. */
    send_again(sig, INSTR_SIGNAL_WRITE_SECONDS * 1000L, &watchdog, &watchdog_made);
    /* SA_NODEFER leaves the signal unblocked here, unless a layer between the kernel and
     * this handler blocks every signal around it (ThreadSanitizer runs handlers so): then
     * the watchdog's signal would stay pending behind a stuck write for ever. */
    sigset_t self;
    sigemptyset(&self);
    sigaddset(&self, sig);
    pthread_sigmask(SIG_UNBLOCK, &self, NULL);
    struct sigaction fault;
    memset(&fault, 0, sizeof fault);
    fault.sa_handler = on_fault_while_writing;
    fault.sa_flags = SA_RESETHAND | SA_NODEFER;
    sigemptyset(&fault.sa_mask);
    for (size_t i = 0; i < COUNT(fatal_signals); i++)
        if (fatal_signals[i] != sig)
            sigaction(fatal_signals[i], &fault, NULL);
    if (instr_signal_finalize)
        instr_signal_finalize();
    if (instr_signal_job_hook)
        instr_signal_job_hook(sig);
    die(sig);
}

static void install(int sig)
{
    struct sigaction old;
    if (sigaction(sig, NULL, &old) != 0 || (old.sa_flags & SA_SIGINFO) ||
        old.sa_handler != SIG_DFL)
        return; /* the program's own handler, or ignored: left alone */
    set_handler(sig);
}

void instr_signals_install(void)
{
    if (!instr_cfg.write_on_signal)
        return;
    dl_iterate_phdr(find_own_code, (void *)instr_signals_install);
    for (size_t i = 0; i < COUNT(term_signals); i++)
        install(term_signals[i]);
    if (instr_cfg.write_on_fatal)
        for (size_t i = 0; i < COUNT(fatal_signals); i++)
            install(fatal_signals[i]);
}

void instr_io_guard_begin(instr_io_guard *g)
{
    sigset_t xfsz, pending;
    sigemptyset(&xfsz);
    sigaddset(&xfsz, SIGXFSZ);
    pthread_sigmask(SIG_BLOCK, &xfsz, &g->old);
    g->was_pending = sigpending(&pending) == 0 && sigismember(&pending, SIGXFSZ) == 1;
}

void instr_io_guard_end(instr_io_guard *g)
{
    if (!g->was_pending && !sigismember(&g->old, SIGXFSZ)) {
        /* The SIGXFSZ our own writes raised is consumed: it was about our file. */
        sigset_t xfsz;
        sigemptyset(&xfsz);
        sigaddset(&xfsz, SIGXFSZ);
        struct timespec zero = {0, 0};
        while (sigtimedwait(&xfsz, NULL, &zero) == SIGXFSZ) {
        }
    }
    pthread_sigmask(SIG_SETMASK, &g->old, NULL);
}
