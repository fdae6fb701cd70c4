/* lifecycle.c — start-up, end of measurement, and fork.
 *
 * Start-up runs once (constructor, or the first event if that comes earlier): configuration,
 * clock, substrates, run-time filter, sources, experiment directory, event path; the
 * substrates and sources, and the choice of the event path, are the composition unit's
 * (compose.h, runtime/compose/). The end runs from atexit, so it
 * also happens when the program calls exit() deep in a call stack: open regions are closed
 * at the end time. Fork rule (docs/runtime.md): the child keeps recording the forking
 * thread from the fork on and, if it ends through exit(), writes its own experiment into
 * <parent's experiment>/fork-<pid>; it never touches the parent's files.
 *
 * The end also runs from a termination signal the program does not handle (signals.c),
 * then without the job-wide steps, and it runs at most once. Everything it writes is
 * written with SIGXFSZ held off; what could not be written is said in one line. */
#include "compose.h"
#include "config.h"
#include "core.h"
#include "experiment.h"
#include "log.h"
#include "memory.h"
#include "registry.h"
#include "rtfilter.h"
#include "signals.h"
#include "sources.h"
#include "../util/text.h"
#include "../util/pages.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
void (*instr_job_hook)(const instr_run *run);
int instr_job_rank = -1;

/* libinstr-rt-mpi (runtime/mpi/) defines this symbol. When it is loaded (linked or
 * LD_PRELOAD), the job's one experiment directory is agreed on in MPI_Init. */
extern const int instr_mpi_adapter_loaded __attribute__((weak));
int instr_core_mpi_linked(void) { return &instr_mpi_adapter_loaded != NULL; }
static int mpi_job(void) { return instr_core_mpi_linked(); }
static uint64_t t_start;
static time_t wall_start;
static int pid, ppid, fork_of;

static void at_fork_prepare(void)
{
    /* Held across fork() so that the child never inherits a lock some other thread held. */
    instr_registry_lock();
    pthread_mutex_lock(&instr_loc_lock);
    instr_mem_fork_prepare();
}

static void at_fork_parent(void)
{
    instr_mem_fork_parent();
    pthread_mutex_unlock(&instr_loc_lock);
    instr_registry_unlock();
}

static void at_fork_child(void)
{
    instr_mem_fork_child();
    pthread_mutex_unlock(&instr_loc_lock);
    instr_registry_unlock();
    int st = instr_state_get();
    if (st != INSTR_STATE_RUNNING && st != INSTR_STATE_PAUSED)
        return;
    uint64_t t = instr_clock_now();
    fork_of = pid;
    pid = (int)getpid();
    ppid = (int)getppid();
    t_start = t;
    wall_start = time(NULL);
    instr_mem_reset();
    instr_core_fork_child(t);
    instr_experiment_forked(pid);
}

static void finalize(int from_signal);
static void finalize_from_signal(void)
{
    finalize(1);
    instr_experiment_publish();
}

static void init_once(void)
{
    instr_config_read();
    if (instr_cfg.privileged) {
        /* Changed privileges: the environment is someone else's (config.c said so). */
        __atomic_store_n(&instr_state, INSTR_STATE_IDLE, __ATOMIC_RELEASE);
        return;
    }
    instr_clock_init();
    t_start = instr_clock_now();
    wall_start = time(NULL);
    pid = (int)getpid();
    ppid = (int)getppid();

    const instr_composition *c = &instr_runtime_composition;
    for (unsigned i = 0; i < c->nsubstrates; i++) {
        const instr_substrate *s = c->substrates[i];
        if (instr_nactive == INSTR_MAX_SUBSTRATES || !s->wanted())
            continue;
        if (s->init && s->init() != 0)
            continue;
        unsigned slot = instr_nactive++;
        instr_active[slot] = s;
        /* A substrate with nothing to do at events this run (the metrics substrate without
         * synchronous metrics): events keep the paths they have without it. */
        int events = !s->at_events || s->at_events();
        if (s->enter && events)
            instr_enter_tab[instr_n_enter++] = (instr_dispatch){s->enter, slot};
        if (s->exit && events)
            instr_exit_tab[instr_n_exit++] = (instr_dispatch){s->exit, slot};
        instr_info(1, "substrate %s: on", s->name);
    }
    if (instr_nactive == 0 || (instr_n_enter == 0 && instr_n_exit == 0)) {
        instr_info(1, "nothing to record (INSTR_ENABLE_PROFILING=0 and no other substrate): "
                      "events cost one load and a branch, no experiment directory");
        __atomic_store_n(&instr_state, INSTR_STATE_IDLE, __ATOMIC_RELEASE);
        return;
    }
    if (instr_core_init_locations() != 0) {
        instr_warn("cannot create a thread key; nothing will be recorded");
        __atomic_store_n(&instr_state, INSTR_STATE_IDLE, __ATOMIC_RELEASE);
        return;
    }
    instr_rtfilter_init(instr_cfg.filtering_file);
    for (unsigned i = 0; i < c->nsources; i++)
        instr_source_register(c->sources[i]);
    for (unsigned i = 0; i < c->nsources; i++)
        if (c->sources[i]->start)
            c->sources[i]->start();
    if (mpi_job()) {
        instr_experiment_defer();
        instr_log_job_hold(); /* alike notices: once per job, from rank 0 (log.h) */
    } else {
        if (instr_experiment_create() != 0) {
            __atomic_store_n(&instr_state, INSTR_STATE_IDLE, __ATOMIC_RELEASE);
            return;
        }
        instr_experiment_write_config();
    }
    pthread_atfork(at_fork_prepare, at_fork_parent, at_fork_child);
    /* atexit runs in reverse: the directory is published after everything else, also
     * after the end steps of an MPI job, which register later. */
    atexit(instr_experiment_publish);
    atexit(instr_finalize);
    /* quick_exit() runs only at_quick_exit handlers: it ends the measurement like exit(). */
    at_quick_exit(instr_experiment_publish);
    at_quick_exit(instr_finalize);
    /* The event path, from the fast paths the active substrates declare. */
    c->choose_paths();
    instr_signal_finalize = finalize_from_signal;
    instr_signals_install();
    __atomic_store_n(&instr_state, INSTR_STATE_RUNNING, __ATOMIC_RELEASE);
    if (c->started)
        c->started();
}

void instr_init(void) { pthread_once(&once, init_once); }

/* Before main, so the experiment directory and configuration messages come first; events
 * that arrive earlier (other constructors) start the runtime themselves. */
__attribute__((constructor)) static void instr_constructor(void) { instr_init(); }

static void summary(const instr_run *run, const char *files, int failed)
{
    if (instr_verbose < 0)
        return;
    char who[48] = "", where[PATH_MAX];
    instr_escaped(where, sizeof where, run->dir ? run->dir : "(no directory)");
    if (run->fork_of)
        snprintf(who, sizeof who, "forked child %d: ", run->pid);
    else if (instr_job_rank >= 0)
        snprintf(who, sizeof who, "rank %d: ", instr_job_rank);
    if (failed && !*files) {
        instr_warn("%snothing was written to %s", who, where);
        return;
    }
    /* A rank that takes part in its job's end: rank 0's one line for the job says where
     * everything went (runtime/job/outputs.c); the ranks' own lines only with INSTR_VERBOSE. A rank whose
     * files failed, or that ended alone (early, by a signal), says it itself. */
    int job_says = !run->fork_of && instr_job_rank >= 0 && instr_job_hook && !run->from_signal;
    if (!*files && !failed && instr_experiment_own_deferred()) {
        /* INSTR_RANK_FILES left this rank out: its profile goes into the job database */
        instr_info(1, "%s%u thread%s, %u region%s: no files of its own (INSTR_RANK_FILES); its "
                   "profile goes into the job's profile.jdb", who, run->nlocations,
                   run->nlocations == 1 ? "" : "s", instr_registry_count(),
                   instr_registry_count() == 1 ? "" : "s");
        return;
    }
    instr_info(job_says && !failed ? 1 : 0, "%s%u thread%s, %u region%s: %s written to %s", who,
               run->nlocations, run->nlocations == 1 ? "" : "s", instr_registry_count(),
               instr_registry_count() == 1 ? "" : "s", files, where);
}

void instr_finalize(void) { finalize(0); }

static void finalize(int from_signal)
{
    static int entered;
    int st = instr_state_get();
    if (st != INSTR_STATE_RUNNING && st != INSTR_STATE_PAUSED)
        return;
    if (__atomic_exchange_n(&entered, 1, __ATOMIC_SEQ_CST))
        return; /* a signal arrived while the end was being written already */
    instr_run run;
    memset(&run, 0, sizeof run);
    /* exit() deep in a stack on the direct trace path: the open regions of this thread become
     * the core's stack, closed below like on every other path. */
    instr_core_leave_direct();

    pthread_mutex_lock(&instr_loc_lock);
    uint64_t t_end = instr_clock_now();
    __atomic_store_n(&instr_fast, INSTR_FAST_OFF, __ATOMIC_RELEASE);
    instr_event_path_misses();
    __atomic_store_n(&instr_state, INSTR_STATE_FINISHED, __ATOMIC_RELEASE);
    uint32_t n;
    instr_location *const *locs = instr_core_locations(&n);
    for (uint32_t i = 0; i < n; i++) {
        instr_location *loc = locs[i];
        if (!loc->ended) {
            /* The calling thread (exit() deep in a stack) or a thread still running: its
             * open regions end now. A thread still running may race with this; programs
             * that join their threads before exiting never do. */
            loc->closed_at_end += instr_core_close_all(loc, t_end);
            loc->ended = INSTR_LOC_PROGRAM_END;
        }
        run.unmatched_exits += loc->unmatched_exits;
        run.closed_at_end += loc->closed_at_end;
    }
    pthread_mutex_unlock(&instr_loc_lock);

    instr_clock_finish();
    run.locations = locs;
    run.nlocations = n;
    run.t_start = t_start;
    run.t_end = t_end;
    run.wall_start = wall_start;
    run.wall_end = time(NULL);
    run.pid = pid;
    run.ppid = ppid;
    run.fork_of = fork_of;
    run.from_signal = from_signal;
    instr_io_guard g;
    instr_io_guard_begin(&g);
    run.dropped_in_handlers = __atomic_load_n(&instr_events_dropped_in_handlers, __ATOMIC_RELAXED);
    int failed = instr_experiment_prepare() != 0;
    run.dir = instr_experiment_dir();
    if (fork_of && !failed)
        instr_experiment_write_config();

    char files[512] = "";
    if (!failed) {
        for (unsigned i = 0; i < instr_nactive; i++)
            if (instr_active[i]->write && instr_active[i]->write(&run, files, sizeof files) != 0)
                failed = 1;
    }
    /* Always (the other processes of the job wait for this one), but never from a signal
     * handler: the job's collective steps cannot run there. */
    if (instr_job_hook && !from_signal)
        instr_job_hook(&run);
    if (instr_experiment_report_failures())
        failed = 1;
    instr_io_guard_end(&g);
    /* This process's files are complete (an MPI rank that aborts next keeps them readable);
     * the job's directory waits for the job's last step. */
    instr_experiment_publish_own();
    if (instr_mem_exhausted())
        instr_warn("INSTR_TOTAL_MEMORY=%s was not enough: some call paths were not recorded "
                   "(see dropped_call_paths in profile.json); raise it",
                   instr_config_lookup("INSTR_TOTAL_MEMORY"));
    if (run.unmatched_exits)
        instr_info(1, "%llu exit event(s) matched no open region and were ignored",
                   (unsigned long long)run.unmatched_exits);
    instr_log_job_rank(-1); /* an MPI_Init that never came: the held notices now */
    summary(&run, files, failed);
}
