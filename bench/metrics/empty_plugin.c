/* empty_plugin.c — libinstr_metric_empty.so for bench/metrics/metric_cost.sh: N strictly
 * synchronous metrics (INSTR_METRIC_EMPTY=N, 1 to 8) whose value is always 0, so what is
 * measured is the runtime's own cost per metric. */
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

static uint64_t value(int32_t id)
{
    (void)id;
    return 0;
}

INSTR_METRIC_PLUGIN_ENTRY
{
    static const instr_metric_plugin_info info = {
        .plugin_version = INSTR_METRIC_PLUGIN_VERSION,
        .synchronicity = INSTR_METRIC_STRICTLY_SYNC,
        .initialize = initialize,
        .get_metric_properties = properties,
        .add_counter = add_counter,
        .get_current_value = value,
    };
    return &info;
}
