/* sections.c — the files a process writes of its own (kokkos.txt; instr_out_open_rank,
 * ../core/experiment.h) as one file per name at an MPI job's top: rank 0 appends each rank's
 * text, in rank order, under a line "# rank N" (docs/mpi.md). The ranks' texts come to rank 0
 * one at a time (mpi_exchange.c): rank 0 holds one rank's at once. */
#include "outputs.h"
#include "../core/experiment.h"
#include "../core/ext.h"
#include "../core/log.h"
#include "../core/signals.h"
#include "../util/pages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FILES 8

static instr_outfile files[MAX_FILES];
static int nfiles, failed[MAX_FILES];
static char written[160]; /* the names written, for the job's line */

INSTR_EXT_EXPORT size_t instr_ext_job_sections(char **out)
{
    return instr_experiment_rank_sections(out);
}

INSTR_EXT_EXPORT void instr_ext_job_sections_own(void) { instr_experiment_rank_sections_own(); }

static instr_outfile *file_of(const char *name, size_t len)
{
    for (int i = 0; i < nfiles; i++)
        if (strlen(files[i].name) == len && memcmp(files[i].name, name, len) == 0)
            return failed[i] ? NULL : &files[i];
    if (nfiles == MAX_FILES || len >= sizeof files[0].name)
        return NULL;
    char n[sizeof files[0].name];
    memcpy(n, name, len);
    n[len] = '\0';
    failed[nfiles] = instr_out_open_job(&files[nfiles], n) != 0;
    snprintf(files[nfiles].name, sizeof files[nfiles].name, "%s", n);
    nfiles++;
    return failed[nfiles - 1] ? NULL : &files[nfiles - 1];
}

INSTR_EXT_EXPORT void instr_ext_job_sections_add(int rank, const char *buf, size_t len)
{
    instr_io_guard g;
    instr_io_guard_begin(&g);
    for (size_t pos = 0; pos < len;) {
        const char *nl = memchr(buf + pos, '\n', len - pos);
        if (!nl)
            break;
        size_t nlen = (size_t)(nl - (buf + pos));
        char *end;
        unsigned long long tlen = strtoull(nl + 1, &end, 10);
        if (end == nl + 1 || *end != '\n' || tlen > len - (size_t)(end + 1 - buf)) {
            instr_warn("job: rank %d's files of its own are malformed; left out", rank);
            break;
        }
        instr_outfile *o = file_of(buf + pos, nlen);
        if (o) {
            instr_wr_printf(o->f, "# rank %d\n", rank);
            instr_wr_write(o->f, end + 1, (size_t)tlen);
        }
        pos = (size_t)(end + 1 - buf) + (size_t)tlen;
    }
    instr_io_guard_end(&g);
}

INSTR_EXT_EXPORT void instr_ext_job_sections_end(void)
{
    instr_io_guard g;
    instr_io_guard_begin(&g);
    for (int i = 0; i < nfiles; i++) {
        if (failed[i] || instr_out_close(&files[i]) != 0) {
            instr_experiment_report_failures();
            continue;
        }
        instr_files_add(written, sizeof written, files[i].name);
    }
    nfiles = 0;
    instr_io_guard_end(&g);
}

void instr_job_section_files(char *out, size_t size)
{
    if (written[0])
        instr_files_add(out, size, written);
}
