/* libinstr_substrate_empty.so — a substrate plugin that registers for enter and exit and does
 * nothing in them: what the dispatch to a plugin costs (bench/substrate_plugins/plugin_cost.sh,
 * docs/performance.md "Substrate plugins"). Doing nothing, it is reentrant
 * (INSTR_SUBSTRATE_PLUGIN_REENTRANT); built with -DEMPTY_PROTECTED
 * (libinstr_substrate_empty_protected.so) it does not say so, and the runtime keeps a signal
 * handler's events away from its calls: the cost of that protection. */
#include <instr/instr_substrate_plugin.h>

static void nothing(instr_substrate_location *loc, uint64_t t, uint32_t region,
                    const uint64_t *metrics)
{
    (void)loc, (void)t, (void)region, (void)metrics;
}

INSTR_SUBSTRATE_PLUGIN_ENTRY
{
    static const instr_substrate_plugin_info info = {
        .plugin_version = INSTR_SUBSTRATE_PLUGIN_VERSION,
        .events = {.enter_region = nothing, .exit_region = nothing},
#ifndef EMPTY_PROTECTED
        .flags = INSTR_SUBSTRATE_PLUGIN_REENTRANT,
#endif
    };
    return &info;
}
