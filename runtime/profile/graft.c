/* graft.c — work of one thread under another thread's call path (graft.h).
 *
 * A graft node is a root of the location's own tree with region 0 (no region has handle 0)
 * that remembers the other thread's node (`under`) and the location's own node it stood in
 * for (`at`: its root for an implicit task, the barrier or taskwait that ran an explicit
 * task). One per (location, under, at), found again by a search of the roots (the root's
 * `last` caches the most recent one): grafts happen per parallel region and per task, not
 * per event, and allocate only the first time.
 *
 * Time is counted once per location. The grafted work's time T went, as it was measured,
 * into the inclusive time of `at` and its ancestors. At the end the fork path gets T on the
 * nodes it does not share with the path of `at` (compared by regions from the root), and
 * `at` and its ancestors below the shared part give T back: they no longer contain that
 * work. Their exclusive time is right already (the work was a callee of `at`); their
 * per-visit maxima are capped at the new inclusive time. */
#include "graft.h"
#include "profile.h"
#include "../core/event.h"

#include <stdlib.h>
#include <string.h>

typedef struct graft_node {
    instr_pnode node;          /* region 0, a child of the location's root */
    const instr_pnode *under;  /* the fork point in another (or the same) tree */
    instr_pnode *at;           /* the location's own node the graft stood in for */
    uint64_t time;             /* at the end: the grafted work's time, as measured */
    size_t shared;             /* at the end: path nodes shared by `under` and `at` */
} graft_node;

static instr_pstate *pstate(instr_location *loc)
{
    int slot = loc ? instr_substrate_slot(&instr_profile_substrate) : -1;
    return slot < 0 ? NULL : loc->sub[slot];
}

static int is_graft(const instr_pnode *n) { return n->region == 0 && n->parent != NULL; }

const void *instr_profile_cursor(instr_location *loc)
{
    instr_pstate *s = pstate(loc);
    return s && !s->overflow ? s->stack[s->depth].node : NULL;
}

const void *instr_profile_cursor_parent(const void *cursor)
{
    const instr_pnode *n = cursor;
    return n ? n->parent : NULL;
}

static int graft_is(const instr_pnode *n, const instr_pnode *under, const instr_pnode *at)
{
    return n && is_graft(n) && ((const graft_node *)n)->under == under &&
           ((const graft_node *)n)->at == at;
}

uint32_t instr_profile_cursor_region(const void *cursor)
{
    const instr_pnode *n = cursor;
    return n && n->parent ? n->region : 0;
}

static instr_pnode *graft_for(instr_pstate *s, const instr_pnode *under, instr_pnode *at)
{
    instr_pnode *root = &s->root;
    if (graft_is(root->last, under, at))
        return root->last;
    for (instr_pnode *n = root->child; n; n = n->sibling)
        if (graft_is(n, under, at))
            return root->last = n;
    graft_node *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->under = under;
    g->at = at;
    g->node.parent = root;
    g->node.s.min_incl = g->node.s.min_excl = UINT64_MAX;
    g->node.sibling = root->child;
    root->child = &g->node;
    return root->last = &g->node;
}

void instr_profile_graft_begin(instr_location *loc, const void *cursor, instr_profile_graft *g)
{
    g->saved = NULL;
    instr_pstate *s = pstate(loc);
    if (!s || !cursor || s->overflow || !s->stack[s->depth].node)
        return;
    instr_pnode *gn = graft_for(s, cursor, s->stack[s->depth].node);
    if (!gn)
        return;
    g->saved = s->stack[s->depth].node;
    g->depth = s->depth;
    s->stack[s->depth].node = gn;
}

void instr_profile_graft_end(instr_location *loc, const instr_profile_graft *g)
{
    instr_pstate *s = pstate(loc);
    if (s && g->saved && g->depth <= s->depth)
        s->stack[g->depth].node = g->saved;
}

/* ---- the end: every graft moves under its fork point's call path ---- */

static instr_pnode *child_with(instr_pnode *parent, uint32_t region)
{
    for (instr_pnode *c = parent->child; c; c = c->sibling)
        if (c->region == region)
            return c;
    return NULL;
}

static instr_pnode *path_node(instr_pnode *parent, uint32_t region)
{
    instr_pnode *n = child_with(parent, region);
    if (n)
        return n;
    if (!(n = calloc(1, sizeof *n)))
        return NULL;
    n->region = region;
    n->parent = parent;
    n->s.min_incl = n->s.min_excl = UINT64_MAX;
    n->sibling = parent->child;
    parent->child = n;
    return n;
}

typedef struct vec {
    void **v;
    size_t n, cap;
} vec;

static int push(vec *a, void *p)
{
    if (a->n == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 64;
        void **v = realloc(a->v, cap * sizeof *v);
        if (!v)
            return -1;
        a->v = v;
        a->cap = cap;
    }
    a->v[a->n++] = p;
    return 0;
}

/* The regions of a node's call path, innermost first, following grafts of the threads on
 * the way (a nested team's master was itself a worker). -1 on a cycle or no memory. */
static int fork_path(const instr_pnode *p, vec *regions)
{
    regions->n = 0;
    for (size_t hops = 0; p && p->parent; hops++) {
        if (hops > (1u << 24))
            return -1;
        if (is_graft(p)) {
            p = ((const graft_node *)p)->under;
            continue;
        }
        if (push(regions, (void *)(uintptr_t)p->region) != 0)
            return -1;
        p = p->parent;
    }
    return 0;
}

/* Moves src's children under dst; a child whose region dst already has is added into that
 * node and its own children follow. Iterative: trees can be deep. */
static int move_children(instr_pnode *src, instr_pnode *dst, vec *work)
{
    work->n = 0;
    if (push(work, src) != 0 || push(work, dst) != 0)
        return -1;
    while (work->n) {
        instr_pnode *d = work->v[--work->n], *s = work->v[--work->n];
        instr_pnode *c = s->child;
        s->child = s->last = NULL;
        while (c) {
            instr_pnode *next = c->sibling;
            instr_pnode *same = child_with(d, c->region);
            if (same) {
                instr_pstats_add(&same->s, &c->s);
                if (push(work, c) != 0 || push(work, same) != 0)
                    return -1;
            } else {
                c->parent = d;
                c->sibling = d->child;
                d->child = c;
            }
            c = next;
        }
        d->last = NULL;
    }
    return 0;
}

/* Where the work ran (g->at) and where it belongs (g->under) share the first `shared` nodes
 * of their paths (by regions, from the root). The nodes of g->at's own path below that give
 * back the work's time: `at` and its ancestors up to the shared part or a graft boundary
 * (above it, the path is re-created from the corrected nodes). Returns `shared`. */
static size_t shared_depth(graft_node *g, vec *regions, vec *ran)
{
    if (!g->at || !g->at->parent || fork_path(g->under, regions) != 0 ||
        fork_path(g->at, ran) != 0)
        return 0;
    size_t shared = 0;
    while (shared < regions->n && shared < ran->n &&
           regions->v[regions->n - 1 - shared] == ran->v[ran->n - 1 - shared])
        shared++;
    uint64_t incl = g->time;
    size_t depth = ran->n;
    for (instr_pnode *n = g->at; n && n->parent && !is_graft(n) && depth > shared;
         n = n->parent, depth--) {
        n->s.incl = n->s.incl > incl ? n->s.incl - incl : 0;
        if (n->s.max_incl > n->s.incl)
            n->s.max_incl = n->s.incl;
        if (n->s.min_incl != UINT64_MAX && n->s.min_incl > n->s.max_incl)
            n->s.min_incl = n->s.max_incl;
    }
    return shared;
}

/* Resolved graft nodes, linked through `sibling`: later grafts' paths may pass through them,
 * and leak checkers see them as reachable. */
static instr_pnode *resolved;

static void resolve_location(instr_pstate *ps, vec *regions, vec *work)
{
    instr_pnode *root = &ps->root, **link = &root->child;
    while (*link) {
        instr_pnode *g = *link;
        if (!is_graft(g)) {
            link = &g->sibling;
            continue;
        }
        *link = g->sibling; /* unlinked; kept, later grafts may still pass through it */
        uint64_t incl = ((graft_node *)g)->time;
        size_t shared = ((graft_node *)g)->shared;
        instr_pnode *at = root;
        if (fork_path(((graft_node *)g)->under, regions) == 0) {
            /* The path above the grafted work: no visits of this location, its time (on the
             * part it does not share with the path where the work ran). */
            for (size_t i = regions->n, depth = 1; i-- > 0 && at; depth++) {
                at = path_node(at, (uint32_t)(uintptr_t)regions->v[i]);
                if (at && depth > shared)
                    at->s.incl += incl;
            }
        }
        if (!at)
            at = root; /* no memory: the grafted work stays a root of its own */
        move_children(g, at, work);
        g->sibling = resolved;
        resolved = g;
        link = &root->child; /* the list changed under us: start again */
    }
    root->last = NULL;
}

/* Every graft's time as it was measured, before any graft gives time back (a task run inside
 * another grafted task is part of that task's measured time). */
static void measure_grafts(instr_pstate *ps)
{
    for (instr_pnode *g = ps->root.child; g; g = g->sibling) {
        if (!is_graft(g))
            continue;
        uint64_t t = 0;
        for (instr_pnode *c = g->child; c; c = c->sibling)
            t += c->s.incl;
        ((graft_node *)g)->time = t;
    }
}

/* Every graft gives its time back on the path where it ran, while the trees are as they were
 * recorded: moving grafts merges nodes, and a later graft's `at` may be one of them. */
static void give_back(instr_pstate *ps, vec *regions, vec *ran)
{
    for (instr_pnode *g = ps->root.child; g; g = g->sibling)
        if (is_graft(g))
            ((graft_node *)g)->shared = shared_depth((graft_node *)g, regions, ran);
}

void instr_profile_resolve_grafts(const instr_run *run, int slot)
{
    vec regions = {0}, work = {0};
    for (uint32_t i = 0; i < run->nlocations; i++)
        if (run->locations[i]->sub[slot])
            measure_grafts(run->locations[i]->sub[slot]);
    for (uint32_t i = 0; i < run->nlocations; i++)
        if (run->locations[i]->sub[slot])
            give_back(run->locations[i]->sub[slot], &regions, &work);
    for (uint32_t i = 0; i < run->nlocations; i++) {
        instr_pstate *ps = run->locations[i]->sub[slot];
        if (ps)
            resolve_location(ps, &regions, &work);
    }
    free(regions.v);
    free(work.v);
}
