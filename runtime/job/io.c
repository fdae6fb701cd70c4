/* io.c — an MPI job's I/O recording (INSTR_IO, docs/io.md): each rank's figures per paradigm
 * (its blob's O lines, blob.h) summed over the ranks, and the slowest rank: the one with the
 * most time in I/O; per call path the sums over the ranks' threads (the job database's io_
 * columns, tree_from_jdb.c). The files' figures are in each rank's own files. */
#include "outputs.h"
#include "../util/pages.h"
#include "../util/sort.h"
#include "../util/text.h"

#include <inttypes.h>

#define TEXT_TOP 25

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

/* A call path with one paradigm's figures. */
typedef struct path_row {
    uint32_t node;
    int paradigm;
    const instr_profile_io_totals *c;
} path_row;

static int by_time(const void *a, const void *b)
{
    const path_row *x = a, *y = b;
    if (x->c->ns != y->c->ns)
        return x->c->ns < y->c->ns ? 1 : -1;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    return x->paradigm - y->paradigm;
}

/* The call paths with I/O, by time; NULL when there are none or memory ran out. */
static path_row *path_rows(const instr_job *j, uint32_t *n_out)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < j->n; i++)
        for (int p = 0; j->nodes[i].io && p < NP; p++)
            n += j->nodes[i].io[p].ops != 0;
    *n_out = 0;
    path_row *rows = n ? instr_mem_alloc((size_t)n * sizeof *rows) : NULL;
    if (!rows)
        return NULL;
    n = 0;
    for (uint32_t i = 0; i < j->n; i++)
        for (int p = 0; j->nodes[i].io && p < NP; p++)
            if (j->nodes[i].io[p].ops)
                rows[n++] = (path_row){i, p, &j->nodes[i].io[p]};
    instr_sort(rows, n, sizeof *rows, by_time);
    *n_out = n;
    return rows;
}

static void put_path(instr_writer *f, const instr_job *j, uint32_t i)
{
    uint32_t path[64], n = 0;
    for (int32_t k = (int32_t)i; k >= 0 && n < 64; k = j->nodes[k].parent)
        path[n++] = (uint32_t)k;
    if (j->nodes[i].depth + 1 > n)
        instr_wr_puts(f, "... > ");
    while (n-- > 0) {
        uint32_t r = j->nodes[path[n]].region;
        instr_wr_escaped(f, r >= 1 && r <= j->nregions ? j->regions[r - 1].name : "?");
        instr_wr_puts(f, n ? " > " : "\n");
    }
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
    instr_wr_puts(f, "\n    ],\n    \"call_paths\": [");
    uint32_t n;
    path_row *rows = path_rows(j, &n);
    for (uint32_t k = 0; rows && k < n; k++) {
        const instr_profile_io_totals *c = rows[k].c;
        instr_wr_printf(f, "%s{\"node\": %u, \"paradigm\": \"%s\", \"operations\": %" PRIu64
                   ", \"failed\": %" PRIu64 ", \"bytes_read\": %" PRIu64 ", \"bytes_written\": %"
                   PRIu64 ", \"time_ns\": %" PRIu64 "}",
                k ? ",\n      " : "\n      ", rows[k].node, paradigm_name[rows[k].paradigm],
                c->ops, c->failed, c->bytes_read, c->bytes_written, c->ns);
    }
    instr_mem_free(rows);
    instr_wr_puts(f, "]\n  }");
}

void instr_job_io_text(instr_writer *f, const instr_job *j)
{
    instr_profile_io_totals sum[NP];
    uint32_t gi = 0;
    if (!sums(j, sum, &gi))
        return;
    instr_wr_printf(f, "\nI/O (INSTR_IO; per file in rank-N/profile.txt; docs/io.md)\n\n"
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
    uint32_t n;
    path_row *rows = path_rows(j, &n);
    if (!rows)
        return;
    instr_wr_printf(f, "\n  (top %u of %u call paths by time in I/O, over the ranks)\n"
               "  paradigm   operations   failed      bytes read   bytes written   time (ns) | call path\n",
            n < TEXT_TOP ? n : TEXT_TOP, n);
    for (uint32_t k = 0; k < n && k < TEXT_TOP; k++) {
        const instr_profile_io_totals *c = rows[k].c;
        instr_wr_printf(f, "  %-8s %12" PRIu64 " %8" PRIu64 " %15" PRIu64 " %15" PRIu64 " %11" PRIu64
                   " | ",
                paradigm_name[rows[k].paradigm], c->ops, c->failed, c->bytes_read,
                c->bytes_written, c->ns);
        put_path(f, j, rows[k].node);
    }
    instr_mem_free(rows);
}
