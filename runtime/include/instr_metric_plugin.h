/* instr_metric_plugin.h — the metric plugin interface of libinstr-rt, version 2.
 *
 * A metric plugin is a shared object libinstr_metric_<name>.so, loaded when <name> is listed
 * in INSTR_METRIC_PLUGINS (searched in INSTR_PLUGIN_PATH, then the library path). It exports
 * one function, named by INSTR_METRIC_PLUGIN_ENTRY, that returns its description: the ABI
 * version first, then what kind of metric it gives and its callbacks. The runtime checks the
 * version before it reads anything else, and leaves out (with one line naming the variable
 * and the plugin) a plugin that is missing, has no entry point, has another version, fails
 * to initialise or names no metric for its specification. docs/metrics.md has the whole
 * story and a complete example.
 *
 * The specification: INSTR_METRIC_<NAME> (the plugin's name in upper case), a text the
 * plugin reads as it likes (typically a comma-separated list of metric names with
 * wildcards, which the plugin resolves into metrics in get_metric_properties).
 *
 * Values are 64-bit words: uint64_t, or the bits of an int64_t or a double as the metric's
 * value_type says (instr_metric_value_of_double / _int64 below). */
#ifndef INSTR_METRIC_PLUGIN_H
#define INSTR_METRIC_PLUGIN_H

#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Version 2 added get_current_values at the end of instr_metric_plugin_info. The runtime
 * still loads version 1 plugins (it reads their description only up to synchronize). */
#define INSTR_METRIC_PLUGIN_VERSION 2u
#define INSTR_METRIC_PLUGIN_VERSION_MIN 1u

/* How a metric's values arrive. */
enum instr_metric_synchronicity {
    /* A value at every enter and every exit of every region, on the thread itself
     * (get_current_value). Per thread only. */
    INSTR_METRIC_STRICTLY_SYNC = 0,
    /* Asked at enter and exit like the above, but the plugin may answer "no new value"
     * (get_optional_value returns 0: the last value stands); the runtime asks at most once
     * per delta_t nanoseconds per thread. Per thread only. */
    INSTR_METRIC_SYNC,
    /* Timestamped values, collected by the plugin on its own (ASYNC: handed over at the end,
     * through get_all_values). ASYNC_EVENT: handed over during the run as well, at the
     * events (enters and exits) of the thread that started the measurement, at most once
     * per delta_t nanoseconds (0: at every such event), and at the end; in a traced run
     * (values of asynchronous metrics go to the trace only). */
    INSTR_METRIC_ASYNC_EVENT,
    INSTR_METRIC_ASYNC
};

/* Where a metric is recorded (asynchronous metrics: which location's trace gets the values).
 * Strictly synchronous and synchronous metrics are per thread. */
enum instr_metric_scope {
    INSTR_METRIC_PER_THREAD = 0,
    INSTR_METRIC_PER_PROCESS, /* once per process (the process's first thread) */
    INSTR_METRIC_PER_HOST,    /* once per host: one process per host records it */
    INSTR_METRIC_ONCE         /* once in the whole job */
};

enum instr_metric_value_type { INSTR_METRIC_UINT64 = 0, INSTR_METRIC_INT64, INSTR_METRIC_DOUBLE };

/* Accumulated: a counter that only grows (the difference between exit and enter is what the
 * region cost: the profile sums these). Absolute: a reading (a temperature, a power): trace
 * only. */
enum instr_metric_mode { INSTR_METRIC_ACCUMULATED = 0, INSTR_METRIC_ABSOLUTE };

/* Which time a value stands for, as in OTF2: since the start of measurement (START), at
 * its timestamp (POINT), since the previous value (LAST), until the next value (NEXT). */
enum instr_metric_semantics {
    INSTR_METRIC_START = 0, INSTR_METRIC_POINT, INSTR_METRIC_LAST, INSTR_METRIC_NEXT
};

typedef struct instr_metric_properties {
    const char *name;        /* NULL ends a list of properties */
    const char *description;
    const char *unit;        /* "bytes", "J", "#" */
    uint32_t base;           /* 2 or 10: the value is value * base^exponent units */
    int32_t exponent;
    uint32_t value_type;     /* enum instr_metric_value_type */
    uint32_t mode;           /* enum instr_metric_mode */
    uint32_t semantics;      /* enum instr_metric_semantics */
} instr_metric_properties;

/* One value of an asynchronous metric, at a time of the runtime's clock (set_clock). */
typedef struct instr_metric_timed_value {
    uint64_t timestamp;
    uint64_t value;
} instr_metric_timed_value;

typedef struct instr_metric_plugin_info {
    /* INSTR_METRIC_PLUGIN_VERSION: read first, and nothing else when it is not one this
     * runtime knows (INSTR_METRIC_PLUGIN_VERSION_MIN .. INSTR_METRIC_PLUGIN_VERSION). */
    uint32_t plugin_version;
    uint32_t synchronicity; /* enum instr_metric_synchronicity */
    uint32_t scope;         /* enum instr_metric_scope */
    uint32_t reserved;
    /* INSTR_METRIC_SYNC: the least time between two questions per thread, in nanoseconds
     * (0: at every event). INSTR_METRIC_ASYNC_EVENT: the least time between two hand-overs
     * (get_all_values) at events. */
    uint64_t delta_t;

    /* Once, before anything else; 0 when ready. Not called again after a failure. */
    int32_t (*initialize)(void);
    /* Once, at the end, after the last value was read. */
    void (*finalize)(void);
    /* The metrics the specification `spec` (INSTR_METRIC_<NAME>; "" when unset) names, with
     * wildcards resolved: a list ending with an entry whose name is NULL, allocated with
     * malloc (the runtime frees the list and each string). NULL or an empty list: the
     * specification names nothing the plugin has (the runtime says so). */
    instr_metric_properties *(*get_metric_properties)(const char *spec);
    /* Starts counting the metric `name` (one of those above) and returns its id (>= 0), or a
     * negative number when it cannot. Per thread metrics: called on every thread, by that
     * thread, at its first event; the other scopes: once. */
    int32_t (*add_counter)(const char *name);
    /* INSTR_METRIC_STRICTLY_SYNC: the counter's value now, on the calling thread. Called at
     * every enter and exit: keep it short (no locks, no allocation, no system calls). An
     * instrumented signal handler's events may call it (and get_current_values) while a call
     * of the code they interrupted runs: change state only in steps a signal cannot split
     * (atomic operations; docs/metrics.md, "Writing a metric plugin"). */
    uint64_t (*get_current_value)(int32_t id);
    /* INSTR_METRIC_SYNC: 1 and *value when there is a new value, else 0. */
    int32_t (*get_optional_value)(int32_t id, uint64_t *value);
    /* Asynchronous: hands over every value collected for the counter since the last call,
     * in time order, in an array allocated with malloc (the runtime frees it); returns how
     * many. ASYNC_EVENT: called at events of the starting thread as well (never twice at
     * the same time), so it runs where the program runs; an instrumented signal handler on
     * that thread calls it too. */
    uint64_t (*get_all_values)(int32_t id, instr_metric_timed_value **values);
    /* Optional (NULL): the runtime's clock, whose readings are the timestamps of events and
     * of asynchronous values. Called before initialize. */
    void (*set_clock)(uint64_t (*clock_time)(void));
    /* Optional (NULL): at the start of measurement (is_end 0, after add_counter) and at its
     * end (is_end 1, before get_all_values). is_responsible: 1 in the one process that
     * records the per-host/once metrics. */
    void (*synchronize)(int is_responsible, int is_end);

    /* Version 2. Optional (NULL), INSTR_METRIC_STRICTLY_SYNC: the values of n counters of
     * the calling thread now, values[i] for ids[i] (the ids add_counter returned on this
     * thread, in the order of the metrics). When present, the runtime asks this once per
     * enter and exit for all of the thread's counters of the plugin instead of calling
     * get_current_value for each: one call instead of n, the cheaper way per metric
     * (docs/performance.md). The same rules as get_current_value. */
    void (*get_current_values)(const int32_t *ids, uint32_t n, uint64_t *values);
} instr_metric_plugin_info;

/* The entry point's name, and a macro to define it:
 *   INSTR_METRIC_PLUGIN_ENTRY { static instr_metric_plugin_info info = {...}; return &info; } */
#define INSTR_METRIC_PLUGIN_ENTRY_NAME "instr_metric_plugin_get_info"
#define INSTR_METRIC_PLUGIN_ENTRY                                                             \
    __attribute__((visibility("default"))) const instr_metric_plugin_info *                  \
    instr_metric_plugin_get_info(void)

static inline uint64_t instr_metric_value_of_double(double d)
{
    uint64_t v;
    memcpy(&v, &d, sizeof v);
    return v;
}

static inline uint64_t instr_metric_value_of_int64(int64_t i) { return (uint64_t)i; }

#ifdef __cplusplus
}
#endif

#endif
