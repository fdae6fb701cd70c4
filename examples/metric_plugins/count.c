/* libinstr_metric_count.so — a strictly synchronous metric plugin whose values a test can
 * predict exactly: every question the runtime asks on a thread (one at every enter and every
 * exit) counts one event of that thread.
 *
 * INSTR_METRIC_COUNT selects metrics with shell wildcards (default: all of them):
 *   events         uint64  events of the thread so far
 *   events_neg     int64   the same, negated (shows signed values)
 *   events_half    double  half of it (shows floating-point values)
 * So a region that makes k calls (of instrumented functions) has inclusive `events`
 * 2k + 1 per visit: the exit's question is the 2k + 1-th after the enter's. */
#include <instr/instr_metric_plugin.h>

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[] = {"events", "events_neg", "events_half"};
#define NMETRICS 3

/* The thread's count: one counter per thread serves all three metrics.
 *
 * A signal handler's events on this thread ask too, and may do so in the middle of a
 * question of the code they interrupted (the cursor path with metrics calls the getters
 * without holding a handler's events off: docs/metrics.md, "Writing a metric plugin"). So
 * the count grows by one atomic addition, which a handler cannot split, and a question's
 * values are the count that addition returned: as a load, an add and a store, a handler
 * between the load and the store had its own events overwritten (4 per handler of
 * tests/runtime/progs/signals.c). */
static _Thread_local uint64_t events;

static uint64_t count_event(void)
{
    return __atomic_add_fetch(&events, 1, __ATOMIC_RELAXED);
}

static int32_t initialize(void) { return 0; }
static void finalize(void) {}

static char *dup(const char *s) { return strdup(s); }

/* Every metric one of the comma-separated patterns in spec matches ("" or unset: all). */
static instr_metric_properties *get_metric_properties(const char *spec)
{
    instr_metric_properties *list = calloc(NMETRICS + 1, sizeof *list);
    if (!list)
        return NULL;
    int n = 0;
    for (int i = 0; i < NMETRICS; i++) {
        int wanted = !*spec;
        char *copy = strdup(spec), *save = NULL;
        for (char *p = copy ? strtok_r(copy, ",", &save) : NULL; p && !wanted;
             p = strtok_r(NULL, ",", &save))
            wanted = fnmatch(p, names[i], 0) == 0;
        free(copy);
        if (!wanted)
            continue;
        list[n].name = dup(names[i]);
        list[n].description = dup("events (enters and exits) of the thread");
        list[n].unit = dup("#");
        list[n].base = 10;
        list[n].value_type =
            i == 0 ? INSTR_METRIC_UINT64 : i == 1 ? INSTR_METRIC_INT64 : INSTR_METRIC_DOUBLE;
        list[n].mode = INSTR_METRIC_ACCUMULATED;
        list[n].semantics = INSTR_METRIC_START;
        n++;
    }
    return list;
}

static int32_t add_counter(const char *name)
{
    for (int i = 0; i < NMETRICS; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

/* Metric id's value for the count e. */
static uint64_t value_of(int32_t id, uint64_t e)
{
    switch (id) {
    case 0: return e;
    case 1: return instr_metric_value_of_int64(-(int64_t)e);
    default: return instr_metric_value_of_double((double)e / 2);
    }
}

/* One question per counter (interface version 1; the runtime uses it where
 * get_current_values does not serve): the first question of the three metrics at an event
 * counts the event. With more than one counter, a handler's questions between two of the
 * interrupted event's make it count that event twice; get_current_values, which the runtime
 * asks instead, has no such gap. */
static uint64_t get_current_value(int32_t id)
{
    static _Thread_local int32_t asked_last = NMETRICS;
    uint64_t e =
        id <= asked_last ? count_event() : __atomic_load_n(&events, __ATOMIC_RELAXED);
    asked_last = id;
    return value_of(id, e);
}

/* One question for all counters of the thread at an event (version 2): counts the event. */
static void get_current_values(const int32_t *ids, uint32_t n, uint64_t *values)
{
    uint64_t e = count_event();
    for (uint32_t i = 0; i < n; i++)
        values[i] = value_of(ids[i], e);
}

INSTR_METRIC_PLUGIN_ENTRY
{
    static const instr_metric_plugin_info info = {
        .plugin_version = INSTR_METRIC_PLUGIN_VERSION,
        .synchronicity = INSTR_METRIC_STRICTLY_SYNC,
        .scope = INSTR_METRIC_PER_THREAD,
        .initialize = initialize,
        .finalize = finalize,
        .get_metric_properties = get_metric_properties,
        .add_counter = add_counter,
        .get_current_value = get_current_value,
        .get_current_values = get_current_values,
    };
    return &info;
}
