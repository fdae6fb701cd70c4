/* mpi_exchange.c — the job: one experiment directory for all ranks, and the job's profile.
 *
 * MPI_Init (../mpi/mpi_init.c): rank 0 creates the experiment directory and broadcasts its name; a rank
 * that INSTR_RANK_FILES names writes its own files into <dir>/rank-<N> (a process's full
 * profile, as without MPI); the others only when they end alone or the job database fails.
 * MPI_Finalize is recorded but the real PMPI_Finalize is deferred to the end of the process
 * (atexit, as Score-P does), so that everything the program does after it is measured
 * too. There, every rank first tells rank 0 that it arrived and waits for all (a rank that
 * never comes is named when the launcher ends the others: on_signal_in_job), then writes its
 * own files, then all write the job database
 * <dir>/profile.jdb together (mpi_jobdb.c). Then every rank sends the rest of its profile (a
 * text blob without the tree, blob.h: process, locations, regions, metric definitions) to
 * rank 0 over a private communicator; rank 0 merges them one at a time, reads
 * the tree back from the database and writes <dir>/profile.json with one location group per
 * rank. In a job of more than INSTR_JOB_PROFILE_MAX_RANKS ranks the others send only their
 * blobs' process lines (host, totals): rank 0 writes the job profile from the database's
 * summary over ranks, and its profile.cubex from the database's rows.
 *
 * A rank that ends without MPI_Finalize (exit(), a crash of the program's own making) still
 * writes its own files; it cannot take part in the merge, so it says so, and the launcher
 * usually ends the others, whose files are written already only if they were at the end
 * too. MPI_Abort writes this rank's files before aborting and says that the job profile is
 * not merged.
 *
 * With INSTR_ENABLE_TRACING=1 the job also writes one OTF2 archive in the job's directory
 * (../mpi/mpi_trace.c): opened in MPI_Init, finished after the profile merge by all ranks together
 * (mpi_trace_unify.c).
 * A rank that ends early or aborts has its event files written, but the archive cannot be
 * finished without every rank; it says so. */
#include "../mpi/mpi_wrap.h"
#include "../core/registry.h"
#include "../util/pages.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TAG_PROFILE 7301
#define TAG_ARRIVED 7310 /* each rank at the job's end, to rank 0 */
#define TAG_SECTIONS 7320 /* each rank's files of its own (kokkos.txt), to rank 0 */

/* Referenced weakly by the runtime (instr_core_mpi_linked): its presence defers the experiment
 * directory to MPI_Init. */
__attribute__((visibility("default"))) const int instr_mpi_adapter_loaded = 1;

static int job_rank = -1, job_size;
static int finalize_called;
static int job_started;
static MPI_Comm job_comm = MPI_COMM_NULL;
static char job_dir[PATH_MAX];
static char *my_blob;
static size_t my_blob_len;
/* Where this rank is in the job's end steps, for a signal that cuts them short (another rank
 * died: the launcher ends the rest with SIGTERM); and on rank 0 which ranks reached them. */
enum { END_NOT_YET, END_WAITING, END_DONE };
static volatile sig_atomic_t end_stage;
static unsigned char *arrived;

static void say(const char *fmt, const char *a, int n)
{
    char msg[PATH_MAX + 256];
    int len = snprintf(msg, sizeof msg, "instr: ");
    len += snprintf(msg + len, sizeof msg - (size_t)len, fmt, a, n);
    if (len > (int)sizeof msg - 2)
        len = (int)sizeof msg - 2;
    msg[len++] = '\n';
    ssize_t w = write(2, msg, (size_t)len);
    (void)w;
}

static void keep_blob(const char *blob, size_t len)
{
    instr_mem_free(my_blob);
    my_blob = NULL;
    my_blob_len = 0;
    if (!blob || !len)
        return;
    my_blob = instr_mem_alloc(len);
    if (my_blob) {
        memcpy(my_blob, blob, len);
        my_blob_len = len;
    }
}

/* Rank 0: merges every rank's blob into the job profile, with the tree from the job database
 * (jdb: instr_mpi_jobdb_write's result). Others: send theirs. */
static void merge_profiles(int jdb)
{
    int summary = (uint32_t)job_size > instr_ext_job_profile_max_ranks();
    if (jdb <= 0) {
        if (jdb < 0 && job_rank == 0)
            say("job profile: not written without the job database; the ranks' own profiles "
                "are complete in %s/rank-*", job_dir, 0);
        return;
    }
    if (job_rank != 0) {
        /* An empty message says: nothing to add (not recording, or out of memory). Above
         * the limit only the process's lines (blob.h): the job's totals and hosts. */
        size_t n = summary && my_blob ? instr_ext_job_blob_process_len(my_blob, my_blob_len)
                                      : my_blob_len;
        PMPI_Send(my_blob ? my_blob : "", (int)n, MPI_CHAR, 0, TAG_PROFILE, job_comm);
        return;
    }
    instr_job *job = instr_ext_job_new();
    if (!job || (my_blob_len && instr_ext_job_add(job, 0, my_blob, my_blob_len) != 0))
        instr_ext_job_missing(job, 0);
    if (!my_blob_len)
        instr_ext_job_missing(job, 0);
    for (int r = 1; r < job_size; r++) {
        MPI_Status st;
        int n = 0;
        PMPI_Probe(r, TAG_PROFILE, job_comm, &st);
        PMPI_Get_count(&st, MPI_CHAR, &n);
        char *buf = instr_mem_alloc(n > 0 ? (size_t)n : 1);
        if (!buf) {
            PMPI_Recv(NULL, 0, MPI_CHAR, r, TAG_PROFILE, job_comm, MPI_STATUS_IGNORE);
            instr_ext_job_missing(job, r);
            continue;
        }
        PMPI_Recv(buf, n, MPI_CHAR, r, TAG_PROFILE, job_comm, MPI_STATUS_IGNORE);
        if (n <= 0 || !job || instr_ext_job_add(job, r, buf, (size_t)n) != 0)
            instr_ext_job_missing(job, r);
        instr_mem_free(buf);
    }
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/profile.jdb", job_dir);
    if (job && instr_ext_job_add_jdb(job, path, summary) == 0)
        instr_ext_job_write(job, job_dir, job_size); /* and the job's one summary line */
    instr_ext_job_free(job);
}

/* The files each rank writes of its own (kokkos.txt): one file per name at the job's top,
 * every rank's text in it (runtime/job/sections.c). When no rank has any, one reduction. */
static void gather_sections(void)
{
    char *mine = NULL;
    size_t len = instr_ext_job_sections(&mine);
    int any = len > 0, all = 0;
    PMPI_Allreduce(&any, &all, 1, MPI_INT, MPI_MAX, job_comm);
    if (all && job_rank != 0)
        PMPI_Send(mine ? mine : "", (int)len, MPI_CHAR, 0, TAG_SECTIONS, job_comm);
    if (all && job_rank == 0) {
        instr_ext_job_sections_add(0, mine, len);
        for (int r = 1; r < job_size; r++) {
            MPI_Status st;
            int n = 0;
            PMPI_Probe(r, TAG_SECTIONS, job_comm, &st);
            PMPI_Get_count(&st, MPI_CHAR, &n);
            char *buf = n > 0 ? instr_mem_alloc((size_t)n) : NULL;
            PMPI_Recv(buf, buf ? n : 0, MPI_CHAR, r, TAG_SECTIONS, job_comm, MPI_STATUS_IGNORE);
            if (buf)
                instr_ext_job_sections_add(r, buf, (size_t)n);
            instr_mem_free(buf);
        }
        instr_ext_job_sections_end();
    }
    instr_mem_free(mine);
}

/* After this rank's own files are written, when the job cannot finish its trace. */
static void trace_unfinished(void)
{
    if (instr_mpi_tracing && instr_ext_trace_job_is_open())
        say("trace: rank %s%d wrote its events to traces/ of the job's directory, but the "
            "archive cannot be finished without every rank: traces.def and the local "
            "definitions are missing (docs/mpi.md)", "", job_rank);
    instr_mpi_tracing = 0;
}

/* Rank 0 learns which ranks reach the job's end, and lets them go on when all have: a rank
 * that never comes (killed, or ended without MPI_Finalize) is named when the launcher then
 * ends the others, which all wait here, before this rank's results are written and before
 * any step that needs every rank (a trace's clock offsets, the job database, the merge).
 * Two small messages per rank. */
static void note_arrivals(void)
{
    int here = 1;
    if (job_rank != 0) {
        MPI_Request req;
        PMPI_Send(&here, 1, MPI_INT, 0, TAG_ARRIVED, job_comm);
        instr_mpi_ring(0);
        PMPI_Irecv(&here, 1, MPI_INT, 0, TAG_ARRIVED, job_comm, &req);
        instr_mpi_waitall_patient(1, &req); /* the last rank may be long in coming */
        return;
    }
    size_t n = job_size > 1 ? (size_t)job_size - 1 : 0;
    unsigned char *seen = instr_mem_alloc((size_t)job_size);
    int *bufs = instr_mem_alloc((n + 1) * sizeof *bufs), *done = instr_mem_alloc((n + 1) * sizeof *done);
    MPI_Request *req = instr_mem_alloc((n + 1) * sizeof *req);
    if (!seen || !bufs || !done || !req) {
        instr_mem_free(seen); /* nobody named, the steps the same */
        seen = NULL;
        for (int r = 1; r < job_size; r++)
            PMPI_Recv(&here, 1, MPI_INT, r, TAG_ARRIVED, job_comm, MPI_STATUS_IGNORE);
    } else {
        memset(seen, 0, (size_t)job_size);
        seen[0] = 1;
        for (size_t r = 0; r < n; r++)
            PMPI_Irecv(&bufs[r], 1, MPI_INT, (int)r + 1, TAG_ARRIVED, job_comm, &req[r]);
        arrived = seen;
        long nap = 20000; /* patient, as instr_mpi_waitall_patient (INSTR_JOB_WAIT) */
        for (size_t left = n; left > 0;) {
            int got = 0;
            uint32_t bell = instr_mpi_bell_seen();
            int rc = instr_mpi_wait_polls()
                         ? PMPI_Waitsome((int)n, req, &got, done, MPI_STATUSES_IGNORE)
                         : PMPI_Testsome((int)n, req, &got, done, MPI_STATUSES_IGNORE);
            if (rc != MPI_SUCCESS || got == MPI_UNDEFINED)
                break;
            for (int k = 0; k < got; k++)
                seen[done[k] + 1] = 1;
            left -= (size_t)got;
            if (got == 0) {
                instr_mpi_nap(&nap, bell);
            } else {
                nap = 20000;
            }
        }
        arrived = NULL;
    }
    for (int r = 1; r < job_size; r++) {
        PMPI_Send(&here, 1, MPI_INT, r, TAG_ARRIVED, job_comm);
        instr_mpi_ring(r);
    }
    instr_mem_free(seen);
    instr_mem_free(bufs);
    instr_mem_free(done);
    instr_mem_free(req);
}

/* A termination signal (the launcher's SIGTERM) after this rank's own results were written
 * from the handler: in the job's end steps, waiting for a rank that will never come, no job
 * profile or database is merged and the job's trace is not finished; one line says so. */
static void on_signal_in_job(int sig)
{
    int stage = end_stage;
    if (stage == END_DONE || job_rank < 0 || !job_dir[0])
        return;
    end_stage = END_DONE;
    char who[512] = "", own[PATH_MAX + 64] = "", trace[160] = "";
    if (stage == END_WAITING && job_rank == 0 && arrived) {
        char list[384] = "";
        size_t used = 0;
        int missing = 0;
        for (int r = 1; r < job_size; r++) {
            if (arrived[r])
                continue;
            int w = 0;
            if (++missing <= 32 && used < sizeof list - 16)
                w = snprintf(list + used, sizeof list - used, "%s%d", missing > 1 ? ", " : "", r);
            else if (missing == 33 && used < sizeof list - 8)
                w = snprintf(list + used, sizeof list - used, ", ...");
            used += w > 0 ? (size_t)w : 0;
        }
        if (missing)
            snprintf(who, sizeof who, "; rank%s %s never reached MPI_Finalize (killed, or ended "
                     "without it)", missing > 1 ? "s" : "", list);
    }
    /* Its own profile: written by the handler (the end had not begun), at the end already
     * (INSTR_RANK_FILES), or now from what the end kept (written into the job database
     * otherwise); the line names the directory only where it is. */
    if (stage == END_WAITING)
        instr_ext_rank_files_late();
    snprintf(own, sizeof own, "%s/rank-%d", job_dir, job_rank);
    struct stat st;
    if (stat(own, &st) == 0 && S_ISDIR(st.st_mode))
        snprintf(own, sizeof own, "; this rank's own profile is in %s/rank-%d", job_dir, job_rank);
    else
        own[0] = '\0';
    if (instr_mpi_tracing && instr_ext_trace_job_is_open())
        snprintf(trace, sizeof trace, "; traces/ holds orphan files: the ranks' event files, "
                                      "without traces.otf2 and traces.def");
    char msg[PATH_MAX + 1024];
    snprintf(msg, sizeof msg, "rank %d: ended by %s %s%s: no job profile or database was "
             "merged%s%s", job_rank, sig == SIGTERM ? "SIGTERM" : "a signal",
             stage == END_WAITING ? "at the job's end, waiting for the other ranks"
                                  : "before MPI_Finalize", who, own, trace);
    say("%s", msg, 0);
    /* Open MPI's launcher sends every survivor SIGTERM, and SIGKILL to all that are left as
     * soon as the first of them has died: the survivor that wrote fastest would take the
     * others' files and lines with it. Lingering half a second (under Open MPI's one second
     * between its SIGTERM and SIGKILL) leaves the others the time to write theirs. */
    if (stage == END_WAITING) {
        struct timespec linger = {0, 500 * 1000 * 1000};
        while (nanosleep(&linger, &linger) != 0 && errno == EINTR)
            ;
    }
}

/* atexit, registered in MPI_Init after the runtime's own: runs first. */
static void job_end(void)
{
    if (!finalize_called) {
        end_stage = END_DONE; /* this rank says itself that it ended alone */
        if (job_rank >= 0)
            say("rank %s%d ended without MPI_Finalize: its own results are written, the job "
                "profile is not merged (merge step: docs/mpi.md)", "", job_rank);
        instr_mpi_plugins_alone();
        instr_ext_set_job_hook(NULL); /* no merge: this rank says itself where its files are */
    instr_ext_set_jobdb_hook(NULL);
        instr_ext_finalize();
        instr_ext_job_sections_own();
        trace_unfinished();
        return;
    }
    /* First, before any step that waits for every rank: rank 0 learns who came. */
    end_stage = END_WAITING;
    if (job_dir[0])
        note_arrivals();
    instr_mpi_trace_measure_end(job_comm, job_rank, job_size);
    instr_ext_finalize(); /* this rank's files; the hook keeps the blob */
    if (job_dir[0]) {
        int jdb = instr_mpi_jobdb_write(job_comm, job_rank, job_size, job_dir);
        if (jdb < 0) /* every rank knows: then each keeps its own profile */
            instr_ext_rank_files_late();
        gather_sections();
        merge_profiles(jdb);
    }
    instr_job_trace_end(job_comm, job_rank, job_size);
    end_stage = END_DONE;
    instr_mem_free(my_blob);
    my_blob = NULL;
    if (job_comm != MPI_COMM_NULL)
        PMPI_Comm_free(&job_comm);
    instr_mpi_plugins_end();
    instr_mpi_bells_close();
    PMPI_Finalize();
}

void instr_mpi_job_begin(void)
{
    if (job_started)
        return;
    job_started = 1;
    PMPI_Comm_dup(MPI_COMM_WORLD, &job_comm);
    PMPI_Comm_rank(job_comm, &job_rank);
    PMPI_Comm_size(job_comm, &job_size);
    instr_mpi_plugins_begin();
    char dir[PATH_MAX] = "";
    if (job_rank == 0 && instr_ext_experiment_create(dir, sizeof dir) != 0)
        dir[0] = '\0';
    PMPI_Bcast(dir, (int)sizeof dir, MPI_CHAR, 0, job_comm);
    if (dir[0]) {
        snprintf(job_dir, sizeof job_dir, "%s", dir);
        instr_ext_experiment_join(dir, job_rank, instr_ext_rank_files(job_rank));
    }
    /* Which rank records the per-host and once metrics: the first of each host (one shared
     * memory node), and rank 0. */
    MPI_Comm host_comm;
    int host_rank = 0;
    if (PMPI_Comm_split_type(job_comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host_comm) ==
        MPI_SUCCESS) {
        int host_ranks = 1;
        PMPI_Comm_rank(host_comm, &host_rank);
        PMPI_Comm_size(host_comm, &host_ranks);
        instr_mpi_wait_sharing(host_comm, host_rank, host_ranks, job_rank);
        PMPI_Comm_free(&host_comm);
    }
    instr_ext_metrics_elect(job_rank, host_rank);
    instr_mpi_trace_begin(job_comm, job_rank, job_size, job_dir);
    instr_mpi_cp_init(job_comm, job_rank);
    instr_ext_set_job_hook(keep_blob);
    instr_ext_set_jobdb_hook(instr_mpi_jobdb_keep);
    instr_ext_set_signal_job_hook(on_signal_in_job);
    atexit(job_end);
}

int instr_mpi_job_started(void) { return job_started; }

int instr_mpi_job_finalized(void) { return finalize_called; }

void instr_mpi_job_finalize(void)
{
    if (!finalize_called && instr_mpi_cp)
        instr_mpi_cp_finalize(job_rank, job_size); /* the path's end: every rank's maximum */
    finalize_called = 1;
}

void instr_mpi_job_abort(void)
{
    say("MPI_Abort called%s on rank %d: this rank's results are written, the job profile is "
        "not merged; the other ranks write their own files only if the launcher ends them "
        "with SIGTERM", "", job_rank);
    finalize_called = 0;
    end_stage = END_DONE;
    instr_mpi_plugins_alone();
    instr_ext_set_job_hook(NULL); /* no merge: this rank says itself where its files are */
    instr_ext_set_jobdb_hook(NULL);
    instr_ext_finalize();
    instr_ext_job_sections_own();
    trace_unfinished();
}
