/* memory.c — an MPI job's memory recording (INSTR_MEMORY=1, docs/memory.md): each rank's
 * process totals (its blob's Y line, blob.h) summed over the ranks, and the rank whose live
 * bytes rose highest; per call path the sums over the ranks' threads (the job database's
 * memory_ columns, tree_from_jdb.c). The leaks are in each rank's own files (rank-N/). */
#include "outputs.h"
#include "../util/pages.h"
#include "../util/sort.h"

#include <inttypes.h>

typedef struct path_row {
    uint32_t node;
    const uint64_t *mem;
} path_row;

static int by_bytes(const void *a, const void *b)
{
    const path_row *x = a, *y = b;
    if (x->mem[2] != y->mem[2])
        return x->mem[2] < y->mem[2] ? 1 : -1;
    return x->node < y->node ? -1 : x->node > y->node;
}

/* The call paths with memory figures, by bytes allocated; NULL when none or memory ran out. */
static path_row *path_rows(const instr_job *j, uint32_t *n_out)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < j->n; i++)
        n += j->nodes[i].mem != NULL;
    *n_out = 0;
    path_row *rows = n ? instr_mem_alloc((size_t)n * sizeof *rows) : NULL;
    if (!rows)
        return NULL;
    n = 0;
    for (uint32_t i = 0; i < j->n; i++)
        if (j->nodes[i].mem)
            rows[n++] = (path_row){i, j->nodes[i].mem};
    instr_sort(rows, n, sizeof *rows, by_bytes);
    *n_out = n;
    return rows;
}

/* The sums into *sum, the rank of the highest high-water mark into *largest (-1: none
 * recorded); the index of its group into *gi. */
static int sums(const instr_job *j, instr_profile_mem_totals *sum, uint32_t *gi)
{
    *sum = (instr_profile_mem_totals){0};
    int any = 0;
    for (uint32_t g = 0; g < j->ngroups; g++) {
        const jgroup *gr = &j->groups[g];
        if (!gr->present || !gr->has_memory)
            continue;
        const instr_profile_mem_totals *m = &gr->mem;
        sum->allocs += m->allocs;
        sum->frees += m->frees;
        sum->bytes_allocated += m->bytes_allocated;
        sum->bytes_freed += m->bytes_freed;
        sum->high_water += m->high_water; /* a bound: the ranks' peaks need not coincide */
        sum->live_bytes += m->live_bytes;
        sum->live_blocks += m->live_blocks;
        if (!any || m->high_water > j->groups[*gi].mem.high_water)
            *gi = g;
        any = 1;
    }
    return any;
}

static void json_totals(instr_writer *f, const instr_profile_mem_totals *m)
{
    instr_wr_printf(f, "\"allocations\": %" PRIu64 ", \"frees\": %" PRIu64 ", \"bytes_allocated\": %"
               PRIu64 ", \"bytes_freed\": %" PRIu64 ", \"high_water_bytes\": %" PRIu64
               ", \"live_bytes\": %" PRIu64 ", \"live_blocks\": %" PRIu64,
            m->allocs, m->frees, m->bytes_allocated, m->bytes_freed, m->high_water,
            m->live_bytes, m->live_blocks);
}

void instr_job_memory_json(instr_writer *f, const instr_job *j)
{
    instr_profile_mem_totals sum;
    uint32_t gi = 0;
    if (!sums(j, &sum, &gi))
        return;
    instr_wr_puts(f, ",\n  \"memory\": {");
    json_totals(f, &sum);
    instr_wr_printf(f, ",\n    \"largest_rank\": {\"rank\": %d, ", j->groups[gi].rank);
    json_totals(f, &j->groups[gi].mem);
    instr_wr_puts(f, "},\n    \"ranks\": [");
    int first = 1;
    for (uint32_t g = 0; g < j->ngroups; g++) {
        const jgroup *gr = &j->groups[g];
        if (!gr->present || !gr->has_memory)
            continue;
        instr_wr_printf(f, "%s\n      {\"rank\": %d, ", first ? "" : ",", gr->rank);
        json_totals(f, &gr->mem);
        instr_wr_putc(f, '}');
        first = 0;
    }
    instr_wr_puts(f, "\n    ],\n    \"call_paths\": [");
    uint32_t n;
    path_row *rows = path_rows(j, &n);
    for (uint32_t k = 0; rows && k < n; k++) {
        const uint64_t *m = rows[k].mem;
        instr_wr_printf(f, "%s{\"node\": %u, \"allocations\": %" PRIu64 ", \"frees\": %" PRIu64
                   ", \"bytes_allocated\": %" PRIu64 ", \"bytes_freed\": %" PRIu64 "}",
                k ? ",\n      " : "\n      ", rows[k].node, m[0], m[1], m[2], m[3]);
    }
    instr_mem_free(rows);
    instr_wr_puts(f, "]\n  }");
}

void instr_job_memory_text(instr_writer *f, const instr_job *j)
{
    instr_profile_mem_totals sum;
    uint32_t gi = 0;
    if (!sums(j, &sum, &gi))
        return;
    const instr_profile_mem_totals *l = &j->groups[gi].mem;
    instr_wr_printf(f, "\nMemory (INSTR_MEMORY=1; per call path in rank-N/profile.txt; docs/memory.md)\n\n");
    instr_wr_printf(f, "  over the ranks  %" PRIu64 " allocations (%" PRIu64 " bytes), %" PRIu64
               " releases (%" PRIu64 " bytes), %" PRIu64 " bytes still live in %" PRIu64
               " blocks at the end\n",
            sum.allocs, sum.bytes_allocated, sum.frees, sum.bytes_freed, sum.live_bytes,
            sum.live_blocks);
    instr_wr_printf(f, "  largest rank    %d: high-water %" PRIu64 " bytes live, %" PRIu64
               " allocations (%" PRIu64 " bytes), %" PRIu64 " bytes still live at the end\n",
            j->groups[gi].rank, l->high_water, l->allocs, l->bytes_allocated, l->live_bytes);
}
