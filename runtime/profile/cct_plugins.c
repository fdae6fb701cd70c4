/* cct_plugins.c — substrate plugins on the cursor path (INSTR_FAST_TABLE with the plugins'
 * substrate; core/event.h, cct.h).
 *
 * While the profile, substrate plugins and perhaps the metrics substrate are the only
 * substrates that want enter/exit, the cursor stays the thread's only stack and the profile
 * calls the plugins' enter and exit itself, from the null-terminated lists of the plugins'
 * substrate (runtime/plugins/), with the location's plugin location: no dispatch table, no
 * core stack. Without metrics the functions below serve the hooks and cyg (through
 * instr_event_path_table); with metrics, cct_metrics.c's, whose out-of-line branch calls the
 * plugins with the values of the node's rows. The cursor's slow paths (cct.c) call them too:
 * a new call path, frames closed by longjmp, unbalanced exits, the end of a thread or of the
 * program.
 *
 * A plugin is called with the cursor taken (cct.h, instr_cct_plugins_call), so a signal
 * handler's events meanwhile are dropped and counted, as on the generic path; unless every
 * plugin's enter and exit is reentrant (INSTR_SUBSTRATE_PLUGIN_REENTRANT): then the event's
 * steps are the profile's own, the cursor given to the child or the parent, and the plugins
 * are called last, so that a handler's events meanwhile find a consistent cursor and are
 * recorded (instr_cct_plugins*r_*).
 *
 * Hot: no locks, no allocation, no system call. */
#include "profile.h"
#include "../core/clock.h"
#include "../core/event.h"
#include "../metrics/metrics.h"
#include "../util/pages.h"

#include <stdlib.h>

void instr_cct_path_plugins(int one_each, int reentrant)
{
    if (reentrant && one_each)
        instr_event_path_set(&instr_cct_plugins1r_ops);
    else if (reentrant)
        instr_event_path_set(&instr_cct_pluginsr_ops);
    else if (one_each)
        instr_event_path_set(&instr_cct_plugins1_ops);
    else
        instr_event_path_set(&instr_cct_plugins_ops);
}

void instr_cct_plugins_none(struct instr_substrate_location *loc, uint64_t t, uint32_t region,
                            const uint64_t *metrics)
{
    (void)loc, (void)t, (void)region, (void)metrics;
}

__attribute__((noinline)) void instr_cct_plugins_each(const instr_cct_plugin_fn *f,
                                                     struct instr_substrate_location *ploc,
                                                     uint32_t region, uint64_t t,
                                                     const uint64_t *metrics)
{
    for (; *f; f++)
        (*f)(ploc, t, region, metrics);
}

int instr_cct_plugins_attach(instr_pstate *s, struct instr_substrate_location *ploc,
                             const instr_cct_plugin_fn *penter, const instr_cct_plugin_fn *pexit,
                             int reentrant)
{
    if (s->nm) {
        if (!s->mread)
            return -1; /* metrics without a reader: never on the cursor path with metrics */
        /* The location's own copy of its reader, off the flat path (cct_metrics.c). */
        instr_metric_reader *r = instr_mem_alloc(sizeof *r);
        if (!r)
            return -1;
        *r = *s->mread;
        r->flat = 0;
        s->mread = r;
    }
    s->penter = penter;
    s->pexit = pexit;
    s->penter1 = penter[0] && !penter[1] ? penter[0] : NULL;
    s->pexit1 = pexit[0] && !pexit[1] ? pexit[0] : NULL;
    s->preent = reentrant;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    s->ploc = ploc;
    return 0;
}

/* The node n, instr_cct_next's: the cursor is taken first, instead of being given to n (a
 * handler's events from here on are dropped), then n's open visit and its time, the plugins,
 * and n becomes the cursor. */
static inline __attribute__((always_inline)) void enter_node(instr_pstate *s, instr_pnode *n,
                                                             uintptr_t sp)
{
    s->cursor = &s->busy;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    n->child_ticks = 0;
    n->sp = sp;
    uint64_t t = instr_clock_tsc();
    n->t_enter = t;
    instr_cct_plugins_taken_then(s, n, s->penter1, s->penter, n->region, t, NULL);
}

/* The cursor is taken before the node's statistics (a handler's events meanwhile are
 * dropped) and given to the parent after the plugins: instr_cct_pop's steps around their
 * call, so that only the parent is needed across it. */
static inline __attribute__((always_inline)) void exit_node(instr_pstate *s, instr_pnode *n)
{
    uint64_t t = instr_clock_tsc();
    instr_pnode *parent = n->parent;
    s->cursor = &s->busy;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    instr_cct_close_in(n, parent, t);
    instr_cct_plugins_taken_then(s, parent, s->pexit1, s->pexit, n->region, t, NULL);
}

INSTR_CCT_MODE_ENTRY_POINTS(plugins, enter_node, exit_node)

/* One enter and one exit function (the usual case, one plugin): the same steps with the
 * function called directly, no test of the list. Every location's penter1 and pexit1 can be
 * called: a location without plugins has instr_cct_plugins_none. The order of stores, the
 * cheapest that keeps a signal handler's events off the node and off the plugin: the cursor
 * taken (one store: busy is the state's first member), the node's open visit, the node that
 * becomes the cursor afterwards kept in s->after (across the call only s needs a register),
 * the plugin's function, the cursor given back. */
static inline __attribute__((always_inline)) void enter_node1(instr_pstate *s, instr_pnode *n,
                                                              uintptr_t sp)
{
    s->cursor = &s->busy;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    n->child_ticks = 0;
    n->sp = sp;
    s->after = n;
    uint64_t t = instr_clock_tsc();
    n->t_enter = t;
    s->penter1(s->ploc, t, n->region, NULL);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    s->cursor = s->after;
}

static inline __attribute__((always_inline)) void exit_node1(instr_pstate *s, instr_pnode *n)
{
    instr_pnode *parent = n->parent;
    s->cursor = &s->busy;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    s->after = parent;
    uint64_t t = instr_clock_tsc();
    instr_cct_close_in(n, parent, t);
    s->pexit1(s->ploc, t, n->region, NULL);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    s->cursor = s->after;
}

INSTR_CCT_MODE_ENTRY_POINTS(plugins1, enter_node1, exit_node1)

/* Reentrant plugins: the profile's own steps (instr_cct_claim, instr_cct_pop), the cursor
 * given to the node or its parent before the plugins' call; a handler arriving during the call
 * enters below the cursor as at any other instant and calls the plugins again. Across the call
 * nothing of the cursor is needed: the call is the function's last step (a tail call). */
static inline __attribute__((always_inline)) void enter_node_r(instr_pstate *s, instr_pnode *n,
                                                               uintptr_t sp)
{
    instr_cct_claim(s, n, sp);
    uint64_t t = instr_clock_tsc();
    n->t_enter = t;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (__builtin_expect(s->penter1 != 0, 1))
        s->penter1(s->ploc, t, n->region, NULL);
    else
        instr_cct_plugins_each(s->penter, s->ploc, n->region, t, NULL);
}

static inline __attribute__((always_inline)) void exit_node_r(instr_pstate *s, instr_pnode *n)
{
    uint64_t t = instr_clock_tsc();
    instr_cct_pop(s, n, t);
    if (__builtin_expect(s->pexit1 != 0, 1))
        s->pexit1(s->ploc, t, n->region, NULL);
    else
        instr_cct_plugins_each(s->pexit, s->ploc, n->region, t, NULL);
}

INSTR_CCT_MODE_ENTRY_POINTS(pluginsr, enter_node_r, exit_node_r)

/* One reentrant enter and exit function: called without a test of the list (penter1 and
 * pexit1 are always callable, instr_cct_plugins_none before the plugins' location is
 * attached). */
static inline __attribute__((always_inline)) void enter_node1_r(instr_pstate *s,
                                                                instr_pnode *n, uintptr_t sp)
{
    instr_cct_claim(s, n, sp);
    uint64_t t = instr_clock_tsc();
    n->t_enter = t;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    s->penter1(s->ploc, t, n->region, NULL);
}

static inline __attribute__((always_inline)) void exit_node1_r(instr_pstate *s, instr_pnode *n)
{
    uint64_t t = instr_clock_tsc();
    instr_cct_pop(s, n, t);
    s->pexit1(s->ploc, t, n->region, NULL);
}

INSTR_CCT_MODE_ENTRY_POINTS(plugins1r, enter_node1_r, exit_node1_r)
