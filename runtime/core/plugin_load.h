/* plugin_load.h — finding and opening a plugin's shared object, shared by the metric plugins
 * (INSTR_METRIC_PLUGINS, runtime/metrics/plugin.c) and the substrate plugins
 * (INSTR_SUBSTRATE_PLUGINS, runtime/plugins/), so that both search, check names and speak
 * alike. */
#ifndef INSTR_RT_PLUGIN_LOAD_H
#define INSTR_RT_PLUGIN_LOAD_H

#include <stddef.h>

/* 1 when `name` may name a plugin (letters, digits, '_' and '-', 1 to 47 of them); else 0
 * after a line naming the variable `var`. */
int instr_plugin_name_ok(const char *var, const char *name);

/* The dlopen handle of lib<prefix><name>.so (prefix "instr_metric_" or "instr_substrate_"),
 * looked for in every directory of INSTR_PLUGIN_PATH (colon separated), then by the dynamic
 * linker (the library path); NULL after a line naming `var` and the plugin. */
void *instr_plugin_open(const char *var, const char *prefix, const char *name);

/* The variable INSTR_<infix><NAME> of plugin `name` (upper case, '-' as '_') into out. */
void instr_plugin_var(char *out, size_t size, const char *infix, const char *name);

#endif
