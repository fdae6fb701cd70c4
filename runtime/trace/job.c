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
 *                definitions (locations, regions, communicators, clock range) as a blob;
 *                rank 0 feeds the ranks' blobs one at a time to a unifier
 *                (instr_trace_unify_add), which keeps only the union of the definitions,
 *                and returns each rank its mapping (local ref -> global ref) at once.
 *                instr_trace_job_close writes every location's local definitions (OTF2
 *                mapping tables for regions and communicators, the clock offsets measured
 *                against rank 0 at init and at the end) and, on rank 0, the global
 *                definitions; then the archive is closed collectively.
 * A rank that ends without MPI_Finalize or calls MPI_Abort only gets as far as its event
 * files (write.c): the collective steps would wait for the others forever. */
#include "trace.h"
#include "../core/clock.h"
#include "../core/config.h"
#include "../core/experiment.h"
#include "../core/core.h"
#include "../core/log.h"
#include "../core/registry.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>


#define BLOB_MAGIC 0x696e7472u /* "intr" */
#define INSTR_TRACE_DEF_CHUNK (1024 * 1024)
#define MAX_OFFSETS 4

/* ---- this rank ---------------------------------------------------------------------- */

typedef struct comm_def {
    uint32_t leader, seq; /* the job-wide identity: leader's world rank, its counter */
    char *name;
    uint32_t nmembers;    /* the leader only: world ranks of the members */
    uint32_t *members;
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

static pthread_mutex_t comm_lock = PTHREAD_MUTEX_INITIALIZER;
static comm_def *comms;
static uint32_t ncomms, capcomms;

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
                              uint32_t nmembers, const uint32_t *members)
{
    uint32_t ref = UINT32_MAX;
    pthread_mutex_lock(&comm_lock);
    if (ncomms == capcomms) {
        uint32_t cap = capcomms ? 2 * capcomms : 16;
        comm_def *c = realloc(comms, cap * sizeof *c);
        if (!c)
            goto out;
        comms = c;
        capcomms = cap;
    }
    comm_def *c = &comms[ncomms];
    memset(c, 0, sizeof *c);
    c->leader = leader;
    c->seq = seq;
    c->name = strdup(name ? name : "");
    if (members && nmembers) {
        c->members = malloc(nmembers * sizeof *c->members);
        if (!c->members || !c->name) {
            free(c->members);
            free(c->name);
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

typedef struct wbuf {
    char *p;
    size_t n, cap;
    int failed;
} wbuf;

static void put(wbuf *b, const void *data, size_t len)
{
    if (b->failed)
        return;
    if (b->n + len > b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 4096;
        while (cap < b->n + len)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->failed = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, data, len);
    b->n += len;
}

static void put32(wbuf *b, uint32_t v) { put(b, &v, sizeof v); }
static void put64(wbuf *b, uint64_t v) { put(b, &v, sizeof v); }
static void putstr(wbuf *b, const char *s)
{
    s = s ? s : "";
    uint32_t len = (uint32_t)strlen(s);
    put32(b, len);
    put(b, s, len);
}

typedef struct rbuf {
    const char *p;
    size_t n, at;
    int bad;
} rbuf;

static int get(rbuf *b, void *out, size_t len)
{
    if (b->bad || b->n - b->at < len) {
        b->bad = 1;
        memset(out, 0, len);
        return -1;
    }
    memcpy(out, b->p + b->at, len);
    b->at += len;
    return 0;
}

static uint32_t get32(rbuf *b)
{
    uint32_t v;
    get(b, &v, sizeof v);
    return v;
}

static uint64_t get64(rbuf *b)
{
    uint64_t v;
    get(b, &v, sizeof v);
    return v;
}

/* A copy of the next string (NULL when malformed or out of memory). */
static char *getstr(rbuf *b)
{
    uint32_t len = get32(b);
    if (b->bad || b->n - b->at < len) {
        b->bad = 1;
        return NULL;
    }
    char *s = malloc((size_t)len + 1);
    if (!s) {
        b->bad = 1;
        return NULL;
    }
    memcpy(s, b->p + b->at, len);
    s[len] = '\0';
    b->at += len;
    return s;
}

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
    put32(&b, BLOB_MAGIC);
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
    if (b.failed) {
        free(b.p);
        return -1;
    }
    *out = b.p;
    *len = b.n;
    return 0;
}

/* ---- the unifier (rank 0) ---------------------------------------------------------- */

typedef struct gregion {
    char *name, *canonical, *file;
    uint32_t lb, le, source;
} gregion;

typedef struct gcomm {
    uint32_t leader, seq;
    char *name;
    uint32_t nmembers;
    uint32_t *members; /* NULL until the leader's blob came */
} gcomm;

typedef struct grank {
    int present;
    uint64_t pid;
    uint32_t host;     /* index into hosts */
    uint32_t mpi_location;
    uint32_t nloc;
    uint32_t *loc_id;
    uint64_t *loc_tid, *loc_events;
    uint32_t async_id;     /* its location of asynchronous metric values, */
    uint64_t async_events; /* with this many events (0: none) */
} grank;

struct instr_unifier {
    int nranks;
    grank *ranks;
    gregion *regions;
    uint32_t nregions, capregions;
    uint32_t *rtab; /* open addressing: region index + 1, 0 = empty */
    uint32_t rtab_cap;
    gcomm *comms;
    uint32_t ncomms, capcomms;
    char **hosts;
    uint32_t nhosts;
    uint64_t t_first, t_last, margin;
    uint64_t events;
    int have_time;
};
typedef struct instr_unifier instr_unifier;

static uint64_t hash_str(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return (h ^ 0xff) * 1099511628211ull;
}

static uint64_t region_hash(const gregion *r)
{
    uint64_t h = 1469598103934665603ull;
    h = hash_str(h, r->name);
    h = hash_str(h, r->canonical);
    h = hash_str(h, r->file);
    return (h ^ r->lb ^ ((uint64_t)r->source << 40)) * 1099511628211ull;
}

static int region_same(const gregion *a, const gregion *b)
{
    return a->lb == b->lb && a->source == b->source && strcmp(a->name, b->name) == 0 &&
           strcmp(a->canonical, b->canonical) == 0 && strcmp(a->file, b->file) == 0;
}

static int rtab_grow(instr_unifier *u)
{
    uint32_t cap = u->rtab_cap ? 2 * u->rtab_cap : 1024;
    uint32_t *t = calloc(cap, sizeof *t);
    if (!t)
        return -1;
    for (uint32_t i = 0; i < u->nregions; i++) {
        uint32_t j = (uint32_t)region_hash(&u->regions[i]) & (cap - 1);
        while (t[j])
            j = (j + 1) & (cap - 1);
        t[j] = i + 1;
    }
    free(u->rtab);
    u->rtab = t;
    u->rtab_cap = cap;
    return 0;
}

/* The global ref of region r (whose strings the unifier takes over, or frees when known). */
static uint32_t region_global(instr_unifier *u, gregion *r)
{
    if (2 * (u->nregions + 1) > u->rtab_cap && rtab_grow(u) != 0)
        return UINT32_MAX;
    uint32_t j = (uint32_t)region_hash(r) & (u->rtab_cap - 1);
    while (u->rtab[j]) {
        gregion *g = &u->regions[u->rtab[j] - 1];
        if (region_same(g, r)) {
            free(r->name);
            free(r->canonical);
            free(r->file);
            return u->rtab[j] - 1;
        }
        j = (j + 1) & (u->rtab_cap - 1);
    }
    if (u->nregions == u->capregions) {
        uint32_t cap = u->capregions ? 2 * u->capregions : 256;
        gregion *g = realloc(u->regions, cap * sizeof *g);
        if (!g)
            return UINT32_MAX;
        u->regions = g;
        u->capregions = cap;
    }
    u->regions[u->nregions] = *r;
    u->rtab[j] = u->nregions + 1;
    return u->nregions++;
}

static uint32_t comm_global(instr_unifier *u, uint32_t leader, uint32_t seq, char *name,
                            uint32_t nmembers, uint32_t *members)
{
    /* Communicators are few: a linear search is enough. */
    for (uint32_t i = 0; i < u->ncomms; i++) {
        gcomm *c = &u->comms[i];
        if (c->leader == leader && c->seq == seq) {
            if (members && !c->members) {
                c->members = members;
                c->nmembers = nmembers;
                free(c->name);
                c->name = name;
            } else {
                free(members);
                free(name);
            }
            return i;
        }
    }
    if (u->ncomms == u->capcomms) {
        uint32_t cap = u->capcomms ? 2 * u->capcomms : 16;
        gcomm *c = realloc(u->comms, cap * sizeof *c);
        if (!c) {
            free(members);
            free(name);
            return UINT32_MAX;
        }
        u->comms = c;
        u->capcomms = cap;
    }
    u->comms[u->ncomms] = (gcomm){leader, seq, name, members ? nmembers : 0, members};
    return u->ncomms++;
}

static uint32_t host_index(instr_unifier *u, char *host)
{
    for (uint32_t i = 0; i < u->nhosts; i++)
        if (strcmp(u->hosts[i], host) == 0) {
            free(host);
            return i;
        }
    char **h = realloc(u->hosts, (u->nhosts + 1) * sizeof *h);
    if (!h) {
        free(host);
        return 0;
    }
    u->hosts = h;
    u->hosts[u->nhosts] = host;
    return u->nhosts++;
}

instr_unifier *instr_trace_unify_new(int nranks)
{
    instr_unifier *u = calloc(1, sizeof *u);
    if (!u || !(u->ranks = calloc((size_t)nranks, sizeof *u->ranks))) {
        free(u);
        return NULL;
    }
    u->nranks = nranks;
    /* MPI_COMM_WORLD and MPI_COMM_SELF are global comms 0 and 1 on every rank. */
    comm_global(u, UINT32_MAX, 0, strdup("MPI_COMM_WORLD"), 0, NULL);
    comm_global(u, UINT32_MAX, 1, strdup("MPI_COMM_SELF"), 0, NULL);
    return u;
}

int instr_trace_unify_add(instr_unifier *u, int rank, const char *blob, size_t len, char **map,
                          size_t *maplen)
{
    rbuf b = {blob, len, 0, 0};
    wbuf m = {0};
    if (!u || rank < 0 || rank >= u->nranks || get32(&b) != BLOB_MAGIC ||
        get32(&b) != (uint32_t)rank)
        return -1;
    grank *g = &u->ranks[rank];
    g->pid = get64(&b);
    char *host = getstr(&b);
    uint64_t t0 = get64(&b), t1 = get64(&b), margin = get64(&b);
    g->mpi_location = get32(&b);
    if (b.bad || !host) {
        free(host);
        return -1;
    }
    g->host = host_index(u, host);
    if (!u->have_time || t0 < u->t_first)
        u->t_first = t0;
    if (!u->have_time || t1 > u->t_last)
        u->t_last = t1;
    if (margin > u->margin)
        u->margin = margin;
    u->have_time = 1;

    uint32_t nloc = get32(&b);
    if (b.bad || nloc > (b.n - b.at) / 20)
        return -1;
    g->loc_id = calloc(nloc ? nloc : 1, sizeof *g->loc_id);
    g->loc_tid = calloc(nloc ? nloc : 1, sizeof *g->loc_tid);
    g->loc_events = calloc(nloc ? nloc : 1, sizeof *g->loc_events);
    if (!g->loc_id || !g->loc_tid || !g->loc_events)
        return -1;
    for (uint32_t i = 0; i < nloc; i++) {
        g->loc_id[i] = get32(&b);
        g->loc_tid[i] = get64(&b);
        g->loc_events[i] = get64(&b);
        u->events += g->loc_events[i];
    }
    g->nloc = nloc;
    g->async_id = get32(&b);
    g->async_events = get64(&b);
    u->events += g->async_events;

    uint32_t nreg = get32(&b);
    put32(&m, nreg);
    for (uint32_t i = 0; i < nreg && !b.bad; i++) {
        gregion r = {.name = getstr(&b), .canonical = getstr(&b), .file = getstr(&b)};
        r.lb = get32(&b);
        r.le = get32(&b);
        r.source = get32(&b);
        uint32_t ref = UINT32_MAX;
        if (!b.bad)
            ref = region_global(u, &r);
        if (ref == UINT32_MAX) {
            free(r.name);
            free(r.canonical);
            free(r.file);
            b.bad = 1;
        }
        put32(&m, ref);
    }
    uint32_t ncomm = get32(&b);
    put32(&m, ncomm);
    for (uint32_t i = 0; i < ncomm && !b.bad; i++) {
        uint32_t leader = get32(&b), seq = get32(&b);
        char *name = getstr(&b);
        uint32_t n = get32(&b);
        uint32_t *members = NULL;
        if (!b.bad && n) {
            if (n > (b.n - b.at) / 4 || !(members = malloc(n * sizeof *members))) {
                b.bad = 1;
            } else {
                for (uint32_t k = 0; k < n; k++)
                    members[k] = get32(&b);
            }
        }
        uint32_t ref = UINT32_MAX;
        if (!b.bad && name)
            ref = comm_global(u, leader, seq, name, n, members);
        else {
            free(name);
            free(members);
            b.bad = 1;
        }
        put32(&m, ref);
    }
    if (b.bad || m.failed) {
        free(m.p);
        return -1;
    }
    g->present = 1;
    *map = m.p;
    *maplen = m.n;
    return 0;
}

void instr_trace_unify_free(instr_unifier *u)
{
    if (!u)
        return;
    for (int r = 0; r < u->nranks; r++) {
        free(u->ranks[r].loc_id);
        free(u->ranks[r].loc_tid);
        free(u->ranks[r].loc_events);
    }
    for (uint32_t i = 0; i < u->nregions; i++) {
        free(u->regions[i].name);
        free(u->regions[i].canonical);
        free(u->regions[i].file);
    }
    for (uint32_t i = 0; i < u->ncomms; i++) {
        free(u->comms[i].name);
        free(u->comms[i].members);
    }
    for (uint32_t i = 0; i < u->nhosts; i++)
        free(u->hosts[i]);
    free(u->hosts);
    free(u->comms);
    free(u->regions);
    free(u->rtab);
    free(u->ranks);
    free(u);
}

/* Rank 0: the global definitions of the whole job from the union. */
static int write_global(OTF2_Archive *a, instr_unifier *u)
{
    OTF2_GlobalDefWriter *w = OTF2_Archive_GetGlobalDefWriter(a);
    if (!w)
        return -1;
    OTF2_ErrorCode rc = OTF2_SUCCESS;
#define CHECK(call) do { if (rc == OTF2_SUCCESS) rc = (call); } while (0)
    uint64_t hz = (uint64_t)(instr_clock_hz() + 0.5);
    uint64_t first = u->t_first > u->margin ? u->t_first - u->margin : 0;
    uint64_t len = u->t_last + u->margin - first;
    CHECK(OTF2_GlobalDefWriter_WriteClockProperties(w, hz ? hz : 1, first, len,
                                                    instr_trace_realtime_of(first)));
    instr_strtab st = {.w = w};
    /* Names built here live in one buffer until the table is done with them. */
    size_t nnames = 0;
    for (int r = 0; r < u->nranks; r++)
        nnames += 1 + u->ranks[r].nloc;
    nnames += u->ncomms;
    char *names = calloc(nnames ? nnames : 1, 48);
    if (!names)
        return -1;
    size_t ni = 0;
#define NAME(...) (snprintf(names + 48 * ni, 48, __VA_ARGS__), names + 48 * ni++)

    struct utsname un;
    if (uname(&un) != 0)
        strcpy(un.sysname, "unknown");
    CHECK(OTF2_GlobalDefWriter_WriteSystemTreeNode(w, 0, instr_strtab_ref(&st, un.sysname),
                                                   instr_strtab_ref(&st, "machine"),
                                                   OTF2_UNDEFINED_SYSTEM_TREE_NODE));
    for (uint32_t h = 0; h < u->nhosts; h++)
        CHECK(OTF2_GlobalDefWriter_WriteSystemTreeNode(w, 1 + h,
                                                       instr_strtab_ref(&st, u->hosts[h]),
                                                       instr_strtab_ref(&st, "node"), 0));
    for (int r = 0; r < u->nranks; r++)
        CHECK(OTF2_GlobalDefWriter_WriteLocationGroup(
            w, (uint32_t)r, instr_strtab_ref(&st, NAME("MPI Rank %d", r)),
            OTF2_LOCATION_GROUP_TYPE_PROCESS, 1 + u->ranks[r].host,
            OTF2_UNDEFINED_LOCATION_GROUP));
    OTF2_StringRef tid_name = instr_strtab_ref(&st, "instr::tid");
    for (int r = 0; r < u->nranks; r++) {
        grank *g = &u->ranks[r];
        for (uint32_t i = 0; i < g->nloc; i++) {
            uint64_t ref = ((uint64_t)r << 32) | g->loc_id[i];
            CHECK(OTF2_GlobalDefWriter_WriteLocation(
                w, ref, instr_strtab_ref(&st, NAME("thread %u", g->loc_id[i])),
                OTF2_LOCATION_TYPE_CPU_THREAD, g->loc_events[i], (uint32_t)r));
            OTF2_AttributeValue v = {.uint64 = g->loc_tid[i]};
            CHECK(OTF2_GlobalDefWriter_WriteLocationProperty(w, ref, tid_name, OTF2_TYPE_UINT64,
                                                             v));
        }
        if (g->async_events)
            CHECK(OTF2_GlobalDefWriter_WriteLocation(
                w, ((uint64_t)r << 32) | g->async_id,
                instr_strtab_ref(&st, "asynchronous metrics"), OTF2_LOCATION_TYPE_METRIC,
                g->async_events, (uint32_t)r));
    }
    OTF2_StringRef empty = instr_strtab_ref(&st, "");
    for (uint32_t i = 0; i < u->nregions; i++) {
        gregion *r = &u->regions[i];
        OTF2_RegionRole role;
        OTF2_Paradigm paradigm;
        instr_trace_region_kind((int)r->source, r->name, &role, &paradigm);
        CHECK(OTF2_GlobalDefWriter_WriteRegion(
            w, i, instr_strtab_ref(&st, r->name), instr_strtab_ref(&st, r->canonical),
            instr_strtab_ref(&st, instr_region_source_name((int)r->source)), role, paradigm,
            OTF2_REGION_FLAG_NONE, *r->file ? instr_strtab_ref(&st, r->file) : empty, r->lb,
            r->le));
    }
    /* Metrics: the ranks agreed on one set at MPI_Init (metric_events.c), so rank 0's
     * definitions are everyone's, with the same refs. */
    CHECK(instr_trace_metric_defs(w, &st));
    /* Groups: 0 the MPI locations by world rank, 1 MPI_COMM_SELF's, then one per other
     * communicator: its members (world ranks). */
    uint64_t *members = calloc((size_t)u->nranks, sizeof *members);
    if (!members) {
        free(names);
        instr_strtab_free(&st);
        return -1;
    }
    for (int r = 0; r < u->nranks; r++)
        members[r] = ((uint64_t)r << 32) | u->ranks[r].mpi_location;
    CHECK(OTF2_GlobalDefWriter_WriteGroup(w, 0, instr_strtab_ref(&st, "MPI ranks"),
                                          OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                          OTF2_GROUP_FLAG_NONE, (uint32_t)u->nranks, members));
    CHECK(OTF2_GlobalDefWriter_WriteGroup(w, 1, instr_strtab_ref(&st, "MPI_COMM_SELF"),
                                          OTF2_GROUP_TYPE_COMM_SELF, OTF2_PARADIGM_MPI,
                                          OTF2_GROUP_FLAG_NONE, 0, NULL));
    for (int r = 0; r < u->nranks; r++)
        members[r] = (uint64_t)r;
    OTF2_GroupRef next_group = 2; /* OTF2 wants group refs dense and in order */
    for (uint32_t c = 0; c < u->ncomms; c++) {
        gcomm *g = &u->comms[c];
        OTF2_GroupRef group = 1;
        if (!(g->leader == UINT32_MAX && g->seq == 1)) {
            group = next_group++;
            uint32_t n = (uint32_t)u->nranks;
            uint64_t *m = members;
            uint64_t *own = NULL;
            if (g->leader != UINT32_MAX) {
                n = g->nmembers;
                own = calloc(n ? n : 1, sizeof *own);
                if (!own) {
                    rc = OTF2_ERROR_MEM_ALLOC_FAILED;
                    break;
                }
                for (uint32_t k = 0; k < n; k++)
                    own[k] = g->members[k];
                m = own;
            }
            CHECK(OTF2_GlobalDefWriter_WriteGroup(w, group, instr_strtab_ref(&st, g->name),
                                                  OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                                  OTF2_GROUP_FLAG_NONE, n, m));
            free(own);
        }
        CHECK(OTF2_GlobalDefWriter_WriteComm(w, c, instr_strtab_ref(&st, g->name), group,
                                             OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE));
    }
#undef CHECK
#undef NAME
    free(members);
    int failed = rc != OTF2_SUCCESS || st.failed;
    free(names);
    instr_strtab_free(&st);
    if (failed)
        instr_warn("trace: writing the job's global definitions failed (%s)",
                   rc != OTF2_SUCCESS ? OTF2_Error_GetName(rc) : "out of memory");
    return failed ? -1 : 0;
}

/* This rank's local definitions: per location the mappings and the clock offsets. */
static int write_local(OTF2_Archive *a, const char *map, size_t maplen)
{
    rbuf b = {map, maplen, 0, 0};
    uint32_t nreg = get32(&b);
    uint32_t *regs = calloc(nreg ? nreg : 1, sizeof *regs);
    if (!regs)
        return -1;
    for (uint32_t i = 0; i < nreg; i++)
        regs[i] = get32(&b);
    uint32_t ncomm = get32(&b);
    uint32_t *cms = calloc(ncomm ? ncomm : 1, sizeof *cms);
    if (!cms) {
        free(regs);
        return -1;
    }
    for (uint32_t i = 0; i < ncomm; i++)
        cms[i] = get32(&b);
    int rc = b.bad ? -1 : 0;
    OTF2_IdMap *rmap = nreg ? OTF2_IdMap_CreateFromUint32Array(nreg, regs, false) : NULL;
    OTF2_IdMap *cmap = ncomm ? OTF2_IdMap_CreateFromUint32Array(ncomm, cms, false) : NULL;
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
    free(regs);
    free(cms);
    return rc;
}

int instr_trace_job_close(int rank, const char *map, size_t maplen, instr_unifier *u)
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
    if (rank == 0 && (!u || write_global(a, u) != 0))
        failed = 1;
    if (OTF2_Archive_Close(a) != OTF2_SUCCESS)
        failed = 1;
    instr_trace_archive = NULL;
    job.open = 0;
    if (failed)
        instr_warn("trace: rank %d: the OTF2 library reported errors while closing %s/traces.otf2 "
                   "(messages above); the archive may be incomplete", rank, job.dir);
    if (rank == 0 && u && instr_verbose >= 0)
        instr_warn("trace: %s/traces.otf2: %llu events from %d rank%s, one location group "
                   "per rank, %u regions, %u communicators (definitions unified)",
                   job.dir, (unsigned long long)u->events, u->nranks, u->nranks == 1 ? "" : "s",
                   u->nregions, u->ncomms);
    return failed ? -1 : 0;
}

const char *instr_trace_job_dir(void) { return job.dir; }
