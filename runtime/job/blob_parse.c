/* blob_parse.c — one rank's blob (blob.h) read into the job's merged profile (model.h),
 * one line at a time: the blob is not kept. */
#include "model.h"
#include "../core/log.h"
#include "../util/pages.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct vec32 {
    uint32_t *v;
    uint32_t n, cap;
} vec32;

static int vec_set(vec32 *v, uint32_t i, uint32_t x)
{
    if (instr_job_grow(&v->v, &v->cap, i + 1, sizeof *v->v) != 0)
        return -1;
    while (v->n <= i)
        v->v[v->n++] = UINT32_MAX;
    v->v[i] = x;
    return 0;
}

static uint32_t vec_get(const vec32 *v, uint64_t i) { return i < v->n ? v->v[i] : UINT32_MAX; }

/* One line of a blob; 0, or -1 when it is malformed or memory is out. */
static int add_line(instr_job *j, int rank, char *line, vec32 *regs, vec32 *locs, vec32 *nodes,
                    uint32_t *nlines)
{
    switch (line[0]) {
    case 'P': {
        int pid;
        uint64_t dur, dropped, unmatched, closed;
        char timer[32];
        double hz;
        int used = 0;
        if (sscanf(line, "P %d %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %31s %lf%n", &pid,
                   &dur, &dropped, &unmatched, &closed, timer, &hz, &used) != 7)
            return -1;
        jgroup *g = instr_job_group(j, rank);
        if (!g)
            return -1;
        g->present = 1;
        g->pid = pid;
        const char *host = line + used;
        if (*host == '\t')
            host++;
        snprintf(g->host, sizeof g->host, "%s", host);
        if (dur > j->duration)
            j->duration = dur;
        j->dropped += dropped;
        j->unmatched += unmatched;
        j->closed += closed;
        if (!j->timer[0]) {
            snprintf(j->timer, sizeof j->timer, "%s", timer);
            j->hz = hz;
        }
        return 0;
    }
    case 'L': {
        uint32_t id;
        int tid;
        char end[16];
        if (sscanf(line, "L %u %d %15s", &id, &tid, end) != 3)
            return -1;
        if (instr_job_grow(&j->locs, &j->caplocs, j->nlocs + 1, sizeof *j->locs) != 0)
            return -1;
        j->locs[j->nlocs] = (jlocation){rank, tid, id, ""};
        snprintf(j->locs[j->nlocs].end, sizeof j->locs[j->nlocs].end, "%s", end);
        return vec_set(locs, id, j->nlocs++);
    }
    case 'R': {
        uint32_t h, lb, le;
        int used = 0;
        if (sscanf(line, "R %u %u %u %n", &h, &lb, &le, &used) != 3 || !used)
            return -1;
        uint32_t id = instr_job_region_id(j, line + used, lb, le);
        return id ? vec_set(regs, h, id) : -1;
    }
    case 'T': {
        uint32_t h, location;
        uint64_t visit, mean_ns;
        int excluded;
        if (sscanf(line, "T %u %" SCNu64 " %u %" SCNu64 " %d", &h, &visit, &location, &mean_ns,
                   &excluded) != 5)
            return -1;
        uint32_t id = vec_get(regs, h);
        if (id == UINT32_MAX || id == 0 || id > j->nregions)
            return -1;
        jregion *r = &j->regions[id - 1];
        if (r->throttled_ranks++ == 0) {
            r->throttled_rank = rank;
            r->throttled = (instr_throttle_mark){visit, mean_ns, location, excluded != 0};
        }
        return 0;
    }
    case 'N': {
        int64_t parent;
        uint32_t region, loc;
        jstats s;
        if (sscanf(line, "N %" SCNd64 " %u %u %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
                         " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
                         " %" SCNu64 " %" SCNu64,
                   &parent, &region, &loc, &s.t.visits, &s.t.incl, &s.t.excl,
                   &s.t.min_incl, &s.t.max_incl, &s.t.min_excl, &s.t.max_excl,
                   &s.m.bytes_sent, &s.m.bytes_received, &s.m.sent, &s.m.received,
                   &s.m.collectives) != 15)
            return -1;
        uint32_t jparent = parent < 0 ? UINT32_MAX : vec_get(nodes, (uint64_t)parent);
        uint32_t jregion = vec_get(regs, region), jloc_id = vec_get(locs, loc);
        if ((parent >= 0 && jparent == UINT32_MAX) || jregion == UINT32_MAX ||
            jloc_id == UINT32_MAX)
            return -1;
        uint32_t id = instr_job_node_id(j, parent < 0 ? -1 : (int32_t)jparent, jregion);
        if (id == UINT32_MAX || vec_set(nodes, (*nlines)++, id) != 0)
            return -1;
        jnode *n = &j->nodes[id];
        if (instr_job_grow(&n->locs, &n->caplocs, n->nlocs + 1, sizeof *n->locs) != 0)
            return -1;
        n->locs[n->nlocs++] = (jloc){jloc_id, s, NULL, NULL, NULL};
        instr_job_add_stats(&n->s, &s);
        j->last_node = id;
        return 0;
    }
    case 'Y': {
        instr_profile_mem_totals m;
        jgroup *g = instr_job_group(j, rank);
        if (!g || sscanf(line, "Y %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
                               " %" SCNu64 " %" SCNu64, &m.allocs, &m.frees, &m.bytes_allocated,
                         &m.bytes_freed, &m.high_water, &m.live_bytes, &m.live_blocks) != 7)
            return -1;
        g->mem = m;
        g->has_memory = 1;
        return 0;
    }
    case 'O': {
        instr_profile_io_totals t;
        int p;
        jgroup *g = instr_job_group(j, rank);
        if (!g || sscanf(line, "O %d %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64,
                         &p, &t.ops, &t.failed, &t.bytes_read, &t.bytes_written, &t.ns) != 6 ||
            p < 0 || p >= INSTR_PROFILE_IO_PARADIGMS)
            return -1;
        g->io[p] = t;
        g->has_io = 1;
        return 0;
    }
    case 'M':
        return instr_job_metrics_def(&j->metrics, line);
    case 'V': {
        if (j->last_node >= j->n || !j->nodes[j->last_node].nlocs)
            return -1;
        jnode *n = &j->nodes[j->last_node];
        return instr_job_metrics_values(&j->metrics, line, &n->m, 0, &n->locs[n->nlocs - 1].m);
    }
    default:
        return -1;
    }
}

INSTR_EXT_EXPORT int instr_ext_job_add(instr_job *j, int rank, const char *blob, size_t len)
{
    static const char magic[] = "instr-job-profile 1\n";
    if (!j || len < sizeof magic - 1 || memcmp(blob, magic, sizeof magic - 1) != 0) {
        instr_warn("job profile: rank %d sent no readable profile; it is left out", rank);
        return -1;
    }
    vec32 regs = {0}, locs = {0}, nodes = {0};
    uint32_t nlines = 0;
    instr_job_metrics_blob_begin(&j->metrics);
    j->last_node = UINT32_MAX;
    int rc = 0;
    char line[8192];
    for (size_t pos = sizeof magic - 1; pos < len && rc == 0;) {
        const char *nl = memchr(blob + pos, '\n', len - pos);
        size_t l = (nl ? (size_t)(nl - blob) : len) - pos;
        char *p = l < sizeof line ? line : instr_mem_alloc(l + 1);
        if (!p) {
            rc = -1;
            break;
        }
        memcpy(p, blob + pos, l);
        p[l] = '\0';
        if (l)
            rc = add_line(j, rank, p, &regs, &locs, &nodes, &nlines);
        if (p != line)
            instr_mem_free(p);
        pos += l + 1;
    }
    instr_mem_free(regs.v);
    instr_mem_free(locs.v);
    instr_mem_free(nodes.v);
    if (rc != 0) {
        j->failed = 1;
        instr_warn("job profile: rank %d's profile is malformed or memory ran out while merging "
                   "it; the job profile is incomplete (rank %d's own files are complete)",
                   rank, rank);
    }
    return rc;
}
