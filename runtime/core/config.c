/* config.c — INSTR_* environment variables into instr_cfg.
 *
 * Rule: a bad value never stops the program. It gets one warning naming the variable, the
 * value found and the value used instead; the effective values are kept as text so that the
 * experiment directory records exactly what the run used. */
#include "config.h"
#include "log.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

instr_config instr_cfg = {
    .enable_profiling = 1,
    .enable_tracing = 0,
    .timer = INSTR_TIMER_AUTO,
    .total_memory = INSTR_DEFAULT_TOTAL_MEMORY,
    .verbose = 0,
};

enum { V_PROFILING, V_TRACING, V_EXPDIR, V_FILTER, V_TIMER, V_MEMORY, V_VERBOSE, V_COUNT };

static const char *const names[V_COUNT] = {
    "INSTR_ENABLE_PROFILING", "INSTR_ENABLE_TRACING", "INSTR_EXPERIMENT_DIRECTORY",
    "INSTR_FILTERING_FILE",   "INSTR_TIMER",          "INSTR_TOTAL_MEMORY",
    "INSTR_VERBOSE",
};
static char values[V_COUNT][512];
static const char *origins[V_COUNT];

int instr_config_count(void) { return V_COUNT; }
const char *instr_config_name(int i) { return names[i]; }
const char *instr_config_value(int i) { return values[i]; }
const char *instr_config_origin(int i) { return origins[i]; }

const char *instr_config_lookup(const char *name)
{
    for (int i = 0; i < V_COUNT; i++)
        if (strcmp(names[i], name) == 0)
            return values[i];
    return "";
}

int instr_parse_bool(const char *t, int *out)
{
    static const char *const yes[] = {"1", "true", "yes", "on"};
    static const char *const no[] = {"0", "false", "no", "off"};
    for (size_t i = 0; i < 4; i++) {
        if (strcasecmp(t, yes[i]) == 0) { *out = 1; return 0; }
        if (strcasecmp(t, no[i]) == 0) { *out = 0; return 0; }
    }
    return -1;
}

int instr_parse_size(const char *t, uint64_t *out)
{
    const char *p = t;
    while (isspace((unsigned char)*p))
        p++;
    if (!isdigit((unsigned char)*p))
        return -1; /* strtoull would accept "-1" and " +2" */
    errno = 0;
    char *end;
    unsigned long long v = strtoull(p, &end, 10);
    if (errno == ERANGE)
        return -1;
    unsigned shift = 0;
    switch (toupper((unsigned char)*end)) {
    case 'K': shift = 10; end++; break;
    case 'M': shift = 20; end++; break;
    case 'G': shift = 30; end++; break;
    case 'T': shift = 40; end++; break;
    default: break;
    }
    if (shift) {
        if (toupper((unsigned char)end[0]) == 'I' && toupper((unsigned char)end[1]) == 'B')
            end += 2;
        else if (toupper((unsigned char)end[0]) == 'B')
            end++;
    } else if (toupper((unsigned char)*end) == 'B') {
        end++;
    }
    while (isspace((unsigned char)*end))
        end++;
    if (*end != '\0')
        return -1;
    if (shift && v > (UINT64_MAX >> shift))
        return -1;
    *out = (uint64_t)v << shift;
    return 0;
}

static void set_value(int i, const char *origin, const char *fmt_value)
{
    snprintf(values[i], sizeof values[i], "%s", fmt_value);
    origins[i] = origin;
}

static void read_bool(int i, int *field)
{
    const char *env = getenv(names[i]);
    char def[4];
    snprintf(def, sizeof def, "%d", *field);
    if (!env || !*env) {
        set_value(i, "default", def);
        return;
    }
    int v;
    if (instr_parse_bool(env, &v) != 0) {
        instr_warn("%s='%s' is not a boolean (use 1/0, true/false, yes/no, on/off); using %s",
                   names[i], env, def);
        set_value(i, "default (bad value in environment)", def);
        return;
    }
    *field = v;
    set_value(i, "environment", v ? "1" : "0");
}

static void read_string(int i, const char **field)
{
    const char *env = getenv(names[i]);
    if (!env || !*env) {
        set_value(i, "default", "");
        return;
    }
    *field = env; /* the environment outlives the runtime's reads of it at start-up */
    set_value(i, "environment", env);
}

static void read_timer(void)
{
    const char *env = getenv(names[V_TIMER]);
    if (!env || !*env) {
        set_value(V_TIMER, "default", "auto");
        return;
    }
    static const struct { const char *name; int timer; } timers[] = {
        {"tsc", INSTR_TIMER_TSC},
        {"monotonic", INSTR_TIMER_MONOTONIC},
        {"monotonic_raw", INSTR_TIMER_MONOTONIC_RAW},
        {"realtime", INSTR_TIMER_REALTIME},
        {"clock_gettime", INSTR_TIMER_CLOCK_GETTIME},
        {"gettime", INSTR_TIMER_CLOCK_GETTIME},
        {"auto", INSTR_TIMER_AUTO},
    };
    size_t i = 0;
    while (i < sizeof timers / sizeof *timers && strcasecmp(env, timers[i].name) != 0)
        i++;
    if (i < sizeof timers / sizeof *timers) {
        instr_cfg.timer = timers[i].timer;
    } else {
        instr_warn("%s='%s' is not a timer (use tsc, monotonic, monotonic_raw, realtime or "
                   "auto); using auto",
                   names[V_TIMER], env);
        set_value(V_TIMER, "default (bad value in environment)", "auto");
        return;
    }
    set_value(V_TIMER, "environment", env);
}

static void read_memory(void)
{
    const char *env = getenv(names[V_MEMORY]);
    char def[32];
    snprintf(def, sizeof def, "%lluM", (unsigned long long)(INSTR_DEFAULT_TOTAL_MEMORY >> 20));
    if (!env || !*env) {
        set_value(V_MEMORY, "default", def);
        return;
    }
    uint64_t v;
    if (instr_parse_size(env, &v) != 0) {
        instr_warn("%s='%s' is not a size (digits with an optional K, M or G suffix); "
                   "using %s", names[V_MEMORY], env, def);
        set_value(V_MEMORY, "default (bad value in environment)", def);
        return;
    }
    if (v < INSTR_MIN_TOTAL_MEMORY) {
        instr_warn("%s='%s' is below the minimum of %lluK; using %lluK", names[V_MEMORY], env,
                   (unsigned long long)(INSTR_MIN_TOTAL_MEMORY >> 10),
                   (unsigned long long)(INSTR_MIN_TOTAL_MEMORY >> 10));
        v = INSTR_MIN_TOTAL_MEMORY;
        char buf[32];
        snprintf(buf, sizeof buf, "%lluK", (unsigned long long)(v >> 10));
        instr_cfg.total_memory = v;
        set_value(V_MEMORY, "minimum (value in environment too small)", buf);
        return;
    }
    instr_cfg.total_memory = v;
    set_value(V_MEMORY, "environment", env);
}

static void read_verbose(void)
{
    const char *env = getenv(names[V_VERBOSE]);
    if (!env || !*env) {
        set_value(V_VERBOSE, "default", "0");
        return;
    }
    char *end;
    errno = 0;
    long v = strtol(env, &end, 10);
    int b;
    if (end != env && *end == '\0' && errno == 0 && v >= -1 && v <= 3) {
        instr_cfg.verbose = (int)v;
    } else if (strcasecmp(env, "quiet") == 0) {
        instr_cfg.verbose = -1;
    } else if (instr_parse_bool(env, &b) == 0) {
        instr_cfg.verbose = b;
    } else {
        instr_warn("%s='%s' is not a level (use quiet, 0, 1 or 2); using 0", names[V_VERBOSE],
                   env);
        set_value(V_VERBOSE, "default (bad value in environment)", "0");
        return;
    }
    char buf[8];
    snprintf(buf, sizeof buf, "%d", instr_cfg.verbose);
    set_value(V_VERBOSE, "environment", buf);
}

void instr_config_read(void)
{
    /* Verbosity first, so that the other variables can explain themselves. */
    read_verbose();
    instr_verbose = instr_cfg.verbose;
    read_bool(V_PROFILING, &instr_cfg.enable_profiling);
    read_bool(V_TRACING, &instr_cfg.enable_tracing);
    read_string(V_EXPDIR, &instr_cfg.experiment_directory);
    read_string(V_FILTER, &instr_cfg.filtering_file);
    read_timer();
    read_memory();
#ifndef INSTR_RT_HAVE_TRACE
    if (instr_cfg.enable_tracing)
        instr_warn("INSTR_ENABLE_TRACING=1: the trace substrate is not built yet in this runtime; "
                   "no trace is written%s", instr_cfg.enable_profiling ? " (profiling stays on)" : "");
#endif
}
