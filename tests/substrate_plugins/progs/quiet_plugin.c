/* libinstr_substrate_quiet.so — a test double that registers for no application event (only
 * initialize and write_data): loading it must not cost one instruction per event. */
#include <instr/instr_substrate_plugin.h>

static int32_t initialize(const instr_substrate_init *init)
{
    (void)init;
    return 0;
}

static int32_t write_data(const char *dir)
{
    (void)dir;
    return 0;
}

INSTR_SUBSTRATE_PLUGIN_ENTRY
{
    static const instr_substrate_plugin_info info = {
        .plugin_version = INSTR_SUBSTRATE_PLUGIN_VERSION,
        .initialize = initialize,
        .write_data = write_data,
    };
    return &info;
}
