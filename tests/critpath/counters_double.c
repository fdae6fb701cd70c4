/* libinstr_metric_counters_double.so — a TEST DOUBLE of hardware counters for the critical
 * path's IPC (tests/critpath, case ipc_double): a strictly synchronous metric plugin that
 * offers metrics named like perf's and PAPI's instruction and cycle counters, whose values
 * are derived from the thread's CPU time, so that a test can predict them on machines
 * without hardware counters (virtual machines without a PMU):
 *
 *   instructions, PAPI_TOT_INS   3 per nanosecond of the thread's CPU time
 *   cycles, PAPI_TOT_CYC         2 per nanosecond of the thread's CPU time
 *
 * Along a path of useful computation measured in CPU time (INSTR_CRITICAL_PATH_CLOCK=cpu)
 * they sum to 3 and 2 times its length, and their ratio, the IPC, is 1.5. Not a measurement
 * of anything: never use it outside tests. INSTR_METRIC_COUNTERS_DOUBLE names the metrics
 * (comma-separated, exact names; "" or unset: all). */
#include <instr/instr_metric_plugin.h>

#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const names[] = {"instructions", "cycles", "PAPI_TOT_INS", "PAPI_TOT_CYC"};
static const uint64_t per_ns[] = {3, 2, 3, 2};
#define NMETRICS 4

static int32_t initialize(void) { return 0; }
static void finalize(void) {}

static int listed(const char *spec, const char *name)
{
    if (!*spec)
        return 1;
    size_t n = strlen(name);
    for (const char *p = spec; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && strncmp(p, name, n) == 0)
            return 1;
        p += len + (end != NULL);
    }
    return 0;
}

static instr_metric_properties *get_metric_properties(const char *spec)
{
    instr_metric_properties *list = calloc(NMETRICS + 1, sizeof *list);
    if (!list)
        return NULL;
    int n = 0;
    for (int i = 0; i < NMETRICS; i++) {
        if (!listed(spec, names[i]))
            continue;
        list[n].name = strdup(names[i]);
        list[n].description = strdup("test double: a multiple of the thread's CPU time");
        list[n].unit = strdup("#");
        list[n].base = 10;
        list[n].value_type = INSTR_METRIC_UINT64;
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

static uint64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t get_current_value(int32_t id) { return per_ns[id] * cpu_ns(); }

/* One clock read for all counters of an event: their ratio is exact. */
static void get_current_values(const int32_t *ids, uint32_t n, uint64_t *values)
{
    uint64_t t = cpu_ns();
    for (uint32_t i = 0; i < n; i++)
        values[i] = per_ns[ids[i]] * t;
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
