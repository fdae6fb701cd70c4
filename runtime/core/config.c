/* config.c — INSTR_* environment variables into instr_cfg.
 *
 * Rule: a bad value never stops the program. It gets one warning naming the variable, the
 * value found (quoted, escaped and shortened: text.h) and the value used instead; the
 * effective values are kept so that the experiment directory records exactly what the run
 * used. An INSTR_* name that no part of instr knows gets one warning naming the nearest
 * known one. */
#include "config.h"
#include "config_vars.h"
#include "log.h"
#include "../util/text.h"
#include "../util/pages.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/auxv.h>

extern char **environ;

static const instr_config defaults = {
    .enable_profiling = 1,
    .enable_tracing = 0,
    .timer = INSTR_TIMER_AUTO,
    .total_memory = INSTR_DEFAULT_TOTAL_MEMORY,
    .verbose = 0,
    .write_on_signal = 1,
    .write_on_fatal = 0,
    .folded_max_depth = INSTR_DEFAULT_FOLDED_MAX_DEPTH,
    .job_profile_max_ranks = INSTR_DEFAULT_JOB_PROFILE_MAX_RANKS,
    .profiling_formats = INSTR_FORMAT_ALL,
};
instr_config instr_cfg = {
    .enable_profiling = 1,
    .timer = INSTR_TIMER_AUTO,
    .total_memory = INSTR_DEFAULT_TOTAL_MEMORY,
    .write_on_signal = 1,
    .folded_max_depth = INSTR_DEFAULT_FOLDED_MAX_DEPTH,
    .job_profile_max_ranks = INSTR_DEFAULT_JOB_PROFILE_MAX_RANKS,
    .profiling_formats = INSTR_FORMAT_ALL,
};

/* The runtime's own variables are the first V_COUNT rows of the table (config_vars.h),
 * recorded in instr.cfg; every other row is known too, so never reported as unknown. */
static const char *name_of(int i) { return instr_config_vars[i].name; }

static char *values[V_COUNT];
static const char *origins[V_COUNT];
static char *const *env_override; /* instr_config_read_from() */
static int env_secure;

int instr_config_count(void) { return V_COUNT; }
const char *instr_config_name(int i) { return name_of(i); }
const char *instr_config_value(int i) { return values[i] ? values[i] : ""; }
const char *instr_config_origin(int i) { return origins[i] ? origins[i] : "default"; }

const char *instr_config_lookup(const char *name)
{
    for (int i = 0; i < V_COUNT; i++)
        if (strcmp(name_of(i), name) == 0)
            return instr_config_value(i);
    return "";
}

const char *instr_env(const char *name)
{
    if (env_secure)
        return NULL;
    if (!env_override)
        return secure_getenv(name);
    size_t len = strlen(name);
    for (char *const *e = env_override; *e; e++)
        if (strncmp(*e, name, len) == 0 && (*e)[len] == '=')
            return *e + len + 1;
    return NULL;
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
    while (*end == ' ' || *end == '\t') /* "16 MB", as docs/runtime.md spells it */
        end++;
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

/* Edit distance (insertions, deletions, substitutions) of two short names. */
static unsigned distance(const char *a, const char *b)
{
    enum { MAX = 64 };
    size_t la = strlen(a), lb = strlen(b);
    if (la > MAX || lb > MAX)
        return UINT_MAX;
    unsigned row[MAX + 1];
    for (size_t j = 0; j <= lb; j++)
        row[j] = (unsigned)j;
    for (size_t i = 1; i <= la; i++) {
        unsigned diag = row[0];
        row[0] = (unsigned)i;
        for (size_t j = 1; j <= lb; j++) {
            unsigned up = row[j];
            unsigned best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

const char *instr_config_nearest(const char *name)
{
    const char *best = NULL;
    unsigned best_d = UINT_MAX;
    size_t len = strlen(name);
    for (size_t i = 0; i < instr_config_var_count; i++) {
        const char *known = instr_config_vars[i].name;
        size_t kl = strlen(known);
        if (known[kl - 1] == '*')
            continue; /* a family: its prefix is no name to propose */
        /* A shortened name (INSTR_EXPERIMENT_DIR) is near whatever it begins. */
        unsigned d = len >= 9 && len < kl && strncmp(known, name, len) == 0 ? 1
                                                                            : distance(name, known);
        if (d < best_d) {
            best_d = d;
            best = known;
        }
    }
    /* Near: at most a third of the name differs (INSTR_ENABLE_TRACNG, INSTR_TIMR). */
    return best && best_d <= (len - 6) / 3 + 1 ? best : NULL;
}

static void set_value(int i, const char *origin, const char *value)
{
    instr_mem_free(values[i]);
    values[i] = instr_mem_strdup(value);
    origins[i] = origin;
}

static void bad_value(int i, const char *env, const char *what, const char *used)
{
    char q[INSTR_QUOTE_SIZE];
    instr_warn("%s=%s %s; using %s", name_of(i), instr_quote(q, env), what, used);
}

static void read_bool(int i, int *field)
{
    const char *env = instr_env(name_of(i));
    char def[4];
    snprintf(def, sizeof def, "%d", *field);
    if (!env || !*env) {
        set_value(i, "default", def);
        return;
    }
    int v;
    if (instr_parse_bool(env, &v) != 0) {
        bad_value(i, env, "is not a boolean (use 1/0, true/false, yes/no, on/off)", def);
        set_value(i, "default (bad value in environment)", def);
        return;
    }
    *field = v;
    set_value(i, "environment", v ? "1" : "0");
}

static void read_string(int i, const char **field, size_t max_len)
{
    const char *env = instr_env(name_of(i));
    if (!env || !*env) {
        set_value(i, "default", "");
        return;
    }
    if (strlen(env) > max_len) {
        char what[96];
        snprintf(what, sizeof what, "is longer than the longest path (%zu bytes)", max_len);
        bad_value(i, env, what, "the default");
        set_value(i, "default (bad value in environment)", "");
        return;
    }
    set_value(i, "environment", env);
    *field = values[i];
}

static void read_timer(void)
{
    const char *env = instr_env(name_of(V_TIMER));
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
        bad_value(V_TIMER, env,
                  "is not a timer (use tsc, monotonic, monotonic_raw, realtime or auto)", "auto");
        set_value(V_TIMER, "default (bad value in environment)", "auto");
        return;
    }
    set_value(V_TIMER, "environment", env);
}

static void read_memory(void)
{
    const char *env = instr_env(name_of(V_MEMORY));
    char def[32];
    snprintf(def, sizeof def, "%lluM", (unsigned long long)(INSTR_DEFAULT_TOTAL_MEMORY >> 20));
    if (!env || !*env) {
        set_value(V_MEMORY, "default", def);
        return;
    }
    uint64_t v;
    if (instr_parse_size(env, &v) != 0) {
        bad_value(V_MEMORY, env, "is not a size (digits with an optional K, M, G or T suffix, "
                                 "e.g. 512M or 16 MB)", def);
        set_value(V_MEMORY, "default (bad value in environment)", def);
        return;
    }
    if (v > INSTR_MAX_TOTAL_MEMORY) {
        char what[96];
        snprintf(what, sizeof what, "is more than the largest budget instr accepts, %lluT",
                 (unsigned long long)(INSTR_MAX_TOTAL_MEMORY >> 40));
        bad_value(V_MEMORY, env, what, def);
        set_value(V_MEMORY, "default (bad value in environment)", def);
        return;
    }
    if (v < INSTR_MIN_TOTAL_MEMORY) {
        char what[64], used[32];
        snprintf(what, sizeof what, "is below the minimum of %lluK",
                 (unsigned long long)(INSTR_MIN_TOTAL_MEMORY >> 10));
        snprintf(used, sizeof used, "%lluK", (unsigned long long)(INSTR_MIN_TOTAL_MEMORY >> 10));
        bad_value(V_MEMORY, env, what, used);
        instr_cfg.total_memory = INSTR_MIN_TOTAL_MEMORY;
        set_value(V_MEMORY, "minimum (value in environment too small)", used);
        return;
    }
    instr_cfg.total_memory = v;
    set_value(V_MEMORY, "environment", env);
}

static void read_folded_depth(void)
{
    const char *env = instr_env(name_of(V_FOLDED));
    char def[16];
    snprintf(def, sizeof def, "%u", INSTR_DEFAULT_FOLDED_MAX_DEPTH);
    if (!env || !*env) {
        set_value(V_FOLDED, "default", def);
        return;
    }
    char *end;
    errno = 0;
    long v = strtol(env, &end, 10);
    if (end == env || *end || errno || v < INSTR_MIN_FOLDED_MAX_DEPTH ||
        v > INSTR_MAX_FOLDED_MAX_DEPTH) {
        char what[96];
        snprintf(what, sizeof what, "is not a depth from %u to %u", INSTR_MIN_FOLDED_MAX_DEPTH,
                 INSTR_MAX_FOLDED_MAX_DEPTH);
        bad_value(V_FOLDED, env, what, def);
        set_value(V_FOLDED, "default (bad value in environment)", def);
        return;
    }
    instr_cfg.folded_max_depth = (uint32_t)v;
    set_value(V_FOLDED, "environment", env);
}

/* INSTR_JOB_PROFILE_MAX_RANKS: a positive int. */
static void read_job_max_ranks(void)
{
    const char *env = instr_env(name_of(V_JOB_MAX_RANKS));
    char def[16];
    snprintf(def, sizeof def, "%u", INSTR_DEFAULT_JOB_PROFILE_MAX_RANKS);
    if (!env || !*env) {
        set_value(V_JOB_MAX_RANKS, "default", def);
        return;
    }
    char *end;
    errno = 0;
    long long v = strtoll(env, &end, 10);
    if (end == env || *end || errno || v < 1 || v > INT32_MAX) {
        bad_value(V_JOB_MAX_RANKS, env, "is not a number of ranks from 1 to 2147483647", def);
        set_value(V_JOB_MAX_RANKS, "default (bad value in environment)", def);
        return;
    }
    instr_cfg.job_profile_max_ranks = (uint32_t)v;
    set_value(V_JOB_MAX_RANKS, "environment", env);
}

/* INSTR_PROFILING_FORMAT: a comma-separated list of json, txt, folded, cubex, html, all,
 * none. An unknown word is warned about and left out; the others still count. */
static void read_formats(void)
{
    static const struct { const char *word; uint32_t bits; } words[] = {
        {"json", INSTR_FORMAT_JSON},   {"txt", INSTR_FORMAT_TXT},   {"folded", INSTR_FORMAT_FOLDED},
        {"cubex", INSTR_FORMAT_CUBEX}, {"html", INSTR_FORMAT_HTML}, {"all", INSTR_FORMAT_ALL},
        {"none", 0},
    };
    const char *env = instr_env(name_of(V_FORMATS));
    if (!env || !*env) {
        set_value(V_FORMATS, "default", "all");
        return;
    }
    uint32_t bits = 0;
    int bad = 0;
    for (const char *p = env; *p;) {
        size_t n = strcspn(p, ",");
        const char *w = p;
        size_t wl = n;
        while (wl && isspace((unsigned char)*w)) {
            w++;
            wl--;
        }
        while (wl && isspace((unsigned char)w[wl - 1]))
            wl--;
        size_t k = 0;
        while (k < sizeof words / sizeof *words &&
               !(strlen(words[k].word) == wl && strncasecmp(words[k].word, w, wl) == 0))
            k++;
        if (k < sizeof words / sizeof *words) {
            bits |= words[k].bits;
        } else if (wl) {
            char word[64], q[INSTR_QUOTE_SIZE], qw[INSTR_QUOTE_SIZE];
            snprintf(word, sizeof word, "%.*s", (int)(wl < 63 ? wl : 63), w);
            /* The word quoted too: it is the value's own bytes (control bytes included). */
            instr_warn("%s=%s: %s is not a profile format and is left out (the formats: json, "
                       "txt, folded, cubex, html, all, none)",
                       name_of(V_FORMATS), instr_quote(q, env), instr_quote(qw, word));
            bad = 1;
        }
        p += n;
        if (*p == ',')
            p++;
    }
    instr_cfg.profiling_formats = bits;
    set_value(V_FORMATS, bad ? "environment (unknown words left out)" : "environment", env);
}

/* <visits>,<ns per visit>: two positive integers (INSTR_THROTTLE, INSTR_DOMINATED_HINT);
 * `off` turns the feature off; unset or empty: the row's default. Returns 0 with both 0 for
 * off; a bad value warns, naming what is used instead. */
static void read_visits_ns(int var, const char *off_means, uint64_t *visits_out, uint64_t *ns_out)
{
    const char *env = instr_env(name_of(var));
    const char *dflt = instr_config_vars[var].default_value;
    const char *origin = "environment", *text = env;
    if (!env || !*env) {
        origin = "default";
        text = dflt;
    } else if (strcasecmp(env, "off") == 0) {
        *visits_out = *ns_out = 0;
        set_value(var, "environment", "off");
        return;
    }
    unsigned long long visits = 0, ns = 0;
    int used = 0;
    int ok = *text && sscanf(text, " %llu , %llu %n", &visits, &ns, &used) == 2 &&
             text[used] == '\0' && !strchr(text, '-') && visits > 0 && ns > 0 &&
             visits < (1ull << 62) && ns < (1ull << 40);
    if (!ok && text == env) {
        char instead[96];
        snprintf(instead, sizeof instead, "%s", *dflt ? dflt : off_means);
        bad_value(var, env,
                  "is not <visits>,<ns per visit> (two positive integers, e.g. 100000,100) "
                  "or off",
                  instead);
        origin = "default (bad value in environment)";
        text = dflt;
        ok = *text && sscanf(text, " %llu , %llu", &visits, &ns) == 2;
    }
    if (!ok) {
        *visits_out = *ns_out = 0;
        set_value(var, origin, "");
        return;
    }
    *visits_out = visits;
    *ns_out = ns;
    char buf[48];
    snprintf(buf, sizeof buf, "%llu,%llu", visits, ns);
    set_value(var, origin, buf);
}

static void read_verbose(void)
{
    const char *env = instr_env(name_of(V_VERBOSE));
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
        bad_value(V_VERBOSE, env, "is not a level (use quiet, 0, 1 or 2)", "0");
        set_value(V_VERBOSE, "default (bad value in environment)", "0");
        return;
    }
    char buf[8];
    snprintf(buf, sizeof buf, "%d", instr_cfg.verbose);
    set_value(V_VERBOSE, "environment", buf);
}

/* 1 when `name` (len bytes) is INSTR_<NAME>_... of a plugin <name> listed in
 * INSTR_SUBSTRATE_PLUGINS (upper case, '-' as '_'): the plugin reads its own variables
 * (instr_substrate_plugin.h, config callback). */
static int substrate_plugin_var(char *const *envp, const char *name, size_t len)
{
    static const char key[] = "INSTR_SUBSTRATE_PLUGINS=";
    const char *list = NULL;
    for (char *const *e = envp; e && *e && !list; e++)
        if (strncmp(*e, key, sizeof key - 1) == 0)
            list = *e + sizeof key - 1;
    for (const char *p = list; p && *p;) {
        p += strspn(p, ", \t");
        size_t n = strcspn(p, ", \t");
        if (n == 0)
            break;
        size_t i = 0;
        int same = len > 6 + n + 1 && name[6 + n] == '_';
        for (; same && i < n; i++)
            same = name[6 + i] == (p[i] == '-' ? '_' : toupper((unsigned char)p[i]));
        if (same)
            return 1;
        p += n;
    }
    return 0;
}

/* One line per INSTR_* variable that nothing in instr reads: a typing mistake would
 * otherwise silently give the user the default. */
static void unknown_names(char *const *envp)
{
    for (char *const *e = envp; e && *e; e++) {
        if (strncmp(*e, "INSTR_", 6) != 0 || strncmp(*e, "INSTR_TEST_", 11) == 0)
            continue; /* INSTR_TEST_*: the test suite's own doubles (tests/lib) */
        const char *eq = strchr(*e, '=');
        size_t len = eq ? (size_t)(eq - *e) : strlen(*e);
        if (instr_config_var_find(*e, len) || substrate_plugin_var(envp, *e, len))
            continue;
        char name[80], q[INSTR_QUOTE_SIZE];
        snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name - 1 ? len : sizeof name - 1),
                 *e);
        const char *near = len < sizeof name - 1 ? instr_config_nearest(name) : NULL;
        char *shown = instr_mem_strndup(*e, len);
        instr_quote(q, shown ? shown : name);
        instr_mem_free(shown);
        if (near)
            instr_warn("%s is not a variable instr knows and is ignored; did you mean %s?", q,
                       near);
        else
            instr_warn("%s is not a variable instr knows and is ignored (the variables are "
                       "listed in docs/runtime.md)", q);
    }
}

void instr_config_read_from(char *const *envp, int secure)
{
    env_override = envp;
    env_secure = secure;
    instr_cfg = defaults;
    instr_cfg.privileged = secure;
    /* Verbosity first, so that the other variables can explain themselves. */
    read_verbose();
    instr_verbose = instr_cfg.verbose;
    read_bool(V_PROFILING, &instr_cfg.enable_profiling);
    read_bool(V_TRACING, &instr_cfg.enable_tracing);
    read_string(V_EXPDIR, &instr_cfg.experiment_directory, PATH_MAX - 64);
    read_string(V_FILTER, &instr_cfg.filtering_file, PATH_MAX - 1);
    read_timer();
    read_memory();
    read_bool(V_SIGNAL, &instr_cfg.write_on_signal);
    read_bool(V_FATAL, &instr_cfg.write_on_fatal);
    read_folded_depth();
    read_formats();
    read_job_max_ranks();
    read_visits_ns(V_THROTTLE, "no throttling", &instr_cfg.throttle_visits,
                   &instr_cfg.throttle_ns);
    read_visits_ns(V_HINT, "no line", &instr_cfg.hint_visits, &instr_cfg.hint_ns);
    if (secure) {
        instr_warn("this program runs with changed privileges (setuid, setgid or file "
                   "capabilities): INSTR_* variables are ignored and nothing is recorded "
                   "(docs/security.md says how to measure such a program)");
        return;
    }
    unknown_names(envp);
#ifndef INSTR_RT_HAVE_TRACE
    if (instr_cfg.enable_tracing)
        instr_warn("INSTR_ENABLE_TRACING=1: the trace substrate is not built yet in this runtime; "
                   "no trace is written%s", instr_cfg.enable_profiling ? " (profiling stays on)" : "");
#endif
}

void instr_config_read(void)
{
    instr_config_read_from(environ, getauxval(AT_SECURE) != 0);
    env_override = NULL; /* later reads (INSTR_XRAY_PATCH) go to the live environment */
}
