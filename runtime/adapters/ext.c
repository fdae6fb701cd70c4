/* ext.c — the interface of ext.h for adapters in other libraries (libinstr-rt-mpi). */
#include "ext.h"
#include "../core/config.h"
#include "../core/core.h"
#include "../core/experiment.h"
#include "../core/log.h"
#include "../core/registry.h"
#include "../core/rtfilter.h"
#include "../profile/job.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static instr_ext_job_fn job_fn;

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
                                         uint64_t sends, uint64_t receives)
{
    instr_job_messages(bytes_sent, bytes_received, sends, receives);
}

INSTR_EXT_EXPORT int instr_ext_experiment_create(char *out, size_t size)
{
    if (!instr_events_wanted() || instr_experiment_create() != 0)
        return -1;
    if (instr_cfg.enable_tracing)
        instr_warn("INSTR_ENABLE_TRACING=1 in an MPI job: traces of MPI jobs are not written yet "
                   "(docs/mpi.md, known gaps); the job's profile is");
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
    return instr_experiment_join(jobdir, sub);
}

static void job_hook(const instr_run *run)
{
    size_t len = 0;
    char *blob = run->dir ? instr_job_blob(run, &len) : NULL;
    if (job_fn)
        job_fn(blob, blob ? len : 0);
    free(blob);
}

INSTR_EXT_EXPORT void instr_ext_set_job_hook(instr_ext_job_fn fn)
{
    job_fn = fn;
    instr_job_hook = fn ? job_hook : NULL;
}

INSTR_EXT_EXPORT void instr_ext_finalize(void) { instr_finalize(); }
