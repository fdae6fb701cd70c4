/* libinstr_metric_many.so — a test double of a strictly synchronous metric plugin with as many
 * metrics as INSTR_METRIC_MANY says (a number, default 1): m0, m1, ... Every metric's value
 * is the thread's events so far (one question at every enter and every exit), as the count
 * plugin's `events`, so that a test predicts each of them exactly however many there are. */
#include <instr/instr_metric_plugin.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local uint64_t events;
static int nmetrics;

static int32_t initialize(void) { return 0; }

static instr_metric_properties *properties(const char *spec)
{
    nmetrics = *spec ? atoi(spec) : 1;
    if (nmetrics < 1)
        nmetrics = 1;
    instr_metric_properties *p = calloc((size_t)nmetrics + 1, sizeof *p);
    if (!p)
        return NULL;
    for (int i = 0; i < nmetrics; i++) {
        char name[32];
        snprintf(name, sizeof name, "m%d", i);
        p[i].name = strdup(name);
        p[i].description = strdup("events (enters and exits) of the thread");
        p[i].unit = strdup("#");
        p[i].base = 10;
        p[i].value_type = INSTR_METRIC_UINT64;
        p[i].mode = INSTR_METRIC_ACCUMULATED;
        p[i].semantics = INSTR_METRIC_START;
    }
    return p;
}

static int32_t add_counter(const char *name)
{
    int id = name[0] == 'm' ? atoi(name + 1) : -1;
    return id >= 0 && id < nmetrics ? id : -1;
}

static uint64_t current_value(int32_t id)
{
    (void)id;
    return ++events;
}

static void current_values(const int32_t *ids, uint32_t n, uint64_t *values)
{
    (void)ids;
    uint64_t e = ++events;
    for (uint32_t i = 0; i < n; i++)
        values[i] = e;
}

INSTR_METRIC_PLUGIN_ENTRY
{
    static const instr_metric_plugin_info info = {
        .plugin_version = INSTR_METRIC_PLUGIN_VERSION,
        .synchronicity = INSTR_METRIC_STRICTLY_SYNC,
        .scope = INSTR_METRIC_PER_THREAD,
        .initialize = initialize,
        .get_metric_properties = properties,
        .add_counter = add_counter,
        .get_current_value = current_value,
        .get_current_values = current_values,
    };
    return &info;
}
