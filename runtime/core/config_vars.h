/* config_vars.h — every INSTR_* environment variable of instr in one table: its name, type,
 * default and meaning, and which part reads it. The runtime's parser (config.c) reads its own
 * variables by the row indices below and checks every INSTR_* name it sees against the whole
 * table; `instr-info config-vars` prints it; tests/buildsys/check_config_vars.py checks it
 * against the sources and docs/runtime.md. Plain data: instr-info compiles this file too. */
#ifndef INSTR_RT_CONFIG_VARS_H
#define INSTR_RT_CONFIG_VARS_H

#include <stddef.h>

/* The rows of the variables config.c parses into instr_cfg come first, at these indices (a
 * new one: a slot here, its row in config_vars.c, its parser in config.c). */
enum {
    V_PROFILING, V_TRACING, V_EXPDIR, V_FILTER, V_TIMER, V_MEMORY, V_VERBOSE, V_SIGNAL,
    V_FATAL, V_FOLDED, V_FORMATS, V_THROTTLE, V_HINT, V_JOB_MAX_RANKS, V_COUNT
};

typedef struct instr_config_var {
    const char *name;          /* INSTR_NAME, or INSTR_PREFIX_* for a family of names */
    const char *type;          /* boolean, level, path, paths, size, integer, word, options */
    const char *default_value; /* as recorded in instr.cfg; "" when unset by default */
    const char *read_by;       /* runtime, XRay adapter, LLVM plugin, compiler wrappers */
    const char *description;   /* one line; docs/ say the rest */
} instr_config_var;

extern const instr_config_var instr_config_vars[];
extern const size_t instr_config_var_count;

/* The row naming the variable `name` (len bytes, not NUL-terminated): the exact name, or a
 * family whose prefix it begins with; NULL when no part of instr reads it. */
const instr_config_var *instr_config_var_find(const char *name, size_t len);

#endif
