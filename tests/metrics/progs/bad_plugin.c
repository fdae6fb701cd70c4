/* Test doubles of broken metric plugins, one per BAD_* definition (tests/metrics): each must
 * be reported with one line and left out, the run going on.
 *   BAD_NO_ENTRY     exports no entry point
 *   BAD_VERSION      built for an interface version this runtime does not read (99)
 *   BAD_INIT         initialize fails
 *   BAD_NO_CALLBACK  strictly synchronous without get_current_value */
#include <instr/instr_metric_plugin.h>

#include <stdlib.h>
#include <string.h>

#define UNUSED_IN_SOME __attribute__((unused))

static UNUSED_IN_SOME int32_t initialize(void)
{
#ifdef BAD_INIT
    return -7;
#else
    return 0;
#endif
}

static UNUSED_IN_SOME instr_metric_properties *properties(const char *spec)
{
    (void)spec;
    instr_metric_properties *p = calloc(2, sizeof *p);
    if (p) {
        p[0].name = strdup("one");
        p[0].unit = strdup("#");
    }
    return p;
}

static UNUSED_IN_SOME int32_t add_counter(const char *name)
{
    (void)name;
    return 0;
}

static UNUSED_IN_SOME uint64_t value(int32_t id) { return (uint64_t)id; }

#ifndef BAD_NO_ENTRY
INSTR_METRIC_PLUGIN_ENTRY
{
    static const instr_metric_plugin_info info = {
#ifdef BAD_VERSION
        .plugin_version = 99,
#else
        .plugin_version = INSTR_METRIC_PLUGIN_VERSION,
#endif
        .synchronicity = INSTR_METRIC_STRICTLY_SYNC,
        .initialize = initialize,
        .get_metric_properties = properties,
        .add_counter = add_counter,
#ifndef BAD_NO_CALLBACK
        .get_current_value = value,
#endif
    };
    return &info;
}
#else
/* Something exported, under another name. */
__attribute__((visibility("default"))) uint64_t instr_metric_plugin_other(void) { return value(0); }
#endif
