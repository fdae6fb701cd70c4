/* config.h — the runtime's configuration, read once from INSTR_* environment variables.
 * Every variable (docs/architecture.md, "Configuration") is parsed here; a bad value is
 * reported with the variable's name and the value used instead, and never stops the program.
 *
 * Every INSTR_* variable of the runtime is read through instr_env(), which honours
 * AT_SECURE: in a program that runs with changed privileges (setuid, setgid, file
 * capabilities) the environment belongs to a less privileged user, so it is ignored and
 * nothing is recorded (docs/security.md). */
#ifndef INSTR_RT_CONFIG_H
#define INSTR_RT_CONFIG_H

#include <stdint.h>
#include <stdio.h>

/* INSTR_TIMER. CLOCK_GETTIME is the earlier spelling of MONOTONIC (and keeps its name in the
 * experiment). */
enum instr_timer_choice {
    INSTR_TIMER_AUTO, INSTR_TIMER_TSC, INSTR_TIMER_CLOCK_GETTIME, INSTR_TIMER_MONOTONIC,
    INSTR_TIMER_MONOTONIC_RAW, INSTR_TIMER_REALTIME
};

typedef struct instr_config {
    int enable_profiling;
    int enable_tracing;
    const char *experiment_directory; /* NULL: instr-<YYYYMMDD_HHMMSS>-<pid> in the cwd */
    const char *filtering_file;       /* NULL: no run-time filter */
    int timer;                        /* enum instr_timer_choice */
    uint64_t total_memory;            /* bytes for call-tree nodes, all threads together */
    int verbose;
    int write_on_signal;              /* handle termination signals the program does not */
    int write_on_fatal;               /* also write on SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT */
    uint32_t folded_max_depth;        /* profile.folded: deeper paths are shortened */
    uint32_t profiling_formats;       /* INSTR_PROFILING_FORMAT: INSTR_FORMAT_* bits */
    uint64_t throttle_visits;         /* INSTR_THROTTLE: 0 = off */
    uint64_t hint_visits;             /* INSTR_DOMINATED_HINT: 0 = off */
    uint64_t hint_ns;                 /* INSTR_DOMINATED_HINT: ns per visit below which */
    uint64_t throttle_ns;             /* INSTR_THROTTLE: inclusive ns per visit below which */
    uint32_t job_profile_max_ranks;   /* INSTR_JOB_PROFILE_MAX_RANKS */
    int privileged;                   /* AT_SECURE: environment ignored, nothing recorded */
} instr_config;

extern instr_config instr_cfg;

#define INSTR_DEFAULT_TOTAL_MEMORY (256ull << 20)
#define INSTR_MIN_TOTAL_MEMORY (64ull << 10)
/* Larger budgets are refused as typing mistakes (docs/runtime.md). */
#define INSTR_MAX_TOTAL_MEMORY (1ull << 40)
#define INSTR_DEFAULT_FOLDED_MAX_DEPTH 64u
#define INSTR_MIN_FOLDED_MAX_DEPTH 4u
#define INSTR_MAX_FOLDED_MAX_DEPTH 100000u
#define INSTR_DEFAULT_JOB_PROFILE_MAX_RANKS 256u

/* INSTR_PROFILING_FORMAT: which profile files a run writes (docs/runtime.md). */
#define INSTR_FORMAT_JSON   (1u << 0)
#define INSTR_FORMAT_TXT    (1u << 1)
#define INSTR_FORMAT_FOLDED (1u << 2)
#define INSTR_FORMAT_CUBEX  (1u << 3)
#define INSTR_FORMAT_HTML   (1u << 4)
#define INSTR_FORMAT_ALL    ((1u << 5) - 1)

/* Reads the environment into instr_cfg, warning about bad values and unknown INSTR_*
 * names. */
void instr_config_read(void);
/* The same from an explicit environment (NULL-terminated "NAME=value" strings) and a given
 * AT_SECURE value: the libFuzzer target and unit tests. May be called repeatedly. */
void instr_config_read_from(char *const *envp, int secure);

/* The one accessor for INSTR_* variables: the value, or NULL when unset or when the program
 * runs with changed privileges. */
const char *instr_env(const char *name);

/* Number of known variables; name, effective value (as text) and where it came from. */
int instr_config_count(void);
const char *instr_config_name(int i);
const char *instr_config_value(int i);
const char *instr_config_origin(int i);
/* Effective value of a variable by name, "" when unknown. */
const char *instr_config_lookup(const char *name);

/* "4G", "16 MB" -> bytes. Digits, optional blanks, an optional K/M/G/T suffix (also KB,
 * KiB, ...; case-insensitive). Returns 0, or -1 when malformed or overflowing. */
int instr_parse_size(const char *text, uint64_t *out);
/* 1/0, true/false, yes/no, on/off (case-insensitive). Returns 0, or -1. */
int instr_parse_bool(const char *text, int *out);
/* The known INSTR_* name nearest to `name` (a typing mistake, a shortened name), or NULL
 * when none is near. */
const char *instr_config_nearest(const char *name);

#endif
