/* cct.h — the profile's own parts of the cursor path (core/cursor.h): substrate plugins
 * called on it, and the functions of the per-mode jump table (core/event_path.h) for the
 * cursor path with metrics and with plugins. */
#ifndef INSTR_RT_CCT_H
#define INSTR_RT_CCT_H

#include "../core/cursor.h"
#include "../core/event_path.h"

#include <stddef.h>
#include <stdint.h>

/* Calls every function of the null-terminated list f (out of line: its loop keeps registers
 * that the call of one function does not need). */
void instr_cct_plugins_each(const instr_cct_plugin_fn *f, struct instr_substrate_location *ploc,
                            uint32_t region, uint64_t t, const uint64_t *metrics);

/* instr_cct_plugins_call_then's steps once the caller took the cursor (s->cursor is
 * &s->busy). */
static inline void instr_cct_plugins_taken_then(instr_pstate *s, instr_pnode *after,
                                                instr_cct_plugin_fn one,
                                                const instr_cct_plugin_fn *list, uint32_t region,
                                                uint64_t t, const uint64_t *metrics)
{
    if (__builtin_expect(one != 0, 1))
        one(s->ploc, t, region, metrics);
    else
        instr_cct_plugins_each(list, s->ploc, region, t, metrics);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    s->cursor = after;
}

/* Calls the plugins' functions for one event of the location s: `one` when the list has one
 * function, else every function of `list`. The cursor is taken meanwhile, as in the slow
 * paths, and then becomes `after`: a signal handler's events in between are dropped and
 * counted, as on the generic path, and never reach a plugin inside its own call
 * (docs/plugins.md: a location's events are never concurrent). */
static inline void instr_cct_plugins_call_then(instr_pstate *s, instr_pnode *after,
                                               instr_cct_plugin_fn one,
                                               const instr_cct_plugin_fn *list, uint32_t region,
                                               uint64_t t, const uint64_t *metrics)
{
    s->cursor = &s->busy;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    instr_cct_plugins_taken_then(s, after, one, list, region, t, metrics);
}

/* The plugins' functions for one event whose steps are done: reentrant ones (s->preent) are
 * called as they are, with the cursor where the event left it (a signal handler's events
 * meanwhile are recorded, by the profile and the plugins, as at any other instant); the
 * others with the cursor taken meanwhile (instr_cct_plugins_call_then). */
static inline void instr_cct_plugins_call(instr_pstate *s, instr_cct_plugin_fn one,
                                          const instr_cct_plugin_fn *list, uint32_t region,
                                          uint64_t t, const uint64_t *metrics)
{
    if (s->preent) {
        if (__builtin_expect(one != 0, 1))
            one(s->ploc, t, region, metrics);
        else
            instr_cct_plugins_each(list, s->ploc, region, t, metrics);
        return;
    }
    instr_cct_plugins_call_then(s, s->cursor, one, list, region, t, metrics);
}

#define INSTR_CCT_PLUGINS_ENTER(s, region, t, m)                                              \
    instr_cct_plugins_call(s, (s)->penter1, (s)->penter, region, t, m)
#define INSTR_CCT_PLUGINS_EXIT(s, region, t, m)                                               \
    instr_cct_plugins_call(s, (s)->pexit1, (s)->pexit, region, t, m)

/* Puts substrate plugins on the cursor path of s (INSTR_FAST_TABLE with the plugins'
 * substrate; called by it when its location of the same thread begins): ploc, the lists and
 * reentrant as in instr_pstate (preent). 0, or -1 when out of memory (then the plugins see
 * none of the location's enters and exits). */
int instr_cct_plugins_attach(instr_pstate *s, struct instr_substrate_location *ploc,
                             const instr_cct_plugin_fn *penter, const instr_cct_plugin_fn *pexit,
                             int reentrant);

/* A cursor-path mode's four functions (instr_cct_<prefix>_enter_key, ..._exit_region) and its
 * jump table of them (instr_cct_<prefix>_ops, for instr_event_path_set), which
 * INSTR_CCT_MODE_ENTRY_POINTS defines in the mode's file. */
#define INSTR_CCT_MODE_DECLARE(prefix)                                                  \
    void instr_cct_##prefix##_enter_key(INSTR_PATH_ENTER_ARGS);                          \
    void instr_cct_##prefix##_exit_key(INSTR_PATH_EXIT_ARGS);                            \
    void instr_cct_##prefix##_enter_region(INSTR_PATH_ENTER_ARGS);                       \
    void instr_cct_##prefix##_exit_region(INSTR_PATH_EXIT_ARGS);                         \
    extern const instr_event_path_ops instr_cct_##prefix##_ops;

/* The cursor path with metrics (INSTR_FAST_TABLE, core/event.h; cct_metrics.c): the cursor
 * path's steps for the calling thread, whose cursor state the adapter passes (s, as it loaded
 * it for its inline path), by the adapter's key or by region handle, with the metrics read
 * into the node at enter and its sums at exit. Only the adapters whose events have a stack
 * frame of their own call them (sp is never 0): the hooks by region handle, cyg by key. On a
 * miss (the node is not the cursor's last child, or not the cursor; also every handle that
 * is not a region's, which no node carries) they call that adapter's slow path
 * (core/event_path.h) with the same arguments. */
INSTR_CCT_MODE_DECLARE(metrics)
/* The same for the profile with substrate plugins and no metrics (cct_plugins.c): any lists
 * of the plugins' functions, and (plugins1) exactly one enter and one exit function. */
INSTR_CCT_MODE_DECLARE(plugins)
INSTR_CCT_MODE_DECLARE(plugins1)
/* The same for reentrant plugins (INSTR_SUBSTRATE_PLUGIN_REENTRANT): the cursor given to the
 * child or the parent first, the plugins' functions called last. */
INSTR_CCT_MODE_DECLARE(pluginsr)
INSTR_CCT_MODE_DECLARE(plugins1r)

/* Defines the four functions and the jump table (INSTR_CCT_MODE_DECLARE) for one mode (`prefix`) from the mode's own
 * enter_node(s, n, sp), which claims the frame of n (instr_cct_next's node), and
 * exit_node(s, n), which the file defines (always inlined) under whatever names it gives
 * them; the cursor's match and the miss are the same for every mode. key_ok(n, what): whether
 * the node the key matched is still the region the adapter's key names (a mode whose nodes
 * can outlive their key's region checks it; INSTR_CCT_KEY_ANY: every mode else). */
#define INSTR_CCT_KEY_ANY(n, what) 1
#define INSTR_CCT_MODE_ENTRY_POINTS(prefix, enter_node, exit_node)                      \
    INSTR_CCT_MODE_ENTRY_POINTS_KEYED(prefix, enter_node, exit_node, INSTR_CCT_KEY_ANY)
#define INSTR_CCT_MODE_ENTRY_POINTS_KEYED(prefix, enter_node, exit_node, key_ok)        \
    void instr_cct_##prefix##_enter_key(INSTR_PATH_ENTER_ARGS)                           \
    {                                                                                   \
        instr_pnode *n = instr_cct_next(s, 1, what, sp);                                \
        if (__builtin_expect(!n || !key_ok(n, what), 0)) {                              \
            instr_cyg_enter_miss(ctx, what, s, sp);                                     \
            return;                                                                     \
        }                                                                               \
        enter_node(s, n, sp);                                                           \
    }                                                                                   \
    void instr_cct_##prefix##_exit_key(INSTR_PATH_EXIT_ARGS)                             \
    {                                                                                   \
        instr_pnode *n = instr_cct_top(s, 1, what);                                     \
        if (__builtin_expect(!n || !key_ok(n, what), 0)) {                              \
            instr_cyg_exit_miss(s, what);                                               \
            return;                                                                     \
        }                                                                               \
        exit_node(s, n);                                                                \
    }                                                                                   \
    void instr_cct_##prefix##_enter_region(INSTR_PATH_ENTER_ARGS)                        \
    {                                                                                   \
        instr_pnode *n = instr_cct_next(s, 0, what, sp);                                \
        if (__builtin_expect(!n, 0)) {                                                  \
            instr_hooks_enter_miss(ctx, what, s, sp);                                   \
            return;                                                                     \
        }                                                                               \
        enter_node(s, n, sp);                                                           \
    }                                                                                   \
    void instr_cct_##prefix##_exit_region(INSTR_PATH_EXIT_ARGS)                          \
    {                                                                                   \
        instr_pnode *n = instr_cct_top(s, 0, what);                                     \
        if (__builtin_expect(!n, 0)) {                                                  \
            instr_hooks_exit_miss(s, what);                                             \
            return;                                                                     \
        }                                                                               \
        exit_node(s, n);                                                                \
    }                                                                                   \
    const instr_event_path_ops instr_cct_##prefix##_ops = {                             \
        .enter_key = instr_cct_##prefix##_enter_key,                                    \
        .exit_key = instr_cct_##prefix##_exit_key,                                      \
        .enter_region = instr_cct_##prefix##_enter_region,                              \
        .exit_region = instr_cct_##prefix##_exit_region,                                \
    };

/* The same for the profile and the trace (cct_trace.c): the cursor's steps and the trace's
 * record appended inline (core/record.h). */
INSTR_CCT_MODE_DECLARE(trace)
INSTR_CCT_MODE_DECLARE(trace_clock)

/* The same for the cursor path with counts (cct_counts.c): the profile with throttling's
 * counts updated inline, and with the trace's records too (counts_trace). */
INSTR_CCT_MODE_DECLARE(counts)
INSTR_CCT_MODE_DECLARE(counts_trace)

/* The same for the cursor path with metrics and records (the profile, the metrics and the
 * trace; cct_metrics.c): the values read at each event appended as the trace's records before
 * its Enter or Leave. */
INSTR_CCT_MODE_DECLARE(metrics_trace)
/* On that path, the records of the values (of s's reader, read at t) that the trace takes,
 * before an event's record (the slow paths' too, cct.c). */
void instr_cct_metrics_record(instr_pstate *s, const uint64_t *values, uint64_t t);

/* The jump table (core/event_path.h) for the cursor path with metrics (and perhaps plugins,
 * cct_metrics.c). */
void instr_cct_path_metrics(void);
/* The same for the cursor path with metrics and records. */
void instr_cct_path_metrics_trace(void);
/* The same for the cursor path with plugins and no metrics; one_each: every list has one
 * function (then the instr_cct_plugins1_* functions); reentrant: every plugin's function is
 * (the instr_cct_plugins*r_* functions). */
void instr_cct_path_plugins(int one_each, int reentrant);
/* The same for the cursor path with records (the trace; cct_trace.c). */
void instr_cct_path_trace(void);
/* The same for the cursor path with counts; records: with the trace's records too. */
void instr_cct_path_counts(int records);

/* The same for the cursor path with events (cct_events.c): the profile with the enter and
 * exit of a substrate with INSTR_SUBSTRATE_CURSOR_EVENTS called directly (instr_pstate.xenter). */
INSTR_CCT_MODE_DECLARE(events)
void instr_cct_path_events(void);
/* The same for the cursor with another timer than the TSC (cct_clock.c: the inline path's
 * steps with instr_clock_now), with INSTR_FAST_CURSOR. */
INSTR_CCT_MODE_DECLARE(clock)
void instr_cct_path_clock(void);
/* A plugin function that does nothing: penter1 and pexit1 of a location without plugins. */
void instr_cct_plugins_none(struct instr_substrate_location *loc, uint64_t t, uint32_t region,
                            const uint64_t *metrics);
#endif
