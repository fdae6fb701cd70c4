/* job.c — the trace of an MPI job (docs/mpi.md, "Trace"): one OTF2 archive in the job's
 * experiment directory, written by all ranks, with one set of global definitions.
 *
 *   MPI_Init     instr_trace_job_open: every rank opens the archive with OTF2's MPI
 *                collective callbacks (set by libinstr-rt-mpi through `setup`); location
 *                refs become (rank << 32) | thread id, so each rank writes its own event
 *                files traces/<ref>.evt. Communicators get local refs (instr_trace_comm_add).
 *   events       regions use this process's local refs (handle - 1), communicators their
 *                local refs: nothing is translated while the program runs.
 *   the end      write.c closes the event writers. instr_trace_job_blob gives this rank's
 *                definitions (locations, regions, communicators, RMA windows, clock range)
 *                as a blob; the job unifies them by a binomial tree of unifiers
 *                (runtime/job/trace_unify.c, mpi_trace_unify.c), which keep only the union
 *                of the definitions, and each rank maps its own against the union (local
 *                ref -> global ref).
 *                instr_trace_job_close writes every location's local definitions (OTF2
 *                mapping tables for regions and communicators, the clock offsets measured
 *                against rank 0 at init and at the end) and, on rank 0, the global
 *                definitions (the unifier's, runtime/job/trace_global_defs.c); then the
 *                archive is closed collectively. I/O recording's handles (io_events.c)
 *                and sampling's calling contexts (the sample hook's) travel and are mapped
 *                like regions: the rank's events keep its own refs.
 * A rank that ends without MPI_Finalize or calls MPI_Abort only gets as far as its event
 * files (write.c): the collective steps would wait for the others forever. */
#include "trace.h"
#include "wire.h"
#include "../core/clock.h"
#include "../core/config.h"
#include "../core/experiment.h"
#include "../core/core.h"
#include "../core/log.h"
#include "../util/array.h"
#include "../core/registry.h"
#include "../util/pages.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>


#define INSTR_TRACE_DEF_CHUNK (1024 * 1024)
#define MAX_OFFSETS 4

/* ---- this rank ---------------------------------------------------------------------- */

typedef struct comm_def {
    uint32_t leader, seq; /* the job-wide identity: leader's world rank, its counter */
    char *name;
    uint32_t nmembers;    /* the leader only: world ranks of the members */
    uint32_t *members;
    uint32_t parent;      /* the local ref of the one it was made from; UINT32_MAX: none */
} comm_def;

static struct {
    int open;          /* archive open in the job's directory */
    int written;       /* write.c closed the event writers */
    int nranks;
    char dir[4096];
    uint32_t mpi_location; /* the thread that called MPI_Init */
    uint64_t t_start, t_last;
    struct {
        uint64_t time;
        int64_t offset;
        double stddev;
    } off[MAX_OFFSETS];
    int noff;
} job;

/* An RMA window: its job-wide identity (as a communicator's), name, communicator's ref. */
typedef struct win_def {
    uint32_t leader, seq, comm;
    char *name;
} win_def;

static pthread_mutex_t comm_lock = PTHREAD_MUTEX_INITIALIZER;
static comm_def *comms;
static uint32_t ncomms, capcomms;
static win_def *wins; /* under comm_lock too */
static uint32_t nwins, capwins;

int instr_trace_job_open(const char *jobdir, int rank, int nranks,
                         int (*setup)(OTF2_Archive *archive, void *arg), void *arg)
{
    if (!instr_cfg.enable_tracing || instr_trace_forked || !instr_trace_job_pending)
        return -1;
    /* By the job directory's descriptor: OTF2 creates its files by path (experiment.h). */
    OTF2_Archive *a = OTF2_Archive_Open(instr_experiment_job_io_path(jobdir), "traces",
                                        OTF2_FILEMODE_WRITE,
                                        INSTR_TRACE_EVT_CHUNK, INSTR_TRACE_DEF_CHUNK,
                                        OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!a) {
        instr_warn("trace: rank %d cannot create the OTF2 archive in %s; no trace is written",
                   rank, jobdir);
        return -1;
    }
    OTF2_ErrorCode rc = instr_tpool_attach(a);
    if (rc == OTF2_SUCCESS && setup(a, arg) != 0)
        rc = OTF2_ERROR_COLLECTIVE_CALLBACK;
    if (rc == OTF2_SUCCESS)
        rc = instr_trace_archive_prepare(a, "instr trace of an MPI job (docs/mpi.md)");
    if (rc != OTF2_SUCCESS) {
        instr_warn("trace: rank %d cannot set up the OTF2 archive in %s (%s); no trace is "
                   "written", rank, jobdir, OTF2_Error_GetName(rc));
        return -1;
    }
    snprintf(job.dir, sizeof job.dir, "%s", jobdir);
    job.nranks = nranks;
    instr_location *self = instr_core_location_self();
    job.mpi_location = self ? self->id : 0;
    instr_trace_job_rank = rank;
    job.open = 1;
    __atomic_store_n(&instr_trace_archive, a, __ATOMIC_RELEASE);
    return 0;
}

void instr_trace_job_abandon(void)
{
    /* Some rank could not open the archive: nobody traces (the collective steps at the end
     * need every rank). Waiting locations drop what they kept. */
    job.open = 0;
    instr_trace_job_pending = 0;
    __atomic_store_n(&instr_trace_archive, NULL, __ATOMIC_RELEASE);
    pthread_mutex_lock(&instr_loc_lock);
    for (instr_tloc *s = instr_trace_locs; s; s = s->next) {
        s->waiting = 0;
        s->writer = NULL;
        s->closed = 1;
        instr_early_replay(s);
    }
    pthread_mutex_unlock(&instr_loc_lock);
}

int instr_trace_job_is_open(void) { return job.open; }

uint32_t instr_trace_comm_add(uint32_t leader, uint32_t seq, const char *name,
                              uint32_t nmembers, const uint32_t *members, uint32_t parent)
{
    uint32_t ref = UINT32_MAX;
    pthread_mutex_lock(&comm_lock);
    if (instr_array_grow32(&comms, &capcomms, (size_t)ncomms + 1, sizeof *comms, 16) != 0)
        goto out;
    comm_def *c = &comms[ncomms];
    memset(c, 0, sizeof *c);
    c->leader = leader;
    c->seq = seq;
    c->parent = parent < ncomms ? parent : UINT32_MAX; /* made before it, or none */
    c->name = instr_mem_strdup(name ? name : "");
    if (members && nmembers) {
        c->members = instr_mem_alloc(nmembers * sizeof *c->members);
        if (!c->members || !c->name) {
            instr_mem_free(c->members);
            instr_mem_free(c->name);
            goto out;
        }
        memcpy(c->members, members, nmembers * sizeof *c->members);
        c->nmembers = nmembers;
    }
    ref = ncomms++;
out:
    pthread_mutex_unlock(&comm_lock);
    return ref;
}

void instr_trace_win_add(uint32_t leader, uint32_t seq, const char *name, uint32_t comm)
{
    char *n = instr_mem_strdup(name ? name : "");
    pthread_mutex_lock(&comm_lock);
    if (n && instr_array_grow32(&wins, &capwins, (size_t)nwins + 1, sizeof *wins, 8) == 0) {
        wins[nwins++] = (win_def){leader, seq, comm, n};
        n = NULL;
    }
    pthread_mutex_unlock(&comm_lock);
    instr_mem_free(n);
}

void instr_trace_job_clock_offset(uint64_t time, int64_t offset, double stddev)
{
    if (job.noff < MAX_OFFSETS) {
        job.off[job.noff].time = time;
        job.off[job.noff].offset = offset;
        job.off[job.noff].stddev = stddev;
        job.noff++;
    }
}

int instr_trace_job_write_local(const instr_run *run, uint64_t t_last)
{
    /* write.c closed the event writers; the rest needs the other ranks (the adapter calls
     * instr_trace_job_blob and instr_trace_job_close after MPI_Finalize). */
    job.written = 1;
    job.t_start = run->t_start;
    job.t_last = t_last > run->t_end ? t_last : run->t_end;
    for (instr_tloc *s = instr_trace_locs; s; s = s->next)
        if (s->last > job.t_last)
            job.t_last = s->last;
    instr_tpool_stats ps;
    instr_tpool_stats_get(&ps);
    if (ps.last_flush_end > job.t_last)
        job.t_last = ps.last_flush_end;
    return 0;
}

/* ---- blobs ------------------------------------------------------------------------- */

static int64_t max_abs_offset(void)
{
    int64_t m = 0;
    for (int i = 0; i < job.noff; i++) {
        int64_t o = job.off[i].offset < 0 ? -job.off[i].offset : job.off[i].offset;
        if (o > m)
            m = o;
    }
    return m;
}

/* The offset an OTF2 reader applies at local time t: it interpolates between consecutive
 * ClockOffset records and extends the first and the last interval's line beyond them. Before
 * a long MPI_Init, a slope from two noisy offsets moves the first events by far more than the
 * offsets themselves, so the job's clock range is computed with this, not with the offsets. */
static int64_t offset_at(uint64_t t)
{
    if (job.noff < 2)
        return job.noff ? job.off[0].offset : 0;
    int i = 0;
    while (i + 2 < job.noff && t > job.off[i + 1].time)
        i++;
    uint64_t t0 = job.off[i].time, t1 = job.off[i + 1].time;
    if (t1 <= t0)
        return job.off[i].offset;
    double slope = (double)(job.off[i + 1].offset - job.off[i].offset) / (double)(t1 - t0);
    double diff = t >= t0 ? (double)(t - t0) : -(double)(t0 - t);
    return job.off[i].offset + (int64_t)(slope * diff);
}

int instr_trace_job_blob(int rank, char **out, size_t *len)
{
    wbuf b = {0};
    struct utsname u;
    if (uname(&u) != 0)
        strcpy(u.nodename, "unknown");
    int64_t first = job.noff ? job.off[0].offset : 0;
    int64_t last = job.noff ? job.off[job.noff - 1].offset : 0;
    if (offset_at(job.t_start) < first)
        first = offset_at(job.t_start);
    if (offset_at(job.t_last) > last)
        last = offset_at(job.t_last);
    put32(&b, INSTR_TRACE_BLOB_MAGIC);
    put32(&b, (uint32_t)rank);
    put64(&b, (uint64_t)getpid());
    putstr(&b, u.nodename);
    put64(&b, job.t_start + (uint64_t)first);
    put64(&b, job.t_last + (uint64_t)last);
    put64(&b, (uint64_t)max_abs_offset());
    put32(&b, job.mpi_location);

    uint32_t nloc = 0;
    for (instr_tloc *s = instr_trace_locs; s; s = s->next)
        nloc++;
    put32(&b, nloc);
    for (instr_tloc *s = instr_trace_locs; s; s = s->next) {
        put32(&b, s->id);
        put64(&b, (uint64_t)s->tid);
        put64(&b, s->events);
    }
    /* The location of this rank's asynchronous metric values (0 events: none). */
    uint64_t aref = 0, aevents = 0;
    instr_trace_metric_async_location(&aref, &aevents);
    put32(&b, (uint32_t)aref);
    put64(&b, aevents);

    uint32_t nreg = instr_registry_count();
    put32(&b, nreg);
    for (uint32_t h = 1; h <= nreg; h++) {
        const instr_region_info *r = instr_registry_get(h);
        static const instr_region_info none = {.name = "(unknown)", .mangled = "", .file = ""};
        if (!r)
            r = &none;
        putstr(&b, r->name);
        putstr(&b, r->mangled && *r->mangled ? r->mangled : r->name);
        putstr(&b, r->file);
        put32(&b, r->line_begin);
        put32(&b, r->line_end);
        put32(&b, (uint32_t)r->source);
    }

    pthread_mutex_lock(&comm_lock);
    put32(&b, ncomms);
    for (uint32_t i = 0; i < ncomms; i++) {
        put32(&b, comms[i].leader);
        put32(&b, comms[i].seq);
        putstr(&b, comms[i].name);
        put32(&b, comms[i].nmembers);
        for (uint32_t k = 0; k < comms[i].nmembers; k++)
            put32(&b, comms[i].members[k]);
    }
    pthread_mutex_unlock(&comm_lock);
    /* I/O recording's files and handles (io_events.c). */
    instr_trace_io_blob(&b);
    /* Sampling's calling contexts (every location was converted: they are all known). */
    const instr_trace_sample_hook *sh = __atomic_load_n(&instr_trace_samples, __ATOMIC_ACQUIRE);
    uint32_t nctx = sh && sh->ncontexts ? sh->ncontexts() : 0;
    put32(&b, nctx);
    for (uint32_t i = 0; i < nctx; i++) {
        uint32_t parent, region, line;
        const char *file;
        sh->context(i, &parent, &region, &file, &line);
        put32(&b, parent);
        put32(&b, region);
        put32(&b, line);
        putstr(&b, file);
    }
    if (sh && sh->job_end)
        sh->job_end();
    /* RMA windows (last: a reader of the blob before them stops at the contexts). */
    pthread_mutex_lock(&comm_lock);
    put32(&b, nwins);
    for (uint32_t i = 0; i < nwins; i++) {
        put32(&b, wins[i].leader);
        put32(&b, wins[i].seq);
        putstr(&b, wins[i].name);
        put32(&b, wins[i].comm);
    }
    /* The communicators' parents (local refs, UINT32_MAX: none), after the windows for the
     * same reason. */
    put32(&b, ncomms);
    for (uint32_t i = 0; i < ncomms; i++)
        put32(&b, comms[i].parent);
    pthread_mutex_unlock(&comm_lock);
    if (b.failed) {
        instr_mem_free(b.p);
        return -1;
    }
    *out = b.p;
    *len = b.n;
    return 0;
}

/* This rank's local definitions: per location the mappings and the clock offsets. */
static int write_local(OTF2_Archive *a, const char *map, size_t maplen)
{
    rbuf b = {map, maplen, 0, 0};
    uint32_t nreg = get32(&b);
    uint32_t *regs = instr_mem_calloc(nreg ? nreg : 1, sizeof *regs);
    if (!regs)
        return -1;
    for (uint32_t i = 0; i < nreg; i++)
        regs[i] = get32(&b);
    uint32_t ncomm = get32(&b);
    uint32_t *cms = instr_mem_calloc(ncomm ? ncomm : 1, sizeof *cms);
    if (!cms) {
        instr_mem_free(regs);
        return -1;
    }
    for (uint32_t i = 0; i < ncomm; i++)
        cms[i] = get32(&b);
    uint32_t nio = get32(&b);
    uint32_t *ios = instr_mem_calloc(nio && !b.bad ? nio : 1, sizeof *ios);
    if (!ios) {
        instr_mem_free(regs);
        instr_mem_free(cms);
        return -1;
    }
    for (uint32_t i = 0; i < nio && !b.bad; i++)
        ios[i] = get32(&b);
    uint32_t nctx = get32(&b);
    uint32_t *ctxs = instr_mem_calloc(nctx && !b.bad ? nctx : 1, sizeof *ctxs);
    if (!ctxs) {
        instr_mem_free(regs);
        instr_mem_free(cms);
        instr_mem_free(ios);
        return -1;
    }
    for (uint32_t i = 0; i < nctx && !b.bad; i++)
        ctxs[i] = get32(&b);
    int rc = b.bad ? -1 : 0;
    OTF2_IdMap *rmap = nreg ? OTF2_IdMap_CreateFromUint32Array(nreg, regs, false) : NULL;
    OTF2_IdMap *cmap = ncomm ? OTF2_IdMap_CreateFromUint32Array(ncomm, cms, false) : NULL;
    OTF2_IdMap *iomap = nio && !b.bad ? OTF2_IdMap_CreateFromUint32Array(nio, ios, false) : NULL;
    OTF2_IdMap *ctxmap =
        nctx && !b.bad ? OTF2_IdMap_CreateFromUint32Array(nctx, ctxs, false) : NULL;
    for (instr_tloc *s = instr_trace_locs; s && rc == 0; s = s->next) {
        OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(a, s->ref);
        if (!dw) {
            rc = -1;
            break;
        }
        if (rmap && OTF2_DefWriter_WriteMappingTable(dw, OTF2_MAPPING_REGION, rmap) != OTF2_SUCCESS)
            rc = -1;
        if (cmap && OTF2_DefWriter_WriteMappingTable(dw, OTF2_MAPPING_COMM, cmap) != OTF2_SUCCESS)
            rc = -1;
        if (iomap &&
            OTF2_DefWriter_WriteMappingTable(dw, OTF2_MAPPING_IO_HANDLE, iomap) != OTF2_SUCCESS)
            rc = -1;
        if (ctxmap && OTF2_DefWriter_WriteMappingTable(dw, OTF2_MAPPING_CALLING_CONTEXT,
                                                       ctxmap) != OTF2_SUCCESS)
            rc = -1;
        for (int i = 0; i < job.noff; i++)
            if (OTF2_DefWriter_WriteClockOffset(dw, job.off[i].time, job.off[i].offset,
                                                job.off[i].stddev) != OTF2_SUCCESS)
                rc = -1;
        if (OTF2_Archive_CloseDefWriter(a, dw) != OTF2_SUCCESS)
            rc = -1;
    }
    /* The asynchronous metric values' location: the clock offsets (metric refs are the
     * job's already). */
    uint64_t aref, aevents;
    if (rc == 0 && instr_trace_metric_async_location(&aref, &aevents)) {
        OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(a, aref);
        if (!dw)
            rc = -1;
        for (int i = 0; dw && i < job.noff; i++)
            if (OTF2_DefWriter_WriteClockOffset(dw, job.off[i].time, job.off[i].offset,
                                                job.off[i].stddev) != OTF2_SUCCESS)
                rc = -1;
        if (dw && OTF2_Archive_CloseDefWriter(a, dw) != OTF2_SUCCESS)
            rc = -1;
    }
    if (rmap)
        OTF2_IdMap_Free(rmap);
    if (cmap)
        OTF2_IdMap_Free(cmap);
    if (iomap)
        OTF2_IdMap_Free(iomap);
    if (ctxmap)
        OTF2_IdMap_Free(ctxmap);
    instr_mem_free(ctxs);
    instr_mem_free(regs);
    instr_mem_free(cms);
    instr_mem_free(ios);
    return rc;
}

int instr_trace_job_close(int rank, const char *map, size_t maplen,
                          int (*write_global)(OTF2_Archive *a, void *u), void *u)
{
    OTF2_Archive *a = instr_trace_archive;
    if (!a || !job.written)
        return -1;
    int failed = 0;
    /* Every step below is collective in OTF2: every rank takes all of them, whatever failed
     * before, so that no rank waits forever. */
    if (OTF2_Archive_CloseEvtFiles(a) != OTF2_SUCCESS)
        failed = 1;
    if (OTF2_Archive_OpenDefFiles(a) == OTF2_SUCCESS) {
        if (!map || write_local(a, map, maplen) != 0)
            failed = 1;
        if (OTF2_Archive_CloseDefFiles(a) != OTF2_SUCCESS)
            failed = 1;
    } else {
        failed = 1;
    }
    if (rank == 0 && (!u || !write_global || write_global(a, u) != 0))
        failed = 1;
    if (OTF2_Archive_Close(a) != OTF2_SUCCESS)
        failed = 1;
    instr_trace_archive = NULL;
    job.open = 0;
    if (failed)
        instr_warn("trace: rank %d: the OTF2 library reported errors while closing %s/traces.otf2 "
                   "(messages above); the archive may be incomplete", rank, job.dir);
    return failed ? -1 : 0;
}

const char *instr_trace_job_dir(void) { return job.dir; }
