/* outputs_rank_files.c — which ranks of an MPI job write files of their own (rank-N/) besides
 * the job's: INSTR_RANK_FILES (docs/mpi.md). 0 or unset: none, the job database holds every
 * rank's profile; 1: all; a list of ranks and ranges ("0,5,8-11"): those. */
#include "outputs.h"
#include "../core/config.h"
#include "../core/ext.h"
#include "../core/log.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether rank is in the list text ("0,5,8-11"); -1 when the text is not such a list. */
static int in_list(const char *text, long rank)
{
    int found = 0, any = 0;
    const char *p = text;
    while (*p) {
        char *end;
        errno = 0;
        long lo = strtol(p, &end, 10), hi = lo;
        if (end == p || lo < 0 || errno)
            return -1;
        p = end;
        if (*p == '-') {
            const char *q = p + 1;
            hi = strtol(q, &end, 10);
            if (end == q || hi < lo || errno)
                return -1;
            p = end;
        }
        any = 1;
        found |= rank >= lo && rank <= hi;
        if (*p == ',')
            p++;
        else if (*p)
            return -1;
    }
    return any ? found : -1;
}

int instr_job_rank_files(int rank)
{
    const char *v = instr_env("INSTR_RANK_FILES");
    int on = 0;
    if (!v || !*v || instr_parse_bool(v, &on) == 0)
        return on;
    if (strcmp(v, "all") == 0)
        return 1;
    int in = in_list(v, rank);
    if (in >= 0)
        return in;
    if (rank == 0)
        instr_warn("INSTR_RANK_FILES=%s is neither 0, 1 nor a list of ranks (0,5,8-11): no "
                   "rank writes files of its own", v);
    return 0;
}

void instr_job_rank_files_text(char *out, size_t size, int nranks)
{
    out[0] = '\0';
    const char *v = instr_env("INSTR_RANK_FILES");
    int on = 0;
    if (!v || !*v || (instr_parse_bool(v, &on) == 0 && !on))
        return;
    if (on || strcmp(v, "all") == 0) {
        if (nranks == 1)
            snprintf(out, size, "the rank's own files in rank-0/");
        else
            snprintf(out, size, "each rank's own files in rank-0/ to rank-%d/", nranks - 1);
        return;
    }
    if (in_list(v, 0) < 0)
        return;
    size_t len = (size_t)snprintf(out, size, "own files of rank%s %s in rank-N/",
                                  strpbrk(v, ",-") ? "s" : "", v);
    if (len >= size && size > 4)
        memcpy(out + size - 4, "...", 4);
}

INSTR_EXT_EXPORT int instr_ext_rank_files(int rank) { return instr_job_rank_files(rank); }
