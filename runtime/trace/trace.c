/* trace.c — the trace substrate's entry in the event core (INSTR_ENABLE_TRACING=1).
 *
 * The archive is opened on the first location's first event (the experiment directory exists
 * only after the substrates' start-up), under the core's location lock. Each location
 * (thread) records into its own compact buffer (events.c, buffer.c) and gets its own OTF2
 * event writer when its records are first converted (convert.c; OTF2 takes its archive lock
 * for that). A thread that ended has its buffer converted and its writer closed when the next
 * thread begins, so its chunks go back to the pool and its events are on disk early. The
 * rest is converted and closed at the end (write.c).
 *
 * An MPI job (libinstr-rt-mpi loaded) has one archive for all ranks in the job's directory,
 * which exists only once MPI_Init has run: until then locations wait (`waiting`), and records
 * converted meanwhile are kept in memory (early.c); instr_trace_job_open (job.c) opens the
 * archive, and each waiting location gets its writer at its next conversion, which the MPI
 * records of its thread ask for (instr_trace_attach). If MPI_Init never runs, the end opens
 * an ordinary archive as without MPI. */
#include "trace.h"
#include "../core/config.h"
#include "../core/core.h"
#include "../core/experiment.h"
#include "../core/log.h"
#include "../util/pages.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/utsname.h>

/* The header defines its callbacks as static functions, the reader's too: unused here. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include <otf2/OTF2_Pthread_Locks.h>
#pragma GCC diagnostic pop

OTF2_Archive *instr_trace_archive;
instr_tloc *instr_trace_locs;
int instr_trace_forked;
int instr_trace_job_pending;
int instr_trace_job_rank = -1;
static int archive_failed;

/* Definition chunks: big enough for any definition record (OTF2 asks for 10 bytes per
 * location), small enough that the per-location local definition writers at the end stay
 * cheap. */
#define INSTR_TRACE_DEF_CHUNK (1024 * 1024)

static int wanted(void) { return instr_cfg.enable_tracing; }

/* The errno of an OTF2 error that means the data did not reach the disk, else 0. */
static int write_errno(OTF2_ErrorCode code, int err)
{
    switch (code) {
    case OTF2_ERROR_ENOSPC: return ENOSPC;
    case OTF2_ERROR_EFBIG: return EFBIG;
    case OTF2_ERROR_EDQUOT: return EDQUOT;
    case OTF2_ERROR_EIO: return EIO;
    case OTF2_ERROR_FILE_INTERACTION: return err ? err : EIO;
    default: return 0;
    }
}

/* OTF2's own error messages, through the runtime's voice; the first few only. A failed write
 * (full disk, file-size limit) closes the trace's writers off instead (convert.c) and is said
 * once at the end (write.c), so it is not repeated here. */
static OTF2_ErrorCode otf2_error(void *user, const char *file, uint64_t line,
                                    const char *function, OTF2_ErrorCode code, const char *fmt,
                                    va_list va)
{
    (void)user;
    (void)file;
    (void)line;
    (void)function;
    int err = write_errno(code, errno);
    if (err || instr_trace_write_failed()) {
        instr_trace_note_failure(err);
        return code;
    }
    static unsigned shown;
    if (__atomic_fetch_add(&shown, 1, __ATOMIC_RELAXED) < 8) {
        char msg[512];
        vsnprintf(msg, sizeof msg, fmt ? fmt : "", va);
        instr_warn("trace: OTF2: %s: %s", OTF2_Error_GetName(code), msg);
    }
    return code;
}

static int init(void)
{
    instr_tpool_init(instr_cfg.enable_profiling);
    OTF2_Error_RegisterCallback(otf2_error, NULL);
    instr_trace_metrics_ask();
    instr_trace_job_pending = instr_core_mpi_linked();
    instr_tconv_init();
    return 0;
}

static OTF2_Archive *archive_now(void)
{
    return __atomic_load_n(&instr_trace_archive, __ATOMIC_ACQUIRE);
}

OTF2_ErrorCode instr_trace_archive_prepare(OTF2_Archive *a, const char *description)
{
    OTF2_ErrorCode rc = OTF2_Pthread_Archive_SetLockingCallbacks(a, NULL);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_Archive_SetCreator(a, "instr " INSTR_VERSION_STRING);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_Archive_SetDescription(a, description);
    struct utsname u;
    if (rc == OTF2_SUCCESS && uname(&u) == 0)
        rc = OTF2_Archive_SetMachineName(a, u.nodename);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_Archive_OpenEvtFiles(a);
    return rc;
}

static int open_archive_locked(void);

/* The archive is opened when it is first needed (a thread's first conversion of records,
 * or the end), not at start-up: OTF2 allocates its archive from malloc, and the program's
 * heap is the program's (docs/runtime.md, "The runtime's memory"). Any thread may be first. */
int instr_trace_open_archive(void)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    if (archive_now())
        return 0;
    pthread_mutex_lock(&lock);
    int rc = open_archive_locked();
    pthread_mutex_unlock(&lock);
    return rc;
}

static int open_archive_locked(void)
{
    if (instr_trace_archive)
        return 0;
    if (archive_failed)
        return -1;
    archive_failed = 1;
    const char *dir = instr_experiment_dir();
    if (!dir)
        return -1;
    /* By the directory's descriptor: OTF2 creates its files by path (experiment.h). */
    OTF2_Archive *a = OTF2_Archive_Open(instr_experiment_io_path(), "traces", OTF2_FILEMODE_WRITE,
                                        INSTR_TRACE_EVT_CHUNK,
                                        INSTR_TRACE_DEF_CHUNK, OTF2_SUBSTRATE_POSIX,
                                        OTF2_COMPRESSION_NONE);
    if (!a) {
        instr_warn("trace: cannot create the OTF2 archive in %s; no trace is written", dir);
        return -1;
    }
    OTF2_ErrorCode rc = instr_tpool_attach(a);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_Archive_SetSerialCollectiveCallbacks(a);
    if (rc == OTF2_SUCCESS)
        rc = instr_trace_archive_prepare(a, "instr trace (docs/tracing.md)");
    if (rc != OTF2_SUCCESS) {
        instr_warn("trace: cannot set up the OTF2 archive in %s (%s); no trace is written", dir,
                   OTF2_Error_GetName(rc));
        OTF2_Archive_Close(a);
        return -1;
    }
    __atomic_store_n(&instr_trace_archive, a, __ATOMIC_RELEASE);
    archive_failed = 0;
    return 0;
}

int instr_trace_attach(instr_tloc *s)
{
    OTF2_Archive *a = archive_now();
    if (!s->waiting || !a)
        return -1;
    s->waiting = 0;
    if (instr_trace_job_rank >= 0)
        s->ref = ((uint64_t)instr_trace_job_rank << 32) | s->id;
    s->writer = OTF2_Archive_GetEvtWriter(a, s->ref);
    if (!s->writer) {
        instr_warn("trace: no OTF2 event writer for thread %u: it is not traced", s->id);
        instr_early_replay(s); /* frees them */
        return -1;
    }
    s->refused += instr_early_replay(s);
    return 0;
}

int instr_trace_writer_ready(instr_tloc *s)
{
    if (s->writer)
        return 1;
    if (s->closed || instr_trace_forked)
        return 0;
    if (s->waiting)
        return archive_now() && instr_trace_attach(s) == 0;
    if (!archive_now() && (instr_trace_job_pending || instr_trace_open_archive() != 0))
        return 0;
    OTF2_Archive *a = archive_now();
    s->writer = OTF2_Archive_GetEvtWriter(a, s->ref);
    if (!s->writer) {
        instr_warn("trace: no OTF2 event writer for thread %u: its events are missing", s->id);
        s->closed = 1;
    }
    return s->writer != NULL;
}

void instr_trace_close_location(instr_tloc *s, uint64_t t_end)
{
    if (s->closed)
        return;
    if (s->waiting && archive_now())
        instr_trace_attach(s);
    if (s->waiting)
        return; /* no archive yet: its events stay kept until there is one */
    instr_trace_cut(s, t_end);
    if (!instr_trace_write_failed())
        instr_trace_writer_ready(s); /* an event file even when nothing was recorded */
    s->closed = 1;
    OTF2_EvtWriter *w = s->writer;
    s->writer = NULL;
    if (!w)
        return;
    uint64_t n = 0;
    OTF2_EvtWriter_GetNumberOfEvents(w, &n);
    s->events = n;
    OTF2_ErrorCode rc = OTF2_Archive_CloseEvtWriter(instr_trace_archive, w);
    if (rc != OTF2_SUCCESS) {
        instr_warn("trace: closing the event writer of thread %u failed (%s): its events may be "
                   "incomplete", s->id, OTF2_Error_GetName(rc));
        s->refused += n;
        s->unclosed = w;
    }
}

/* With instr_loc_lock held: threads that ended are done writing; close their writers. */
static void close_ended(void)
{
    for (instr_tloc *s = instr_trace_locs; s; s = s->next)
        if (!s->closed && s->loc && s->loc->ended == INSTR_LOC_THREAD_EXIT)
            instr_trace_close_location(s, UINT64_MAX);
}

static void *location_begin(instr_location *loc)
{
    if (instr_trace_forked)
        return NULL;
    int wait = instr_trace_job_pending && !archive_now();
    close_ended();
    instr_tloc *s = instr_mem_calloc(1, sizeof *s);
    if (!s) {
        instr_warn("trace: out of memory: thread %u is not traced", loc->id);
        return NULL;
    }
    s->loc = loc;
    s->id = loc->id;
    s->tid = loc->tid;
    s->ref = instr_trace_job_rank >= 0 ? ((uint64_t)instr_trace_job_rank << 32) | loc->id
                                       : loc->id;
    instr_trace_set_self(s);
    if (wait)
        s->waiting = 1;
    /* Its OTF2 writer comes with the first conversion of its records (convert.c). Published
     * with release: the converter thread walks the list without instr_loc_lock. */
    s->next = instr_trace_locs;
    __atomic_store_n(&instr_trace_locs, s, __ATOMIC_RELEASE);
    return s;
}

static void fork_child(void *data, uint64_t t)
{
    (void)t;
    /* The archive and the buffered events are the parent's: the child must never write
     * them. It records nothing into the trace (docs/tracing.md). */
    instr_tloc *s = data;
    instr_trace_forked = 1;
    instr_tconv_fork_child();
    if (s) {
        s->writer = NULL;
        s->waiting = 0;
        s->cut = 1; /* every event takes the slow path and is not recorded */
        s->head = s->tail = NULL;
        s->rec.lim = s->rec.pos = NULL;
    }
}

const instr_substrate instr_trace_substrate = {
    .name = "trace",
    .wanted = wanted,
    .init = init,
    .fast_paths = INSTR_SUBSTRATE_RECORDS,
    .location_begin = location_begin,
    .enter = instr_trace_enter,
    .exit = instr_trace_exit,
    .fork_child = fork_child,
    .open_regions = instr_trace_open_regions,
    .write = instr_trace_write,
};
