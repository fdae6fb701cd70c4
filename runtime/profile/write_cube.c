/* write_cube.c — the CUBE4 archive (docs/profile-format.md, "profile.cubex").
 *
 * A POSIX tar (ustar) archive of anchor.xml (metrics, regions, the call tree, the system
 * tree) and, per metric N, N.index and N.data. Every metric is of CUBE's EXCLUSIVE kind, as
 * Score-P writes them: a cell holds the call path's own value (a reader sums a subtree for
 * the inclusive one), and the rows are in the order of a depth-first walk of the call tree,
 * which is also the cnode numbering, so the sparse index lists 0 .. N-1 and the data file
 * holds N rows of one value per location in location order. Numbers are in the writing
 * machine's byte order; the index's endianness word (1) tells a reader which that is. */
#include "cube.h"
#include "../core/text.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

enum { M_VISITS, M_TIME, M_MIN_TIME, M_MAX_TIME, M_BYTES_SENT, M_BYTES_RECEIVED, M_COUNT };

static const struct {
    const char *uniq, *disp, *dtype, *uom, *descr;
} metrics[M_COUNT] = {
    {"visits", "Visits", "UINT64", "occ", "Number of visits"},
    {"time", "Time", "DOUBLE", "sec", "Time spent in the call path, callees excluded"},
    {"min_time", "Minimum Inclusive Time", "MINDOUBLE", "sec",
     "Shortest single visit of the call path, callees included"},
    {"max_time", "Maximum Inclusive Time", "MAXDOUBLE", "sec",
     "Longest single visit of the call path, callees included"},
    {"bytes_sent", "Bytes Sent", "UINT64", "bytes", "Bytes sent in point-to-point and collective MPI calls"},
    {"bytes_received", "Bytes Received", "UINT64", "bytes",
     "Bytes received in point-to-point and collective MPI calls"},
};

/* XML text: the five special characters as entities; controls that XML 1.0 cannot carry and
 * bytes that are not well-formed UTF-8 as U+FFFD. */
static void xml_str(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        int n = instr_utf8_len(p);
        if (n == 0 || (*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r')) {
            fputs("\xef\xbf\xbd", f);
            continue;
        }
        if (n > 1) {
            fwrite(p, 1, (size_t)n, f);
            p += n - 1;
            continue;
        }
        switch (*p) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default: fputc(*p, f);
        }
    }
}

static const char *paradigm(const char *source)
{
    if (strcmp(source, "mpi") == 0)
        return "mpi";
    if (strcmp(source, "openmp") == 0)
        return "openmp";
    if (strcmp(source, "manual") == 0)
        return "user";
    return "compiler";
}

/* Score-P's region roles for OpenMP constructs, from the construct's name ("!$omp for @f"). */
static const char *role(const char *source, const char *name)
{
    if (strcmp(source, "openmp") != 0)
        return "function";
    static const struct { const char *prefix, *role; } roles[] = {
        {"!$omp implicit barrier", "implicit barrier"}, {"!$omp implicit task", "task"},
        {"!$omp parallel", "parallel"}, {"!$omp barrier", "barrier"}, {"!$omp for", "loop"},
        {"!$omp loop", "loop"}, {"!$omp single", "single"}, {"!$omp master", "master"},
        {"!$omp masked", "master"}, {"!$omp critical", "critical"}, {"!$omp atomic", "atomic"},
        {"!$omp sections", "sections"}, {"!$omp section", "section"},
        {"!$omp ordered", "ordered"}, {"!$omp taskwait", "taskwait"},
        {"!$omp taskgroup", "taskgroup"}, {"!$omp task", "task"},
    };
    for (size_t i = 0; i < sizeof roles / sizeof *roles; i++)
        if (strncmp(name, roles[i].prefix, strlen(roles[i].prefix)) == 0)
            return roles[i].role;
    return "artificial";
}

/* The call tree in depth-first order: order[k] is the source index of cnode k. Children
 * keep the source's order. */
static uint32_t *dfs_order(const instr_cube_src *src)
{
    uint32_t n = src->ncnodes;
    uint32_t *first = malloc(((size_t)n + 1) * sizeof *first);
    uint32_t *next = malloc(((size_t)n + 1) * sizeof *next);
    uint32_t *last = malloc(((size_t)n + 1) * sizeof *last);
    uint32_t *order = malloc(((size_t)n + 1) * sizeof *order);
    uint32_t *stack = malloc(((size_t)n + 1) * sizeof *stack);
    if (!first || !next || !last || !order || !stack) {
        free(order);
        order = NULL;
        goto out;
    }
    /* Slot n is the virtual root above all roots. */
    for (uint32_t i = 0; i <= n; i++)
        first[i] = next[i] = last[i] = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++) {
        int32_t parent;
        uint32_t region;
        src->cnode(src->ctx, i, &parent, &region);
        uint32_t p = parent < 0 || (uint32_t)parent >= i ? n : (uint32_t)parent;
        if (last[p] == UINT32_MAX)
            first[p] = i;
        else
            next[last[p]] = i;
        last[p] = i;
    }
    uint32_t k = 0, sp = 0;
    for (uint32_t r = first[n]; r != UINT32_MAX; r = next[r]) {
        stack[sp++] = r;
        while (sp) {
            uint32_t v = stack[--sp];
            order[k++] = v;
            /* Children pushed last-first so the first child comes out first. */
            uint32_t nc = 0;
            for (uint32_t c = first[v]; c != UINT32_MAX; c = next[c])
                nc++;
            uint32_t at = sp + nc;
            for (uint32_t c = first[v]; c != UINT32_MAX; c = next[c])
                stack[--at] = c;
            sp += nc;
        }
    }
out:
    free(first);
    free(next);
    free(last);
    free(stack);
    return order;
}

static void cnodes_xml(FILE *f, const instr_cube_src *src, const uint32_t *order)
{
    /* depth[k]: nesting of cnode k; a parent's depth is known before its children's. */
    uint32_t open = 0;
    int32_t *cube_id = malloc(((size_t)src->ncnodes + 1) * sizeof *cube_id);
    uint32_t *depth = malloc(((size_t)src->ncnodes + 1) * sizeof *depth);
    if (!cube_id || !depth) {
        free(cube_id);
        free(depth);
        return;
    }
    for (uint32_t k = 0; k < src->ncnodes; k++)
        cube_id[order[k]] = (int32_t)k;
    for (uint32_t k = 0; k < src->ncnodes; k++) {
        int32_t parent;
        uint32_t region;
        src->cnode(src->ctx, order[k], &parent, &region);
        uint32_t d = parent < 0 || (uint32_t)parent >= order[k]
                         ? 0 : depth[cube_id[parent]] + 1;
        depth[k] = d;
        for (; open > d; open--)
            fputs("</cnode>\n", f);
        fprintf(f, "<cnode id=\"%u\" calleeId=\"%u\">\n", k, region);
        open = d + 1;
    }
    for (; open; open--)
        fputs("</cnode>\n", f);
    free(cube_id);
    free(depth);
}

static void system_xml(FILE *f, const instr_cube_src *src)
{
    fputs("<system>\n<systemtreenode Id=\"0\">\n<name>machine</name>\n<class>machine</class>\n", f);
    /* One node per host, in the order of first appearance; its processes in group order. */
    uint32_t node = 1, loc = 0;
    for (uint32_t g = 0; g < src->ngroups; g++) {
        const char *host = src->groups[g].host ? src->groups[g].host : "";
        uint32_t seen = 0;
        for (uint32_t h = 0; h < g && !seen; h++)
            seen = strcmp(src->groups[h].host ? src->groups[h].host : "", host) == 0;
        if (seen)
            continue;
        fprintf(f, "<systemtreenode Id=\"%u\">\n<name>", node++);
        xml_str(f, *host ? host : "localhost");
        fputs("</name>\n<class>node</class>\n", f);
        for (uint32_t p = g; p < src->ngroups; p++) {
            const instr_cube_group *gr = &src->groups[p];
            if (strcmp(gr->host ? gr->host : "", host) != 0)
                continue;
            fprintf(f, "<locationgroup Id=\"%u\">\n<name>", p);
            xml_str(f, gr->name);
            fprintf(f, "</name>\n<rank>%d</rank>\n<type>process</type>\n", gr->rank);
            for (uint32_t l = 0; l < gr->nlocs; l++) {
                char name[96];
                uint32_t rank = l;
                src->location(src->ctx, gr->first_loc + l, name, sizeof name, &rank);
                fprintf(f, "<location Id=\"%u\">\n<name>", loc++);
                xml_str(f, name);
                fprintf(f, "</name>\n<rank>%u</rank>\n<type>thread</type>\n</location>\n", rank);
            }
            fputs("</locationgroup>\n", f);
        }
        fputs("</systemtreenode>\n", f);
    }
    fputs("</systemtreenode>\n</system>\n", f);
}

/* cube location id -> source location, in the system tree's order. */
static uint32_t *location_order(const instr_cube_src *src)
{
    uint32_t *map = malloc(((size_t)src->nlocs + 1) * sizeof *map), k = 0;
    if (!map)
        return NULL;
    for (uint32_t g = 0; g < src->ngroups; g++) {
        const char *host = src->groups[g].host ? src->groups[g].host : "";
        uint32_t seen = 0;
        for (uint32_t h = 0; h < g && !seen; h++)
            seen = strcmp(src->groups[h].host ? src->groups[h].host : "", host) == 0;
        if (seen)
            continue;
        for (uint32_t p = g; p < src->ngroups; p++)
            if (strcmp(src->groups[p].host ? src->groups[p].host : "", host) == 0)
                for (uint32_t l = 0; l < src->groups[p].nlocs && k < src->nlocs; l++)
                    map[k++] = src->groups[p].first_loc + l;
    }
    while (k < src->nlocs) /* locations of no group (none from the callers) */
        map[k] = k, k++;
    return map;
}

static char *anchor(const instr_cube_src *src, const uint32_t *order, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f)
        return NULL;
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<cube version=\"4.4\">\n", f);
    fputs("<attr key=\"CUBE_CT_AGGR\" value=\"SUM\"/>\n<attr key=\"Creator\" value=\"", f);
    xml_str(f, src->creator);
    fputs("\"/>\n<doc>\n<mirrors>\n</mirrors>\n</doc>\n<metrics>\n", f);
    for (int m = 0; m < M_COUNT; m++) {
        if (!src->messages && (m == M_BYTES_SENT || m == M_BYTES_RECEIVED))
            continue;
        fprintf(f, "<metric id=\"%d\" type=\"EXCLUSIVE\">\n<disp_name>%s</disp_name>\n"
                   "<uniq_name>%s</uniq_name>\n<dtype>%s</dtype>\n<uom>%s</uom>\n<url></url>\n"
                   "<descr>%s</descr>\n</metric>\n",
                m, metrics[m].disp, metrics[m].uniq, metrics[m].dtype, metrics[m].uom,
                metrics[m].descr);
    }
    fputs("</metrics>\n<program>\n", f);
    for (uint32_t i = 0; i < src->nregions; i++) {
        instr_cube_region r;
        src->region(src->ctx, i, &r);
        const char *source = r.source ? r.source : "";
        fprintf(f, "<region id=\"%u\" mod=\"", i);
        xml_str(f, r.file);
        fprintf(f, "\" begin=\"%ld\" end=\"%ld\">\n<name>", r.line_begin ? (long)r.line_begin : -1L,
                r.line_end ? (long)r.line_end : -1L);
        xml_str(f, r.name);
        fputs("</name>\n<mangled_name>", f);
        xml_str(f, r.mangled);
        fprintf(f, "</mangled_name>\n<paradigm>%s</paradigm>\n<role>%s</role>\n<url></url>\n"
                   "<descr>",
                paradigm(source), role(source, r.name ? r.name : ""));
        xml_str(f, r.descr ? r.descr : "");
        fputs("</descr>\n</region>\n", f);
    }
    cnodes_xml(f, src, order);
    fputs("</program>\n", f);
    system_xml(f, src);
    fputs("</cube>\n", f);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* One ustar header. */
static void tar_header(FILE *f, const char *name, uint64_t size)
{
    unsigned char h[512];
    memset(h, 0, sizeof h);
    snprintf((char *)h, 100, "%s", name);
    memcpy(h + 100, "0000644", 8);
    memcpy(h + 108, "0000000", 8);
    memcpy(h + 116, "0000000", 8);
    snprintf((char *)h + 124, 12, "%011llo", (unsigned long long)size);
    memcpy(h + 136, "00000000000", 12); /* mtime 0: the archive depends only on its content */
    memset(h + 148, ' ', 8);
    h[156] = '0';
    memcpy(h + 257, "ustar", 6);
    memcpy(h + 263, "00", 2);
    unsigned sum = 0;
    for (size_t i = 0; i < sizeof h; i++)
        sum += h[i];
    snprintf((char *)h + 148, 8, "%06o", sum);
    h[155] = ' ';
    fwrite(h, 1, sizeof h, f);
}

static void tar_pad(FILE *f, uint64_t size)
{
    static const char zero[512];
    if (size % 512)
        fwrite(zero, 1, 512 - size % 512, f);
}

static void tar_file(FILE *f, const char *name, const void *data, size_t len)
{
    tar_header(f, name, len);
    fwrite(data, 1, len, f);
    tar_pad(f, len);
}

static void put_cell(FILE *f, int m, const instr_cube_cell *c)
{
    uint64_t u;
    double d;
    switch (m) {
    case M_VISITS: u = c->visits; break;
    case M_BYTES_SENT: u = c->bytes_sent; break;
    case M_BYTES_RECEIVED: u = c->bytes_received; break;
    case M_TIME: d = (double)c->excl_ns / 1e9; goto dbl;
    case M_MIN_TIME: d = c->visits ? (double)c->min_incl_ns / 1e9 : DBL_MAX; goto dbl;
    default: d = c->visits ? (double)c->max_incl_ns / 1e9 : 0.0; goto dbl;
    }
    fwrite(&u, sizeof u, 1, f);
    return;
dbl:
    fwrite(&d, sizeof d, 1, f);
}

int instr_cube_write(FILE *f, const instr_cube_src *src)
{
    int rc = -1;
    size_t alen = 0;
    char *xml = NULL;
    uint32_t *order = dfs_order(src), *locs = location_order(src);
    instr_cube_cell *cells = calloc((size_t)src->nlocs + 1, sizeof *cells);
    if (!order || !locs || !cells)
        goto out;
    xml = anchor(src, order, &alen);
    if (!xml)
        goto out;
    tar_file(f, "anchor.xml", xml, alen);
    for (int m = 0; m < M_COUNT; m++) {
        if (!src->messages && (m == M_BYTES_SENT || m == M_BYTES_RECEIVED))
            continue;
        char name[32];
        /* Index: marker, endianness word, version 0, format 1 (sparse), N, ids 0..N-1. */
        uint32_t one = 1, n = src->ncnodes;
        uint16_t version = 0;
        uint8_t format = 1;
        snprintf(name, sizeof name, "%d.index", m);
        uint64_t isize = 11 + 4 + 2 + 1 + 4 + 4ull * n;
        tar_header(f, name, isize);
        fwrite("CUBEX.INDEX", 1, 11, f);
        fwrite(&one, 4, 1, f);
        fwrite(&version, 2, 1, f);
        fwrite(&format, 1, 1, f);
        fwrite(&n, 4, 1, f);
        for (uint32_t k = 0; k < n; k++)
            fwrite(&k, 4, 1, f);
        tar_pad(f, isize);
        /* Data: marker, then one row of nlocs 8-byte values per cnode. */
        snprintf(name, sizeof name, "%d.data", m);
        uint64_t dsize = 10 + 8ull * n * src->nlocs;
        tar_header(f, name, dsize);
        fwrite("CUBEX.DATA", 1, 10, f);
        for (uint32_t k = 0; k < n; k++) {
            memset(cells, 0, (size_t)src->nlocs * sizeof *cells);
            src->row(src->ctx, order[k], cells);
            for (uint32_t l = 0; l < src->nlocs; l++)
                put_cell(f, m, &cells[locs[l]]);
        }
        tar_pad(f, dsize);
    }
    static const char end[1024];
    fwrite(end, 1, sizeof end, f);
    rc = ferror(f) ? -1 : 0;
out:
    free(xml);
    free(order);
    free(locs);
    free(cells);
    return rc;
}
