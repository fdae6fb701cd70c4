/* write.c — the end of a trace: close every event writer (their last buffers go to disk),
 * write empty local definitions (the references are global already), the global
 * definitions, close the archive, and say where it is, how many events and bytes, and how
 * many times the memory budget made a thread flush during the run. */
#include "trace.h"
#include "../core/config.h"
#include "../core/experiment.h"
#include "../core/log.h"
#include "../util/text.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static uint64_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

/* Bytes of the archive on disk: traces.otf2, traces.def and everything in traces/. */
static uint64_t archive_bytes(const char *dir)
{
    char path[PATH_MAX];
    uint64_t total = 0;
    snprintf(path, sizeof path, "%s/traces.otf2", dir);
    total += file_size(path);
    snprintf(path, sizeof path, "%s/traces.def", dir);
    total += file_size(path);
    snprintf(path, sizeof path, "%s/traces", dir);
    DIR *d = opendir(path);
    if (!d)
        return total;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char f[PATH_MAX];
        if ((size_t)snprintf(f, sizeof f, "%s/%s", path, e->d_name) < sizeof f)
            total += file_size(f);
    }
    closedir(d);
    return total;
}

/* Events that could not be recorded, and threads cut off at the end: said once each. */
static void report_dropped(const instr_run *run)
{
    uint64_t busy, full, cut = 0, closed = 0;
    instr_trace_dropped(&busy, &full);
    busy += run->dropped_in_handlers; /* dropped by the event core before they reached us */
    for (instr_tloc *s = instr_trace_locs; s; s = s->next)
        if (s->repaired) {
            cut++;
            closed += s->repaired;
        }
    if (busy)
        instr_warn("trace: %llu event(s) of signal handlers that came while the runtime could "
                   "not take them (inside the runtime on the same thread, the trace's buffer "
                   "full and being written, or a fault inside the trace) were dropped; the "
                   "interrupted code's events are complete",
                   (unsigned long long)busy);
    if (full)
        instr_warn("trace: %llu event(s) were dropped: no memory for the event buffer",
                   (unsigned long long)full);
    if (cut)
        instr_info(1, "trace: %llu thread(s) were still inside instrumented code at the end: "
                      "their events were cut at the end time and %llu open region(s) closed "
                      "there",
                   (unsigned long long)cut, (unsigned long long)closed);
}

int instr_trace_write(const instr_run *run, char *files, size_t size)
{
    instr_tconv_stop(); /* the rest is converted here, as without the converter thread */
    if (instr_trace_forked) {
        instr_warn("trace: forked child %d records no trace (only the process that started "
                   "the measurement is traced; see docs/tracing.md)", run->pid);
        return 0;
    }
    uint64_t dropped = instr_early_dropped();
    if (dropped)
        instr_warn("trace: %llu event(s) before MPI_Init did not fit into INSTR_TOTAL_MEMORY/8 "
                   "and are missing from the trace (whole calls: the rest stays nested)",
                   (unsigned long long)dropped);
    if (instr_trace_job_is_open()) {
        /* An MPI job: this rank's event files now; definitions and the archive's end need
         * all ranks (job.c, called by libinstr-rt-mpi after MPI_Finalize). */
        static instr_tloc none;
        if (!instr_trace_locs) {
            none.id = 0;
            none.ref = (uint64_t)instr_trace_job_rank << 32;
            none.tid = (int)gettid();
            none.writer = OTF2_Archive_GetEvtWriter(instr_trace_archive, none.ref);
            if (none.writer)
                instr_trace_locs = &none;
        }
        uint64_t refused = 0;
        for (instr_tloc *s = instr_trace_locs; s; s = s->next) {
            instr_trace_close_location(s, run->t_end);
            refused += s->refused;
        }
        /* Asynchronous metrics' values taken by this rank: a location of its own. */
        uint64_t t_last = run->t_end;
        if (!instr_trace_write_failed() &&
            instr_trace_metric_async_write(instr_trace_archive, run->t_start, &t_last) != 0)
            instr_warn("trace: rank %d: the values of asynchronous metrics could not be "
                       "written (messages above): the trace lacks them", instr_trace_job_rank);
        report_dropped(run);
        if (refused)
            instr_warn("trace: %llu event record(s) could not be written (messages above): the "
                       "trace is incomplete", (unsigned long long)refused);
        return instr_trace_job_write_local(run, t_last);
    }
    /* Not an MPI job, or one whose MPI_Init never ran: an archive of this process alone;
     * locations still waiting get their writers now (trace.c). */
    instr_trace_job_pending = 0;
    if (instr_trace_open_archive() != 0)
        return -1;
    OTF2_Archive *a = instr_trace_archive;
    static instr_tloc none;
    if (!instr_trace_locs) {
        /* Nothing was recorded (everything filtered, or no instrumented code ran): one empty
         * location, since OTF2 readers refuse an archive without any. */
        none.id = 0;
        none.tid = (int)gettid();
        none.writer = OTF2_Archive_GetEvtWriter(a, 0);
        if (none.writer)
            instr_trace_locs = &none;
    }

    uint64_t events = 0, refused = 0, written = 0, t_last = run->t_end;
    uint32_t nloc = 0;
    for (instr_tloc *s = instr_trace_locs; s; s = s->next) {
        instr_trace_close_location(s, run->t_end);
        events += s->events;
        refused += s->refused;
        if (!instr_trace_write_failed())
            written += s->events; /* this location's file is complete */
        if (s->last > t_last)
            t_last = s->last;
        nloc++;
    }
    instr_tpool_stats ps;
    instr_tpool_stats_get(&ps);
    if (ps.last_flush_end > t_last)
        t_last = ps.last_flush_end;

    int rc = 0;
    if (instr_trace_write_failed()) {
        /* OTF2 is not asked to write anything more into files that failed: the archive is
         * incomplete whatever follows (and OTF2 handles a second failure badly, pool.c). */
        report_dropped(run);
        uint64_t bytes = archive_bytes(run->dir);
        uint64_t lost = events - written + instr_trace_lost_after_failure();
        instr_warn("trace: %s/traces.otf2 is incomplete and was not finished: writing it failed "
                   "(%s) after %llu bytes; %llu of the %llu event records are not in it. Free "
                   "space (or raise the file-size limit) and run again",
                   run->dir, instr_trace_failure_reason(), (unsigned long long)bytes,
                   (unsigned long long)lost,
                   (unsigned long long)(events + instr_trace_lost_after_failure()));
        /* instr_trace_archive stays set: the archive is left open on purpose, and stays
         * reachable (no leak report under LeakSanitizer). */
        return -1;
    }
    if (instr_trace_metric_async_write(a, run->t_start, &t_last) != 0)
        rc = -1;
    if (OTF2_Archive_CloseEvtFiles(a) != OTF2_SUCCESS)
        rc = -1;
    /* Local definition files: empty (events use the global references), but readers expect
     * one per location. */
    if (OTF2_Archive_OpenDefFiles(a) == OTF2_SUCCESS) {
        for (instr_tloc *s = instr_trace_locs; s; s = s->next) {
            OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(a, s->ref);
            if (!dw || OTF2_Archive_CloseDefWriter(a, dw) != OTF2_SUCCESS)
                rc = -1;
        }
        if (instr_trace_metric_async_local_defs(a) != 0)
            rc = -1;
        if (OTF2_Archive_CloseDefFiles(a) != OTF2_SUCCESS)
            rc = -1;
    } else {
        rc = -1;
    }
    if (instr_trace_write_defs(a, run, t_last) != 0)
        rc = -1;
    if (OTF2_Archive_Close(a) != OTF2_SUCCESS)
        rc = -1;
    instr_trace_archive = NULL;
    report_dropped(run);

    uint64_t bytes = archive_bytes(run->dir);
    if (instr_trace_write_failed()) {
        /* The failure came with the definitions or the anchor file. */
        instr_warn("trace: %s/traces.otf2 is incomplete: writing its definitions failed (%s); "
                   "its %llu events are not readable. Free space (or raise the file-size "
                   "limit) and run again",
                   run->dir, instr_trace_failure_reason(), (unsigned long long)events);
        return -1;
    }
    if (rc != 0)
        instr_warn("trace: the OTF2 library reported errors while closing %s/traces.otf2 "
                   "(messages above); the archive may be incomplete", run->dir);
    if (refused)
        instr_warn("trace: %llu event record(s) could not be written (messages above): the "
                   "trace is incomplete", (unsigned long long)refused);
    if (ps.overdraft)
        instr_info(1, "trace: %llu KiB of event buffers beyond INSTR_TOTAL_MEMORY=%s (one "
                      "chunk per thread is always granted)",
                   (unsigned long long)(ps.overdraft >> 10),
                   instr_config_lookup("INSTR_TOTAL_MEMORY"));
    if (instr_verbose >= 0) {
        char flush_note[160] = "";
        if (ps.flushes)
            snprintf(flush_note, sizeof flush_note,
                     " (INSTR_TOTAL_MEMORY=%s was full: the threads wrote their buffers to "
                     "disk during the run; raise it to avoid that)",
                     instr_config_lookup("INSTR_TOTAL_MEMORY"));
        /* The directory's name is the user's (INSTR_EXPERIMENT_DIRECTORY): escaped, as in
         * every other line, so that it cannot inject lines or terminal controls. */
        char where[PATH_MAX];
        instr_escaped(where, sizeof where, run->dir ? run->dir : "(no directory)");
        instr_warn("trace: %s/traces.otf2: %llu events from %u thread%s, %llu bytes, "
                   "%llu buffer flush%s%s",
                   where, (unsigned long long)events, nloc, nloc == 1 ? "" : "s",
                   (unsigned long long)bytes, (unsigned long long)ps.flushes,
                   ps.flushes == 1 ? "" : "es", flush_note);
    }
    instr_files_add(files, size, "traces.otf2");
    instr_files_add(files, size, "traces.def");
    instr_files_add(files, size, "traces/");
    return rc;
}
