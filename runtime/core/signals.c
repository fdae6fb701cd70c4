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
 * signal. */
#include "signals.h"
#include "config.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

void (*instr_signal_finalize)(void);

static const int term_signals[] = {SIGTERM, SIGINT, SIGHUP, SIGXCPU, SIGUSR1, SIGUSR2};
static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
#define COUNT(a) (sizeof a / sizeof *a)

static int first_signal;

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

static void arm_watchdog(int sig)
{
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_SIGNAL;
    ev.sigev_signo = sig;
    timer_t t;
    if (timer_create(CLOCK_MONOTONIC, &ev, &t) != 0)
        return;
    struct itimerspec when;
    memset(&when, 0, sizeof when);
    when.it_value.tv_sec = INSTR_SIGNAL_WRITE_SECONDS;
    timer_settime(t, 0, &when, NULL);
}

static void on_signal(int sig)
{
    int none = 0;
    if (!__atomic_compare_exchange_n(&first_signal, &none, sig, 0, __ATOMIC_SEQ_CST,
                                     __ATOMIC_SEQ_CST))
        die(none); /* another thread is writing already for an earlier signal */
    arm_watchdog(sig);
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
    die(sig);
}

static void install(int sig)
{
    struct sigaction old;
    if (sigaction(sig, NULL, &old) != 0 || (old.sa_flags & SA_SIGINFO) ||
        old.sa_handler != SIG_DFL)
        return; /* the program's own handler, or ignored: left alone */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    /* Back to the default on entry, and not blocked while the handler runs: the signal
     * sent again (a second Ctrl-C, the watchdog) ends the process as the plain program. */
    sa.sa_flags = SA_RESETHAND | SA_NODEFER | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < COUNT(term_signals); i++)
        if (term_signals[i] != sig)
            sigaddset(&sa.sa_mask, term_signals[i]);
    sigaction(sig, &sa, NULL);
}

void instr_signals_install(void)
{
    if (!instr_cfg.write_on_signal)
        return;
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
