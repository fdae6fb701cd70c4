/* empty_plugin.c — libinstr_metric_empty.so for bench/metrics/metric_cost.sh: N strictly
 * synchronous metrics (INSTR_METRIC_EMPTY=N, 1 to 8) whose value is always 0, so what is
 * measured is the runtime's own cost per metric. It answers all of a thread's counters in
 * one call (get_current_values, interface version 2). Built with -DEMPTY_V1 it is
 * libinstr_metric_empty_v1.so (INSTR_METRIC_EMPTY_V1=N): a version 1 plugin, one
 * get_current_value call per counter. */
#include <instr/instr_metric_plugin.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int32_t initialize(void) { return 0; }

static instr_metric_properties *properties(const char *spec)
{
    int n = atoi(spec);
    if (n < 1 || n > 8)
        return NULL;
    instr_metric_properties *p = calloc((size_t)n + 1, sizeof *p);
    for (int i = 0; p && i < n; i++) {
        char name[8];
        snprintf(name, sizeof name, "m%d", i);
        p[i].name = strdup(name);
        p[i].description = strdup("always 0");
        p[i].unit = strdup("#");
        p[i].base = 10;
    }
    return p;
}

static int32_t add_counter(const char *name) { return atoi(name + 1); }

/* The counters: always 0, read from memory as a plugin reads its state (not static, so
 * that the compiler cannot fold the reads into a memset). */
__attribute__((visibility("hidden"))) uint64_t counter[8];

static uint64_t value(int32_t id) { return counter[id]; }

#ifndef EMPTY_V1
static void values(const int32_t *ids, uint32_t n, uint64_t *out)
{
    for (uint32_t i = 0; i < n; i++)
        out[i] = counter[ids[i]];
}
#endif

INSTR_METRIC_PLUGIN_ENTRY
{
    static const instr_metric_plugin_info info = {
#ifdef EMPTY_V1
        .plugin_version = 1,
#else
        .plugin_version = INSTR_METRIC_PLUGIN_VERSION,
        .get_current_values = values,
#endif
        .synchronicity = INSTR_METRIC_STRICTLY_SYNC,
        .initialize = initialize,
        .get_metric_properties = properties,
        .add_counter = add_counter,
        .get_current_value = value,
    };
    return &info;
}
