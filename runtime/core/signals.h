/* signals.h — the runtime and the program's signals (docs/reliability.md).
 *
 * Termination signals (SIGTERM, SIGINT, SIGHUP, SIGXCPU, SIGUSR1, SIGUSR2) that the program
 * does not handle itself: what was measured is written, then the process dies by the same
 * signal, so its exit status is the plain program's. With INSTR_WRITE_ON_FATAL=1 the same
 * for SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT. INSTR_WRITE_ON_SIGNAL=0 installs nothing.
 *
 * While the runtime writes, SIGXFSZ is held off: a file-size limit (ulimit -f) makes the
 * write fail with EFBIG, which is reported, instead of killing the program. */
#ifndef INSTR_RT_SIGNALS_H
#define INSTR_RT_SIGNALS_H

#include <signal.h>

/* Seconds the runtime may take to write after a termination signal before the signal is
 * let through anyway (a write stuck on a lock the interrupted code held). */
#define INSTR_SIGNAL_WRITE_SECONDS 10

/* At start-up: installs the handlers where the program's disposition is the default. */
void instr_signals_install(void);

/* Around the runtime's own writes (nestable per call site: each begin with its end). */
typedef struct instr_io_guard {
    sigset_t old;
    int was_pending;
} instr_io_guard;
void instr_io_guard_begin(instr_io_guard *g);
void instr_io_guard_end(instr_io_guard *g);

/* Set by lifecycle.c: writes what was measured from a signal handler; no job-wide steps. */
extern void (*instr_signal_finalize)(void);
/* Set by the MPI job (runtime/job, instr_ext_set_signal_job_hook): after this process's own
 * results are written from a signal handler, says what the signal cut short of the job's
 * end steps (no merge when another rank died and the launcher ends the rest). */
extern void (*instr_signal_job_hook)(int sig);

#endif
