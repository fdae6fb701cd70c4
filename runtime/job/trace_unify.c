/* trace_unify.c — rank 0's union of the ranks' trace definitions (trace_unify.h). */
#include "trace_unify.h"
#include "../trace/wire.h"
#include "../util/hash.h"
#include "../util/table.h"
#include "../util/pages.h"
#include "../util/array.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

uint64_t instr_trace_unify_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t hash_str(uint64_t h, const char *s)
{
    return instr_fnv1a(instr_fnv1a_str(h, s), "\xff", 1);
}

static uint64_t region_hash(const gregion *r)
{
    uint64_t h = 1469598103934665603ull;
    h = hash_str(h, r->name);
    h = hash_str(h, r->canonical);
    h = hash_str(h, r->file);
    return (h ^ r->lb ^ ((uint64_t)r->source << 40)) * INSTR_FNV1A_PRIME;
}

static uint64_t region_hash_of(const void *unifier, uint32_t id)
{
    return region_hash(&((const instr_unifier *)unifier)->regions[id]);
}

static int region_same(const gregion *a, const gregion *b)
{
    return a->lb == b->lb && a->source == b->source && strcmp(a->name, b->name) == 0 &&
           strcmp(a->canonical, b->canonical) == 0 && strcmp(a->file, b->file) == 0;
}

static int rtab_grow(instr_unifier *u)
{
    return instr_id_index_build(&u->rtab, &u->rtab_cap, u->rtab_cap ? 2 * u->rtab_cap : 1024,
                                u->nregions, region_hash_of, u);
}

/* The global ref of region r (whose strings the unifier takes over, or frees when known). */
static uint32_t region_global(instr_unifier *u, gregion *r)
{
    if (2 * (u->nregions + 1) > u->rtab_cap && rtab_grow(u) != 0)
        return UINT32_MAX;
    uint32_t j = (uint32_t)region_hash(r) & (u->rtab_cap - 1);
    while (u->rtab[j]) {
        gregion *g = &u->regions[u->rtab[j] - 1];
        if (region_same(g, r)) {
            instr_mem_free(r->name);
            instr_mem_free(r->canonical);
            instr_mem_free(r->file);
            return u->rtab[j] - 1;
        }
        j = (j + 1) & (u->rtab_cap - 1);
    }
    if (u->nregions == u->capregions) {
        uint32_t cap = u->capregions ? 2 * u->capregions : 256;
        gregion *g = instr_mem_realloc(u->regions, cap * sizeof *g);
        if (!g)
            return UINT32_MAX;
        u->regions = g;
        u->capregions = cap;
    }
    u->regions[u->nregions] = *r;
    u->rtab[j] = u->nregions + 1;
    return u->nregions++;
}

static uint32_t comm_global(instr_unifier *u, uint32_t leader, uint32_t seq, char *name,
                            uint32_t nmembers, uint32_t *members)
{
    /* Communicators are few: a linear search is enough. */
    for (uint32_t i = 0; i < u->ncomms; i++) {
        gcomm *c = &u->comms[i];
        if (c->leader == leader && c->seq == seq) {
            if (members && !c->members) {
                c->members = members;
                c->nmembers = nmembers;
                instr_mem_free(c->name);
                c->name = name;
            } else {
                instr_mem_free(members);
                instr_mem_free(name);
            }
            return i;
        }
    }
    if (u->ncomms == u->capcomms) {
        uint32_t cap = u->capcomms ? 2 * u->capcomms : 16;
        gcomm *c = instr_mem_realloc(u->comms, cap * sizeof *c);
        if (!c) {
            instr_mem_free(members);
            instr_mem_free(name);
            return UINT32_MAX;
        }
        u->comms = c;
        u->capcomms = cap;
    }
    u->comms[u->ncomms] = (gcomm){leader, seq, name, members ? nmembers : 0, members};
    return u->ncomms++;
}

static uint32_t host_index(instr_unifier *u, char *host)
{
    for (uint32_t i = 0; i < u->nhosts; i++)
        if (strcmp(u->hosts[i], host) == 0) {
            instr_mem_free(host);
            return i;
        }
    char **h = instr_mem_realloc(u->hosts, (u->nhosts + 1) * sizeof *h);
    if (!h) {
        instr_mem_free(host);
        return 0;
    }
    u->hosts = h;
    u->hosts[u->nhosts] = host;
    return u->nhosts++;
}

static uint64_t file_hash_of(const void *unifier, uint32_t id)
{
    return instr_fnv1a_str(1469598103934665603ull, ((const instr_unifier *)unifier)->files[id].name);
}

/* The global ref of the file `name` (taken over, or freed when known) used on `host`. */
static uint32_t file_global(instr_unifier *u, char *name, uint32_t host)
{
    if (2 * (u->nfiles + 1) > u->ftab_cap &&
        instr_id_index_build(&u->ftab, &u->ftab_cap, u->ftab_cap ? 2 * u->ftab_cap : 256,
                             u->nfiles, file_hash_of, u) != 0) {
        instr_mem_free(name);
        return UINT32_MAX;
    }
    uint32_t j = (uint32_t)instr_fnv1a_str(1469598103934665603ull, name) & (u->ftab_cap - 1);
    while (u->ftab[j]) {
        gfile *f = &u->files[u->ftab[j] - 1];
        if (strcmp(f->name, name) == 0) {
            instr_mem_free(name);
            if (f->host != host)
                f->host = UINT32_MAX;
            return u->ftab[j] - 1;
        }
        j = (j + 1) & (u->ftab_cap - 1);
    }
    if (instr_array_grow32(&u->files, &u->capfiles, (size_t)u->nfiles + 1, sizeof *u->files,
                           64) != 0) {
        instr_mem_free(name);
        return UINT32_MAX;
    }
    u->files[u->nfiles] = (gfile){name, host};
    u->ftab[j] = u->nfiles + 1;
    return u->nfiles++;
}

/* The rank's I/O files and handles from b; each handle's global ref into m. */
static void add_io(instr_unifier *u, rbuf *b, wbuf *m, uint32_t host)
{
    uint32_t nf = get32(b);
    if (b->bad || nf > (b->n - b->at) / 4) {
        b->bad = 1;
        return;
    }
    uint32_t *fmap = instr_mem_calloc(nf ? nf : 1, sizeof *fmap);
    if (!fmap) {
        b->bad = 1;
        return;
    }
    for (uint32_t i = 0; i < nf && !b->bad; i++) {
        char *name = getstr(b);
        if (name && (fmap[i] = file_global(u, name, host)) == UINT32_MAX)
            b->bad = 1;
    }
    uint32_t nh = get32(b);
    if (b->bad || nh > (b->n - b->at) / 8 ||
        instr_array_grow32(&u->handles, &u->caphandles, (size_t)u->nhandles + nh + 1,
                           sizeof *u->handles, 64) != 0) {
        instr_mem_free(fmap);
        b->bad = 1;
        return;
    }
    put32(m, nh);
    for (uint32_t i = 0; i < nh && !b->bad; i++) {
        uint32_t file = get32(b), paradigm = get32(b);
        if (file >= nf) {
            b->bad = 1;
            break;
        }
        u->handles[u->nhandles] = (ghandle){fmap[file], paradigm};
        put32(m, u->nhandles++);
    }
    instr_mem_free(fmap);
}

static uint64_t ctx_hash(const gctx *c)
{
    uint64_t h = instr_fnv1a_str(1469598103934665603ull, c->file);
    return (h ^ c->parent ^ ((uint64_t)c->region << 32) ^ ((uint64_t)c->line << 20)) *
           INSTR_FNV1A_PRIME;
}

static uint64_t ctx_hash_of(const void *unifier, uint32_t id)
{
    return ctx_hash(&((const instr_unifier *)unifier)->ctxs[id]);
}

/* The global ref of context c (whose file the unifier takes over, or frees when known). */
static uint32_t ctx_global(instr_unifier *u, gctx *c)
{
    if (2 * (u->nctxs + 1) > u->ctab_cap &&
        instr_id_index_build(&u->ctab, &u->ctab_cap, u->ctab_cap ? 2 * u->ctab_cap : 1024,
                             u->nctxs, ctx_hash_of, u) != 0) {
        instr_mem_free(c->file);
        return UINT32_MAX;
    }
    uint32_t j = (uint32_t)ctx_hash(c) & (u->ctab_cap - 1);
    while (u->ctab[j]) {
        gctx *g = &u->ctxs[u->ctab[j] - 1];
        if (g->parent == c->parent && g->region == c->region && g->line == c->line &&
            strcmp(g->file, c->file) == 0) {
            instr_mem_free(c->file);
            return u->ctab[j] - 1;
        }
        j = (j + 1) & (u->ctab_cap - 1);
    }
    if (instr_array_grow32(&u->ctxs, &u->capctxs, (size_t)u->nctxs + 1, sizeof *u->ctxs,
                           256) != 0) {
        instr_mem_free(c->file);
        return UINT32_MAX;
    }
    u->ctxs[u->nctxs] = *c;
    u->ctab[j] = u->nctxs + 1;
    return u->nctxs++;
}

/* The rank's calling contexts from b (their regions: local handles, mapped by regs); each
 * one's global ref into m. A parent comes before its children. */
static void add_contexts(instr_unifier *u, rbuf *b, wbuf *m, const uint32_t *regs,
                         uint32_t nregs)
{
    uint32_t n = get32(b);
    if (b->bad || n > (b->n - b->at) / 16) {
        b->bad = 1;
        return;
    }
    uint32_t *map = instr_mem_calloc(n ? n : 1, sizeof *map);
    if (!map) {
        b->bad = 1;
        return;
    }
    put32(m, n);
    for (uint32_t i = 0; i < n && !b->bad; i++) {
        uint32_t parent = get32(b), region = get32(b), line = get32(b);
        char *file = getstr(b);
        if (b->bad || !file || (parent != UINT32_MAX && parent >= i) || region == 0 ||
            region > nregs) {
            instr_mem_free(file);
            b->bad = 1;
            break;
        }
        gctx c = {parent == UINT32_MAX ? UINT32_MAX : map[parent], regs[region - 1], line, file};
        if ((map[i] = ctx_global(u, &c)) == UINT32_MAX)
            b->bad = 1;
        put32(m, map[i]);
    }
    instr_mem_free(map);
}

instr_unifier *instr_trace_unify_new(int nranks)
{
    instr_unifier *u = instr_mem_calloc(1, sizeof *u);
    if (!u || !(u->ranks = instr_mem_calloc((size_t)nranks, sizeof *u->ranks))) {
        instr_mem_free(u);
        return NULL;
    }
    u->nranks = nranks;
    u->made_ns = instr_trace_unify_now_ns();
    /* MPI_COMM_WORLD and MPI_COMM_SELF are global comms 0 and 1 on every rank. */
    comm_global(u, UINT32_MAX, 0, instr_mem_strdup("MPI_COMM_WORLD"), 0, NULL);
    comm_global(u, UINT32_MAX, 1, instr_mem_strdup("MPI_COMM_SELF"), 0, NULL);
    return u;
}

int instr_trace_unify_add(instr_unifier *u, int rank, const char *blob, size_t len, char **map,
                          size_t *maplen)
{
    rbuf b = {blob, len, 0, 0};
    wbuf m = {0};
    if (!u || rank < 0 || rank >= u->nranks || get32(&b) != INSTR_TRACE_BLOB_MAGIC ||
        get32(&b) != (uint32_t)rank)
        return -1;
    grank *g = &u->ranks[rank];
    g->pid = get64(&b);
    char *host = getstr(&b);
    uint64_t t0 = get64(&b), t1 = get64(&b), margin = get64(&b);
    g->mpi_location = get32(&b);
    if (b.bad || !host) {
        instr_mem_free(host);
        return -1;
    }
    g->host = host_index(u, host);
    if (!u->have_time || t0 < u->t_first)
        u->t_first = t0;
    if (!u->have_time || t1 > u->t_last)
        u->t_last = t1;
    if (margin > u->margin)
        u->margin = margin;
    u->have_time = 1;

    uint32_t nloc = get32(&b);
    if (b.bad || nloc > (b.n - b.at) / 20)
        return -1;
    g->loc_id = instr_mem_calloc(nloc ? nloc : 1, sizeof *g->loc_id);
    g->loc_tid = instr_mem_calloc(nloc ? nloc : 1, sizeof *g->loc_tid);
    g->loc_events = instr_mem_calloc(nloc ? nloc : 1, sizeof *g->loc_events);
    if (!g->loc_id || !g->loc_tid || !g->loc_events)
        return -1;
    for (uint32_t i = 0; i < nloc; i++) {
        g->loc_id[i] = get32(&b);
        g->loc_tid[i] = get64(&b);
        g->loc_events[i] = get64(&b);
        u->events += g->loc_events[i];
    }
    g->nloc = nloc;
    g->async_id = get32(&b);
    g->async_events = get64(&b);
    u->events += g->async_events;

    uint32_t nreg = get32(&b);
    put32(&m, nreg);
    uint32_t *regs = NULL;
    if (b.bad || nreg > (b.n - b.at) / 24 ||
        !(regs = instr_mem_calloc(nreg ? nreg : 1, sizeof *regs)))
        return -1;
    for (uint32_t i = 0; i < nreg && !b.bad; i++) {
        gregion r = {.name = getstr(&b), .canonical = getstr(&b), .file = getstr(&b)};
        r.lb = get32(&b);
        r.le = get32(&b);
        r.source = get32(&b);
        uint32_t ref = UINT32_MAX;
        if (!b.bad)
            ref = region_global(u, &r);
        if (ref == UINT32_MAX) {
            instr_mem_free(r.name);
            instr_mem_free(r.canonical);
            instr_mem_free(r.file);
            b.bad = 1;
        }
        regs[i] = ref;
        put32(&m, ref);
    }
    uint32_t ncomm = get32(&b);
    put32(&m, ncomm);
    for (uint32_t i = 0; i < ncomm && !b.bad; i++) {
        uint32_t leader = get32(&b), seq = get32(&b);
        char *name = getstr(&b);
        uint32_t n = get32(&b);
        uint32_t *members = NULL;
        if (!b.bad && n) {
            if (n > (b.n - b.at) / 4 || !(members = instr_mem_alloc(n * sizeof *members))) {
                b.bad = 1;
            } else {
                for (uint32_t k = 0; k < n; k++)
                    members[k] = get32(&b);
            }
        }
        uint32_t ref = UINT32_MAX;
        if (!b.bad && name)
            ref = comm_global(u, leader, seq, name, n, members);
        else {
            instr_mem_free(name);
            instr_mem_free(members);
            b.bad = 1;
        }
        put32(&m, ref);
    }
    add_io(u, &b, &m, g->host);
    add_contexts(u, &b, &m, regs, nreg);
    instr_mem_free(regs);
    if (b.bad || m.failed) {
        instr_mem_free(m.p);
        return -1;
    }
    g->present = 1;
    *map = m.p;
    *maplen = m.n;
    return 0;
}

void instr_trace_unify_free(instr_unifier *u)
{
    if (!u)
        return;
    for (int r = 0; r < u->nranks; r++) {
        instr_mem_free(u->ranks[r].loc_id);
        instr_mem_free(u->ranks[r].loc_tid);
        instr_mem_free(u->ranks[r].loc_events);
    }
    for (uint32_t i = 0; i < u->nregions; i++) {
        instr_mem_free(u->regions[i].name);
        instr_mem_free(u->regions[i].canonical);
        instr_mem_free(u->regions[i].file);
    }
    for (uint32_t i = 0; i < u->ncomms; i++) {
        instr_mem_free(u->comms[i].name);
        instr_mem_free(u->comms[i].members);
    }
    for (uint32_t i = 0; i < u->nhosts; i++)
        instr_mem_free(u->hosts[i]);
    for (uint32_t i = 0; i < u->nfiles; i++)
        instr_mem_free(u->files[i].name);
    instr_mem_free(u->files);
    instr_mem_free(u->ftab);
    instr_mem_free(u->handles);
    for (uint32_t i = 0; i < u->nctxs; i++)
        instr_mem_free(u->ctxs[i].file);
    instr_mem_free(u->ctxs);
    instr_mem_free(u->ctab);
    instr_mem_free(u->hosts);
    instr_mem_free(u->comms);
    instr_mem_free(u->regions);
    instr_mem_free(u->rtab);
    instr_mem_free(u->ranks);
    instr_mem_free(u);
}
