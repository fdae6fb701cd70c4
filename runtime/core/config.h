/* config.h — the runtime's configuration, read once from INSTR_* environment variables.
 * Every variable of DESIGN.md section 4 is parsed here; a bad value is reported with the
 * variable's name and the value used instead, and never stops the program. */
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
} instr_config;

extern instr_config instr_cfg;

#define INSTR_DEFAULT_TOTAL_MEMORY (256ull << 20)
#define INSTR_MIN_TOTAL_MEMORY (64ull << 10)

/* Reads the environment into instr_cfg, warning about bad values. */
void instr_config_read(void);

/* Number of known variables; name, effective value (as text) and where it came from. */
int instr_config_count(void);
const char *instr_config_name(int i);
const char *instr_config_value(int i);
const char *instr_config_origin(int i);
/* Effective value of a variable by name, "" when unknown. */
const char *instr_config_lookup(const char *name);

/* "4G" -> 4294967296. Accepts digits with an optional K/M/G (or KB/MB/GB, KiB...) suffix,
 * case-insensitive. Returns 0, or -1 when malformed or overflowing. */
int instr_parse_size(const char *text, uint64_t *out);
/* 1/0, true/false, yes/no, on/off (case-insensitive). Returns 0, or -1. */
int instr_parse_bool(const char *text, int *out);

#endif
