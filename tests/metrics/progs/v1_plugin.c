/* libinstr_metric_v1.so — a test double of a metric plugin built for interface version 1,
 * before get_current_values: its description is the version 1 layout (a copy of it here, so
 * that nothing after synchronize exists), which the runtime must read only that far. One
 * strictly synchronous metric, v1_events: the thread's questions so far, one per enter and
 * exit, as in the count example. */
#include <instr/instr_metric_plugin.h>

#include <stdlib.h>
#include <string.h>

typedef struct v1_info {
    uint32_t plugin_version, synchronicity, scope, reserved;
    uint64_t delta_t;
    int32_t (*initialize)(void);
    void (*finalize)(void);
    instr_metric_properties *(*get_metric_properties)(const char *spec);
    int32_t (*add_counter)(const char *name);
    uint64_t (*get_current_value)(int32_t id);
    int32_t (*get_optional_value)(int32_t id, uint64_t *value);
    uint64_t (*get_all_values)(int32_t id, instr_metric_timed_value **values);
    void (*set_clock)(uint64_t (*clock_time)(void));
    void (*synchronize)(int is_responsible, int is_end);
} v1_info;

static _Thread_local uint64_t events;

static int32_t initialize(void) { return 0; }

static instr_metric_properties *properties(const char *spec)
{
    (void)spec;
    instr_metric_properties *p = calloc(2, sizeof *p);
    if (p) {
        p[0].name = strdup("v1_events");
        p[0].description = strdup("events (enters and exits) of the thread");
        p[0].unit = strdup("#");
        p[0].base = 10;
    }
    return p;
}

static int32_t add_counter(const char *name) { return strcmp(name, "v1_events") == 0 ? 0 : -1; }

static uint64_t value(int32_t id)
{
    (void)id;
    return ++events;
}

__attribute__((visibility("default"))) const v1_info *instr_metric_plugin_get_info(void)
{
    static const v1_info info = {
        .plugin_version = 1,
        .synchronicity = INSTR_METRIC_STRICTLY_SYNC,
        .initialize = initialize,
        .get_metric_properties = properties,
        .add_counter = add_counter,
        .get_current_value = value,
    };
    return &info;
}
