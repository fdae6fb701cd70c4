/* libinstr_metric_handover.so — a test double of an ASYNC_EVENT metric plugin, per process:
 * one metric, handover, whose values a test can predict. Every call of get_all_values hands
 * over exactly one value: the number of that call (1, 2, ...), at the time of the call on
 * the runtime's clock. So the trace shows when the runtime asked: during the run at the
 * starting thread's events (each value between that event and the next), and once at the
 * end.
 *
 * HANDOVER_DELTA_T_NS (read by the entry point): the plugin's delta_t (default 0: at every
 * event); HANDOVER_ONCE=1: scope ONCE instead of PER_PROCESS. */
#include <instr/instr_metric_plugin.h>

#include <stdlib.h>
#include <string.h>

static uint64_t (*runtime_clock)(void);
static uint64_t calls;

static int32_t initialize(void) { return runtime_clock ? 0 : -1; }
static void finalize(void) {}
static void set_clock(uint64_t (*clock_time)(void)) { runtime_clock = clock_time; }

static instr_metric_properties *properties(const char *spec)
{
    (void)spec;
    instr_metric_properties *p = calloc(2, sizeof *p);
    if (p) {
        p[0].name = strdup("handover");
        p[0].description = strdup("the number of this call of get_all_values");
        p[0].unit = strdup("#");
        p[0].base = 10;
        p[0].mode = INSTR_METRIC_ABSOLUTE;
        p[0].semantics = INSTR_METRIC_POINT;
    }
    return p;
}

static int32_t add_counter(const char *name) { return strcmp(name, "handover") == 0 ? 0 : -1; }

static uint64_t all_values(int32_t id, instr_metric_timed_value **values)
{
    (void)id;
    *values = malloc(sizeof **values);
    if (!*values)
        return 0;
    (*values)[0] = (instr_metric_timed_value){runtime_clock(), ++calls};
    return 1;
}

INSTR_METRIC_PLUGIN_ENTRY
{
    static instr_metric_plugin_info info = {
        .plugin_version = INSTR_METRIC_PLUGIN_VERSION,
        .synchronicity = INSTR_METRIC_ASYNC_EVENT,
        .scope = INSTR_METRIC_PER_PROCESS,
        .initialize = initialize,
        .finalize = finalize,
        .get_metric_properties = properties,
        .add_counter = add_counter,
        .get_all_values = all_values,
        .set_clock = set_clock,
    };
    const char *delta = getenv("HANDOVER_DELTA_T_NS");
    info.delta_t = delta ? strtoull(delta, NULL, 10) : 0;
    const char *once = getenv("HANDOVER_ONCE");
    info.scope = once && strcmp(once, "1") == 0 ? INSTR_METRIC_ONCE : INSTR_METRIC_PER_PROCESS;
    return &info;
}
