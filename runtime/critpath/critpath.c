/* critpath.c — the critical-path substrate: the clocks of one thread per process, and the
 * regions that make up its useful computation (critpath.h, docs/critical-path.md).
 *
 * Time is charged lazily: every event (enter, exit, the begin and end of an MPI call) charges
 * the ticks since the previous one to the innermost open region, or to "outside" when none
 * is open, unless the thread is inside MPI. The ticks of the current segment (since the last
 * exchange) are kept per region handle in a flat array with a list of the handles touched,
 * so that appending the segment to the path costs what the segment touched. The arrays are
 * reserved once for every possible handle (calloc: pages are mapped only when touched), so
 * the event callbacks never allocate.
 *
 * Every thread with a location has its own state and path (the arrays are reserved per
 * thread); the region keys are shared. OpenMP synchronisation moves paths between the
 * threads of a team (openmp.c); MPI calls exchange the calling thread's path. */
#include "critpath.h"
#include "../core/clock.h"
#include "../core/config.h"
#include "../core/core.h"
#include "../core/experiment.h"
#include "../core/log.h"
#include "../core/registry.h"

#include "critpath_thread.h"
#include "../util/array.h"
#include "../util/hash.h"
#include "../util/pages.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static int enabled;   /* INSTR_CRITICAL_PATH */
static int use_cpu;   /* INSTR_CRITICAL_PATH_CLOCK=cpu: the thread's CPU time, in ns */
static int regions_k = 32;
static int my_rank;
static int finished; /* the path's end was taken (MPI_Finalize) */
static int event_extra; /* use_cpu or a dependent metric: enter and exit do more (charge_extra) */
static int mpi_seen; /* an MPI call went through libinstr-rt-mpi: an MPI job writes at its end */
static struct cp_state *first; /* the first thread's (the program's main thread) */

static uint64_t *keys; /* per handle: its key, 0 until computed (shared by the threads) */
static int ready;      /* init succeeded */
static _Thread_local struct cp_state *tls_cp;
static uint64_t mono0, tick0;

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The path's clock now: the event clock's ticks, or the thread's CPU time. */
uint64_t instr_cp_now(void) { return use_cpu ? cpu_ns() : instr_clock_now(); }
#define cp_now instr_cp_now

/* CLOCK_MONOTONIC and the tick counter at one instant: the monotonic read bracketed by two
 * counter reads, the tightest of a few tries, so that the process being preempted between
 * two reads (4 ranks on 2 loaded cores: milliseconds) does not skew the pair. */
static void clock_pair(uint64_t *m, uint64_t *t)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 5; i++) {
        uint64_t a = instr_clock_now(), mm = mono_ns(), b = instr_clock_now();
        if (b - a < best) {
            best = b - a;
            *m = mm;
            *t = a + (b - a) / 2;
        }
    }
}

/* Nanoseconds per tick, measured from the start to now (the core calibrates only at the end;
 * the path needs nanoseconds while it runs, to add up times of other processes). */
static double ns_per_tick(void)
{
    if (use_cpu || !instr_clock_use_tsc)
        return 1.0;
    uint64_t m, t;
    clock_pair(&m, &t);
    if (t <= tick0 || m <= mono0)
        return 1.0;
    return (double)(m - mono0) / (double)(t - tick0);
}

static int wanted(void)
{
    const char *v = instr_env("INSTR_CRITICAL_PATH");
    enabled = 0;
    if (v && instr_parse_bool(v, &enabled) != 0) {
        instr_warn("INSTR_CRITICAL_PATH=%s is not a boolean (1/0, yes/no, on/off): using 0", v);
        enabled = 0;
    }
    const char *k = instr_env("INSTR_CRITICAL_PATH_REGIONS");
    if (enabled && k) {
        char *end;
        long n = strtol(k, &end, 10);
        if (end == k || *end || n < 1 || n > INSTR_CP_MAX_REGIONS)
            instr_warn("INSTR_CRITICAL_PATH_REGIONS=%s is not an integer from 1 to %d: using 32",
                       k, INSTR_CP_MAX_REGIONS);
        else
            regions_k = (int)n;
    }
    const char *c = instr_env("INSTR_CRITICAL_PATH_CLOCK");
    use_cpu = 0;
    if (enabled && c) {
        if (strcasecmp(c, "cpu") == 0)
            use_cpu = 1;
        else if (strcasecmp(c, "wall") != 0)
            instr_warn("INSTR_CRITICAL_PATH_CLOCK=%s is neither wall nor cpu: using wall", c);
    }
    return enabled;
}

static int init(void)
{
    keys = instr_mem_calloc(MAX_HANDLES, sizeof *keys);
    if (!keys) {
        instr_warn("INSTR_CRITICAL_PATH=1: out of memory for the critical path; it is not "
                   "measured");
        return -1;
    }
    clock_pair(&mono0, &tick0);
    instr_cp_metrics_init();
    event_extra = use_cpu || instr_cp_nmetrics;
    ready = 1;
    return 0;
}

/* The ticks dt of a thread that waits, is paused or is in no region (charge_at). */
static __attribute__((noinline)) void charge_other(struct cp_state *s, uint64_t dt)
{
    if (s->x.hold.by[CP_PAUSED])
        return;
    if (s->x.hold.by[CP_IN_MPI])
        s->seg_mpi += dt;
    else if (s->x.hold.by[CP_IN_OMP])
        s->seg_omp_wait += dt;
    else {
        s->x.useful += dt;
        s->x.outside += dt;
    }
}

/* Charges the ticks since the last event; the common case, computation inside a region, adds
 * to the segment's useful time and the region's (instr_xcharge_top). */
static inline void charge_at(struct cp_state *s, uint64_t t)
{
    uint32_t d = s->x.depth;
    if (__builtin_expect((s->x.hold.by[CP_PAUSED] | s->x.hold.by[CP_IN_MPI] |
                          s->x.hold.by[CP_IN_OMP]) != 0, 0) || !d) {
        uint64_t dt = t > s->x.t_last ? t - s->x.t_last : 0;
        s->x.t_last = t;
        charge_other(s, dt);
        return;
    }
    instr_xcharge_top(&s->x, d > MAX_DEPTH ? MAX_DEPTH : d, t);
}

void instr_cp_charge(struct cp_state *s, uint64_t t) { charge_at(s, t); }

#define charge charge_at
#define close_segment instr_cp_close_segment

/* Every thread gets its own state (its arrays are only address space until touched). */
static void *location_begin(instr_location *loc)
{
    (void)loc;
    if (!ready || tls_cp)
        return tls_cp;
    struct cp_state *s = instr_mem_calloc(1, sizeof *s);
    if (s) {
        s->x.seg = instr_mem_calloc(MAX_HANDLES + 1, sizeof *s->x.seg);
        s->x.touched = instr_mem_calloc(MAX_HANDLES + 1, sizeof *s->x.touched);
    }
    if (!s || !s->x.seg || !s->x.touched) {
        instr_warn("INSTR_CRITICAL_PATH=1: out of memory for a thread's critical path; its "
                   "time is on no path");
        if (s) {
            instr_mem_free(s->x.seg);
            instr_mem_free(s->x.touched);
        }
        instr_mem_free(s);
        return NULL;
    }
    /* The path starts with the thread's first event: the runtime's own start-up before it is
     * not the program's computation. */
    s->x.t_last = cp_now();
    s->x.hold.by[CP_EXTRA] = (uint16_t)event_extra;
    tls_cp = s;
    struct cp_state *none = NULL;
    __atomic_compare_exchange_n(&first, &none, s, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
    return s;
}

struct cp_state *instr_cp_self(void) { return tls_cp; }

/* An enter's or exit's charge with the CPU-time clock or dependent metrics: out of line, so
 * that the common enter and exit call nothing. */
static __attribute__((noinline)) void charge_extra(struct cp_state *s, uint64_t t)
{
    charge(s, use_cpu ? cpu_ns() : t);
    if (instr_cp_nmetrics)
        instr_cp_metrics_event(s);
}

/* An enter (of region) or an exit (enter 0) whose charge is not computation in an open region,
 * or takes the CPU-time clock or dependent metrics: out of line and called last, so that the
 * common enter and exit below call nothing and save no registers. */
static __attribute__((noinline)) void event_rare(struct cp_state *s, int enter,
                                                 uint32_t region, uint64_t t)
{
    if (s->x.hold.by[CP_EXTRA])
        charge_extra(s, t);
    else
        charge(s, t);
    if (!enter) {
        if (s->x.depth)
            s->x.depth--;
        return;
    }
    if (s->x.depth < MAX_DEPTH)
        s->x.stack[s->x.depth] = instr_xcharge_handle(region);
    s->x.depth++;
}

/* The substrate's enter and exit: the generic path's, and the cursor path with events' when
 * it does not charge the event itself (cct_events.c); their common case is the cursor's. */
static void cp_enter(void *data, uint32_t region, uint64_t t)
{
    struct cp_state *s = data;
    if (!s)
        return;
    uint32_t d = s->x.depth;
    if (__builtin_expect(!instr_xcharge_inline(&s->x, d), 0)) {
        event_rare(s, 1, region, t);
        return;
    }
    instr_xcharge_enter(&s->x, d, region, t);
}

static void cp_exit(void *data, uint32_t region, uint64_t t)
{
    struct cp_state *s = data;
    if (!s)
        return;
    uint32_t d = s->x.depth;
    if (__builtin_expect(!instr_xcharge_inline(&s->x, d), 0)) {
        event_rare(s, 0, region, t);
        return;
    }
    instr_xcharge_exit(&s->x, d, t);
}

/* FNV-1a over the name, a NUL and the file: one region is one key on every process. */
static uint64_t key_of(uint32_t h)
{
    const instr_region_info *r = instr_registry_get(h);
    uint64_t k = INSTR_FNV1A_BASIS;
    const char *parts[2] = {r && r->name ? r->name : "?", r && r->file ? r->file : ""};
    for (int p = 0; p < 2; p++)
        k = instr_fnv1a(instr_fnv1a_str(k, parts[p]), "", 1); /* the part and its NUL */
    return k ? k : 1;
}

/* Adds ns of region key on rank to the path, keeping at most K entries (one per region and
 * rank): one that does not fit displaces the smallest entry when it is larger (which then
 * counts as other). */
static void path_add(instr_cp_record *p, uint64_t key, uint64_t ns, int rank)
{
    for (uint32_t i = 0; i < p->n; i++)
        if (p->e[i].key == key && p->e[i].rank == rank) {
            p->e[i].ns += ns;
            return;
        }
    instr_cp_entry e = {.key = key, .ns = ns, .rank = rank};
    if (p->n < (uint32_t)regions_k) {
        p->e[p->n++] = e;
        return;
    }
    uint32_t min = 0;
    for (uint32_t i = 1; i < p->n; i++)
        if (p->e[i].ns < p->e[min].ns)
            min = i;
    if (p->e[min].ns < ns) {
        p->other_ns += p->e[min].ns;
        p->e[min] = e;
    } else {
        p->other_ns += ns;
    }
}

/* Appends the current segment to the path (at time t). */
void instr_cp_close_segment(struct cp_state *s, uint64_t t)
{
    charge(s, t);
    double f = ns_per_tick();
    for (uint32_t i = 0; i < s->x.ntouched; i++) {
        uint32_t h = s->x.touched[i];
        if (h == INSTR_XCHARGE_NONE) { /* a region without a handle: outside every region */
            s->x.outside += s->x.seg[h];
            s->x.seg[h] = 0;
            continue;
        }
        uint64_t k = __atomic_load_n(&keys[h], __ATOMIC_RELAXED);
        if (!k)
            __atomic_store_n(&keys[h], k = key_of(h), __ATOMIC_RELAXED);
        path_add(&s->path, k, (uint64_t)((double)s->x.seg[h] * f), my_rank);
        s->x.seg[h] = 0;
    }
    s->x.ntouched = 0;
    uint64_t omp = s->x.useful + s->seg_omp_wait, total = omp + s->seg_mpi;
    s->path.outside_ns += (uint64_t)((double)s->x.outside * f);
    s->path.useful_ns += (uint64_t)((double)s->x.useful * f);
    s->path.total_ns += (uint64_t)((double)total * f);
    s->path.omp_ns += (uint64_t)((double)omp * f);
    for (uint32_t m = 0; m < instr_cp_nmetrics; m++) {
        s->path.metric[m] = instr_cp_metric_add(m, s->path.metric[m], s->mseg[m]);
        s->mseg[m] = 0;
    }
    s->useful += s->x.useful;
    s->total += total;
    s->x.outside = s->x.useful = s->seg_omp_wait = s->seg_mpi = 0;
}

INSTR_EXT_EXPORT int instr_ext_cp_on(void)
{
    return enabled && ready && instr_substrate_slot(&instr_critpath_substrate) >= 0;
}

INSTR_EXT_EXPORT void instr_ext_cp_set_rank(int rank) { my_rank = rank; }

INSTR_EXT_EXPORT int instr_ext_cp_mpi_begin(void)
{
    if (!ready)
        return 0;
    mpi_seen = 1;
    if (!tls_cp)
        instr_core_location_self(); /* a thread whose first event is an MPI call */
    struct cp_state *cp = tls_cp;
    if (!cp)
        return 0;
    if (cp->x.hold.by[CP_IN_MPI] == 0) {
        uint64_t t = cp_now();
        charge(cp, t); /* the computation up to here was useful */
        cp->mpi -= t;  /* + the end's time: ticks inside */
    }
    cp->x.hold.by[CP_IN_MPI]++;
    return 1;
}

INSTR_EXT_EXPORT void instr_ext_cp_mpi_end(void)
{
    struct cp_state *cp = tls_cp;
    if (!cp || !cp->x.hold.by[CP_IN_MPI])
        return;
    uint64_t t = cp_now();
    if (cp->x.hold.by[CP_IN_MPI] == 1) {
        charge(cp, t);
        cp->mpi += t;
        cp->mwait_ended = 1;
    }
    cp->x.hold.by[CP_IN_MPI]--;
}

INSTR_EXT_EXPORT void instr_ext_cp_pause(int on)
{
    struct cp_state *cp = tls_cp;
    if (!cp || cp->x.hold.by[CP_PAUSED] == !!on)
        return;
    uint64_t t = cp_now();
    charge(cp, t);
    if (cp->x.hold.by[CP_IN_MPI]) /* the MPI interval ends (on) or begins again (off) here */
        cp->mpi += on ? t : (uint64_t)0 - t;
    cp->x.hold.by[CP_PAUSED] = !!on;
}

INSTR_EXT_EXPORT size_t instr_ext_cp_snapshot(instr_cp_record *out)
{
    struct cp_state *cp = tls_cp;
    if (!cp) {
        memset(out, 0, offsetof(instr_cp_record, e));
        return INSTR_CP_RECORD_BYTES(0);
    }
    close_segment(cp, cp_now());
    memcpy(out, &cp->path, INSTR_CP_RECORD_BYTES(cp->path.n));
    return INSTR_CP_RECORD_BYTES(cp->path.n);
}

INSTR_EXT_EXPORT void instr_ext_cp_max(instr_cp_record *into, const instr_cp_record *other)
{
    uint64_t total = into->total_ns > other->total_ns ? into->total_ns : other->total_ns;
    uint64_t omp = into->omp_ns > other->omp_ns ? into->omp_ns : other->omp_ns;
    if (other->useful_ns > into->useful_ns)
        memcpy(into, other, INSTR_CP_RECORD_BYTES(other->n > INSTR_CP_MAX_REGIONS
                                                       ? INSTR_CP_MAX_REGIONS
                                                       : other->n));
    into->total_ns = total;
    into->omp_ns = omp;
}

INSTR_EXT_EXPORT void instr_ext_cp_merge(const instr_cp_record *in, size_t len)
{
    struct cp_state *cp = tls_cp;
    if (!cp || len < INSTR_CP_RECORD_BYTES(0) || in->n > INSTR_CP_MAX_REGIONS ||
        len < INSTR_CP_RECORD_BYTES(in->n))
        return;
    close_segment(cp, cp_now());
    instr_ext_cp_max(&cp->path, in);
    cp->syncs++;
}

INSTR_EXT_EXPORT void instr_ext_cp_process(instr_cp_process *out)
{
    memset(out, 0, sizeof *out);
    finished = 1;
    struct cp_state *cp = tls_cp;
    if (!cp)
        return;
    close_segment(cp, cp_now());
    double f = ns_per_tick();
    uint64_t mpi = cp->mpi;
    if (cp->x.hold.by[CP_IN_MPI]) /* inside MPI_Finalize: count it up to now */
        mpi += cp_now();
    out->useful_ns = (uint64_t)((double)cp->useful * f);
    out->total_ns = (uint64_t)((double)cp->total * f);
    out->mpi_ns = (uint64_t)((double)mpi * f);
    out->syncs = cp->syncs;
}

INSTR_EXT_EXPORT char *instr_ext_cp_names(const instr_cp_record *path, size_t *len)
{
    *len = 0;
    if (!ready)
        return NULL;
    size_t cap = 0, n = 0;
    char *buf = NULL;
    uint32_t count = instr_registry_count();
    for (uint32_t i = 0; i < path->n && i < INSTR_CP_MAX_REGIONS; i++) {
        if (path->e[i].rank != my_rank)
            continue;
        for (uint32_t h = 1; h <= count && h < MAX_HANDLES; h++) {
            uint64_t k = __atomic_load_n(&keys[h], __ATOMIC_RELAXED);
            if ((k ? k : key_of(h)) != path->e[i].key)
                continue;
            const instr_region_info *r = instr_registry_get(h);
            const char *name = r && r->name ? r->name : "?", *file = r && r->file ? r->file : "";
            size_t need = 17 + strlen(name) + 1 + strlen(file) + 2;
            if (instr_array_grow(&buf, &cap, n + need + 1, 1, 2 * (need + 1)) != 0)
                break;
            n += (size_t)snprintf(buf + n, cap - n, "%016llx %s\t%s\n",
                                  (unsigned long long)path->e[i].key, name, file);
            break;
        }
    }
    *len = n;
    return buf;
}

INSTR_EXT_EXPORT int instr_ext_cp_write(const char *jobdir, int nranks,
                                        const instr_cp_process *procs,
                                        const instr_cp_record *path, const char *names,
                                        size_t names_len)
{
    (void)jobdir;
    return instr_cp_write_json(1, nranks, procs, path, names, names_len, regions_k);
}

/* At the end of a program that is no MPI job: its path is the one of the thread that ends it
 * (the main thread, which took its teams' longest paths at their joins), written into the
 * process's experiment directory. */
static int write_process(char *files, size_t size)
{
    struct cp_state *s = tls_cp ? tls_cp : __atomic_load_n(&first, __ATOMIC_ACQUIRE);
    if (!s)
        return 0;
    /* The path ends at the thread's last event: the runtime's own end (writing the profile
     * before this) is not the program's. */
    close_segment(s, s->x.t_last);
    double f = ns_per_tick();
    instr_cp_process me = {.useful_ns = (uint64_t)((double)s->useful * f),
                           .total_ns = (uint64_t)((double)s->total * f),
                           .syncs = s->syncs};
    size_t len = 0;
    char *names = instr_ext_cp_names(&s->path, &len);
    int rc = instr_cp_write_json(0, 1, &me, &s->path, names ? names : "", len, regions_k);
    instr_mem_free(names);
    if (rc == 0)
        instr_files_add(files, size, "critical-path.json");
    return rc;
}

/* At the end of the process: an MPI job wrote its path at MPI_Finalize; one that did not
 * reach it says so rather than leaving the user to wonder. */
static int write(const instr_run *run, char *files, size_t size)
{
    (void)run;
    if (!mpi_seen)
        return write_process(files, size);
    if (!finished)
        instr_warn("INSTR_CRITICAL_PATH=1: no critical path from this process: it did not "
                   "reach MPI_Finalize through libinstr-rt-mpi with the path measured on every "
                   "rank (docs/critical-path.md)");
    return 0;
}

const instr_substrate instr_critpath_substrate = {
    .name = "critical-path",
    .wanted = wanted,
    .init = init,
    /* Its enter and exit ride on the profile's cursor (the cursor path with events). */
    .fast_paths = INSTR_SUBSTRATE_CURSOR_EVENTS,
    .location_begin = location_begin,
    .enter = cp_enter,
    .exit = cp_exit,
    .write = write,
};
