/* libinstr_metric_host.so — a test double of an asynchronous per-host metric plugin: one
 * metric, host_ticks, with one value handed over at the end. At every synchronize it leaves
 * a file host_sync.<pid>.<is_responsible>.<is_end> in the working directory, so that a test
 * sees which process of a host the runtime made responsible, and when. */
#include <instr/instr_metric_plugin.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t (*runtime_clock)(void);

static int32_t initialize(void) { return 0; }
static void set_clock(uint64_t (*clock_time)(void)) { runtime_clock = clock_time; }

static void synchronize(int is_responsible, int is_end)
{
    char file[64];
    snprintf(file, sizeof file, "host_sync.%d.%d.%d", (int)getpid(), is_responsible, is_end);
    int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd >= 0)
        close(fd);
}

static instr_metric_properties *properties(const char *spec)
{
    (void)spec;
    instr_metric_properties *p = calloc(2, sizeof *p);
    if (p) {
        p[0].name = strdup("host_ticks");
        p[0].description = strdup("one value at the end");
        p[0].unit = strdup("#");
        p[0].base = 10;
        p[0].mode = INSTR_METRIC_ABSOLUTE;
        p[0].semantics = INSTR_METRIC_POINT;
    }
    return p;
}

static int32_t add_counter(const char *name) { return strcmp(name, "host_ticks") == 0 ? 0 : -1; }

static uint64_t all_values(int32_t id, instr_metric_timed_value **values)
{
    (void)id;
    *values = malloc(sizeof **values);
    if (!*values)
        return 0;
    (*values)[0] = (instr_metric_timed_value){runtime_clock ? runtime_clock() : 0, 1};
    return 1;
}

INSTR_METRIC_PLUGIN_ENTRY
{
    static const instr_metric_plugin_info info = {
        .plugin_version = INSTR_METRIC_PLUGIN_VERSION,
        .synchronicity = INSTR_METRIC_ASYNC,
        .scope = INSTR_METRIC_PER_HOST,
        .initialize = initialize,
        .get_metric_properties = properties,
        .add_counter = add_counter,
        .get_all_values = all_values,
        .set_clock = set_clock,
        .synchronize = synchronize,
    };
    return &info;
}
