/* cct.c — one thread's calling-context tree, updated on every enter and exit.
 *
 * Hot path: no locks (the tree belongs to its thread), no allocation once the thread's call
 * paths have been seen (nodes come from chunks taken from the INSTR_TOTAL_MEMORY budget,
 * 4 KiB first, doubling to 1 MiB), no system calls. */
#include "profile.h"
#include "../core/memory.h"

#include <stdlib.h>
#include <string.h>

#define FIRST_CHUNK 4096u
#define MAX_CHUNK (1u << 20)
#define FIRST_STACK 64u

void *instr_profile_location_begin(instr_location *loc)
{
    (void)loc;
    instr_pstate *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->stack = malloc(FIRST_STACK * sizeof *s->stack);
    if (!s->stack) {
        free(s);
        return NULL;
    }
    s->cap = FIRST_STACK;
    s->stack[0] = (instr_pframe){&s->root, 0, 0, 0};
    s->next_chunk = FIRST_CHUNK;
    return s;
}

static instr_pnode *new_node(instr_pstate *s, instr_pnode *parent, uint32_t region)
{
    if ((size_t)(s->end - s->cur) < sizeof(instr_pnode)) {
        char *chunk = instr_mem_chunk(s->next_chunk);
        if (!chunk)
            return NULL;
        /* Chunks stay linked (also the parent's in a forked child) so that leak checkers
         * see them as reachable. */
        *(void **)(void *)chunk = s->chunks;
        s->chunks = chunk;
        s->cur = chunk + 16;
        s->end = chunk + s->next_chunk;
        if (s->next_chunk < MAX_CHUNK)
            s->next_chunk *= 2;
    }
    instr_pnode *n = (instr_pnode *)(void *)s->cur;
    s->cur += sizeof *n;
    n->region = region;
    n->parent = parent;
    n->s.min_incl = n->s.min_excl = UINT64_MAX;
    n->sibling = parent->child;
    parent->child = n;
    return n;
}

__attribute__((noinline)) static instr_pnode *child_search(instr_pstate *s, instr_pnode *parent,
                                                           uint32_t region)
{
    instr_pnode *n;
    for (n = parent->child; n; n = n->sibling)
        if (n->region == region)
            break;
    if (!n && !(n = new_node(s, parent, region))) {
        s->dropped++;
        return NULL;
    }
    parent->last = n;
    return n;
}

/* The child entered last is checked inline: in loops it is the next one again. */
static inline instr_pnode *child_of(instr_pstate *s, instr_pnode *parent, uint32_t region)
{
    instr_pnode *n = parent->last;
    if (__builtin_expect(n && n->region == region, 1))
        return n;
    return child_search(s, parent, region);
}

void instr_profile_enter(void *data, uint32_t region, uint64_t t)
{
    instr_pstate *s = data;
    if (__builtin_expect(!s, 0))
        return;
    if (__builtin_expect(s->depth + 1 == s->cap, 0)) {
        instr_pframe *grown = realloc(s->stack, 2 * s->cap * sizeof *grown);
        if (!grown) {
            s->overflow++;
            return;
        }
        s->stack = grown;
        s->cap *= 2;
    }
    instr_pnode *parent = s->stack[s->depth].node;
    instr_pnode *n = parent ? child_of(s, parent, region) : (s->dropped++, NULL);
    instr_pframe *f = &s->stack[++s->depth];
    f->node = n;
    f->t_enter = t;
    f->child = 0;
    f->region = region;
}

void instr_profile_exit(void *data, uint32_t region, uint64_t t)
{
    (void)region; /* the core delivers balanced events */
    instr_pstate *s = data;
    if (__builtin_expect(!s, 0))
        return;
    if (__builtin_expect(s->overflow != 0, 0)) {
        s->overflow--;
        return;
    }
    if (__builtin_expect(s->depth == 0, 0))
        return;
    instr_pframe *f = &s->stack[s->depth--];
    /* Guards against a clock that went backwards (TSC across sockets). */
    uint64_t incl = t > f->t_enter ? t - f->t_enter : 0;
    uint64_t excl = incl > f->child ? incl - f->child : 0;
    instr_pnode *n = f->node;
    if (n) {
        n->s.visits++;
        n->s.incl += incl;
        n->s.excl += excl;
        if (incl < n->s.min_incl) n->s.min_incl = incl;
        if (incl > n->s.max_incl) n->s.max_incl = incl;
        if (excl < n->s.min_excl) n->s.min_excl = excl;
        if (excl > n->s.max_excl) n->s.max_excl = excl;
    }
    s->stack[s->depth].child += incl;
}

void instr_profile_fork_child(void *data, uint64_t t)
{
    instr_pstate *s = data;
    /* The parent's nodes are the parent's results: start an empty tree (the old chunks are
     * left alone) and re-create the open call path, entered at the fork. */
    memset(&s->root, 0, sizeof s->root);
    s->cur = s->end = NULL;
    s->next_chunk = FIRST_CHUNK;
    s->dropped = 0;
    instr_pnode *parent = &s->root;
    for (uint32_t i = 1; i <= s->depth; i++) {
        instr_pframe *f = &s->stack[i];
        instr_pnode *n = parent ? child_of(s, parent, f->region) : NULL;
        f->node = n;
        f->t_enter = t;
        f->child = 0;
        parent = n;
    }
    s->stack[0].child = 0;
}
