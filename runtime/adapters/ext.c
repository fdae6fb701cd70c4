/* ext.c — the interface of core/ext.h for adapters in other libraries (libinstr-rt-mpi). */
#include "../core/ext.h"
#include "../core/config.h"
#include "../core/core.h"
#include "../core/experiment.h"
#include "../core/log.h"
#include "../core/registry.h"
#include "../core/rtfilter.h"
#include "../metrics/metrics.h"
#include "../profile/job.h"
#include "../profile/jobdb_local.h"
#ifdef INSTR_RT_HAVE_TRACE
#include "../core/clock.h"
#include "../core/event.h"
#include "../trace/trace.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static instr_ext_job_fn job_fn;
static instr_ext_jobdb_fn jobdb_fn;

INSTR_EXT_EXPORT uint32_t instr_ext_region(const char *name, int source)
{
    if (!name || !instr_events_wanted())
        return 0;
    uint32_t h = 0;
    instr_registry_lock();
    if (instr_rtfilter_includes(name, name, "")) {
        instr_region_info info = {.name = name, .mangled = name, .file = "", .object = "",
                                  .source = source};
        h = instr_registry_add_locked(&info);
    }
    instr_registry_unlock();
    return h;
}

INSTR_EXT_EXPORT void instr_ext_enter(uint32_t handle)
{
    if (handle)
        instr_event_enter(handle);
}

INSTR_EXT_EXPORT void instr_ext_exit(uint32_t handle)
{
    if (handle)
        instr_event_exit(handle);
}

INSTR_EXT_EXPORT void instr_ext_messages(uint64_t bytes_sent, uint64_t bytes_received,
                                         uint64_t sends, uint64_t receives,
                                         uint64_t collectives)
{
    instr_job_messages(bytes_sent, bytes_received, sends, receives, collectives);
}

INSTR_EXT_EXPORT int instr_ext_experiment_create(char *out, size_t size)
{
    if (!instr_events_wanted() || instr_experiment_create() != 0)
        return -1;
#ifndef INSTR_RT_HAVE_TRACE
    if (instr_cfg.enable_tracing)
        instr_warn("INSTR_ENABLE_TRACING=1: this runtime was built without OTF2; the job's "
                   "profile is written, no trace");
#endif
    const char *dir = instr_experiment_dir();
    if (!dir || (size_t)snprintf(out, size, "%s", dir) >= size)
        return -1;
    return 0;
}

INSTR_EXT_EXPORT int instr_ext_experiment_join(const char *jobdir, int rank)
{
    if (!instr_events_wanted())
        return -1;
    char sub[32];
    snprintf(sub, sizeof sub, "rank-%d", rank);
    instr_job_rank = rank;
    instr_log_job_rank(rank); /* notices alike on every rank: rank 0's only */
    return instr_experiment_join(jobdir, sub);
}

static void job_hook(const instr_run *run)
{
    size_t len = 0;
    /* With the job database, the tree comes from there: the blob keeps the rest. */
    char *blob = run->dir && job_fn ? instr_job_blob(run, &len, !jobdb_fn) : NULL;
    if (job_fn)
        job_fn(blob, blob ? len : 0);
    free(blob);
    if (!jobdb_fn)
        return;
    instr_jdb_local part;
    unsigned char *buf = NULL;
    uint64_t n = 0;
    if (run->dir && instr_jdb_local_build(run, &part) == 0) {
        if (instr_jdb_local_serialize(&part, &buf, &n) != 0)
            buf = NULL;
        instr_jdb_local_free(&part);
    }
    jobdb_fn(buf, buf ? (size_t)n : 0);
    free(buf);
}

INSTR_EXT_EXPORT void instr_ext_set_job_hook(instr_ext_job_fn fn)
{
    job_fn = fn;
    instr_job_hook = job_fn || jobdb_fn ? job_hook : NULL;
}

INSTR_EXT_EXPORT void instr_ext_set_jobdb_hook(instr_ext_jobdb_fn fn)
{
    jobdb_fn = fn;
    instr_job_hook = job_fn || jobdb_fn ? job_hook : NULL;
}

INSTR_EXT_EXPORT void instr_ext_finalize(void) { instr_finalize(); }

INSTR_EXT_EXPORT int instr_ext_verbose(void) { return instr_cfg.verbose; }

INSTR_EXT_EXPORT uint32_t instr_ext_job_profile_max_ranks(void)
{
    return instr_cfg.job_profile_max_ranks;
}

INSTR_EXT_EXPORT void instr_ext_metrics_elect(int world_rank, int host_rank)
{
    instr_metrics_elect(world_rank, host_rank);
}

#ifdef INSTR_RT_HAVE_TRACE
INSTR_EXT_EXPORT int instr_ext_trace_wanted(void)
{
    return instr_events_wanted() && instr_cfg.enable_tracing &&
           instr_substrate_slot(&instr_trace_substrate) >= 0;
}

struct setup_thunk {
    int (*fn)(void *archive, void *arg);
    void *arg;
};

static int setup_call(OTF2_Archive *archive, void *arg)
{
    struct setup_thunk *t = arg;
    return t->fn(archive, t->arg);
}

INSTR_EXT_EXPORT int instr_ext_trace_job_open(const char *jobdir, int rank, int nranks,
                                              int (*setup)(void *archive, void *arg), void *arg)
{
    if (!instr_ext_trace_wanted())
        return -1;
    struct setup_thunk t = {setup, arg};
    return instr_trace_job_open(jobdir, rank, nranks, setup_call, &t);
}

INSTR_EXT_EXPORT void instr_ext_trace_job_abandon(void) { instr_trace_job_abandon(); }

INSTR_EXT_EXPORT uint64_t instr_ext_trace_metrics_signature(void)
{
    return instr_trace_metrics_signature();
}

INSTR_EXT_EXPORT void instr_ext_trace_metrics_agreed(int agreed)
{
    instr_trace_metrics_job(agreed);
}

INSTR_EXT_EXPORT uint32_t instr_ext_trace_comm(uint32_t leader, uint32_t seq, const char *name,
                                               uint32_t nmembers, const uint32_t *members)
{
    return instr_trace_comm_add(leader, seq, name, nmembers, members);
}

INSTR_EXT_EXPORT void instr_ext_trace_clock_offset(uint64_t time, int64_t offset, double stddev)
{
    instr_trace_job_clock_offset(time, offset, stddev);
}

INSTR_EXT_EXPORT uint64_t instr_ext_clock_now(void) { return instr_clock_now(); }

INSTR_EXT_EXPORT void *instr_ext_trace_writer(uint64_t *t)
{
    if (instr_state_get() != INSTR_STATE_RUNNING || !instr_trace_job_is_open())
        return NULL;
    int slot = instr_substrate_slot(&instr_trace_substrate);
    instr_location *loc = slot >= 0 ? instr_core_location_self() : NULL;
    instr_tloc *s = loc ? loc->sub[slot] : NULL;
    if (!s)
        return NULL;
    /* The thread's Enter/Leave records so far go first, so that the MPI record lands inside
     * its MPI region (runtime/trace/buffer.c). */
    instr_trace_drain(s);
    if (!instr_trace_writer_ready(s))
        return NULL;
    uint64_t now = instr_clock_now();
    if (now < s->last)
        now = s->last;
    s->last = now;
    *t = now;
    return s->writer;
}

INSTR_EXT_EXPORT int instr_ext_trace_blob(int rank, char **out, size_t *len)
{
    return instr_trace_job_blob(rank, out, len);
}

INSTR_EXT_EXPORT void *instr_ext_trace_unify_new(int nranks)
{
    return instr_trace_unify_new(nranks);
}

INSTR_EXT_EXPORT int instr_ext_trace_unify_add(void *u, int rank, const char *blob, size_t len,
                                               char **map, size_t *maplen)
{
    return instr_trace_unify_add(u, rank, blob, len, map, maplen);
}

INSTR_EXT_EXPORT void instr_ext_trace_unify_free(void *u) { instr_trace_unify_free(u); }

INSTR_EXT_EXPORT int instr_ext_trace_job_close(int rank, const char *map, size_t maplen, void *u)
{
    return instr_trace_job_close(rank, map, maplen, u);
}

INSTR_EXT_EXPORT int instr_ext_trace_job_is_open(void) { return instr_trace_job_is_open(); }
#else
INSTR_EXT_EXPORT int instr_ext_trace_wanted(void) { return 0; }
INSTR_EXT_EXPORT int instr_ext_trace_job_open(const char *jobdir, int rank, int nranks,
                                              int (*setup)(void *archive, void *arg), void *arg)
{
    (void)jobdir, (void)rank, (void)nranks, (void)setup, (void)arg;
    return -1;
}
INSTR_EXT_EXPORT void instr_ext_trace_job_abandon(void) {}
INSTR_EXT_EXPORT uint64_t instr_ext_trace_metrics_signature(void) { return 0; }
INSTR_EXT_EXPORT void instr_ext_trace_metrics_agreed(int agreed) { (void)agreed; }
INSTR_EXT_EXPORT uint32_t instr_ext_trace_comm(uint32_t leader, uint32_t seq, const char *name,
                                               uint32_t nmembers, const uint32_t *members)
{
    (void)leader, (void)seq, (void)name, (void)nmembers, (void)members;
    return UINT32_MAX;
}
INSTR_EXT_EXPORT void instr_ext_trace_clock_offset(uint64_t time, int64_t offset, double stddev)
{
    (void)time, (void)offset, (void)stddev;
}
INSTR_EXT_EXPORT uint64_t instr_ext_clock_now(void) { return 0; }
INSTR_EXT_EXPORT void *instr_ext_trace_writer(uint64_t *t)
{
    (void)t;
    return NULL;
}
INSTR_EXT_EXPORT int instr_ext_trace_blob(int rank, char **out, size_t *len)
{
    (void)rank, (void)out, (void)len;
    return -1;
}
INSTR_EXT_EXPORT void *instr_ext_trace_unify_new(int nranks)
{
    (void)nranks;
    return NULL;
}
INSTR_EXT_EXPORT int instr_ext_trace_unify_add(void *u, int rank, const char *blob, size_t len,
                                               char **map, size_t *maplen)
{
    (void)u, (void)rank, (void)blob, (void)len, (void)map, (void)maplen;
    return -1;
}
INSTR_EXT_EXPORT void instr_ext_trace_unify_free(void *u) { (void)u; }
INSTR_EXT_EXPORT int instr_ext_trace_job_close(int rank, const char *map, size_t maplen, void *u)
{
    (void)rank, (void)map, (void)maplen, (void)u;
    return -1;
}
INSTR_EXT_EXPORT int instr_ext_trace_job_is_open(void) { return 0; }
#endif
