/* rusage.c — INSTR_METRIC_RUSAGE: fields of getrusage(RUSAGE_THREAD), the calling thread's
 * own resource usage (Linux; ru_maxrss is the process's, as Linux keeps it per process).
 * One getrusage call per event serves every field asked for. */
#include "metrics.h"
#include "../core/log.h"
#include "../util/text.h"
#include "../util/pages.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

typedef struct field {
    const char *name, *unit, *description;
    int linux_keeps; /* 0: Linux leaves it 0 (getrusage(2)); not part of "all" */
} field;

static const field fields[] = {
    {"ru_utime", "us", "user CPU time", 1},
    {"ru_stime", "us", "system CPU time", 1},
    {"ru_maxrss", "KiB", "growth of the process's peak resident set size", 1},
    {"ru_ixrss", "KiB", "integral shared memory size (always 0 on Linux)", 0},
    {"ru_idrss", "KiB", "integral unshared data size (always 0 on Linux)", 0},
    {"ru_isrss", "KiB", "integral unshared stack size (always 0 on Linux)", 0},
    {"ru_minflt", "#", "page faults served without I/O (minor)", 1},
    {"ru_majflt", "#", "page faults that needed I/O (major)", 1},
    {"ru_nswap", "#", "swaps (always 0 on Linux)", 0},
    {"ru_inblock", "#", "block input operations", 1},
    {"ru_oublock", "#", "block output operations", 1},
    {"ru_msgsnd", "#", "IPC messages sent (always 0 on Linux)", 0},
    {"ru_msgrcv", "#", "IPC messages received (always 0 on Linux)", 0},
    {"ru_nsignals", "#", "signals received (always 0 on Linux)", 0},
    {"ru_nvcsw", "#", "voluntary context switches", 1},
    {"ru_nivcsw", "#", "involuntary context switches", 1},
};
#define NFIELDS (sizeof fields / sizeof *fields)

typedef struct rusage_ctx {
    const char *var;
    uint32_t which[NFIELDS]; /* field per metric */
    uint32_t n;
    uint32_t chosen;         /* bit per field: asked for already */
} rusage_ctx;

static uint64_t field_value(const struct rusage *r, uint32_t f)
{
    switch (f) {
    case 0: return (uint64_t)r->ru_utime.tv_sec * 1000000u + (uint64_t)r->ru_utime.tv_usec;
    case 1: return (uint64_t)r->ru_stime.tv_sec * 1000000u + (uint64_t)r->ru_stime.tv_usec;
    case 2: return (uint64_t)r->ru_maxrss;
    case 3: return (uint64_t)r->ru_ixrss;
    case 4: return (uint64_t)r->ru_idrss;
    case 5: return (uint64_t)r->ru_isrss;
    case 6: return (uint64_t)r->ru_minflt;
    case 7: return (uint64_t)r->ru_majflt;
    case 8: return (uint64_t)r->ru_nswap;
    case 9: return (uint64_t)r->ru_inblock;
    case 10: return (uint64_t)r->ru_oublock;
    case 11: return (uint64_t)r->ru_msgsnd;
    case 12: return (uint64_t)r->ru_msgrcv;
    case 13: return (uint64_t)r->ru_nsignals;
    case 14: return (uint64_t)r->ru_nvcsw;
    default: return (uint64_t)r->ru_nivcsw;
    }
}

static void *thread_begin(instr_metric_source *src)
{
    return src; /* getrusage needs no per-thread state; non-NULL: read this thread */
}

static void read_values(instr_metric_source *src, void *thread, uint64_t *out, uint64_t t)
{
    (void)thread;
    (void)t;
    const rusage_ctx *c = src->ctx;
    struct rusage r;
    if (getrusage(RUSAGE_THREAD, &r) != 0)
        return;
    for (uint32_t i = 0; i < c->n; i++)
        out[i] = field_value(&r, c->which[i]);
}

static const instr_metric_source_ops ops = {
    .thread_begin = thread_begin, .read = read_values};

static void choose(rusage_ctx *c, uint32_t f)
{
    if (c->chosen & (1u << f))
        return;
    c->chosen |= 1u << f;
    if (instr_metrics_add_counter(fields[f].name, fields[f].description, fields[f].unit,
                                  "rusage"))
        c->which[c->n++] = f;
}

static void one_item(void *arg, const char *item)
{
    rusage_ctx *c = arg;
    if (strcmp(item, "all") == 0) {
        for (uint32_t f = 0; f < NFIELDS; f++)
            if (fields[f].linux_keeps)
                choose(c, f);
        return;
    }
    for (uint32_t f = 0; f < NFIELDS; f++)
        if (strcmp(item, fields[f].name) == 0 ||
            (strncmp(fields[f].name, "ru_", 3) == 0 && strcmp(item, fields[f].name + 3) == 0)) {
            choose(c, f);
            return;
        }
    char q[INSTR_QUOTE_SIZE];
    instr_quote(q, item);
    instr_warn("%s: %s is not a getrusage field (ru_utime, ru_stime, ru_maxrss, ru_minflt, "
               "ru_majflt, ru_inblock, ru_oublock, ru_nvcsw, ru_nivcsw, ... or all; "
               "docs/metrics.md): left out",
               c->var, q);
}

void instr_metrics_rusage_init(const char *var, const char *spec)
{
    rusage_ctx *c = instr_mem_calloc(1, sizeof *c);
    if (!c)
        return;
    c->var = var;
    instr_metrics_source_begin();
    instr_metrics_each_item(spec, one_item, c);
    if (c->n == 0 || instr_metrics_source_end(&ops, c) != 0)
        instr_mem_free(c);
}
