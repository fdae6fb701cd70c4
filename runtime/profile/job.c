/* job.c — a parallel job's profile (see job.h and ../core/ext.h).
 *
 * Message counts: per call-tree node of the thread that sent or received, in a table keyed
 * by the node's address (MPI calls are rare next to function calls, so one mutex is fine).
 *
 * The blob is line-oriented text, one process's whole profile:
 *   instr-job-profile 1
 *   P <pid> <duration ns> <dropped> <unmatched exits> <closed at end> <timer> <hz>\t<host>
 *   L <location id> <tid> <end: thread-exit|program-end>
 *   R <handle> <line begin> <line end> <source>\t<name>\t<mangled>\t<file>\t<object>
 *   T <handle> <visit> <location> <mean ns> <excluded 0|1>: the region was throttled
 *     (INSTR_THROTTLE, runtime/throttle/); after its R line
 *   N <parent node or -1> <region> <location> <visits> <incl> <excl> <min incl> <max incl>
 *     <min excl> <max excl> <bytes sent> <bytes received> <sends> <receives> <collectives>
 *   M and V lines: metric definitions and a node's metric values (job_metrics.h)
 * N lines of one location come in pre-order (a parent before its children); node numbers
 * are the order of the N lines; times in ns.
 *
 * The merge (rank 0) keeps only the merged tree and one blob at a time: nodes are merged by
 * (merged parent, region), regions by (name, mangled, file, source). In an MPI job the
 * blobs carry no N and V lines: the call tree and its values come from the job database
 * (job_jdb.c), and above INSTR_JOB_PROFILE_MAX_RANKS no blob is sent at all. */
#include "job.h"
#include "cube.h"
#include "job_metrics.h"
#include "job_model.h"
#include "job_text.h"
#include "jobdb.h"
#include "path_map.h"
#include "profile.h"
#include "write_html.h"
#include "../core/ext.h"
#include "../core/clock.h"
#include "../core/config.h"
#include "../core/event.h"
#include "../core/experiment.h"
#include "../core/log.h"
#include "../core/registry.h"
#include "../core/signals.h"
#include "../util/text.h"
#include "../include/instr_abi.h"
#include "../metrics/metrics.h"
#include "../throttle/throttle.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef INSTR_VERSION_STRING
#define INSTR_VERSION_STRING "unknown"
#endif

/* ---- message counts per call-tree node ---- */

typedef struct msgrec {
    const instr_pnode *node; /* NULL: free */
    uint64_t bytes_sent, bytes_received, sends, receives, collectives;
} msgrec;

static msgrec *msgs;
static size_t msgs_cap, msgs_n;
static pthread_mutex_t msgs_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t ptr_slot(const void *p)
{
    uint64_t k = (uint64_t)(uintptr_t)p;
    k ^= k >> 29;
    k *= 0xbf58476d1ce4e5b9ull;
    return (size_t)(k >> 17);
}

static msgrec *msg_find(const instr_pnode *n, int create)
{
    if (create && 2 * (msgs_n + 1) > msgs_cap) {
        size_t cap = msgs_cap ? 2 * msgs_cap : 256;
        msgrec *t = calloc(cap, sizeof *t);
        if (!t)
            return NULL;
        for (size_t i = 0; i < msgs_cap; i++) {
            if (!msgs[i].node)
                continue;
            size_t j = ptr_slot(msgs[i].node) & (cap - 1);
            while (t[j].node)
                j = (j + 1) & (cap - 1);
            t[j] = msgs[i];
        }
        free(msgs);
        msgs = t;
        msgs_cap = cap;
    }
    if (!msgs_cap)
        return NULL;
    size_t j = ptr_slot(n) & (msgs_cap - 1);
    while (msgs[j].node && msgs[j].node != n)
        j = (j + 1) & (msgs_cap - 1);
    if (msgs[j].node)
        return &msgs[j];
    if (!create)
        return NULL;
    msgs[j].node = n;
    msgs_n++;
    return &msgs[j];
}

void instr_job_messages(uint64_t bytes_sent, uint64_t bytes_received, uint64_t sends,
                        uint64_t receives, uint64_t collectives)
{
    instr_location *loc = instr_tls_loc;
    int slot = instr_substrate_slot(&instr_profile_substrate);
    if (!loc || slot < 0 || instr_state_get() != INSTR_STATE_RUNNING)
        return;
    instr_pstate *s = loc->sub[slot];
    const instr_pnode *n = s ? instr_cct_current(s) : NULL;
    if (!n)
        return;
    pthread_mutex_lock(&msgs_lock);
    msgrec *m = msg_find(n, 1);
    if (m) {
        m->bytes_sent += bytes_sent;
        m->bytes_received += bytes_received;
        m->sends += sends;
        m->receives += receives;
        m->collectives += collectives;
    }
    pthread_mutex_unlock(&msgs_lock);
}

void instr_job_messages_add(const instr_pnode *n, instr_job_msgs *to)
{
    pthread_mutex_lock(&msgs_lock);
    const msgrec *m = msgs_n ? msg_find(n, 0) : NULL;
    if (m) {
        to->sent += m->sends;
        to->bytes_sent += m->bytes_sent;
        to->received += m->receives;
        to->bytes_received += m->bytes_received;
        to->collectives += m->collectives;
    }
    pthread_mutex_unlock(&msgs_lock);
}

void instr_job_messages_json(FILE *f, const instr_job_msgs *m)
{
    const struct { const char *name; uint64_t v; } fields[] = {
        {"messages_sent", m->sent}, {"bytes_sent", m->bytes_sent},
        {"messages_received", m->received}, {"bytes_received", m->bytes_received},
        {"collectives", m->collectives}};
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
        if (fields[i].v)
            fprintf(f, ", \"%s\": %" PRIu64, fields[i].name, fields[i].v);
}

int instr_job_messages_of(const instr_pnode *n, uint64_t out[5])
{
    pthread_mutex_lock(&msgs_lock);
    const msgrec *m = msg_find(n, 0);
    if (m) {
        out[0] = m->bytes_sent;
        out[1] = m->bytes_received;
        out[2] = m->sends;
        out[3] = m->receives;
        out[4] = m->collectives;
    }
    pthread_mutex_unlock(&msgs_lock);
    return m != NULL;
}

/* ---- this process's blob ---- */

void instr_job_clean_field(FILE *f, const char *s)
{
    for (; s && *s; s++)
        fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, f);
}

static void blob_node(FILE *f, const instr_pnode *n, int64_t parent, uint32_t loc, uint32_t nm)
{
    static const msgrec none;
    const msgrec *m = msg_find(n, 0);
    if (!m)
        m = &none;
    fprintf(f, "N %" PRId64 " %u %u %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
               " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
               " %" PRIu64 "\n",
            parent, n->region, loc, n->s.visits, instr_profile_ns(n->s.incl),
            instr_profile_ns(n->s.excl), instr_profile_min_ns(n->s.min_incl),
            instr_profile_ns(n->s.max_incl), instr_profile_min_ns(n->s.min_excl),
            instr_profile_ns(n->s.max_excl), m->bytes_sent, m->bytes_received, m->sends,
            m->receives, m->collectives);
    instr_job_blob_metric_values(f, n, nm);
}

char *instr_job_blob(const instr_run *run, size_t *len, int with_tree)
{
    int slot = instr_substrate_slot(&instr_profile_substrate);
    if (slot < 0)
        return NULL;
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    if (!f)
        return NULL;
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    uint64_t dropped = 0;
    for (uint32_t i = 0; i < run->nlocations; i++) {
        instr_pstate *ps = run->locations[i]->sub[slot];
        if (ps)
            dropped += ps->dropped;
    }
    fprintf(f, "instr-job-profile 1\nP %d %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %s %.0f\t",
            run->pid, instr_clock_to_ns(run->t_end - run->t_start), dropped,
            run->unmatched_exits, run->closed_at_end, instr_clock_name(), instr_clock_hz());
    instr_job_clean_field(f, host);
    fputc('\n', f);
    instr_job_blob_metric_defs(f);
    for (uint32_t i = 0; i < run->nlocations; i++) {
        const instr_location *l = run->locations[i];
        fprintf(f, "L %u %d %s\n", l->id, l->tid,
                l->ended == INSTR_LOC_THREAD_EXIT ? "thread-exit" : "program-end");
    }
    uint32_t nreg = instr_registry_count();
    for (uint32_t h = 1; h <= nreg; h++) {
        const instr_region_info *r = instr_registry_get(h);
        if (!r)
            continue;
        fprintf(f, "R %u %u %u %s\t", h, r->line_begin, r->line_end,
                instr_region_source_name(r->source));
        instr_job_clean_field(f, r->name);
        fputc('\t', f);
        instr_job_clean_field(f, r->mangled);
        fputc('\t', f);
        instr_job_clean_field(f, r->file);
        fputc('\t', f);
        instr_job_clean_field(f, r->object);
        fputc('\n', f);
        instr_throttle_mark mark;
        if (instr_throttle_mark_of(h, &mark))
            fprintf(f, "T %u %" PRIu64 " %u %" PRIu64 " %d\n", h, mark.visit, mark.location,
                    mark.mean_ns, mark.excluded);
    }
    pthread_mutex_lock(&msgs_lock);
    int64_t next = 0;
    for (uint32_t i = 0; i < run->nlocations && with_tree; i++) {
        instr_pstate *ps = run->locations[i]->sub[slot];
        if (!ps)
            continue;
        /* Pre-order walk; `merged` (free once the profile is written) holds the line number. */
        instr_pnode *root = &ps->root;
        for (instr_pnode *n = root->child; n; n = instr_pnode_next(root, n)) {
            int64_t parent = n->parent == root ? -1 : (int64_t)n->parent->merged;
            n->merged = (uint32_t)next++;
            blob_node(f, n, parent, run->locations[i]->id, ps->nm);
        }
    }
    pthread_mutex_unlock(&msgs_lock);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    *len = size;
    return buf;
}

/* ---- the merge (rank 0) ---- */


/* Grows the array whose pointer is at `pp` (any T **) to hold `need` elements
 * (job_metrics.h). */
int instr_job_grow(void *pp, uint32_t *cap, uint32_t need, size_t elem)
{
    return instr_jdb_grow(pp, cap, need, elem);
}

static uint64_t str_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

INSTR_EXT_EXPORT instr_job *instr_ext_job_new(void) { return calloc(1, sizeof(instr_job)); }

INSTR_EXT_EXPORT void instr_ext_job_free(instr_job *j)
{
    if (!j)
        return;
    for (uint32_t i = 0; i < j->n; i++) {
        for (uint32_t k = 0; k < j->nodes[i].nlocs; k++)
            free(j->nodes[i].locs[k].m);
        free(j->nodes[i].locs);
        free(j->nodes[i].m);
    }
    instr_job_metrics_free(&j->metrics);
    for (uint32_t i = 0; i < j->nregions; i++)
        free(j->regions[i].key);
    free(j->nodes);
    instr_path_map_free(&j->paths);
    free(j->regions);
    free(j->rslots);
    free(j->locs);
    free(j->groups);
    free(j);
}

static jgroup *group_of(instr_job *j, int rank)
{
    for (uint32_t i = 0; i < j->ngroups; i++)
        if (j->groups[i].rank == rank)
            return &j->groups[i];
    if (instr_job_grow(&j->groups, &j->capgroups, j->ngroups + 1, sizeof *j->groups) != 0)
        return NULL;
    jgroup *g = &j->groups[j->ngroups++];
    memset(g, 0, sizeof *g);
    g->rank = rank;
    return g;
}

INSTR_EXT_EXPORT void instr_ext_job_missing(instr_job *j, int rank)
{
    if (!j)
        return;
    jgroup *g = group_of(j, rank);
    if (g)
        g->present = 0;
}

/* The region id of key (tab-separated fields, copied), created when new; 0 on failure. */
uint32_t instr_job_region_id(instr_job *j, const char *key, uint32_t lb, uint32_t le)
{
    if (2 * (j->nregions + 1) > j->rcap) {
        uint32_t cap = j->rcap ? 2 * j->rcap : 256;
        uint32_t *t = calloc(cap, sizeof *t);
        if (!t)
            return 0;
        for (uint32_t i = 0; i < j->nregions; i++) {
            uint32_t s = (uint32_t)str_hash(j->regions[i].key) & (cap - 1);
            while (t[s])
                s = (s + 1) & (cap - 1);
            t[s] = i + 1;
        }
        free(j->rslots);
        j->rslots = t;
        j->rcap = cap;
    }
    uint32_t s = (uint32_t)str_hash(key) & (j->rcap - 1);
    while (j->rslots[s]) {
        if (strcmp(j->regions[j->rslots[s] - 1].key, key) == 0)
            return j->rslots[s];
        s = (s + 1) & (j->rcap - 1);
    }
    if (instr_job_grow(&j->regions, &j->capregions, j->nregions + 1, sizeof *j->regions) != 0)
        return 0;
    jregion *r = &j->regions[j->nregions];
    memset(r, 0, sizeof *r);
    /* The key, then a copy of it split at the tabs into the fields. */
    size_t klen = strlen(key);
    r->key = malloc(2 * klen + 2);
    if (!r->key)
        return 0;
    memcpy(r->key, key, klen + 1);
    char *copy = r->key + klen + 1;
    memcpy(copy, key, klen + 1);
    const char **out[] = {&r->source, &r->name, &r->mangled, &r->file, &r->object};
    char *p = copy;
    for (size_t k = 0; k < 5; k++) {
        *out[k] = p;
        char *tab = p ? strchr(p, '\t') : NULL;
        if (tab) {
            *tab = '\0';
            p = tab + 1;
        } else {
            p = copy + klen; /* missing fields are "" */
        }
    }
    r->line_begin = lb;
    r->line_end = le;
    j->rslots[s] = ++j->nregions;
    return j->nregions;
}

uint32_t instr_job_node_id(instr_job *j, int32_t parent, uint32_t region)
{
    int found;
    int64_t slot = instr_path_map_slot(&j->paths, parent, region, &found);
    if (slot < 0)
        return UINT32_MAX;
    if (found)
        return instr_path_map_val(&j->paths, slot);
    if (instr_job_grow(&j->nodes, &j->cap, j->n + 1, sizeof *j->nodes) != 0)
        return UINT32_MAX;
    jnode *n = &j->nodes[j->n];
    memset(n, 0, sizeof *n);
    n->parent = parent;
    n->region = region;
    n->depth = parent < 0 ? 0 : j->nodes[parent].depth + 1;
    n->s.min_incl = n->s.min_excl = UINT64_MAX;
    instr_path_map_set(&j->paths, (uint32_t)slot, parent, region, j->n);
    return j->n++;
}

void instr_job_add_stats(jstats *to, const jstats *s)
{
    to->visits += s->visits;
    to->incl += s->incl;
    to->excl += s->excl;
    if (s->min_incl < to->min_incl) to->min_incl = s->min_incl;
    if (s->max_incl > to->max_incl) to->max_incl = s->max_incl;
    if (s->min_excl < to->min_excl) to->min_excl = s->min_excl;
    if (s->max_excl > to->max_excl) to->max_excl = s->max_excl;
    to->bytes_sent += s->bytes_sent;
    to->bytes_received += s->bytes_received;
    to->sends += s->sends;
    to->receives += s->receives;
    to->collectives += s->collectives;
}

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
        jgroup *g = group_of(j, rank);
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
                   &parent, &region, &loc, &s.visits, &s.incl, &s.excl, &s.min_incl,
                   &s.max_incl, &s.min_excl, &s.max_excl, &s.bytes_sent, &s.bytes_received,
                   &s.sends, &s.receives, &s.collectives) != 15)
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
        n->locs[n->nlocs++] = (jloc){jloc_id, s, NULL};
        instr_job_add_stats(&n->s, &s);
        j->last_node = id;
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
        char *p = l < sizeof line ? line : malloc(l + 1);
        if (!p) {
            rc = -1;
            break;
        }
        memcpy(p, blob + pos, l);
        p[l] = '\0';
        if (l)
            rc = add_line(j, rank, p, &regs, &locs, &nodes, &nlines);
        if (p != line)
            free(p);
        pos += l + 1;
    }
    free(regs.v);
    free(locs.v);
    free(nodes.v);
    if (rc != 0) {
        j->failed = 1;
        instr_warn("job profile: rank %d's profile is malformed or memory ran out while merging "
                   "it; the job profile is incomplete (rank %d's own files are complete)",
                   rank, rank);
    }
    return rc;
}

/* ---- profile.json of the job ---- */

/* The message fields of docs/mpi.md, each only where it is not zero. */
static void messages_out(FILE *f, const jstats *s)
{
    instr_job_msgs m = {s->sends, s->bytes_sent, s->receives, s->bytes_received,
                        s->collectives};
    instr_job_messages_json(f, &m);
}

static void jstats_out(FILE *f, const jstats *s)
{
    fprintf(f,
            "\"visits\": %" PRIu64 ", \"inclusive\": %" PRIu64 ", \"exclusive\": %" PRIu64
            ", \"min_inclusive\": %" PRIu64 ", \"max_inclusive\": %" PRIu64
            ", \"min_exclusive\": %" PRIu64 ", \"max_exclusive\": %" PRIu64,
            s->visits, s->incl, s->excl, s->min_incl == UINT64_MAX ? 0 : s->min_incl,
            s->max_incl, s->min_excl == UINT64_MAX ? 0 : s->min_excl, s->max_excl);
    messages_out(f, s);
}

static int by_rank(const void *a, const void *b)
{
    const jgroup *x = a, *y = b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static void job_json(FILE *f, instr_job *j, const char *dir, int nranks)
{
    char exe[PATH_MAX] = "";
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) /* the main thread ended with pthread_exit: /proc/self is gone */
        n = readlink("/proc/thread-self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    fputs("{\n  \"format\": \"instr-profile\",\n  \"version\": 2,\n  \"time_unit\": \"ns\",\n", f);
    fputs("  \"run\": {\n    \"program\": ", f);
    instr_json_str(f, exe);
    fprintf(f, ",\n    \"duration\": %" PRIu64 ", \"timer\": ", j->duration);
    instr_json_str(f, j->timer);
    fprintf(f, ", \"timer_frequency_hz\": %.0f,\n    \"instr_version\": ", j->hz);
    instr_json_str(f, INSTR_VERSION_STRING);
    fprintf(f, ", \"abi_version\": %d,\n    \"experiment_directory\": ", INSTR_ABI_VERSION);
    instr_json_str(f, dir);
    fputs(",\n    \"configuration\": {", f);
    for (int i = 0; i < instr_config_count(); i++) {
        fputs(i ? ", " : "", f);
        instr_json_str(f, instr_config_name(i));
        fputs(": ", f);
        instr_json_str(f, instr_config_value(i));
    }
    fprintf(f, "},\n    \"mpi\": {\"ranks\": %d, \"ranks_merged\": [", nranks);
    int first = 1;
    for (uint32_t i = 0; i < j->ngroups; i++)
        if (j->groups[i].present) {
            fprintf(f, "%s%d", first ? "" : ", ", j->groups[i].rank);
            first = 0;
        }
    fputs("], \"ranks_missing\": [", f);
    first = 1;
    for (int r = 0; r < nranks; r++) {
        int present = 0;
        for (uint32_t i = 0; i < j->ngroups; i++)
            present |= j->groups[i].rank == r && j->groups[i].present;
        if (!present) {
            fprintf(f, "%s%d", first ? "" : ", ", r);
            first = 0;
        }
    }
    fprintf(f, "], \"complete\": %s%s},\n", j->failed ? "false" : "true",
            j->summary ? ", \"summary_over_ranks\": true" : "");
    fprintf(f, "    \"dropped_call_paths\": %" PRIu64 ", \"unmatched_exits\": %" PRIu64
               ", \"closed_at_end\": %" PRIu64 "\n  },\n",
            j->dropped, j->unmatched, j->closed);
    fputs("  \"location_groups\": [", f);
    first = 1;
    for (uint32_t i = 0; i < j->ngroups; i++) {
        const jgroup *g = &j->groups[i];
        if (!g->present)
            continue;
        fprintf(f, "%s\n    {\"id\": %d, \"kind\": \"process\", \"name\": \"rank %d\", "
                   "\"rank\": %d, \"pid\": %d, \"hostname\": ",
                first ? "" : ",", g->rank, g->rank, g->rank, g->pid);
        instr_json_str(f, g->host);
        fputc('}', f);
        first = 0;
    }
    fputs("\n  ],\n  \"locations\": [", f);
    for (uint32_t i = 0; i < j->nlocs; i++) {
        const jlocation *l = &j->locs[i];
        fprintf(f, "%s\n    {\"id\": %u, \"group\": %d, \"kind\": \"thread\", "
                   "\"name\": \"rank %d thread %u\", \"tid\": %d, \"rank_location\": %u, "
                   "\"end\": \"%s\"}",
                i ? "," : "", i, l->rank, l->rank, l->id_in_rank, l->tid, l->id_in_rank, l->end);
    }
    fputs("\n  ],\n", f);
    instr_job_metrics_json_defs(f, &j->metrics);
    fputs("  \"regions\": [", f);
    for (uint32_t i = 0; i < j->nregions; i++) {
        const jregion *r = &j->regions[i];
        fprintf(f, "%s\n    {\"id\": %u, \"name\": ", i ? "," : "", i + 1);
        instr_json_str(f, r->name);
        fputs(", \"mangled\": ", f);
        instr_json_str(f, r->mangled);
        fputs(", \"file\": ", f);
        instr_json_str(f, r->file);
        fprintf(f, ", \"line_begin\": %u, \"line_end\": %u, \"source\": ", r->line_begin,
                r->line_end);
        instr_json_str(f, r->source);
        fputs(", \"object\": ", f);
        instr_json_str(f, r->object);
        if (r->throttled_ranks)
            fprintf(f, ", \"throttled\": {\"visit\": %" PRIu64 ", \"rank\": %d, \"location\": %u, "
                       "\"mean_inclusive_ns\": %" PRIu64 ", \"excluded\": %s, \"ranks\": %u}",
                    r->throttled.visit, r->throttled_rank, r->throttled.location,
                    r->throttled.mean_ns, r->throttled.excluded ? "true" : "false",
                    r->throttled_ranks);
        fputc('}', f);
    }
    fputs("\n  ],\n  \"tree\": [", f);
    for (uint32_t i = 0; i < j->n; i++) {
        const jnode *mn = &j->nodes[i];
        fprintf(f, "%s\n    {\"id\": %u, \"parent\": ", i ? "," : "", i);
        if (mn->parent < 0)
            fputs("null", f);
        else
            fprintf(f, "%d", mn->parent);
        fprintf(f, ", \"depth\": %u, \"region\": %u, ", mn->depth, mn->region);
        jstats_out(f, &mn->s);
        instr_job_metrics_json_rows(f, &j->metrics, mn->m);
        fputs(",\n     \"locations\": [", f);
        for (uint32_t k = 0; k < mn->nlocs; k++) {
            fprintf(f, "%s{\"location\": %u, ", k ? ", " : "", mn->locs[k].location);
            jstats_out(f, &mn->locs[k].s);
            instr_job_metrics_json_rows(f, &j->metrics, mn->locs[k].m);
            fputc('}', f);
        }
        fputs("]}", f);
    }
    /* Flat: visits and exclusive over all nodes, inclusive over outermost ones. */
    fputs("\n  ],\n  \"flat\": [", f);
    first = 1;
    for (uint32_t r = 1; r <= j->nregions; r++) {
        jstats s = {0};
        for (uint32_t i = 0; i < j->n; i++) {
            const jnode *mn = &j->nodes[i];
            if (mn->region != r)
                continue;
            s.visits += mn->s.visits;
            s.excl += mn->s.excl;
            int outer = 1;
            for (int32_t p = mn->parent; p >= 0 && outer; p = j->nodes[p].parent)
                outer = j->nodes[p].region != r;
            if (outer)
                s.incl += mn->s.incl;
            s.bytes_sent += mn->s.bytes_sent;
            s.bytes_received += mn->s.bytes_received;
            s.sends += mn->s.sends;
            s.receives += mn->s.receives;
            s.collectives += mn->s.collectives;
        }
        if (!s.visits)
            continue;
        fprintf(f, "%s\n    {\"region\": %u, \"visits\": %" PRIu64 ", \"inclusive\": %" PRIu64
                   ", \"exclusive\": %" PRIu64,
                first ? "" : ",", r, s.visits, s.incl, s.excl);
        messages_out(f, &s);
        fputc('}', f);
        first = 0;
    }
    fputs("\n  ]\n}\n", f);
}

/* ---- profile.cubex of the job: machine > node (host) > process (rank) > thread ---- */

static void cube_region(const void *ctx, uint32_t i, instr_cube_region *out)
{
    const jregion *r = &((const instr_job *)ctx)->regions[i];
    *out = (instr_cube_region){r->name, r->mangled, r->file, r->source, r->line_begin,
                               r->line_end, NULL};
    /* Used by the writer before the next region is asked for. */
    static char throttled[160];
    if (r->throttled_ranks) {
        snprintf(throttled, sizeof throttled,
                 "throttled at visit %" PRIu64 " (mean inclusive time %" PRIu64
                 " ns, rank %d thread %u; %u rank%s)",
                 r->throttled.visit, r->throttled.mean_ns, r->throttled_rank,
                 r->throttled.location, r->throttled_ranks, r->throttled_ranks == 1 ? "" : "s");
        out->descr = throttled;
    }
}

static void cube_cnode(const void *ctx, uint32_t i, int32_t *parent, uint32_t *region)
{
    const jnode *n = &((const instr_job *)ctx)->nodes[i];
    *parent = n->parent;
    *region = n->region - 1;
}

static void cube_location(const void *ctx, uint32_t l, char *name, size_t size, uint32_t *rank)
{
    const jlocation *loc = &((const instr_job *)ctx)->locs[l];
    snprintf(name, size, "rank %d thread %u", loc->rank, loc->id_in_rank);
    *rank = loc->id_in_rank;
}

static void cube_row(const void *ctx, uint32_t i, instr_cube_cell *cells)
{
    const instr_job *j = ctx;
    const jnode *n = &j->nodes[i];
    for (uint32_t k = 0; k < n->nlocs; k++) {
        const jstats *s = &n->locs[k].s;
        if (n->locs[k].location < j->nlocs)
            cells[n->locs[k].location] = (instr_cube_cell){
                s->visits, s->incl, s->min_incl == UINT64_MAX ? 0 : s->min_incl, s->max_incl,
                s->bytes_sent, s->bytes_received, s->sends, s->receives, n->locs[k].m};
    }
}

static void cube_metric(const void *ctx, uint32_t i, instr_cube_metric *out)
{
    const instr_job_metrics *jm = &((const instr_job *)ctx)->metrics;
    *out = (instr_cube_metric){jm->name[i], jm->unit[i], jm->description[i], jm->type[i],
                               jm->base[i], jm->exponent[i], INSTR_MROW_INCL * jm->n + i};
}

/* The ranks' locations are contiguous in j->locs (one blob each, added whole). */
static int job_cube(FILE *f, const instr_job *j)
{
    instr_cube_group *groups = calloc((size_t)j->ngroups + 1, sizeof *groups);
    char (*names)[32] = calloc((size_t)j->ngroups + 1, sizeof *names);
    if (!groups || !names) {
        free(groups);
        free(names);
        return -1;
    }
    uint32_t ng = 0;
    for (uint32_t g = 0; g < j->ngroups; g++) {
        const jgroup *jg = &j->groups[g];
        if (!jg->present)
            continue;
        uint32_t first = 0, n = 0;
        while (first < j->nlocs && j->locs[first].rank != jg->rank)
            first++;
        while (first + n < j->nlocs && j->locs[first + n].rank == jg->rank)
            n++;
        snprintf(names[ng], sizeof names[ng], "rank %d", jg->rank);
        groups[ng] = (instr_cube_group){names[ng], jg->host, jg->rank, first, n};
        ng++;
    }
    instr_cube_src src = {
        .ctx = j, .nregions = j->nregions, .region = cube_region, .ncnodes = j->n,
        .cnode = cube_cnode, .groups = groups, .ngroups = ng, .nlocs = j->nlocs,
        .location = cube_location, .row = cube_row, .messages = 1,
        .nmetrics = j->metrics.n, .metric = cube_metric,
        .creator = "instr " INSTR_VERSION_STRING,
    };
    int rc = instr_cube_write(f, &src);
    free(groups);
    free(names);
    return rc;
}

typedef struct job_args {
    instr_job *j;
    const char *dir;
    int nranks;
} job_args;

static void job_json_to(FILE *f, void *arg)
{
    job_args *a = arg;
    job_json(f, a->j, a->dir, a->nranks);
}

/* The ranks of the job missing from the profile, e.g. "1, 3-5" ("" when none), cut with
 * ", ..." when out is full; how many into *n. Groups are sorted by rank. */
static void missing_ranks(const instr_job *j, int nranks, char *out, size_t size, int *n)
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

/* profile.txt of the job (job_text.h): a plain view of the merged profile. */
static int job_text(FILE *f, const instr_job *j, const char *dir, int nranks)
{
    uint64_t ncells = 0;
    for (uint32_t i = 0; i < j->n; i++)
        ncells += j->nodes[i].nlocs;
    int *ranks = malloc(((size_t)j->ngroups + 1) * sizeof *ranks);
    uint32_t *loc_rank = malloc(((size_t)j->nlocs + 1) * sizeof *loc_rank);
    const char **names = malloc(((size_t)j->nregions + 1) * sizeof *names);
    instr_job_text_path *paths = malloc(((size_t)j->n + 1) * sizeof *paths);
    instr_job_text_cell *cells = malloc(((size_t)ncells + 1) * sizeof *cells);
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
        paths[i] = (instr_job_text_path){n->parent, n->region - 1, n->s.visits, n->s.incl,
                                         n->s.excl, n->s.sends, n->s.bytes_sent, n->s.receives,
                                         n->s.bytes_received, n->s.collectives, cells + c, 0};
        for (uint32_t k = 0; k < n->nlocs; k++) {
            const jloc *l = &n->locs[k];
            if (l->location >= j->nlocs || loc_rank[l->location] == UINT32_MAX)
                continue;
            cells[c++] = (instr_job_text_cell){loc_rank[l->location], l->s.visits, l->s.incl,
                                               l->s.excl};
            paths[i].ncells++;
        }
    }
    missing_ranks(j, nranks, missing, sizeof missing, &nmissing);
    instr_job_text t = {dir, nranks, ranks, nmerged, missing, j->nlocs, j->duration, j->timer,
                        j->hz, j->dropped, names, j->nregions, paths, j->n};
    rc = instr_job_text_write(f, &t);
out:
    free(ranks);
    free(loc_rank);
    free(names);
    free(paths);
    free(cells);
    return rc;
}

/* One file of the job profile (profile.txt, profile.json, profile.cubex or profile.html) in
 * the job directory. 0, or -1 (the failure is reported and says where the ranks' own profiles
 * are). */
static int job_file(const char *name, job_args *a)
{
    instr_outfile o;
    int rc = instr_out_open_job(&o, name);
    if (rc == 0) {
        if (strcmp(name, "profile.json") == 0)
            job_json_to(o.f, a);
        else if (strcmp(name, "profile.txt") == 0) {
            if (job_text(o.f, a->j, a->dir, a->nranks) != 0 && !o.err)
                o.err = ENOMEM; /* out of memory: the partial file is removed */
        }
        else if (strcmp(name, "profile.html") == 0)
            instr_html_write(o.f, job_json_to, a);
        else if (job_cube(o.f, a->j) != 0 && !o.err)
            o.err = ENOMEM; /* out of memory: the partial file is removed */
        rc = instr_out_close(&o);
    }
    if (rc != 0) {
        instr_experiment_report_failures();
        instr_warn("job profile: %s/%s is not written; the ranks' own profiles are in %s/rank-*",
                   a->dir, name, a->dir);
    }
    return rc;
}

/* The hint of a job dominated by its instrumentation, once, from the merged profile: per
 * region its visits over all call paths and its inclusive time over the outermost ones. */
static void job_hint(const instr_job *j, const char *dir)
{
    uint64_t *visits = calloc((size_t)j->nregions + 1, sizeof *visits);
    uint64_t *incl = calloc((size_t)j->nregions + 1, sizeof *incl);
    if (visits && incl) {
        for (uint32_t i = 0; i < j->n; i++) {
            const jnode *mn = &j->nodes[i];
            if (mn->region < 1 || mn->region > j->nregions)
                continue;
            visits[mn->region] += mn->s.visits;
            int outer = 1;
            for (int32_t p = mn->parent; p >= 0 && outer; p = j->nodes[p].parent)
                outer = j->nodes[p].region != mn->region;
            if (outer)
                incl[mn->region] += mn->s.incl;
        }
        uint32_t n = 0, top = 0;
        for (uint32_t r = 1; r <= j->nregions; r++) {
            if (!instr_profile_hint_region(visits[r], incl[r]))
                continue;
            n++;
            if (!top || visits[r] > visits[top])
                top = r;
        }
        if (n)
            instr_profile_hint("MPI job", dir, n, j->regions[top - 1].name, visits[top], incl[top]);
    }
    free(visits);
    free(incl);
}

/* The job's one line at the end (rank 0; the ranks' own lines only with INSTR_VERBOSE):
 * what was written where, how many ranks, which are missing. */
static void job_summary(const instr_job *j, const char *dir, int nranks, const char *files)
{
    if (instr_verbose < 0)
        return;
    char where[PATH_MAX], missing[512], lost[640] = "";
    int nmissing;
    instr_escaped(where, sizeof where, dir);
    missing_ranks(j, nranks, missing, sizeof missing, &nmissing);
    if (nmissing)
        snprintf(lost, sizeof lost, "; %s %s missing from it (%d of %d: ended early or sent "
                 "nothing)", nmissing == 1 ? "rank" : "ranks", missing, nmissing, nranks);
    char own[64];
    if (nranks == 1)
        snprintf(own, sizeof own, "the rank's own files in rank-0/");
    else
        snprintf(own, sizeof own, "each rank's own files in rank-0/ to rank-%d/", nranks - 1);
    instr_warn("MPI job of %d rank%s: %s%s %s%s; %s", nranks, nranks == 1 ? "" : "s",
               *files ? files : "no job profile file", *files ? " written to" : " in", where,
               lost, own);
}

INSTR_EXT_EXPORT int instr_ext_job_write(instr_job *j, const char *dir, int nranks)
{
    if (!j || !dir)
        return -1;
    instr_io_guard g;
    instr_io_guard_begin(&g);
    qsort(j->groups, j->ngroups, sizeof *j->groups, by_rank);
    job_args a = {j, dir, nranks};
    static const struct { const char *name; uint32_t format; } outs[] = {
        {"profile.txt", INSTR_FORMAT_TXT}, {"profile.json", INSTR_FORMAT_JSON},
        {"profile.cubex", INSTR_FORMAT_CUBEX}, {"profile.html", INSTR_FORMAT_HTML}};
    char files[128] = "";
    int rc = 0;
    for (size_t i = 0; i < sizeof outs / sizeof *outs; i++) {
        if (!(instr_cfg.profiling_formats & outs[i].format))
            continue;
        if (outs[i].format == INSTR_FORMAT_CUBEX && j->summary)
            continue; /* CUBE has no place for sums without locations */
        if (job_file(outs[i].name, &a) != 0) {
            rc = -1;
            continue;
        }
        size_t len = strlen(files);
        snprintf(files + len, sizeof files - len, "%s%s", len ? ", " : "", outs[i].name);
    }
    instr_io_guard_end(&g);
    job_summary(j, dir, nranks, files);
    job_hint(j, dir);
    return rc;
}
