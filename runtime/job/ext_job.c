/* ext_job.c — the MPI job's part of the interface for libinstr-rt-mpi (../core/ext.h):
 * message counts, the hooks that hand the adapter this process's blob and its part of the
 * job database at the end, INSTR_JOB_PROFILE_MAX_RANKS. */
#include "blob.h"
#include "jobdb_local.h"
#include "messages.h"
#include "../core/ext.h"
#include "../core/config.h"
#include "../core/core.h"
#include "../core/experiment.h"
#include "../core/log.h"
#include "../core/signals.h"
#include "../profile/profile.h"
#include "../util/text.h"
#include "../util/pages.h"

#include <stdlib.h>

static instr_ext_job_fn job_fn;
static instr_ext_jobdb_fn jobdb_fn;

INSTR_EXT_EXPORT void instr_ext_messages(uint64_t bytes_sent, uint64_t bytes_received,
                                         uint64_t sends, uint64_t receives,
                                         uint64_t collectives)
{
    instr_job_messages(bytes_sent, bytes_received, sends, receives, collectives);
}

/* This process's run at the end, for instr_ext_rank_files_late: its threads' trees stay. */
static instr_run end_run;
static int have_end_run;

static void job_hook(const instr_run *run)
{
    end_run = *run;
    have_end_run = 1;
    size_t len = 0;
    /* With the job database, the tree comes from there: the blob keeps the rest. */
    char *blob = run->dir && job_fn ? instr_job_blob(run, &len, !jobdb_fn) : NULL;
    if (job_fn)
        job_fn(blob, blob ? len : 0);
    instr_mem_free(blob);
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
    instr_mem_free(buf);
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

INSTR_EXT_EXPORT uint32_t instr_ext_job_profile_max_ranks(void)
{
    return instr_cfg.job_profile_max_ranks;
}

INSTR_EXT_EXPORT void instr_ext_set_signal_job_hook(void (*fn)(int sig))
{
    instr_signal_job_hook = fn;
}

INSTR_EXT_EXPORT int instr_ext_rank_files_late(void)
{
    if (!have_end_run || !instr_experiment_own_deferred() || !instr_cfg.profiling_formats)
        return 0;
    have_end_run = 0;
    instr_io_guard g;
    instr_io_guard_begin(&g);
    char files[64] = "";
    int rc = instr_profile_write_files(&end_run, files, sizeof files, INSTR_FORMAT_JSON);
    instr_experiment_report_failures();
    instr_io_guard_end(&g);
    instr_experiment_publish_own();
    const char *dir = instr_experiment_dir();
    char where[512];
    instr_escaped(where, sizeof where, dir ? dir : "(no directory)");
    if (rc == 0 && *files)
        instr_info(1, "rank %d: without the job database, its "
                   "profile is written to %s/%s", instr_job_rank, where, files);
    return rc == 0 && *files;
}
