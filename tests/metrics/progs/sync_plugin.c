/* libinstr_metric_every.so — a test double of a synchronous metric plugin
 * (INSTR_METRIC_SYNC): the runtime asks it at most once per delta_t (50 ms) per thread. One
 * metric, asked: how many times the thread was asked so far; every question is answered
 * with a new value, so the trace's values of its class grow by one from event to event. */
#include <instr/instr_metric_plugin.h>

#include <stdlib.h>
#include <string.h>

static _Thread_local uint64_t asked;

static int32_t initialize(void) { return 0; }

static instr_metric_properties *properties(const char *spec)
{
    (void)spec;
    instr_metric_properties *p = calloc(2, sizeof *p);
    if (p) {
        p[0].name = strdup("asked");
        p[0].description = strdup("questions the thread was asked so far");
        p[0].unit = strdup("#");
        p[0].base = 10;
    }
    return p;
}

static int32_t add_counter(const char *name) { return strcmp(name, "asked") == 0 ? 0 : -1; }

static int32_t optional_value(int32_t id, uint64_t *value)
{
    (void)id;
    *value = ++asked;
    return 1;
}

INSTR_METRIC_PLUGIN_ENTRY
{
    static const instr_metric_plugin_info info = {
        .plugin_version = INSTR_METRIC_PLUGIN_VERSION,
        .synchronicity = INSTR_METRIC_SYNC,
        .delta_t = 50000000, /* ns */
        .initialize = initialize,
        .get_metric_properties = properties,
        .add_counter = add_counter,
        .get_optional_value = optional_value,
    };
    return &info;
}
