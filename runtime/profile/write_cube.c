/* write_cube.c — the CUBE4 archive (docs/profile-format.md, "profile.cubex").
 *
 * A POSIX tar (ustar) archive of anchor.xml (metrics, regions, the call tree, the system
 * tree) and, per metric N, N.index and N.data. The metrics are of the kinds Score-P gives
 * them: `time` and the metrics substrate's counters are INCLUSIVE (a cell holds the call
 * path's value with its callees; a reader derives the exclusive one by subtracting the
 * children's), visits, min_time, max_time and the message metrics EXCLUSIVE (the call path's
 * own value). CUBE stores the rows of a metric in an order that depends on its kind: an
 * EXCLUSIVE metric's in the depth-first order of the call tree, which is also the cnode
 * numbering, an INCLUSIVE metric's in CubeW's "wide" order (tree_order below). The sparse
 * index lists the positions 0 .. N-1 of that order, so the data file holds N rows of one
 * value per location in location order. Numbers are in the writing machine's byte order;
 * the index's endianness word (1) tells a reader which that is. */
#include "cube.h"
#include "../util/xml_str.h"
#include "../include/instr_metric_plugin.h"
#include "../util/pages.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

/* What a metric's cells hold. */
enum { K_VISITS, K_TIME, K_MIN_TIME, K_MAX_TIME, K_BYTES_SENT, K_BYTES_RECEIVED,
       K_MESSAGES_SENT, K_MESSAGES_RECEIVED, K_ALLOCS, K_FREES, K_BYTES_ALLOCATED, K_BYTES_FREED,
       K_HIGH_WATER, K_SAMPLES, K_IO_OPS, K_IO_FAILED, K_IO_BYTES_READ, K_IO_BYTES_WRITTEN,
       K_IO_TIME, K_BUILTIN, K_COUNTER = K_BUILTIN };

typedef struct cube_metric {
    const char *uniq, *disp, *dtype, *uom, *descr;
    int inclusive;
    int kind;
    uint32_t slot; /* K_COUNTER: instr_cube_metric.slot */
    char uniq_buf[64], uom_buf[96];
} cube_metric;

#define BUILTIN(u, d, t, unit, text, incl, k) \
    {.uniq = u, .disp = d, .dtype = t, .uom = unit, .descr = text, .inclusive = incl, .kind = k}
static const cube_metric builtin[K_BUILTIN] = {
    BUILTIN("visits", "Visits", "UINT64", "occ", "Number of visits", 0, K_VISITS),
    BUILTIN("time", "Time", "DOUBLE", "sec", "Time spent in the call path, callees included", 1,
            K_TIME),
    BUILTIN("min_time", "Minimum Inclusive Time", "MINDOUBLE", "sec",
            "Shortest single visit of the call path, callees included", 0, K_MIN_TIME),
    BUILTIN("max_time", "Maximum Inclusive Time", "MAXDOUBLE", "sec",
            "Longest single visit of the call path, callees included", 0, K_MAX_TIME),
    BUILTIN("bytes_sent", "Bytes Sent", "UINT64", "bytes",
            "Bytes sent in point-to-point and collective MPI calls", 0, K_BYTES_SENT),
    BUILTIN("bytes_received", "Bytes Received", "UINT64", "bytes",
            "Bytes received in point-to-point and collective MPI calls", 0, K_BYTES_RECEIVED),
    BUILTIN("messages_sent", "Messages Sent", "UINT64", "occ",
            "Point-to-point messages sent in the call path's MPI calls", 0, K_MESSAGES_SENT),
    BUILTIN("messages_received", "Messages Received", "UINT64", "occ",
            "Point-to-point messages received in the call path's MPI calls", 0,
            K_MESSAGES_RECEIVED),
    /* Memory recording (INSTR_MEMORY=1, docs/memory.md): Score-P's names where it has one. */
    BUILTIN("allocations", "Allocations", "UINT64", "occ",
            "Allocations of the program's malloc family and C++ new in the call path", 0,
            K_ALLOCS),
    BUILTIN("frees", "Frees", "UINT64", "occ",
            "Releases of the program's blocks (free, C++ delete, realloc moving a block) in the "
            "call path", 0, K_FREES),
    BUILTIN("allocation_size", "Bytes Allocated", "UINT64", "bytes",
            "Bytes of the program's blocks allocated in the call path", 0, K_BYTES_ALLOCATED),
    BUILTIN("deallocation_size", "Bytes Freed", "UINT64", "bytes",
            "Bytes of the program's blocks released in the call path", 0, K_BYTES_FREED),
    BUILTIN("maximum_heap_memory_allocated", "Memory High-Water Mark", "MAXDOUBLE", "bytes",
            "Highest number of bytes live at once that the thread allocated (given at the "
            "root call paths the thread visited)", 0, K_HIGH_WATER),
    BUILTIN("samples", "Samples", "UINT64", "occ",
            "Samples of the sampling timer (INSTR_SAMPLING) whose innermost frame is the call "
            "path; a sampled call path's time is its samples times the period", 0, K_SAMPLES),
    /* I/O recording (INSTR_IO, docs/io.md): Score-P's io_bytes_read and io_bytes_written,
     * and the operations and time, summed over the paradigms. */
    BUILTIN("io_operations", "I/O Operations", "UINT64", "occ",
            "Calls of the recorded I/O functions (POSIX, ISO C, MPI-IO) in the call path", 0,
            K_IO_OPS),
    BUILTIN("io_operations_failed", "Failed I/O Operations", "UINT64", "occ",
            "Calls of the recorded I/O functions in the call path that failed", 0, K_IO_FAILED),
    BUILTIN("io_bytes_read", "I/O Bytes Read", "UINT64", "bytes",
            "Bytes read by the recorded I/O functions in the call path", 0, K_IO_BYTES_READ),
    BUILTIN("io_bytes_written", "I/O Bytes Written", "UINT64", "bytes",
            "Bytes written by the recorded I/O functions in the call path", 0,
            K_IO_BYTES_WRITTEN),
    BUILTIN("io_time", "I/O Time", "DOUBLE", "sec",
            "Time inside the recorded I/O functions called in the call path", 0, K_IO_TIME),
};
#undef BUILTIN

static int is_message_metric(int kind) { return kind >= K_BYTES_SENT && kind <= K_MESSAGES_RECEIVED; }
static int is_memory_metric(int kind) { return kind >= K_ALLOCS && kind <= K_HIGH_WATER; }
static int is_io_metric(int kind) { return kind >= K_IO_OPS && kind <= K_IO_TIME; }

/* The archive's metrics: the built-in ones, then the source's counters. A counter's
 * uniq_name is its name with every character that is not a letter, digit or '_' as '_'
 * (CubePL, the language of Cube's derived metrics, names metrics so), made unique with _2,
 * _3, ...; its display name is its own name. NULL when memory ran out. */
static cube_metric *metric_table(const instr_cube_src *src, uint32_t *count)
{
    cube_metric *t = instr_mem_calloc(K_BUILTIN + (size_t)src->nmetrics, sizeof *t);
    uint32_t n = 0;
    if (!t)
        return NULL;
    for (int k = 0; k < K_BUILTIN; k++)
        if ((src->messages || !is_message_metric(k)) && (src->memory || !is_memory_metric(k)) &&
            (src->samples || k != K_SAMPLES) && (src->io || !is_io_metric(k)))
            t[n++] = builtin[k];
    for (uint32_t i = 0; i < src->nmetrics; i++) {
        instr_cube_metric m = {0};
        src->metric(src->ctx, i, &m);
        cube_metric *c = &t[n];
        char base[48];
        size_t l = 0;
        for (const char *p = m.name ? m.name : ""; *p && l + 1 < sizeof base; p++)
            base[l++] = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                                (*p >= '0' && *p <= '9') || *p == '_' ? *p : '_';
        base[l] = '\0';
        snprintf(c->uniq_buf, sizeof c->uniq_buf, "%s", l ? base : "metric");
        for (int dup = 2;; dup++) {
            uint32_t k = 0;
            while (k < n && strcmp(t[k].uniq, c->uniq_buf) != 0)
                k++;
            if (k == n)
                break;
            snprintf(c->uniq_buf, sizeof c->uniq_buf, "%s_%d", l ? base : "metric", dup);
        }
        if (m.exponent)
            snprintf(c->uom_buf, sizeof c->uom_buf, "%u^%d %s", m.base, m.exponent,
                     m.unit ? m.unit : "");
        else
            snprintf(c->uom_buf, sizeof c->uom_buf, "%s", m.unit ? m.unit : "");
        c->uniq = c->uniq_buf;
        c->disp = m.name ? m.name : "";
        c->uom = c->uom_buf;
        c->descr = m.description ? m.description : "";
        c->dtype = m.type == INSTR_METRIC_DOUBLE ? "DOUBLE"
                   : m.type == INSTR_METRIC_INT64 ? "INT64" : "UINT64";
        c->inclusive = 1;
        c->kind = K_COUNTER;
        c->slot = m.slot;
        n++;
    }
    *count = n;
    return t;
}

/* The call tree as children lists over source indices, in the source's order: first[v] is
 * v's first child, next[c] the sibling after c (UINT32_MAX: none). Slot n is a virtual root
 * above the roots; a node whose parent does not come before it counts as a root. */
typedef struct tree_links {
    uint32_t *first, *next;
} tree_links;

static void links_free(tree_links *t)
{
    instr_mem_free(t->first);
    instr_mem_free(t->next);
    t->first = t->next = NULL;
}

/* 0, or -1 when memory ran out. */
static int links_of(const instr_cube_src *src, tree_links *t)
{
    uint32_t n = src->ncnodes;
    uint32_t *last = instr_mem_alloc(((size_t)n + 1) * sizeof *last);
    t->first = instr_mem_alloc(((size_t)n + 1) * sizeof *t->first);
    t->next = instr_mem_alloc(((size_t)n + 1) * sizeof *t->next);
    if (!last || !t->first || !t->next) {
        instr_mem_free(last);
        links_free(t);
        return -1;
    }
    for (uint32_t i = 0; i <= n; i++)
        t->first[i] = t->next[i] = last[i] = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++) {
        int32_t parent;
        uint32_t region;
        src->cnode(src->ctx, i, &parent, &region);
        uint32_t p = parent < 0 || (uint32_t)parent >= i ? n : (uint32_t)parent;
        if (last[p] == UINT32_MAX)
            t->first[p] = i;
        else
            t->next[last[p]] = i;
        last[p] = i;
    }
    instr_mem_free(last);
    return 0;
}

/* Pushes v's children onto stack[sp..] so that the first child is popped first; returns the
 * new top. */
static uint32_t push_children(const tree_links *t, uint32_t v, uint32_t *stack, uint32_t sp)
{
    uint32_t nc = 0;
    for (uint32_t c = t->first[v]; c != UINT32_MAX; c = t->next[c])
        nc++;
    uint32_t at = sp + nc;
    for (uint32_t c = t->first[v]; c != UINT32_MAX; c = t->next[c])
        stack[--at] = c;
    return sp + nc;
}

/* The call tree's nodes (source indices) in one of CUBE's two row orders; NULL when memory
 * ran out.
 * - depth-first (wide 0): order[k] is the source index of cnode k, the numbering of the
 *   cnodes and the order of an EXCLUSIVE metric's rows. Children keep the source's order, so
 *   siblings' cnode ids grow with their source indices.
 * - wide (1): the order of an INCLUSIVE metric's rows, as CubeW writes them and CubeLib reads
 *   them: per root the root, then expand(root), where expand(v) is v's children in document
 *   order followed by expand() of each child in turn. */
static uint32_t *tree_order(const instr_cube_src *src, const tree_links *t, int wide)
{
    uint32_t n = src->ncnodes;
    uint32_t *out = instr_mem_alloc(((size_t)n + 1) * sizeof *out);
    uint32_t *stack = instr_mem_alloc(((size_t)n + 1) * sizeof *stack);
    if (!out || !stack) {
        instr_mem_free(out);
        instr_mem_free(stack);
        return NULL;
    }
    uint32_t k = 0, sp = 0;
    for (uint32_t r = t->first[n]; r != UINT32_MAX; r = t->next[r]) {
        if (wide)
            out[k++] = r;
        stack[sp++] = r;
        while (sp) {
            uint32_t v = stack[--sp];
            if (!wide)
                out[k++] = v;
            for (uint32_t c = t->first[v]; wide && c != UINT32_MAX; c = t->next[c])
                out[k++] = c;
            sp = push_children(t, v, stack, sp);
        }
    }
    instr_mem_free(stack);
    return out;
}

static void cnodes_xml(instr_writer *f, const instr_cube_src *src, const uint32_t *order)
{
    /* depth[k]: nesting of cnode k; a parent's depth is known before its children's. */
    uint32_t open = 0;
    int32_t *cube_id = instr_mem_alloc(((size_t)src->ncnodes + 1) * sizeof *cube_id);
    uint32_t *depth = instr_mem_alloc(((size_t)src->ncnodes + 1) * sizeof *depth);
    if (!cube_id || !depth) {
        instr_mem_free(cube_id);
        instr_mem_free(depth);
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
            instr_wr_puts(f, "</cnode>\n");
        instr_wr_printf(f, "<cnode id=\"%u\" calleeId=\"%u\">\n", k, region);
        open = d + 1;
    }
    for (; open; open--)
        instr_wr_puts(f, "</cnode>\n");
    instr_mem_free(cube_id);
    instr_mem_free(depth);
}

/* The system tree has one node per host, in the order of first appearance, and under it its
 * processes in group order; the locations are numbered in that order (system_xml and
 * location_order walk it alike). */
static const char *host_of(const instr_cube_src *src, uint32_t g)
{
    return src->groups[g].host ? src->groups[g].host : "";
}

static int first_on_host(const instr_cube_src *src, uint32_t g)
{
    for (uint32_t h = 0; h < g; h++)
        if (strcmp(host_of(src, h), host_of(src, g)) == 0)
            return 0;
    return 1;
}

static void system_xml(instr_writer *f, const instr_cube_src *src)
{
    instr_wr_puts(f, "<system>\n<systemtreenode Id=\"0\">\n<name>machine</name>\n<class>machine</class>\n");
    uint32_t node = 1, loc = 0;
    for (uint32_t g = 0; g < src->ngroups; g++) {
        if (!first_on_host(src, g))
            continue;
        const char *host = host_of(src, g);
        instr_wr_printf(f, "<systemtreenode Id=\"%u\">\n<name>", node++);
        instr_wr_xml_str(f, *host ? host : "localhost");
        instr_wr_puts(f, "</name>\n<class>node</class>\n");
        for (uint32_t p = g; p < src->ngroups; p++) {
            const instr_cube_group *gr = &src->groups[p];
            if (strcmp(host_of(src, p), host) != 0)
                continue;
            instr_wr_printf(f, "<locationgroup Id=\"%u\">\n<name>", p);
            instr_wr_xml_str(f, gr->name);
            instr_wr_printf(f, "</name>\n<rank>%d</rank>\n<type>process</type>\n", gr->rank);
            for (uint32_t l = 0; l < gr->nlocs; l++) {
                char name[96];
                uint32_t rank = l;
                src->location(src->ctx, gr->first_loc + l, name, sizeof name, &rank);
                instr_wr_printf(f, "<location Id=\"%u\">\n<name>", loc++);
                instr_wr_xml_str(f, name);
                instr_wr_printf(f, "</name>\n<rank>%u</rank>\n<type>thread</type>\n</location>\n", rank);
            }
            instr_wr_puts(f, "</locationgroup>\n");
        }
        instr_wr_puts(f, "</systemtreenode>\n");
    }
    instr_wr_puts(f, "</systemtreenode>\n</system>\n");
}

/* cube location id -> source location, in the system tree's order. */
static uint32_t *location_order(const instr_cube_src *src)
{
    uint32_t *map = instr_mem_alloc(((size_t)src->nlocs + 1) * sizeof *map), k = 0;
    if (!map)
        return NULL;
    for (uint32_t g = 0; g < src->ngroups; g++) {
        if (!first_on_host(src, g))
            continue;
        for (uint32_t p = g; p < src->ngroups; p++)
            if (strcmp(host_of(src, p), host_of(src, g)) == 0)
                for (uint32_t l = 0; l < src->groups[p].nlocs && k < src->nlocs; l++)
                    map[k++] = src->groups[p].first_loc + l;
    }
    while (k < src->nlocs) /* locations of no group (none from the callers) */
        map[k] = k, k++;
    return map;
}

static char *anchor(const instr_cube_src *src, const uint32_t *order, const cube_metric *mt,
                    uint32_t nmt, size_t *len)
{
    instr_writer w, *f = &w;
    if (instr_writer_open_mem(f) != 0)
        return NULL;
    instr_wr_puts(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<cube version=\"4.4\">\n");
    instr_wr_puts(f, "<attr key=\"CUBE_CT_AGGR\" value=\"SUM\"/>\n<attr key=\"Creator\" value=\"");
    instr_wr_xml_str(f, src->creator);
    instr_wr_puts(f, "\"/>\n<doc>\n<mirrors>\n</mirrors>\n</doc>\n<metrics>\n");
    for (uint32_t m = 0; m < nmt; m++) {
        instr_wr_printf(f, "<metric id=\"%u\" type=\"%s\">\n<disp_name>", m,
                mt[m].inclusive ? "INCLUSIVE" : "EXCLUSIVE");
        instr_wr_xml_str(f, mt[m].disp);
        instr_wr_puts(f, "</disp_name>\n<uniq_name>");
        instr_wr_xml_str(f, mt[m].uniq);
        instr_wr_printf(f, "</uniq_name>\n<dtype>%s</dtype>\n<uom>", mt[m].dtype);
        instr_wr_xml_str(f, mt[m].uom);
        instr_wr_puts(f, "</uom>\n<url></url>\n<descr>");
        instr_wr_xml_str(f, mt[m].descr);
        instr_wr_puts(f, "</descr>\n</metric>\n");
    }
    instr_wr_puts(f, "</metrics>\n<program>\n");
    for (uint32_t i = 0; i < src->nregions; i++) {
        instr_cube_region r;
        src->region(src->ctx, i, &r);
        instr_cube_attrs at;
        instr_cube_region_attrs(&r, &at);
        instr_wr_printf(f, "<region id=\"%u\" mod=\"", i);
        instr_wr_xml_str(f, at.mod);
        /* Lines as Score-P writes them: 0 when unknown. */
        instr_wr_printf(f, "\" begin=\"%lu\" end=\"%lu\">\n<name>", (unsigned long)r.line_begin,
                        (unsigned long)r.line_end);
        instr_wr_xml_str(f, r.name);
        instr_wr_puts(f, "</name>\n<mangled_name>");
        instr_wr_xml_str(f, r.mangled);
        instr_wr_printf(f, "</mangled_name>\n<paradigm>%s</paradigm>\n<role>%s</role>\n<url></url>\n"
                   "<descr>", at.paradigm, at.role);
        instr_wr_xml_str(f, r.descr ? r.descr : "");
        instr_wr_puts(f, "</descr>\n</region>\n");
    }
    cnodes_xml(f, src, order);
    instr_wr_puts(f, "</program>\n");
    system_xml(f, src);
    instr_wr_puts(f, "</cube>\n");
    return instr_writer_take(f, len);
}

/* One ustar header. */
static void tar_header(instr_writer *f, const char *name, uint64_t size)
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
    instr_wr_write(f, h, sizeof h);
}

static void tar_pad(instr_writer *f, uint64_t size)
{
    static const char zero[512];
    if (size % 512)
        instr_wr_write(f, zero, 512 - size % 512);
}

static void tar_file(instr_writer *f, const char *name, const void *data, size_t len)
{
    tar_header(f, name, len);
    instr_wr_write(f, data, len);
    tar_pad(f, len);
}

static void put_cell(instr_writer *f, const cube_metric *m, const instr_cube_cell *c)
{
    uint64_t u;
    double d;
    switch (m->kind) {
    case K_VISITS: u = c->visits; break;
    case K_BYTES_SENT: u = c->bytes_sent; break;
    case K_BYTES_RECEIVED: u = c->bytes_received; break;
    case K_MESSAGES_SENT: u = c->messages_sent; break;
    case K_MESSAGES_RECEIVED: u = c->messages_received; break;
    case K_ALLOCS: u = c->mem[INSTR_CUBE_ALLOCS]; break;
    case K_FREES: u = c->mem[INSTR_CUBE_FREES]; break;
    case K_BYTES_ALLOCATED: u = c->mem[INSTR_CUBE_BYTES_ALLOCATED]; break;
    case K_BYTES_FREED: u = c->mem[INSTR_CUBE_BYTES_FREED]; break;
    case K_HIGH_WATER: d = (double)c->mem[INSTR_CUBE_HIGH_WATER]; goto dbl;
    case K_SAMPLES: u = c->samples; break;
    case K_IO_OPS: u = c->io[INSTR_CUBE_IO_OPS]; break;
    case K_IO_FAILED: u = c->io[INSTR_CUBE_IO_FAILED]; break;
    case K_IO_BYTES_READ: u = c->io[INSTR_CUBE_IO_BYTES_READ]; break;
    case K_IO_BYTES_WRITTEN: u = c->io[INSTR_CUBE_IO_BYTES_WRITTEN]; break;
    case K_IO_TIME: d = (double)c->io[INSTR_CUBE_IO_NS] / 1e9; goto dbl;
    case K_TIME: d = (double)c->incl_ns / 1e9; goto dbl;
    case K_MIN_TIME: d = c->visits ? (double)c->min_incl_ns / 1e9 : DBL_MAX; goto dbl;
    case K_MAX_TIME: d = c->visits ? (double)c->max_incl_ns / 1e9 : 0.0; goto dbl;
    default: /* a counter: its 64 bits are those of its CUBE type (0 is 0.0 too) */
        u = c->m ? c->m[m->slot] : 0;
    }
    instr_wr_write(f, &u, sizeof u);
    return;
dbl:
    instr_wr_write(f, &d, sizeof d);
}

int instr_cube_write(instr_writer *f, const instr_cube_src *src)
{
    int rc = -1;
    size_t alen = 0;
    char *xml = NULL;
    uint32_t nmt = 0;
    tree_links links = {NULL, NULL};
    uint32_t *order = NULL, *wide = NULL, *locs = location_order(src);
    if (links_of(src, &links) == 0) {
        order = tree_order(src, &links, 0);
        wide = tree_order(src, &links, 1);
        links_free(&links);
    }
    cube_metric *mt = metric_table(src, &nmt);
    instr_cube_cell *cells = instr_mem_calloc((size_t)src->nlocs + 1, sizeof *cells);
    if (!order || !wide || !locs || !cells || !mt)
        goto out;
    xml = anchor(src, order, mt, nmt, &alen);
    if (!xml)
        goto out;
    tar_file(f, "anchor.xml", xml, alen);
    for (uint32_t m = 0; m < nmt; m++) {
        char name[32];
        /* Index: marker, endianness word, version 0, format 1 (sparse), N, ids 0..N-1. */
        uint32_t one = 1, n = src->ncnodes;
        uint16_t version = 0;
        uint8_t format = 1;
        snprintf(name, sizeof name, "%u.index", m);
        uint64_t isize = 11 + 4 + 2 + 1 + 4 + 4ull * n;
        tar_header(f, name, isize);
        instr_wr_write(f, "CUBEX.INDEX", 11);
        instr_wr_write(f, &one, 4);
        instr_wr_write(f, &version, 2);
        instr_wr_write(f, &format, 1);
        instr_wr_write(f, &n, 4);
        for (uint32_t k = 0; k < n; k++)
            instr_wr_write(f, &k, 4);
        tar_pad(f, isize);
        /* Data: marker, then one row of nlocs 8-byte values per cnode, in the metric's order. */
        const uint32_t *rows = mt[m].inclusive ? wide : order;
        snprintf(name, sizeof name, "%u.data", m);
        uint64_t dsize = 10 + 8ull * n * src->nlocs;
        tar_header(f, name, dsize);
        instr_wr_write(f, "CUBEX.DATA", 10);
        for (uint32_t k = 0; k < n; k++) {
            memset(cells, 0, (size_t)src->nlocs * sizeof *cells);
            src->row(src->ctx, rows[k], cells);
            for (uint32_t l = 0; l < src->nlocs; l++)
                put_cell(f, &mt[m], &cells[locs[l]]);
        }
        tar_pad(f, dsize);
    }
    static const char end[1024];
    instr_wr_write(f, end, sizeof end);
    rc = f->err ? -1 : 0;
out:
    instr_mem_free(xml);
    instr_mem_free(order);
    instr_mem_free(wide);
    instr_mem_free(locs);
    instr_mem_free(mt);
    instr_mem_free(cells);
    return rc;
}
