/* libinstr_substrate_empty.so — a substrate plugin that registers for enter and exit and does
 * nothing in them: what the dispatch to a plugin costs (bench/substrate_plugins/plugin_cost.sh,
 * docs/performance.md "Substrate plugins"). */
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
    };
    return &info;
}
