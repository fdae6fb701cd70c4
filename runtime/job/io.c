/* io.c — an MPI job's I/O recording (INSTR_IO, docs/io.md): each rank's figures per paradigm
 * (its blob's O lines, blob.h) summed over the ranks, and the slowest rank: the one with the
 * most time in I/O. The call paths' and files' figures are in each rank's own files. */
#include "outputs.h"

#include <inttypes.h>

#define NP INSTR_PROFILE_IO_PARADIGMS

static const char *const paradigm_name[NP] = {"posix", "stdio", "mpiio"};

static uint64_t rank_ns(const jgroup *g)
{
    uint64_t ns = 0;
    for (int p = 0; p < NP; p++)
        ns += g->io[p].ns;
    return ns;
}

/* The sums into sum[], the index of the slowest rank's group into *gi; 0 when no rank
 * recorded. */
static int sums(const instr_job *j, instr_profile_io_totals sum[NP], uint32_t *gi)
{
    int any = 0;
    for (int p = 0; p < NP; p++)
        sum[p] = (instr_profile_io_totals){0};
    for (uint32_t g = 0; g < j->ngroups; g++) {
        const jgroup *gr = &j->groups[g];
        if (!gr->present || !gr->has_io)
            continue;
        for (int p = 0; p < NP; p++) {
            sum[p].ops += gr->io[p].ops;
            sum[p].failed += gr->io[p].failed;
            sum[p].bytes_read += gr->io[p].bytes_read;
            sum[p].bytes_written += gr->io[p].bytes_written;
            sum[p].ns += gr->io[p].ns;
        }
        if (!any || rank_ns(gr) > rank_ns(&j->groups[*gi]))
            *gi = g;
        any = 1;
    }
    return any;
}

static void json_paradigms(instr_writer *f, const instr_profile_io_totals t[NP])
{
    instr_wr_putc(f, '[');
    int first = 1;
    for (int p = 0; p < NP; p++) {
        if (!t[p].ops)
            continue;
        instr_wr_printf(f, "%s{\"paradigm\": \"%s\", \"operations\": %" PRIu64 ", \"failed\": %" PRIu64
                   ", \"bytes_read\": %" PRIu64 ", \"bytes_written\": %" PRIu64
                   ", \"time_ns\": %" PRIu64 "}",
                first ? "" : ", ", paradigm_name[p], t[p].ops, t[p].failed, t[p].bytes_read,
                t[p].bytes_written, t[p].ns);
        first = 0;
    }
    instr_wr_putc(f, ']');
}

void instr_job_io_json(instr_writer *f, const instr_job *j)
{
    instr_profile_io_totals sum[NP];
    uint32_t gi = 0;
    if (!sums(j, sum, &gi))
        return;
    instr_wr_puts(f, ",\n  \"io\": {\"paradigms\": ");
    json_paradigms(f, sum);
    instr_wr_printf(f, ",\n    \"slowest_rank\": {\"rank\": %d, \"time_ns\": %" PRIu64 ", \"paradigms\": ",
            j->groups[gi].rank, rank_ns(&j->groups[gi]));
    json_paradigms(f, j->groups[gi].io);
    instr_wr_puts(f, "},\n    \"ranks\": [");
    int first = 1;
    for (uint32_t g = 0; g < j->ngroups; g++) {
        const jgroup *gr = &j->groups[g];
        if (!gr->present || !gr->has_io)
            continue;
        instr_wr_printf(f, "%s\n      {\"rank\": %d, \"paradigms\": ", first ? "" : ",", gr->rank);
        json_paradigms(f, gr->io);
        instr_wr_putc(f, '}');
        first = 0;
    }
    instr_wr_puts(f, "\n    ]\n  }");
}

void instr_job_io_text(instr_writer *f, const instr_job *j)
{
    instr_profile_io_totals sum[NP];
    uint32_t gi = 0;
    if (!sums(j, sum, &gi))
        return;
    instr_wr_printf(f, "\nI/O (INSTR_IO; per call path and file in rank-N/profile.txt; docs/io.md)\n\n"
               "  paradigm   operations   failed      bytes read   bytes written   time (ns)\n");
    for (int p = 0; p < NP; p++)
        if (sum[p].ops)
            instr_wr_printf(f, "  %-8s %12" PRIu64 " %8" PRIu64 " %15" PRIu64 " %15" PRIu64 " %11" PRIu64
                       "   (over the ranks)\n",
                    paradigm_name[p], sum[p].ops, sum[p].failed, sum[p].bytes_read,
                    sum[p].bytes_written, sum[p].ns);
    const jgroup *s = &j->groups[gi];
    instr_wr_printf(f, "  slowest rank %d: %" PRIu64 " ns in I/O", s->rank, rank_ns(s));
    for (int p = 0; p < NP; p++)
        if (s->io[p].ops)
            instr_wr_printf(f, ", %s %" PRIu64 " operations (%" PRIu64 " bytes read, %" PRIu64
                       " written)", paradigm_name[p], s->io[p].ops, s->io[p].bytes_read,
                    s->io[p].bytes_written);
    instr_wr_putc(f, '\n');
}
