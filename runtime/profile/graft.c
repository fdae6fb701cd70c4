/* graft.c — work of one thread under another thread's call path (graft.h).
 *
 * A graft node is a frame of region 0 (no region has handle 0) that the location enters
 * below its own node `at` (its root for an implicit task, the barrier or taskwait that runs an
 * explicit task) and that remembers the other thread's node (`under`, the fork point). While
 * it is open, the cursor (cct.h) moves below it as for any frame, and exits walk back through
 * it to `at`; closing it adds the grafted work's time to `at`'s callees, so `at`'s exclusive
 * time is right as measured. One graft node per (at, under), found again among `at`'s
 * children: grafts happen per parallel region and per task, not per event, and allocate
 * only the first time.
 *
 * Time is counted once per location. The grafted work's time T went, as it was measured,
 * into the inclusive time of `at` and its ancestors. At the end the fork path gets T on the
 * nodes it does not share with the path of `at` (compared by regions from the root), and
 * `at` and its ancestors below the shared part give T back: they no longer contain that
 * work. Their per-visit maxima are capped at the new inclusive time. */
#include "graft.h"
#include "profile.h"
#include "../core/clock.h"
#include "../core/event.h"
#include "../util/array.h"
#include "../util/pages.h"

#include <stdlib.h>
#include <string.h>

typedef struct graft_node {
    instr_pnode node;          /* region 0, a child of `at` */
    const instr_pnode *under;  /* the fork point in another (or the same) tree */
    instr_pnode *at;           /* the location's own node the graft stands below */
    struct graft_node *next;   /* the location's graft nodes (instr_pstate.grafts) */
    uint64_t time;             /* at the end: the grafted work's time, as measured */
    size_t shared;             /* at the end: path nodes shared by `under` and `at` */
} graft_node;

static instr_pstate *pstate(instr_location *loc)
{
    int slot = loc ? instr_substrate_slot(&instr_profile_substrate) : -1;
    return slot < 0 ? NULL : loc->sub[slot];
}

static int is_graft(const instr_pnode *n) { return n->region == 0 && n->parent != NULL; }

/* The cursor's node, or NULL while it is parked (a slow path works, or below a node that
 * could not be created). */
static instr_pnode *cursor_node(instr_pstate *s)
{
    instr_pnode *p = s ? s->cursor : NULL;
    return p == &s->busy || p == &s->lost ? NULL : p;
}

const void *instr_profile_cursor(instr_location *loc) { return cursor_node(pstate(loc)); }

const void *instr_profile_cursor_parent(const void *cursor)
{
    const instr_pnode *n = cursor;
    return n ? n->parent : NULL;
}

uint32_t instr_profile_cursor_region(const void *cursor)
{
    const instr_pnode *n = cursor;
    return n && n->parent ? n->region : 0;
}

static graft_node *graft_for(instr_pstate *s, const instr_pnode *under, instr_pnode *at)
{
    for (instr_pnode *n = at->child; n; n = n->sibling)
        if (is_graft(n) && ((graft_node *)n)->under == under)
            return (graft_node *)n;
    graft_node *g = instr_mem_calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->under = under;
    g->at = at;
    g->next = s->grafts;
    s->grafts = g;
    instr_cct_link(&g->node, at, 0);
    return g;
}

void instr_profile_graft_begin(instr_location *loc, const void *cursor, instr_profile_graft *g)
{
    g->saved = NULL;
    instr_pstate *s = pstate(loc);
    instr_pnode *at = cursor_node(s);
    if (!at || !cursor)
        return;
    graft_node *gn = graft_for(s, cursor, at);
    if (!gn)
        return;
    gn->node.child_ticks = 0;
    gn->node.sp = at->sp; /* below the same stack address (the longjmp check, cct.h) */
    gn->node.t_enter = instr_clock_now();
    g->saved = &gn->node;
    g->depth = gn->node.depth;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    s->cursor = &gn->node;
}

void instr_profile_graft_end(instr_location *loc, const instr_profile_graft *g)
{
    instr_pstate *s = pstate(loc);
    instr_pnode *cur = cursor_node(s);
    /* The regions opened under the graft are closed and the cursor is back on it; else it
     * was closed already, by an exit or a close further up that walked through it. */
    if (cur && g->saved && cur == g->saved)
        instr_cct_pop(s, cur, instr_clock_now());
}

/* The generic path delivers an exit for the frame below a graft that is still open (the
 * graft's end comes after its task's region closed): the graft closes first. */
instr_pnode *instr_profile_close_grafts(instr_pstate *s, instr_pnode *n, uint32_t region,
                                        uint64_t t)
{
    while (n->region != region && is_graft(n)) {
        instr_cct_pop(s, n, t);
        n = s->cursor;
    }
    return n;
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
    if ((n = instr_mem_calloc(1, sizeof *n)))
        instr_cct_link(n, parent, region);
    return n;
}

typedef struct vec {
    void **v;
    size_t n, cap;
} vec;

static int push(vec *a, void *p)
{
    if (instr_array_grow(&a->v, &a->cap, a->n + 1, sizeof *a->v, 64) != 0)
        return -1;
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
        s->child = NULL;
        s->last = &instr_cct_nomatch;
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
        d->last = &instr_cct_nomatch;
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

/* Unlinks n from its parent's children. */
static void unlink_child(instr_pnode *n)
{
    instr_pnode **link = &n->parent->child;
    while (*link && *link != n)
        link = &(*link)->sibling;
    if (*link)
        *link = n->sibling;
    n->parent->last = &instr_cct_nomatch;
}

/* Every graft, newest first, moves under its fork point's call path; the graft node stays,
 * unlinked, for the paths of grafts that pass through it (and on the location's list, so
 * leak checkers see it reachable). */
static void resolve_location(instr_pstate *ps, vec *regions, vec *work)
{
    vec order = {0};
    for (graft_node *g = ps->grafts; g; g = g->next)
        if (push(&order, g) != 0)
            break;
    instr_pnode *root = &ps->root;
    for (size_t k = 0; k < order.n; k++) {
        graft_node *g = order.v[k];
        unlink_child(&g->node);
        uint64_t incl = g->time;
        instr_pnode *at = root;
        if (fork_path(g->under, regions) == 0) {
            /* The path above the grafted work: no visits of this location, its time (on the
             * part it does not share with the path where the work ran). */
            for (size_t i = regions->n, depth = 1; i-- > 0 && at; depth++) {
                at = path_node(at, (uint32_t)(uintptr_t)regions->v[i]);
                if (at && depth > g->shared)
                    at->s.incl += incl;
            }
        }
        if (!at)
            at = root; /* no memory: the grafted work stays a root of its own */
        move_children(&g->node, at, work);
    }
    instr_mem_free(order.v);
    root->last = &instr_cct_nomatch;
}

/* Every graft's time as it was measured, before any graft gives time back (a task run inside
 * another grafted task is part of that task's measured time). */
static void measure_grafts(instr_pstate *ps)
{
    for (graft_node *g = ps->grafts; g; g = g->next) {
        uint64_t t = 0;
        for (instr_pnode *c = g->node.child; c; c = c->sibling)
            t += c->s.incl;
        g->time = t;
    }
}

/* Every graft gives its time back on the path where it ran, while the trees are as they were
 * recorded: moving grafts merges nodes, and a later graft's `at` may be one of them. */
static void give_back(instr_pstate *ps, vec *regions, vec *ran)
{
    for (graft_node *g = ps->grafts; g; g = g->next)
        g->shared = shared_depth(g, regions, ran);
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
    instr_mem_free(regions.v);
    instr_mem_free(work.v);
}
