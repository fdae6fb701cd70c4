/* libinstr_substrate_eventflow.so — a substrate plugin (docs/plugins.md) that records an
 * event flow graph per location (thread) and writes it as Graphviz DOT, after the third
 * example of section 4 of "Extending the Functionality of Score-P through Plugins".
 *
 * A node is a call stack (labelled with its innermost region; the location's node with an
 * empty stack is labelled with the location's name); an edge is a transition between two
 * call stacks made by one enter or exit. Each time the flow leaves a node counts as one
 * traversal of that node, and an edge's label says at which traversals of its source node it
 * was taken:
 *   n            only at the n-th traversal
 *   i,j,k        at the i-th, (i+k)-th, ..., j-th
 *   i,j,k,l,m    as i,j,k, repeated m times with the start moved by l each time
 *   Nx           (anything else) N times in all
 * INSTR_EVENTFLOW_LABELS=counts labels every edge with its count (Nx) instead. The notations
 * are recognised on the fly (a few words per edge, whatever the number of events).
 *
 * Output: <experiment>/eventflow.dot (INSTR_EVENTFLOW_FILE: another name in the same
 * directory), one cluster per location ("rank R thread N"). */
#define _GNU_SOURCE
#include <instr/instr_substrate_plugin.h>

#include <fcntl.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const instr_substrate_callbacks *cb;
static uint32_t my_id;
static const char *file_name = "eventflow.dot";
static int counts_only;

/* Which traversals of its source node an edge was taken at, recognised as the notations
 * above while they arrive. */
typedef struct pattern {
    uint64_t n, first, prev;
    uint64_t k;          /* inner stride */
    uint64_t c;          /* inner length, 0 while the first run has not ended */
    uint64_t l, m;       /* outer stride and runs */
    uint64_t run_start, pos;
    int broken;
} pattern;

static void pattern_add(pattern *p, uint64_t x)
{
    if (p->n++ == 0) {
        p->first = p->prev = p->run_start = x;
        p->pos = 1;
        return;
    }
    uint64_t step = x - p->prev;
    p->prev = x;
    if (p->broken)
        return;
    if (p->n == 2) {
        p->k = step;
        p->pos = 2;
    } else if (p->c == 0) {
        if (step == p->k) {
            p->pos++;
        } else { /* the first run ends: x starts the second */
            p->c = p->pos;
            p->l = x - p->run_start;
            p->run_start = x;
            p->m = 2;
            p->pos = 1;
        }
    } else if (p->pos < p->c) {
        if (step != p->k)
            p->broken = 1;
        p->pos++;
    } else {
        if (x - p->run_start != p->l)
            p->broken = 1;
        p->run_start = x;
        p->m++;
        p->pos = 1;
    }
}

static void pattern_print(FILE *f, const pattern *p)
{
    if (counts_only || p->broken || (p->c && p->pos != p->c))
        fprintf(f, "%llux", (unsigned long long)p->n);
    else if (p->n == 1)
        fprintf(f, "%llu", (unsigned long long)p->first);
    else if (p->c == 0)
        fprintf(f, "%llu,%llu,%llu", (unsigned long long)p->first,
                (unsigned long long)p->prev, (unsigned long long)p->k);
    else
        fprintf(f, "%llu,%llu,%llu,%llu,%llu", (unsigned long long)p->first,
                (unsigned long long)(p->first + (p->c - 1) * p->k), (unsigned long long)p->k,
                (unsigned long long)p->l, (unsigned long long)p->m);
}

typedef struct node {
    uint32_t parent, region; /* node 0: the empty stack */
    uint64_t left;           /* traversals so far */
} node;

typedef struct edge {
    uint32_t from, to;
    pattern when;
} edge;

typedef struct graph {
    node *nodes;
    uint32_t nnodes, capnodes;
    edge *edges;
    uint32_t nedges, capedges;
    /* Open hash tables: (parent, region) -> node + 1, (from, to) -> edge + 1. */
    uint32_t *node_ix, *edge_ix;
    uint32_t node_slots, edge_slots;
    uint32_t cur;
    int broken; /* out of memory: the graph stops growing */
    uint32_t location;
    int32_t rank;
    char name[64];
    struct graph *next;
} graph;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static graph *done;

static uint32_t hash2(uint32_t a, uint32_t b)
{
    uint64_t h = ((uint64_t)a << 32 | b) * 0x9e3779b97f4a7c15ull;
    return (uint32_t)(h >> 32);
}

/* Grows an open table of `slots` (power of two) holding index+1 of items keyed by key(i). */
static int rehash(uint32_t **ix, uint32_t *slots, uint32_t nitems, const void *items,
                  size_t size, size_t off_a, size_t off_b)
{
    uint32_t ns = *slots ? *slots * 2 : 64;
    uint32_t *t = calloc(ns, sizeof *t);
    if (!t)
        return -1;
    for (uint32_t i = 0; i < nitems; i++) {
        const char *it = (const char *)items + i * size;
        uint32_t a, b;
        memcpy(&a, it + off_a, sizeof a);
        memcpy(&b, it + off_b, sizeof b);
        uint32_t s = hash2(a, b) & (ns - 1);
        while (t[s])
            s = (s + 1) & (ns - 1);
        t[s] = i + 1;
    }
    free(*ix);
    *ix = t;
    *slots = ns;
    return 0;
}

static uint32_t node_of(graph *g, uint32_t parent, uint32_t region)
{
    if (g->node_slots) {
        for (uint32_t s = hash2(parent, region) & (g->node_slots - 1);; s = (s + 1) & (g->node_slots - 1)) {
            uint32_t i = g->node_ix[s];
            if (!i)
                break;
            if (g->nodes[i - 1].parent == parent && g->nodes[i - 1].region == region)
                return i - 1;
        }
    }
    if (g->nnodes == g->capnodes) {
        uint32_t cap = g->capnodes ? 2 * g->capnodes : 64;
        node *n = realloc(g->nodes, cap * sizeof *n);
        if (!n)
            return UINT32_MAX;
        g->nodes = n;
        g->capnodes = cap;
    }
    g->nodes[g->nnodes] = (node){.parent = parent, .region = region};
    g->nnodes++;
    if (2 * g->nnodes > g->node_slots &&
        rehash(&g->node_ix, &g->node_slots, g->nnodes, g->nodes, sizeof(node),
               offsetof(node, parent), offsetof(node, region)) != 0) {
        g->nnodes--;
        return UINT32_MAX;
    }
    uint32_t s = hash2(parent, region) & (g->node_slots - 1);
    while (g->node_ix[s] && g->node_ix[s] != g->nnodes)
        s = (s + 1) & (g->node_slots - 1);
    g->node_ix[s] = g->nnodes;
    return g->nnodes - 1;
}

static edge *edge_of(graph *g, uint32_t from, uint32_t to)
{
    if (g->edge_slots) {
        for (uint32_t s = hash2(from, to) & (g->edge_slots - 1);; s = (s + 1) & (g->edge_slots - 1)) {
            uint32_t i = g->edge_ix[s];
            if (!i)
                break;
            if (g->edges[i - 1].from == from && g->edges[i - 1].to == to)
                return &g->edges[i - 1];
        }
    }
    if (g->nedges == g->capedges) {
        uint32_t cap = g->capedges ? 2 * g->capedges : 64;
        edge *e = realloc(g->edges, cap * sizeof *e);
        if (!e)
            return NULL;
        g->edges = e;
        g->capedges = cap;
    }
    g->edges[g->nedges] = (edge){.from = from, .to = to};
    g->nedges++;
    if (2 * g->nedges > g->edge_slots &&
        rehash(&g->edge_ix, &g->edge_slots, g->nedges, g->edges, sizeof(edge),
               offsetof(edge, from), offsetof(edge, to)) != 0) {
        g->nedges--;
        return NULL;
    }
    uint32_t s = hash2(from, to) & (g->edge_slots - 1);
    while (g->edge_ix[s] && g->edge_ix[s] != g->nedges)
        s = (s + 1) & (g->edge_slots - 1);
    g->edge_ix[s] = g->nedges;
    return &g->edges[g->nedges - 1];
}

/* The flow goes from the current node to `to`. */
static void move(graph *g, uint32_t to)
{
    if (to == UINT32_MAX) {
        g->broken = 1;
        return;
    }
    uint64_t k = ++g->nodes[g->cur].left;
    edge *e = edge_of(g, g->cur, to);
    if (!e) {
        g->broken = 1;
        return;
    }
    pattern_add(&e->when, k);
    g->cur = to;
}

static void enter(instr_substrate_location *loc, uint64_t t, uint32_t region,
                  const uint64_t *metrics)
{
    (void)t, (void)metrics;
    graph *g = cb->location_get_data(loc, my_id);
    if (g && !g->broken)
        move(g, node_of(g, g->cur, region));
}

static void leave(instr_substrate_location *loc, uint64_t t, uint32_t region,
                  const uint64_t *metrics)
{
    (void)t, (void)metrics;
    graph *g = cb->location_get_data(loc, my_id);
    if (g && !g->broken && g->cur != 0 && g->nodes[g->cur].region == region)
        move(g, g->nodes[g->cur].parent);
}

static int32_t initialize(const instr_substrate_init *init)
{
    cb = init->cb;
    my_id = init->plugin_id;
    const char *f = cb->config(my_id, "FILE");
    if (f) {
        if (!*f || strchr(f, '/') || strcmp(f, ".") == 0 || strcmp(f, "..") == 0) {
            fprintf(stderr, "eventflow: INSTR_EVENTFLOW_FILE=%s is not a file name (no '/'); "
                            "give a name for the file in the experiment directory\n", f);
            return -1;
        }
        file_name = f;
    }
    const char *labels = cb->config(my_id, "LABELS");
    if (labels && strcmp(labels, "counts") == 0) {
        counts_only = 1;
    } else if (labels && strcmp(labels, "iterations") != 0) {
        fprintf(stderr, "eventflow: INSTR_EVENTFLOW_LABELS=%s is not iterations or counts\n",
                labels);
        return -1;
    }
    return 0;
}

static void create_location(instr_substrate_location *loc, uint32_t type)
{
    (void)type;
    graph *g = calloc(1, sizeof *g);
    if (!g)
        return;
    if (node_of(g, UINT32_MAX, 0) != 0) { /* node 0: the empty stack */
        free(g);
        return;
    }
    g->location = cb->location_id(loc);
    snprintf(g->name, sizeof g->name, "%s", cb->location_name(loc));
    cb->location_set_data(loc, my_id, g);
}

static void delete_location(instr_substrate_location *loc)
{
    graph *g = cb->location_get_data(loc, my_id);
    if (!g)
        return;
    cb->location_set_data(loc, my_id, NULL);
    g->rank = cb->location_rank(loc); /* now: the main thread's location predates MPI_Init */
    pthread_mutex_lock(&lock);
    graph **p = &done; /* in location order */
    while (*p && (*p)->location < g->location)
        p = &(*p)->next;
    g->next = *p;
    *p = g;
    pthread_mutex_unlock(&lock);
}

/* A DOT string: quotes and backslashes escaped, control characters left out. */
static void dot_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        if ((unsigned char)*s >= 0x20)
            fputc(*s, f);
    }
    fputc('"', f);
}

static int32_t write_data(const char *dir)
{
    int dfd = open(dir, O_DIRECTORY | O_RDONLY | O_CLOEXEC);
    int fd = dfd < 0 ? -1
                      : openat(dfd, file_name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                               0644);
    if (dfd >= 0)
        close(dfd);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
    if (!f) {
        perror("eventflow: cannot create its file in the experiment directory");
        if (fd >= 0)
            close(fd);
        return -1;
    }
    fprintf(f, "digraph eventflow {\n  node [shape=box];\n");
    for (graph *g = done; g; g = g->next) {
        fprintf(f, "  subgraph cluster_%u {\n    label=\"rank %d %s%s\";\n", g->location,
                (int)g->rank, g->name, g->broken ? " (incomplete: out of memory)" : "");
        for (uint32_t i = 0; i < g->nnodes; i++) {
            fprintf(f, "    l%un%u [label=", g->location, i);
            dot_string(f, i == 0 ? g->name : cb->region_name(g->nodes[i].region));
            fprintf(f, "];\n");
        }
        for (uint32_t i = 0; i < g->nedges; i++) {
            const edge *e = &g->edges[i];
            fprintf(f, "    l%un%u -> l%un%u [label=\"", g->location, e->from, g->location, e->to);
            pattern_print(f, &e->when);
            fprintf(f, "\"];\n");
        }
        fprintf(f, "  }\n");
    }
    fprintf(f, "}\n");
    if (fclose(f) != 0) {
        perror("eventflow: writing its file");
        return -1;
    }
    return 0;
}

static void finalize(void)
{
    while (done) {
        graph *g = done;
        done = g->next;
        free(g->nodes);
        free(g->edges);
        free(g->node_ix);
        free(g->edge_ix);
        free(g);
    }
}

INSTR_SUBSTRATE_PLUGIN_ENTRY
{
    static const instr_substrate_plugin_info info = {
        .plugin_version = INSTR_SUBSTRATE_PLUGIN_VERSION,
        .initialize = initialize,
        .create_location = create_location,
        .delete_location = delete_location,
        .write_data = write_data,
        .finalize = finalize,
        .events = {.enter_region = enter, .exit_region = leave},
    };
    return &info;
}
