/* score.c — totals and the table (docs/score.md): what the trace of the measured program
 * would cost, per region type and per region, before and after a filter. */
#define _GNU_SOURCE /* strdup */
#include "score.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *score_type_name(int type)
{
    static const char *const names[] = {"USR", "COM", "MPI", "OMP", "ALL"};
    return type >= 0 && type <= SCORE_NTYPES ? names[type] : "?";
}

/* MPI records besides enter and exit, per visit and per message (see score.h). */
static int mpi_collective(const char *name)
{
    static const char *const names[] = {
        "Barrier", "Bcast", "Reduce", "Allreduce", "Gather", "Gatherv", "Allgather",
        "Allgatherv", "Scatter", "Scatterv", "Alltoall", "Alltoallv", "Alltoallw", "Scan",
        "Exscan", "Reduce_scatter", "Reduce_scatter_block"};
    if (strncmp(name, "MPI_", 4) != 0)
        return 0;
    name += 4;
    if (name[0] == 'I' && name[1] >= 'a' && name[1] <= 'z') /* MPI_Ibcast, MPI_Iallreduce */
        name++;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcasecmp(name, names[i]) == 0)
            return 1;
    return 0;
}

static uint64_t node_bytes(const score_region *r, uint64_t visits, uint64_t sent, uint64_t received)
{
    uint64_t bytes = 2 * visits * SCORE_BYTES_PER_EVENT;
    if (r->type != SCORE_MPI)
        return bytes;
    int nonblocking_send = strncmp(r->name, "MPI_I", 5) == 0;
    int completion = strncmp(r->name, "MPI_Wait", 8) == 0 || strncmp(r->name, "MPI_Test", 8) == 0;
    uint64_t records = (nonblocking_send ? 2 : 1) * sent + (completion ? 2 : 1) * received;
    if (mpi_collective(r->name))
        records += 2 * visits;
    return bytes + records * SCORE_BYTES_PER_MPI_RECORD;
}

/* Expected size of one compressed value of a counter whose values spread evenly over
 * 0 .. total: 1 byte and the value's significant bytes. */
static double value_bytes(uint32_t type, double total)
{
    if (type == SCORE_METRIC_DOUBLE)
        return total != 0.0 ? 9.0 : 1.0; /* a double's 64 bits, high ones set */
    if (total < 0)
        return 9.0; /* two's complement: all bytes significant */
    double bytes = 1.0, step = 1.0;
    for (int k = 0; k < 8; k++, step *= 256.0)
        if (total + 1.0 > step) /* P(value >= 256^k) */
            bytes += (total + 1.0 - step) / (total + 1.0);
    return bytes;
}

score_metric_cost score_metric_cost_of(size_t n, const uint32_t *types, const double *totals)
{
    score_metric_cost c = {0.0, 0};
    if (!n)
        return c;
    c.disk = SCORE_METRIC_EVENT_BYTES;
    for (size_t i = 0; i < n; i++)
        c.disk += 1.0 + value_bytes(types[i], totals[i]);
    c.buffer = SCORE_METRIC_BUFFER_BYTES * n;
    return c;
}

int score_region_init(score_region *r, const char *name, const char *mangled, const char *file,
                      const char *source, size_t ngroups)
{
    r->name = strdup(name ? name : "");
    r->mangled = strdup(mangled ? mangled : "");
    r->file = strdup(file ? file : "");
    r->source = strdup(source ? source : "");
    r->group_bytes = calloc(ngroups + 1, sizeof *r->group_bytes);
    r->group_buffer = calloc(ngroups + 1, sizeof *r->group_buffer);
    if (!r->name || !r->mangled || !r->file || !r->source || !r->group_bytes || !r->group_buffer)
        return -1;
    r->type = strcmp(r->source, "mpi") == 0      ? SCORE_MPI
              : strcmp(r->source, "openmp") == 0 ? SCORE_OMP
                                                 : SCORE_USR;
    r->is_main = strcmp(r->name, "main") == 0;
    return 0;
}

void score_add_node(score_region *r, size_t g, uint64_t visits, uint64_t sent, uint64_t received,
                    const score_metric_cost *mc)
{
    uint64_t base = node_bytes(r, visits, sent, received);
    r->group_bytes[g] += base + (mc ? (uint64_t)(2.0 * (double)visits * mc->disk + 0.5) : 0);
    r->group_buffer[g] += base + (mc ? 2 * visits * mc->buffer : 0);
}

static int is_parallel(const score_region *r) { return r->type == SCORE_MPI || r->type == SCORE_OMP; }

void score_finish(score_profile *p, const int64_t *parent, const size_t *region, size_t n)
{
    for (size_t i = 0; i < p->nregions; i++)
        for (size_t g = 0; g < p->ngroups; g++)
            if (p->regions[i].group_bytes[g] > p->regions[i].max_buf)
                p->regions[i].max_buf = p->regions[i].group_bytes[g];
    /* Which call paths lead to MPI or OpenMP: children come after their parents, so a walk
     * backwards sees a node's whole subtree before the node. */
    uint8_t *leads = calloc(n + 1, 1);
    if (!leads)
        return;
    for (size_t i = n; i-- > 0;) {
        score_region *sr = &p->regions[region[i]];
        if (is_parallel(sr))
            leads[i] = 1;
        else if (leads[i])
            sr->type = SCORE_COM;
        if (leads[i] && parent[i] >= 0 && (size_t)parent[i] < i)
            leads[parent[i]] = 1;
    }
    free(leads);
}

static int by_string(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The trace's definitions: region names, distinct files, per location a little. */
static uint64_t definition_bytes(const score_profile *p, int all)
{
    uint64_t bytes = SCORE_DEF_BYTES_FIXED + p->nlocations * SCORE_DEF_BYTES_PER_LOCATION;
    const char **files = malloc((p->nregions + 1) * sizeof *files);
    size_t nf = 0;
    for (size_t i = 0; i < p->nregions; i++) {
        const score_region *r = &p->regions[i];
        if (!all && r->filtered)
            continue;
        bytes += strlen(r->name) + SCORE_DEF_BYTES_PER_REGION;
        if (strcmp(r->mangled, r->name) != 0)
            bytes += strlen(r->mangled);
        if (files)
            files[nf++] = r->file;
    }
    if (files) {
        qsort(files, nf, sizeof *files, by_string);
        for (size_t i = 0; i < nf; i++)
            if (!i || strcmp(files[i], files[i - 1]) != 0)
                bytes += strlen(files[i]) + SCORE_DEF_BYTES_PER_FILE;
    }
    free(files);
    return bytes;
}

void score_totals_of(const score_profile *p, int all, score_totals *t)
{
    memset(t, 0, sizeof *t);
    uint64_t busiest_memory = 0;
    for (size_t g = 0; g < p->ngroups; g++) {
        uint64_t bytes[SCORE_NTYPES + 1] = {0}, buffer = 0;
        for (size_t i = 0; i < p->nregions; i++) {
            const score_region *r = &p->regions[i];
            if (!all && r->filtered)
                continue;
            uint64_t b = r->group_bytes[g];
            bytes[r->type] += b;
            bytes[SCORE_NTYPES] += b;
            buffer += r->group_buffer[g];
        }
        for (int k = 0; k <= SCORE_NTYPES; k++)
            if (bytes[k] > t->max_buf[k])
                t->max_buf[k] = bytes[k];
        t->trace_bytes += bytes[SCORE_NTYPES];
        uint64_t mem = buffer + p->group_callpaths[g] * SCORE_BYTES_PER_CALL_PATH;
        if (mem > busiest_memory)
            busiest_memory = mem;
    }
    for (size_t i = 0; i < p->nregions; i++) {
        const score_region *r = &p->regions[i];
        if (!all && r->filtered)
            continue;
        t->visits[r->type] += r->visits;
        t->visits[SCORE_NTYPES] += r->visits;
        t->excl_ns[r->type] += r->excl_ns;
        t->excl_ns[SCORE_NTYPES] += r->excl_ns;
    }
    t->trace_bytes += definition_bytes(p, all);
    /* A tenth more than the busiest process needs, in whole MiB, at least the minimum. */
    uint64_t mib = (busiest_memory + busiest_memory / 10 + (1u << 20) - 1) >> 20;
    t->total_memory = (mib ? mib : 1) << 20;
}

/* 1234567 -> "1,234,567" */
static const char *grouped(char *buf, size_t size, uint64_t v)
{
    char digits[32];
    int n = snprintf(digits, sizeof digits, "%llu", (unsigned long long)v), o = 0;
    for (int i = 0; i < n && (size_t)o + 2 < size; i++) {
        if (i && (n - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}

static const char *human(char *buf, size_t size, uint64_t bytes)
{
    static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    snprintf(buf, size, u ? "%.1f %s" : "%.0f %s", v, units[u]);
    return buf;
}

static void row(FILE *f, const char *flt, const char *type, uint64_t max_buf, uint64_t visits,
                uint64_t excl_ns, uint64_t total_ns, const char *region)
{
    char b1[32], b2[32];
    fprintf(f, "%3s %4s %17s %15s %11.3f %7.1f %14.3f  %s\n", flt, type,
            grouped(b1, sizeof b1, max_buf), grouped(b2, sizeof b2, visits), (double)excl_ns / 1e9,
            total_ns ? 100.0 * (double)excl_ns / (double)total_ns : 0.0,
            visits ? (double)excl_ns / (double)visits / 1e3 : 0.0, region);
}

static void summary(FILE *f, const score_totals *t, const char *flt, uint64_t total_ns)
{
    row(f, flt, "ALL", t->max_buf[SCORE_NTYPES], t->visits[SCORE_NTYPES],
        t->excl_ns[SCORE_NTYPES], total_ns, "ALL");
    for (int k = 0; k < SCORE_NTYPES; k++)
        row(f, flt, score_type_name(k), t->max_buf[k], t->visits[k], t->excl_ns[k], total_ns,
            score_type_name(k));
}

static const score_profile *sort_p;

static int by_max_buf(const void *a, const void *b)
{
    const score_region *x = &sort_p->regions[*(const size_t *)a];
    const score_region *y = &sort_p->regions[*(const size_t *)b];
    if (x->max_buf != y->max_buf)
        return x->max_buf < y->max_buf ? 1 : -1;
    return (x->excl_ns < y->excl_ns) - (x->excl_ns > y->excl_ns);
}

void score_print(FILE *f, const score_profile *p, int per_region, int with_filter)
{
    score_totals all, kept;
    score_totals_of(p, 1, &all);
    score_totals_of(p, 0, &kept);
    const score_totals *est = with_filter ? &kept : &all;
    char b1[32], b2[32];
    fprintf(f, "Estimated aggregate size of event trace:                   %s bytes (%s)\n",
            grouped(b1, sizeof b1, est->trace_bytes), human(b2, sizeof b2, est->trace_bytes));
    fprintf(f, "Estimated requirements for largest trace buffer (max_buf): %s bytes (%s)\n",
            grouped(b1, sizeof b1, est->max_buf[SCORE_NTYPES]),
            human(b2, sizeof b2, est->max_buf[SCORE_NTYPES]));
    fprintf(f, "Estimated memory requirements (INSTR_TOTAL_MEMORY):        %lluM\n",
            (unsigned long long)(est->total_memory >> 20));
    fprintf(f, "(hint: when tracing, set INSTR_TOTAL_MEMORY=%lluM to avoid flushes during the run,\n"
               " or leave regions out at compile time: instr-score -g writes a spec for that)\n",
            (unsigned long long)(est->total_memory >> 20));
    fprintf(f, "(from %s: %zu processes, %zu threads, %zu regions, %zu call paths)\n",
            p->source, p->ngroups, p->nlocations, p->nregions, p->ncallpaths);
    size_t throttled = 0;
    for (size_t i = 0; i < p->nregions; i++)
        throttled += p->regions[i].throttled_visit != 0;
    if (throttled)
        fprintf(f, "(%zu region%s throttled by INSTR_THROTTLE: %s visits stop there, so the trace "
                   "estimate is low; -r marks them, -g leaves them out)\n",
                throttled, throttled == 1 ? " was" : "s were", throttled == 1 ? "its" : "their");
    fputc('\n', f);
    fprintf(f, "flt type        max_buf[B]          visits     time[s] time[%%] time/visit[us]  region\n");
    summary(f, &all, "", all.excl_ns[SCORE_NTYPES]);
    if (with_filter) {
        score_totals removed;
        memset(&removed, 0, sizeof removed);
        for (int k = 0; k <= SCORE_NTYPES; k++) {
            removed.visits[k] = all.visits[k] - kept.visits[k];
            removed.excl_ns[k] = all.excl_ns[k] - kept.excl_ns[k];
            removed.max_buf[k] = all.max_buf[k] - kept.max_buf[k];
        }
        fputc('\n', f);
        row(f, "-", "FLT", removed.max_buf[SCORE_NTYPES], removed.visits[SCORE_NTYPES],
            removed.excl_ns[SCORE_NTYPES], all.excl_ns[SCORE_NTYPES], "FLT (left out by the spec)");
        summary(f, &kept, "*", all.excl_ns[SCORE_NTYPES]);
    }
    if (!per_region)
        return;
    size_t *order = malloc((p->nregions + 1) * sizeof *order);
    if (!order)
        return;
    for (size_t i = 0; i < p->nregions; i++)
        order[i] = i;
    sort_p = p;
    qsort(order, p->nregions, sizeof *order, by_max_buf);
    fputc('\n', f);
    for (size_t k = 0; k < p->nregions; k++) {
        const score_region *r = &p->regions[order[k]];
        if (!r->visits)
            continue;
        char name[2048], marked[4096];
        score_escape(name, sizeof name, r->name);
        if (r->throttled_visit)
            snprintf(marked, sizeof marked, "%s  [throttled at visit %llu]", name,
                     (unsigned long long)r->throttled_visit);
        row(f, with_filter ? (r->filtered ? "-" : "+") : "", score_type_name(r->type), r->max_buf,
            r->visits, r->excl_ns, all.excl_ns[SCORE_NTYPES],
            r->throttled_visit ? marked : name);
    }
    free(order);
}

int score_has_control(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return 1;
    return 0;
}

void score_escape(char *out, size_t size, const char *s)
{
    size_t n = 0;
    for (; *s && n + 5 < size; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '\\') {
            out[n++] = '\\';
            out[n++] = '\\';
        } else if (c == '\n') {
            out[n++] = '\\';
            out[n++] = 'n';
        } else if (c == '\t') {
            out[n++] = '\\';
            out[n++] = 't';
        } else if (c < 0x20 || c == 0x7f) {
            n += (size_t)snprintf(out + n, size - n, "\\x%02x", c);
        } else {
            out[n++] = (char)c;
        }
    }
    out[n < size ? n : size - 1] = '\0';
}
