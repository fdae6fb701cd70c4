/* ext_trace.c — the MPI job's trace in the interface for libinstr-rt-mpi (../core/ext.h;
 * the job's archive: ../trace/job.c). Without OTF2 every call answers "no". */
#include "../core/ext.h"
#ifdef INSTR_RT_HAVE_TRACE
#include "../core/clock.h"
#include "../core/config.h"
#include "../core/core.h"
#include "../core/event.h"
#include "../core/log.h"
#include "trace_unify.h"
#endif

#include <stdint.h>
#include <stdio.h>

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
                                               uint32_t nmembers, const uint32_t *members,
                                               uint32_t parent)
{
    return instr_trace_comm_add(leader, seq, name, nmembers, members, parent);
}

INSTR_EXT_EXPORT void instr_ext_trace_clock_offset(uint64_t time, int64_t offset, double stddev)
{
    instr_trace_job_clock_offset(time, offset, stddev);
}

INSTR_EXT_EXPORT void instr_ext_trace_win(uint32_t leader, uint32_t seq, const char *name,
                                          uint32_t comm)
{
    instr_trace_win_add(leader, seq, name, comm);
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

INSTR_EXT_EXPORT void *instr_ext_trace_unify_new(int first, int nranks)
{
    return instr_trace_unify_new(first, nranks);
}

INSTR_EXT_EXPORT int instr_ext_trace_unify_pack(void *u, int with_ranks, char **out, size_t *len)
{
    return u ? instr_trace_unify_pack(u, with_ranks, out, len) : -1;
}

INSTR_EXT_EXPORT int instr_ext_trace_unify_merge(void *u, const char *buf, size_t len)
{
    return instr_trace_unify_merge(u, buf, len);
}

INSTR_EXT_EXPORT int instr_ext_trace_unify_map(void *u, int rank, const char *blob, size_t len,
                                               uint32_t handle_base, char **map,
                                               size_t *maplen)
{
    return instr_trace_unify_map(u, rank, blob, len, handle_base, map, maplen);
}

INSTR_EXT_EXPORT uint32_t instr_ext_trace_unify_handles(void *u)
{
    return u ? ((instr_unifier *)u)->nhandles : 0;
}

INSTR_EXT_EXPORT int instr_ext_trace_unify_add(void *u, int rank, const char *blob, size_t len,
                                               char **map, size_t *maplen)
{
    return instr_trace_unify_add(u, rank, blob, len, map, maplen);
}

INSTR_EXT_EXPORT void instr_ext_trace_unify_free(void *u) { instr_trace_unify_free(u); }

INSTR_EXT_EXPORT int instr_ext_trace_job_close(int rank, const char *map, size_t maplen,
                                               void *arg)
{
    instr_unifier *u = arg;
    if (u)
        u->unified_ns = instr_trace_unify_now_ns();
    int rc = instr_trace_job_close(rank, map, maplen, instr_trace_unify_write_global, u);
    /* events the rank could not write (a full disk) leave its files short, however the
     * close went */
    return rc != 0 || instr_trace_write_failed() ? -1 : 0;
}

/* Rank 0's line on the job's archive: its counts, and the ranks whose files are incomplete
 * (their writes or their close failed), which readers must not take for a whole trace. */
INSTR_EXT_EXPORT void instr_ext_trace_job_report(void *arg, const int *incomplete, int n,
                                                int nincomplete)
{
    instr_unifier *u = arg;
    if (!u || instr_verbose < 0 || nincomplete < n)
        return;
    if (instr_verbose >= 1) {
        uint64_t now = instr_trace_unify_now_ns();
        int rounds = 0;
        while ((1 << rounds) < u->nranks)
            rounds++;
        instr_info(1, "trace: definitions of %d rank%s unified on rank 0 in %.3f s (a "
                   "binomial tree of %d round%s, the union broadcast), global definitions "
                   "written and archive closed in %.3f s", u->nranks, u->nranks == 1 ? "" : "s",
                   (double)(u->unified_ns - u->made_ns) * 1e-9, rounds, rounds == 1 ? "" : "s",
                   (double)(now - u->unified_ns) * 1e-9);
    }
    if (nincomplete == 0) {
        char wins[48] = "";
        if (u->nwins)
            snprintf(wins, sizeof wins, ", %u RMA window%s", u->nwins, u->nwins == 1 ? "" : "s");
        instr_warn("trace: %s/traces.otf2: %llu events from %d rank%s, one location group "
                   "per rank, %u regions, %u communicators%s (definitions unified)",
                   instr_trace_job_dir(), (unsigned long long)u->events, u->nranks,
                   u->nranks == 1 ? "" : "s", u->nregions, u->ncomms, wins);
        return;
    }
    char list[256];
    size_t used = 0;
    list[0] = '\0';
    for (int i = 0; i < n && used < sizeof list - 16; i++) {
        int w = snprintf(list + used, sizeof list - used, "%s%d", i ? ", " : "", incomplete[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    if (nincomplete > n && used < sizeof list - 8)
        snprintf(list + used, sizeof list - used, ", ...");
    instr_warn("trace: %s/traces.otf2 is incomplete: the trace of rank%s %s could not be "
               "written whole (its writes or its close failed: a full disk?); %llu events "
               "from %d rank%s were unified, the incomplete ranks' files are short",
               instr_trace_job_dir(), nincomplete == 1 ? "" : "s", list, (unsigned long long)u->events,
               u->nranks, u->nranks == 1 ? "" : "s");
}

INSTR_EXT_EXPORT int instr_ext_trace_job_is_open(void) { return instr_trace_job_is_open(); }
#else
INSTR_EXT_EXPORT void instr_ext_trace_job_report(void *u, const int *incomplete, int n,
                                                int nincomplete)
{
    (void)u, (void)incomplete, (void)n, (void)nincomplete;
}
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
                                               uint32_t nmembers, const uint32_t *members,
                                               uint32_t parent)
{
    (void)leader, (void)seq, (void)name, (void)nmembers, (void)members, (void)parent;
    return UINT32_MAX;
}
INSTR_EXT_EXPORT void instr_ext_trace_clock_offset(uint64_t time, int64_t offset, double stddev)
{
    (void)time, (void)offset, (void)stddev;
}
INSTR_EXT_EXPORT void instr_ext_trace_win(uint32_t leader, uint32_t seq, const char *name,
                                          uint32_t comm)
{
    (void)leader, (void)seq, (void)name, (void)comm;
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
INSTR_EXT_EXPORT void *instr_ext_trace_unify_new(int first, int nranks)
{
    (void)first, (void)nranks;
    return NULL;
}
INSTR_EXT_EXPORT int instr_ext_trace_unify_pack(void *u, int with_ranks, char **out, size_t *len)
{
    (void)u, (void)with_ranks, (void)out, (void)len;
    return -1;
}
INSTR_EXT_EXPORT int instr_ext_trace_unify_merge(void *u, const char *buf, size_t len)
{
    (void)u, (void)buf, (void)len;
    return -1;
}
INSTR_EXT_EXPORT int instr_ext_trace_unify_map(void *u, int rank, const char *blob, size_t len,
                                               uint32_t handle_base, char **map,
                                               size_t *maplen)
{
    (void)u, (void)rank, (void)blob, (void)len, (void)handle_base, (void)map, (void)maplen;
    return -1;
}
INSTR_EXT_EXPORT uint32_t instr_ext_trace_unify_handles(void *u)
{
    (void)u;
    return 0;
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
