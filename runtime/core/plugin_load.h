/* plugin_load.h — finding and opening a plugin's shared object, shared by the metric plugins
 * (INSTR_METRIC_PLUGINS, runtime/metrics/plugin.c) and the substrate plugins
 * (INSTR_SUBSTRATE_PLUGINS, runtime/plugins/), so that both search, check names and speak
 * alike. */
#ifndef INSTR_RT_PLUGIN_LOAD_H
#define INSTR_RT_PLUGIN_LOAD_H

#include <stddef.h>
#include <stdint.h>

/* 1 when `name` may name a plugin (letters, digits, '_' and '-', 1 to 47 of them); else 0
 * after a line naming the variable `var`. */
int instr_plugin_name_ok(const char *var, const char *name);

/* Loads plugin `name` of `kind` ("metric" or "substrate"): opens libinstr_<kind>_<name>.so,
 * looked for in every directory of INSTR_PLUGIN_PATH (colon separated), then by the dynamic
 * linker (the library path), and returns its description, what its entry point `entry`
 * returns: a struct that begins with its uint32_t plugin_version, which goes into *version.
 * NULL, after a line naming `var` and the plugin, when the object is not found or cannot be
 * loaded, has no entry point or no description, or gives a version outside vmin..vmax (then
 * nothing else of the description is read). The object stays loaded. */
const void *instr_plugin_load(const char *var, const char *kind, const char *name,
                              const char *entry, uint32_t vmin, uint32_t vmax, uint32_t *version);

/* The variable INSTR_<infix><NAME> of plugin `name` (upper case, '-' as '_') into out. */
void instr_plugin_var(char *out, size_t size, const char *infix, const char *name);

#endif
