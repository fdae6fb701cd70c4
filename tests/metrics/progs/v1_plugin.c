/* libinstr_metric_v1.so — a test double of a metric plugin built for interface version 1,
 * before get_current_values: its description is the version 1 layout (a copy of it here, so
 * that nothing after synchronize exists), which the runtime must read only that far.
 *
 * Strictly synchronous, per thread; INSTR_METRIC_V1 lists the metrics ("" : v1_events):
 *   v1_events  uint64, accumulated: the thread's questions so far, one per enter and exit
 *              of v1_events (as in the count example)
 *   v1_level   uint64, absolute, KiB (base 2, exponent 10): the thread's questions so far
 *              of v1_level (a reading: the profile leaves it out, the trace has it)
 * It leaves files in the working directory for the test to see that the runtime called it
 * as the header promises: v1_synchronize_start after add_counter (or
 * v1_synchronize_start_early before it), and v1_finalize. */
#include <instr/instr_metric_plugin.h>

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static _Thread_local uint64_t questions[2];
static int added;

static void mark(const char *file)
{
    int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd >= 0)
        close(fd);
}

static int32_t initialize(void) { return 0; }
static void finalize(void) { mark("v1_finalize"); }

static void synchronize(int is_responsible, int is_end)
{
    (void)is_responsible;
    if (!is_end)
        mark(__atomic_load_n(&added, __ATOMIC_RELAXED) ? "v1_synchronize_start"
                                                      : "v1_synchronize_start_early");
}

static instr_metric_properties *properties(const char *spec)
{
    int level = strstr(spec, "v1_level") != NULL;
    int events = !*spec || strstr(spec, "v1_events") != NULL;
    instr_metric_properties *p = calloc(3, sizeof *p), *q = p;
    if (p && events) {
        q->name = strdup("v1_events");
        q->description = strdup("events (enters and exits) of the thread");
        q->unit = strdup("#");
        q->base = 10;
        q++;
    }
    if (p && level) {
        q->name = strdup("v1_level");
        q->description = strdup("a reading: the thread's questions so far");
        q->unit = strdup("B");
        q->base = 2;
        q->exponent = 10;
        q->mode = INSTR_METRIC_ABSOLUTE;
        q->semantics = INSTR_METRIC_POINT;
    }
    return p;
}

static int32_t add_counter(const char *name)
{
    __atomic_store_n(&added, 1, __ATOMIC_RELAXED);
    return strcmp(name, "v1_events") == 0 ? 0 : strcmp(name, "v1_level") == 0 ? 1 : -1;
}

static uint64_t value(int32_t id) { return ++questions[id]; }

__attribute__((visibility("default"))) const v1_info *instr_metric_plugin_get_info(void)
{
    static const v1_info info = {
        .plugin_version = 1,
        .synchronicity = INSTR_METRIC_STRICTLY_SYNC,
        .initialize = initialize,
        .finalize = finalize,
        .get_metric_properties = properties,
        .add_counter = add_counter,
        .get_current_value = value,
        .synchronize = synchronize,
    };
    return &info;
}
