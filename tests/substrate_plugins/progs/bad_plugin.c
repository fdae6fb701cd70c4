/* Broken substrate plugins (test doubles), one per -D: BAD_NO_ENTRY exports no entry point,
 * BAD_VERSION claims ABI version 99, BAD_INIT fails to initialise (returns -7). */
#include <instr/instr_substrate_plugin.h>

#include <stdlib.h>

__attribute__((unused)) static void enter(instr_substrate_location *loc, uint64_t t, uint32_t region,
                  const uint64_t *metrics)
{
    (void)loc, (void)t, (void)region, (void)metrics;
    abort(); /* never reached: the runtime leaves a bad plugin out */
}

__attribute__((unused)) static int32_t initialize(const instr_substrate_init *init)
{
    (void)init;
#ifdef BAD_INIT
    return -7;
#else
    return 0;
#endif
}

#ifdef BAD_NO_ENTRY
__attribute__((visibility("default"))) int not_the_entry_point(void) { return 0; }
#else
INSTR_SUBSTRATE_PLUGIN_ENTRY
{
    static instr_substrate_plugin_info info = {
        .plugin_version = INSTR_SUBSTRATE_PLUGIN_VERSION,
        .initialize = initialize,
        .events = {.enter_region = enter, .exit_region = enter},
    };
#ifdef BAD_VERSION
    info.plugin_version = 99;
#endif
    return &info;
}
#endif
