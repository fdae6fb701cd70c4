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
    if (u->frozen)
        return UINT32_MAX;
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
    if (u->frozen) {
        instr_mem_free(members);
        instr_mem_free(name);
        return UINT32_MAX;
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
    u->comms[u->ncomms] = (gcomm){leader, seq, name, members ? nmembers : 0, members, UINT32_MAX};
    return u->ncomms++;
}

/* Communicator c (a global ref) was made from parent (one): kept when it is a lower ref, as
 * the parent of a communicator always is (every member of the new one is one of the parent,
 * which it defined first), so that a reader meets the parent first. */
static void comm_parent(instr_unifier *u, uint32_t c, uint32_t parent)
{
    if (c < u->ncomms && parent < c && u->comms[c].parent == UINT32_MAX)
        u->comms[c].parent = parent;
}

/* The communicators' parents from b (absent from the blob of an older writer: none), local
 * refs mapped by comms (ncomm of them). */
static void add_parents(instr_unifier *u, rbuf *b, const uint32_t *comms, uint32_t ncomm)
{
    if (b->at == b->n)
        return;
    uint32_t n = get32(b);
    if (b->bad || n != ncomm) {
        b->bad = 1;
        return;
    }
    for (uint32_t i = 0; i < n && !b->bad; i++) {
        uint32_t p = get32(b);
        if (!b->bad && p < ncomm && comms[i] != UINT32_MAX && comms[p] != UINT32_MAX)
            comm_parent(u, comms[i], comms[p]);
    }
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
    if (u->frozen) {
        instr_mem_free(name);
        return UINT32_MAX;
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
        put32(m, u->handle_base + u->nhandles++);
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
    if (u->frozen) {
        instr_mem_free(c->file);
        return UINT32_MAX;
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

/* The window (leader, seq): found, or added with name (taken over) and comm (a global ref);
 * a frozen unifier adds none. */
static void win_global(instr_unifier *u, uint32_t leader, uint32_t seq, char *name,
                       uint32_t comm)
{
    for (uint32_t i = 0; i < u->nwins; i++) /* windows are few */
        if (u->wins[i].leader == leader && u->wins[i].seq == seq) {
            instr_mem_free(name);
            return;
        }
    if (u->frozen || instr_array_grow32(&u->wins, &u->capwins, (size_t)u->nwins + 1,
                                        sizeof *u->wins, 8) != 0) {
        instr_mem_free(name);
        return;
    }
    u->wins[u->nwins++] = (gwin){leader, seq, comm, name};
}

/* Windows from b (absent from the blob of an older writer: none); comms maps the blob's
 * communicator refs (ncomm of them) to global ones. */
static void add_wins(instr_unifier *u, rbuf *b, const uint32_t *comms, uint32_t ncomm)
{
    if (b->at == b->n)
        return;
    uint32_t n = get32(b);
    if (b->bad || n > (b->n - b->at) / 16) {
        b->bad = 1;
        return;
    }
    for (uint32_t i = 0; i < n && !b->bad; i++) {
        uint32_t leader = get32(b), seq = get32(b);
        char *name = getstr(b);
        uint32_t comm = get32(b);
        if (b->bad || !name) {
            instr_mem_free(name);
            b->bad = 1;
            break;
        }
        win_global(u, leader, seq, name, comm < ncomm ? comms[comm] : UINT32_MAX);
    }
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

instr_unifier *instr_trace_unify_new(int first, int nranks)
{
    instr_unifier *u = instr_mem_calloc(1, sizeof *u);
    if (!u || !(u->ranks = instr_mem_calloc(nranks > 0 ? (size_t)nranks : 1, sizeof *u->ranks))) {
        instr_mem_free(u);
        return NULL;
    }
    u->first = first;
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
    if (!u || rank < u->first || rank - u->first >= u->nranks ||
        get32(&b) != INSTR_TRACE_BLOB_MAGIC || get32(&b) != (uint32_t)rank)
        return -1;
    grank *g = &u->ranks[rank - u->first];
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
    uint32_t *cms = NULL;
    if (!b.bad && ncomm <= (b.n - b.at) / 16)
        cms = instr_mem_calloc(ncomm ? ncomm : 1, sizeof *cms);
    if (!cms)
        b.bad = 1;
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
        cms[i] = ref;
        put32(&m, ref);
    }
    add_io(u, &b, &m, g->host);
    add_contexts(u, &b, &m, regs, nreg);
    if (!b.bad)
        add_wins(u, &b, cms, ncomm);
    if (!b.bad)
        add_parents(u, &b, cms, ncomm);
    instr_mem_free(cms);
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
    for (uint32_t i = 0; i < u->nwins; i++)
        instr_mem_free(u->wins[i].name);
    instr_mem_free(u->wins);
    instr_mem_free(u->ctab);
    instr_mem_free(u->hosts);
    instr_mem_free(u->comms);
    instr_mem_free(u->regions);
    instr_mem_free(u->rtab);
    instr_mem_free(u->ranks);
    instr_mem_free(u);
}

/* ---- a unifier as bytes, between the ranks of the reduction tree ------------------------ */

#define PACK_MAGIC 0x696e7475u /* "intu" */

int instr_trace_unify_pack(const instr_unifier *u, int with_ranks, char **out, size_t *len)
{
    wbuf b = {0};
    put32(&b, PACK_MAGIC);
    put32(&b, (uint32_t)with_ranks);
    put32(&b, (uint32_t)u->first);
    put32(&b, with_ranks ? (uint32_t)u->nranks : 0);
    put32(&b, (uint32_t)u->have_time);
    put64(&b, u->t_first);
    put64(&b, u->t_last);
    put64(&b, u->margin);
    put64(&b, u->events);
    put32(&b, u->nhosts);
    for (uint32_t i = 0; i < u->nhosts; i++)
        putstr(&b, u->hosts[i]);
    put32(&b, u->nregions);
    for (uint32_t i = 0; i < u->nregions; i++) {
        const gregion *r = &u->regions[i];
        putstr(&b, r->name);
        putstr(&b, r->canonical);
        putstr(&b, r->file);
        put32(&b, r->lb);
        put32(&b, r->le);
        put32(&b, r->source);
    }
    put32(&b, u->ncomms);
    for (uint32_t i = 0; i < u->ncomms; i++) {
        const gcomm *c = &u->comms[i];
        put32(&b, c->leader);
        put32(&b, c->seq);
        putstr(&b, c->name);
        put32(&b, c->members ? c->nmembers : UINT32_MAX);
        for (uint32_t k = 0; c->members && k < c->nmembers; k++)
            put32(&b, c->members[k]);
        put32(&b, c->parent);
    }
    put32(&b, u->nfiles);
    for (uint32_t i = 0; i < u->nfiles; i++) {
        putstr(&b, u->files[i].name);
        put32(&b, u->files[i].host);
    }
    put32(&b, u->nctxs);
    for (uint32_t i = 0; i < u->nctxs; i++) {
        const gctx *c = &u->ctxs[i];
        put32(&b, c->parent);
        put32(&b, c->region);
        put32(&b, c->line);
        putstr(&b, c->file);
    }
    put32(&b, u->nwins);
    for (uint32_t i = 0; i < u->nwins; i++) {
        put32(&b, u->wins[i].leader);
        put32(&b, u->wins[i].seq);
        putstr(&b, u->wins[i].name);
        put32(&b, u->wins[i].comm);
    }
    if (with_ranks) {
        put32(&b, u->nhandles);
        for (uint32_t i = 0; i < u->nhandles; i++) {
            put32(&b, u->handles[i].file);
            put32(&b, u->handles[i].paradigm);
        }
        for (int r = 0; r < u->nranks; r++) {
            const grank *g = &u->ranks[r];
            put32(&b, (uint32_t)g->present);
            put64(&b, g->pid);
            put32(&b, g->host);
            put32(&b, g->mpi_location);
            put32(&b, g->nloc);
            for (uint32_t i = 0; i < g->nloc; i++) {
                put32(&b, g->loc_id[i]);
                put64(&b, g->loc_tid[i]);
                put64(&b, g->loc_events[i]);
            }
            put32(&b, g->async_id);
            put64(&b, g->async_events);
        }
    }
    if (b.failed) {
        instr_mem_free(b.p);
        return -1;
    }
    *out = b.p;
    *len = b.n;
    return 0;
}

/* A count of items of at least `least` bytes each that the rest of b can hold. */
static uint32_t get_count(rbuf *b, size_t least)
{
    uint32_t n = get32(b);
    if (!b->bad && n > (b->n - b->at) / least)
        b->bad = 1;
    return b->bad ? 0 : n;
}

/* The rest of a packed unifier (after its hosts' map hmap): regions, communicators, files,
 * contexts, handles and ranks, each appended or found by what they are. */
static void merge_rest(instr_unifier *u, rbuf *b, int with_ranks, uint32_t first,
                       uint32_t nranks, const uint32_t *hmap, uint32_t nhosts)
{
    uint32_t *rmap = NULL, *fmap = NULL, *xmap = NULL, *cmap = NULL;
    uint32_t nreg = get_count(b, 24);
    if (!b->bad && !(rmap = instr_mem_calloc(nreg ? nreg : 1, sizeof *rmap)))
        b->bad = 1;
    for (uint32_t i = 0; i < nreg && !b->bad; i++) {
        gregion r = {.name = getstr(b), .canonical = getstr(b), .file = getstr(b)};
        r.lb = get32(b);
        r.le = get32(b);
        r.source = get32(b);
        rmap[i] = b->bad ? UINT32_MAX : region_global(u, &r);
        if (rmap[i] == UINT32_MAX) {
            instr_mem_free(r.name);
            instr_mem_free(r.canonical);
            instr_mem_free(r.file);
            b->bad = 1;
        }
    }
    uint32_t ncomm = get_count(b, 16);
    if (!b->bad && !(cmap = instr_mem_calloc(ncomm ? ncomm : 1, sizeof *cmap)))
        b->bad = 1;
    for (uint32_t i = 0; i < ncomm && !b->bad; i++) {
        uint32_t leader = get32(b), seq = get32(b);
        char *name = getstr(b);
        uint32_t n = get32(b);
        uint32_t *members = NULL;
        if (!b->bad && n != UINT32_MAX) {
            if (n > (b->n - b->at) / 4 ||
                !(members = instr_mem_alloc(n ? n * sizeof *members : 1)))
                b->bad = 1;
            for (uint32_t k = 0; k < n && !b->bad; k++)
                members[k] = get32(b);
        }
        uint32_t parent = get32(b); /* an index into this packed list, a lower one */
        if (b->bad || !name ||
            (cmap[i] = comm_global(u, leader, seq, name, n == UINT32_MAX ? 0 : n, members)) ==
                UINT32_MAX) {
            if (b->bad || !name) {
                instr_mem_free(name);
                instr_mem_free(members);
            }
            b->bad = 1;
        } else if (parent < i) {
            comm_parent(u, cmap[i], cmap[parent]);
        }
    }
    uint32_t nf = get_count(b, 8);
    if (!b->bad && !(fmap = instr_mem_calloc(nf ? nf : 1, sizeof *fmap)))
        b->bad = 1;
    for (uint32_t i = 0; i < nf && !b->bad; i++) {
        char *name = getstr(b);
        uint32_t host = get32(b);
        if (b->bad || !name || (host != UINT32_MAX && host >= nhosts)) {
            instr_mem_free(name);
            b->bad = 1;
            break;
        }
        if ((fmap[i] = file_global(u, name, host == UINT32_MAX ? UINT32_MAX : hmap[host])) ==
            UINT32_MAX)
            b->bad = 1;
    }
    uint32_t nctx = get_count(b, 16);
    if (!b->bad && !(xmap = instr_mem_calloc(nctx ? nctx : 1, sizeof *xmap)))
        b->bad = 1;
    for (uint32_t i = 0; i < nctx && !b->bad; i++) {
        uint32_t parent = get32(b), region = get32(b), line = get32(b);
        char *file = getstr(b);
        if (b->bad || !file || (parent != UINT32_MAX && parent >= i) || region >= nreg) {
            instr_mem_free(file);
            b->bad = 1;
            break;
        }
        gctx c = {parent == UINT32_MAX ? UINT32_MAX : xmap[parent], rmap[region], line, file};
        if ((xmap[i] = ctx_global(u, &c)) == UINT32_MAX)
            b->bad = 1;
    }
    uint32_t nwin = get_count(b, 16);
    for (uint32_t i = 0; i < nwin && !b->bad; i++) {
        uint32_t leader = get32(b), seq = get32(b);
        char *name = getstr(b);
        uint32_t comm = get32(b);
        if (b->bad || !name) {
            instr_mem_free(name);
            b->bad = 1;
            break;
        }
        win_global(u, leader, seq, name, comm < ncomm ? cmap[comm] : UINT32_MAX);
    }
    if (with_ranks && !b->bad) {
        uint32_t nh = get_count(b, 8);
        if (!b->bad && instr_array_grow32(&u->handles, &u->caphandles,
                                          (size_t)u->nhandles + nh + 1, sizeof *u->handles,
                                          64) != 0)
            b->bad = 1;
        for (uint32_t i = 0; i < nh && !b->bad; i++) {
            uint32_t file = get32(b), paradigm = get32(b);
            if (file >= nf)
                b->bad = 1;
            else
                u->handles[u->nhandles++] = (ghandle){fmap[file], paradigm};
        }
        if (!b->bad && ((int)first < u->first ||
                        (int)(first - (uint32_t)u->first) + (int)nranks > u->nranks))
            b->bad = 1;
        for (uint32_t r = 0; r < nranks && !b->bad; r++) {
            grank *g = &u->ranks[first - (uint32_t)u->first + r];
            g->present = (int)get32(b);
            g->pid = get64(b);
            uint32_t host = get32(b);
            g->host = host < nhosts ? hmap[host] : 0;
            g->mpi_location = get32(b);
            uint32_t nloc = get_count(b, 20);
            g->loc_id = instr_mem_calloc(nloc ? nloc : 1, sizeof *g->loc_id);
            g->loc_tid = instr_mem_calloc(nloc ? nloc : 1, sizeof *g->loc_tid);
            g->loc_events = instr_mem_calloc(nloc ? nloc : 1, sizeof *g->loc_events);
            if (b->bad || !g->loc_id || !g->loc_tid || !g->loc_events) {
                g->present = 0;
                b->bad = 1;
                break;
            }
            for (uint32_t i = 0; i < nloc; i++) {
                g->loc_id[i] = get32(b);
                g->loc_tid[i] = get64(b);
                g->loc_events[i] = get64(b);
            }
            g->nloc = nloc;
            g->async_id = get32(b);
            g->async_events = get64(b);
            if (b->bad)
                g->present = 0;
        }
    }
    instr_mem_free(rmap);
    instr_mem_free(fmap);
    instr_mem_free(xmap);
    instr_mem_free(cmap);
}

int instr_trace_unify_merge(instr_unifier *u, const char *buf, size_t len)
{
    rbuf b = {buf, len, 0, 0};
    if (!u || !buf || get32(&b) != PACK_MAGIC)
        return -1;
    int with_ranks = get32(&b) != 0;
    uint32_t first = get32(&b), nranks = get32(&b);
    int have_time = get32(&b) != 0;
    uint64_t t0 = get64(&b), t1 = get64(&b), margin = get64(&b), events = get64(&b);
    uint32_t nhosts = get_count(&b, 4), *hmap = NULL;
    if (b.bad || !(hmap = instr_mem_calloc(nhosts ? nhosts : 1, sizeof *hmap)))
        return -1;
    for (uint32_t i = 0; i < nhosts && !b.bad; i++) {
        char *host = getstr(&b);
        if (host)
            hmap[i] = host_index(u, host);
    }
    if (have_time && !b.bad) {
        if (!u->have_time || t0 < u->t_first)
            u->t_first = t0;
        if (!u->have_time || t1 > u->t_last)
            u->t_last = t1;
        if (margin > u->margin)
            u->margin = margin;
        u->have_time = 1;
    }
    if (with_ranks && !b.bad)
        u->events += events;
    if (!b.bad)
        merge_rest(u, &b, with_ranks, first, nranks, hmap, nhosts);
    instr_mem_free(hmap);
    return b.bad ? -1 : 0;
}

int instr_trace_unify_map(instr_unifier *u, int rank, const char *blob, size_t len,
                          uint32_t handle_base, char **map, size_t *maplen)
{
    if (!u)
        return -1;
    u->frozen = 1;
    u->handle_base = handle_base;
    return instr_trace_unify_add(u, rank, blob, len, map, maplen);
}
