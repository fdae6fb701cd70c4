/* text_adaptor.c — the job's profile.txt: the merged profile (model.h) as the rows of the
 * job's text writer (write_text.h), and the ranks missing from it. */
#include "outputs.h"
#include "write_text.h"
#include "../util/pages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void instr_job_missing_ranks(const instr_job *j, int nranks, char *out, size_t size, int *n)
{
    size_t len = 0;
    uint32_t g = 0;
    *n = 0;
    out[0] = '\0';
    for (int r = 0; r < nranks;) {
        while (g < j->ngroups && j->groups[g].rank < r)
            g++;
        int present = 0;
        for (uint32_t k = g; k < j->ngroups && j->groups[k].rank == r; k++)
            present |= j->groups[k].present;
        if (present) {
            r++;
            continue;
        }
        int last = r; /* a run of missing ranks r..last */
        for (;;) {
            int next = last + 1, p = 0;
            for (uint32_t k = g; k < j->ngroups && j->groups[k].rank <= next; k++)
                p |= j->groups[k].rank == next && j->groups[k].present;
            if (next >= nranks || p)
                break;
            last = next;
        }
        *n += last - r + 1;
        char item[48];
        if (last == r)
            snprintf(item, sizeof item, "%s%d", len ? ", " : "", r);
        else
            snprintf(item, sizeof item, "%s%d-%d", len ? ", " : "", r, last);
        if (len + strlen(item) + 6 < size) {
            memcpy(out + len, item, strlen(item) + 1);
            len += strlen(item);
        } else if (len + 6 <= size && !strstr(out, "...")) {
            memcpy(out + len, ", ...", 6);
            len += 5;
        }
        r = last + 1;
    }
}

/* profile.txt of the job (write_text.h): a plain view of the merged profile. */
int instr_job_txt(instr_writer *f, const instr_job *j, const char *dir, int nranks)
{
    uint64_t ncells = 0;
    for (uint32_t i = 0; i < j->n; i++)
        ncells += j->nodes[i].nlocs;
    int *ranks = instr_mem_alloc(((size_t)j->ngroups + 1) * sizeof *ranks);
    uint32_t *loc_rank = instr_mem_alloc(((size_t)j->nlocs + 1) * sizeof *loc_rank);
    const char **names = instr_mem_alloc(((size_t)j->nregions + 1) * sizeof *names);
    instr_job_text_path *paths = instr_mem_alloc(((size_t)j->n + 1) * sizeof *paths);
    instr_job_text_cell *cells = instr_mem_alloc(((size_t)ncells + 1) * sizeof *cells);
    char missing[512];
    int rc = -1, nmissing;
    if (!ranks || !loc_rank || !names || !paths || !cells)
        goto out;
    uint32_t nmerged = 0;
    for (uint32_t g = 0; g < j->ngroups; g++)
        if (j->groups[g].present && (!nmerged || ranks[nmerged - 1] != j->groups[g].rank))
            ranks[nmerged++] = j->groups[g].rank;
    for (uint32_t l = 0; l < j->nlocs; l++) {
        uint32_t lo = 0, hi = nmerged; /* ranks ascending: binary search */
        while (lo < hi) {
            uint32_t mid = (lo + hi) / 2;
            if (ranks[mid] < j->locs[l].rank)
                lo = mid + 1;
            else
                hi = mid;
        }
        loc_rank[l] = lo < nmerged && ranks[lo] == j->locs[l].rank ? lo : UINT32_MAX;
    }
    for (uint32_t r = 0; r < j->nregions; r++)
        names[r] = j->regions[r].name;
    uint64_t c = 0;
    for (uint32_t i = 0; i < j->n; i++) {
        const jnode *n = &j->nodes[i];
        paths[i] = (instr_job_text_path){n->parent, n->region - 1, n->s.t.visits, n->s.t.incl,
                                         n->s.t.excl, n->s.m.sent, n->s.m.bytes_sent,
                                         n->s.m.received, n->s.m.bytes_received,
                                         n->s.m.collectives, cells + c, 0};
        for (uint32_t k = 0; k < n->nlocs; k++) {
            const jloc *l = &n->locs[k];
            if (l->location >= j->nlocs || loc_rank[l->location] == UINT32_MAX)
                continue;
            cells[c++] = (instr_job_text_cell){loc_rank[l->location], l->s.t.visits,
                                               l->s.t.incl, l->s.t.excl};
            paths[i].ncells++;
        }
    }
    instr_job_missing_ranks(j, nranks, missing, sizeof missing, &nmissing);
    instr_job_text t = {dir, nranks, ranks, nmerged, missing, j->nlocs, j->duration, j->timer,
                        j->hz, j->dropped, names, j->nregions, paths, j->n};
    rc = instr_job_text_write(f, &t);
out:
    instr_mem_free(ranks);
    instr_mem_free(loc_rank);
    instr_mem_free(names);
    instr_mem_free(paths);
    instr_mem_free(cells);
    return rc;
}
