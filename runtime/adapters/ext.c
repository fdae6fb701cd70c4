/* ext.c — the interface of ext.h for adapters in other libraries (libinstr-rt-mpi): regions,
 * events, the experiment directory, the end. The MPI job's part is in runtime/job/ext_job.c
 * and ext_trace.c. */
#include "../core/ext.h"
#include "../core/config.h"
#include "../core/core.h"
#include "../core/experiment.h"
#include "../core/log.h"
#include "../core/registry.h"
#include "../core/rtfilter.h"
#include "../metrics/metrics.h"
#include "../util/pages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

INSTR_EXT_EXPORT int instr_ext_experiment_join(const char *jobdir, int rank, int own_files)
{
    if (!instr_events_wanted())
        return -1;
    char sub[32];
    snprintf(sub, sizeof sub, "rank-%d", rank);
    instr_job_rank = rank;
    instr_log_job_rank(rank); /* notices alike on every rank: rank 0's only */
    return instr_experiment_join(jobdir, sub, own_files);
}

INSTR_EXT_EXPORT void instr_ext_finalize(void) { instr_finalize(); }

INSTR_EXT_EXPORT int instr_ext_verbose(void) { return instr_cfg.verbose; }

INSTR_EXT_EXPORT void instr_ext_metrics_elect(int world_rank, int host_rank)
{
    instr_metrics_elect(world_rank, host_rank);
}

INSTR_EXT_EXPORT void *instr_ext_mem_alloc(size_t size) { return instr_mem_alloc(size); }
INSTR_EXT_EXPORT void *instr_ext_mem_realloc(void *p, size_t size)
{
    return instr_mem_realloc(p, size);
}
INSTR_EXT_EXPORT void instr_ext_mem_free(void *p) { instr_mem_free(p); }
