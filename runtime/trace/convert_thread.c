/* convert_thread.c — INSTR_TRACE_CONVERT=thread: a thread of the runtime's own converts the
 * compact records of full chunks into OTF2 while the program runs (docs/tracing.md,
 * "Converting on a thread").
 *
 * The program's threads hand a chunk over where they take the next one (buffer.c's slow path:
 * the chunk's `next` set, then instr_tconv_kick), never on the hot path. The converter takes
 * the full chunks of each location from its head, converts them into the location's own OTF2
 * event writer in order and gives them back to the pool, so the buffers stay a chunk or two
 * per thread. What is left at the end (the current chunks) is converted by the end as without
 * the thread.
 *
 * One lock orders every conversion: the converter holds it while it converts, and every other
 * conversion (the end, a thread that ended, a buffer flush when INSTR_TOTAL_MEMORY is spent, a
 * drain before an MPI or I/O record) and every walk of a buffer from its head takes it too
 * (instr_tconv_lock), so that a location's writer, its nesting state and the conversion's
 * shared state (I/O handles, metric sets) have one user at a time. The converter never waits
 * for a program thread, so a thread that waits for it waits one chunk's conversion at most.
 *
 * The thread is invisible to the measurement: it blocks every signal (a termination signal
 * goes to a program thread, whose handler writes the results), it is started as a thread of
 * the runtime's own (util/own_thread.c: through the process's pthread_create, so that a
 * sanitizer's runtime sets it up, but never registered for sampling), and the event core
 * ignores its events (instr_core_thread_unmeasured: OTF2 calls malloc, which the memory
 * recorder would see).
 *
 * Left to the end, as without the thread: an MPI job (its threads write MPI records into their
 * writers themselves, and its locations wait for MPI_Init), locations with samples in their
 * trace (the sampler's state is the owning thread's), and a forked child (no trace). */
#include "trace.h"
#include "../core/config.h"
#include "../core/core.h"
#include "../core/event.h"
#include "../core/log.h"
#include "../util/own_thread.h"

#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <unistd.h>

int instr_tconv_on;
uint64_t instr_tconv_chunks;
static pthread_mutex_t lock;
static uint32_t seq;      /* bumped for every chunk handed over (futex word) */
static int sleeping;      /* 1 while the converter waits on seq */
static int stopping;      /* the end came: the converter converts no more */
static int pausing;       /* a fork: the converter ends, and starts again in the parent */
static pthread_t tid;
static int started;       /* tid is a thread not joined or detached yet */

static void futex_wake(uint32_t *w)
{
    syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void futex_wait(uint32_t *w, uint32_t seen)
{
    syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
}

void instr_tconv_kick(void)
{
    __atomic_add_fetch(&seq, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&sleeping, __ATOMIC_SEQ_CST))
        futex_wake(&seq);
}

int instr_tconv_lock(void)
{
    if (!__atomic_load_n(&instr_tconv_on, __ATOMIC_ACQUIRE))
        return 0;
    /* An error-checking mutex: a fault inside this thread's own conversion whose handler
     * ends the run finds it held by itself (EDEADLK) and goes on as without the thread. */
    return pthread_mutex_lock(&lock) == 0;
}

void instr_tconv_unlock(int taken)
{
    if (taken)
        pthread_mutex_unlock(&lock);
}

/* 1 when the converter may convert s now; the rest waits for the end. A location that was
 * cut (the end, or its thread ended: also before it is closed) is the end's. No location
 * waits for MPI_Init here: an MPI job has no converter. */
static int convertible(instr_tloc *s)
{
    return !__atomic_load_n(&s->cut, __ATOMIC_SEQ_CST) && !instr_trace_samples_wanted(s) &&
           !instr_trace_write_failed();
}

int instr_tconv_going(void)
{
    /* The run's end is being written (its end time taken): records after it are the end's
     * to leave out, so the converter stops before its next chunk. */
    return !__atomic_load_n(&stopping, __ATOMIC_SEQ_CST) &&
           !__atomic_load_n(&pausing, __ATOMIC_SEQ_CST) &&
           instr_state_get() != INSTR_STATE_FINISHED;
}

/* One pass over every location, oldest chunks first, the lock taken for one chunk at a
 * time (a thread that waits for it waits one chunk's conversion at most); 1 when it
 * stopped for the end. */
static int pass(void)
{
    for (instr_tloc *s = __atomic_load_n(&instr_trace_locs, __ATOMIC_ACQUIRE); s; s = s->next) {
        for (int more = 1; more;) {
            pthread_mutex_lock(&lock);
            int going = instr_tconv_going();
            more = going && convertible(s) && instr_trace_convert_full(s);
            pthread_mutex_unlock(&lock);
            if (!going)
                return 1;
        }
    }
    return 0;
}

static void *converter(void *arg)
{
    (void)arg;
    instr_core_thread_unmeasured();
    for (;;) {
        uint32_t seen = __atomic_load_n(&seq, __ATOMIC_SEQ_CST);
        /* An MPI job keeps its conversion as without the thread (see above). */
        if (!instr_tconv_going() || instr_trace_forked || instr_trace_job_pending ||
            instr_trace_job_is_open() || pass())
            return NULL;
        __atomic_store_n(&sleeping, 1, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&seq, __ATOMIC_SEQ_CST) == seen &&
            !__atomic_load_n(&stopping, __ATOMIC_SEQ_CST) &&
            !__atomic_load_n(&pausing, __ATOMIC_SEQ_CST))
            futex_wait(&seq, seen);
        __atomic_store_n(&sleeping, 0, __ATOMIC_SEQ_CST);
    }
}

/* No thread of the runtime's own crosses a fork: the child would inherit the sanitizers'
 * (and any tool's) record of a thread that does not exist there (LeakSanitizer said the
 * child's end could not suspend it). The parent waits for the converter's current chunk,
 * ends it, and starts it again after the fork. */
static void fork_prepare(void)
{
    if (__atomic_load_n(&stopping, __ATOMIC_SEQ_CST) ||
        !__atomic_exchange_n(&started, 0, __ATOMIC_SEQ_CST))
        return;
    __atomic_store_n(&pausing, 1, __ATOMIC_SEQ_CST);
    instr_tconv_kick();
    pthread_join(tid, NULL);
}

static void fork_parent(void)
{
    if (!__atomic_load_n(&pausing, __ATOMIC_SEQ_CST))
        return;
    __atomic_store_n(&pausing, 0, __ATOMIC_SEQ_CST);
    /* No thread (it could not start): the end converts what is left, as without it. */
    if (instr_own_thread_start(&tid, converter, NULL) == 0)
        __atomic_store_n(&started, 1, __ATOMIC_SEQ_CST);
}

void instr_tconv_init(void)
{
    const char *v = instr_env("INSTR_TRACE_CONVERT");
    if (!v || !*v || strcasecmp(v, "end") == 0)
        return;
    if (strcasecmp(v, "thread") != 0) {
        instr_warn("INSTR_TRACE_CONVERT=%s is not a conversion mode (use end: at the end of the "
                   "run, or thread: on a thread of its own while the program runs): using end",
                   v);
        return;
    }
    if (instr_core_mpi_linked()) {
        instr_info(1, "trace: INSTR_TRACE_CONVERT=thread: an MPI job converts at the end");
        return;
    }
    pthread_mutexattr_t ma;
    pthread_mutexattr_init(&ma);
    pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_ERRORCHECK);
    pthread_mutex_init(&lock, &ma);
    pthread_mutexattr_destroy(&ma);
    /* On before the thread starts: from its first chunk on, every other conversion takes the
     * lock. */
    __atomic_store_n(&instr_tconv_on, 1, __ATOMIC_RELEASE);
    int rc = instr_own_thread_start(&tid, converter, NULL);
    if (rc == 0) {
        __atomic_store_n(&started, 1, __ATOMIC_SEQ_CST);
        pthread_atfork(fork_prepare, fork_parent, NULL);
    }
    if (rc != 0) {
        __atomic_store_n(&instr_tconv_on, 0, __ATOMIC_RELEASE);
        instr_warn("trace: INSTR_TRACE_CONVERT=thread: no thread (%s): converting at the end",
                   strerror(rc));
        return;
    }
    instr_info(1, "trace: converting full buffer chunks on a thread of the runtime's own");
}

void instr_tconv_stop(void)
{
    if (!__atomic_load_n(&instr_tconv_on, __ATOMIC_ACQUIRE))
        return;
    __atomic_store_n(&stopping, 1, __ATOMIC_SEQ_CST);
    instr_tconv_kick();
    /* Out of its chunk: from here on it takes the lock only to see `stopping` and end. */
    int taken = instr_tconv_lock();
    uint64_t chunks = instr_tconv_chunks;
    instr_tconv_unlock(taken);
    if (__atomic_exchange_n(&started, 0, __ATOMIC_SEQ_CST))
        pthread_detach(tid); /* it ends by itself; the process does not wait for it */
    instr_info(1, "trace: the converter thread converted %llu full chunk(s) of %llu KiB while the "
                  "program ran", (unsigned long long)chunks,
               (unsigned long long)(instr_tpool_chunk_size() >> 10));
}

void instr_tconv_fork_child(void)
{
    if (!instr_tconv_on)
        return;
    /* The child has no converter; the lock may have been held by it in the parent. */
    instr_tconv_on = 0;
    pthread_mutex_init(&lock, NULL);
}
