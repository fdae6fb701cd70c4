/* perf.c — INSTR_METRIC_PERF: Linux perf_event_open counters of the calling thread, user
 * space only (exclude_kernel, as perf_event_paranoid 2 allows without privileges). A
 * thread's counters form one group, so one read(2) per event serves all of them.
 *
 * Each event is tried once at start-up on the starting thread: one that the machine does not
 * have (virtual machines often expose no hardware counters) or may not use is left out with
 * one line naming the variable, the event and the reason. */
#include "metrics.h"
#include "../core/log.h"
#include "../util/text.h"
#include "../util/pages.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

typedef struct perf_name {
    const char *name;
    uint32_t type;
    uint64_t config;
    const char *unit, *description;
} perf_name;

static const perf_name names[] = {
    {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "#", "CPU cycles"},
    {"cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "#", "CPU cycles"},
    {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "#", "instructions retired"},
    {"cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, "#",
     "last-level cache accesses"},
    {"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, "#",
     "last-level cache misses"},
    {"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "#",
     "branch instructions retired"},
    {"branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "#",
     "branch instructions retired"},
    {"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, "#",
     "mispredicted branches"},
    {"bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES, "#", "bus cycles"},
    {"stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, "#",
     "cycles stalled in the front end"},
    {"stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND, "#",
     "cycles stalled in the back end"},
    {"ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, "#",
     "reference cycles (not scaled by frequency changes)"},
    {"cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, "ns", "CPU clock"},
    {"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "ns",
     "time the thread ran on a CPU"},
    {"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "#", "page faults"},
    {"faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "#", "page faults"},
    {"minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, "#",
     "page faults served without I/O"},
    {"major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, "#",
     "page faults that needed I/O"},
    {"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "#",
     "context switches"},
    {"cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "#", "context switches"},
    {"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, "#",
     "moves of the thread to another CPU"},
    {"alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS, "#",
     "alignment faults"},
    {"emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS, "#",
     "emulation faults"},
};
#define NNAMES (sizeof names / sizeof *names)
#define MAX_EVENTS 32

typedef struct perf_ctx {
    const char *var;
    const perf_name *ev[MAX_EVENTS]; /* in the order of the run's metrics */
    uint32_t order[MAX_EVENTS];      /* the groups' order: metric of the k-th descriptor */
    uint32_t n, split;               /* order[split..n): the clocks' group */
    /* Names left out, told in one line each at the end of the list (a list of 500 unknown
     * names is one warning, not 500): the first that fit, and how many in all. */
    char unknown[192], over[192];
    uint32_t nunknown, nover;
} perf_ctx;

/* Appends a quoted name to a ", "-separated list while it fits. */
static void list_add(char *list, size_t size, const char *item)
{
    char q[INSTR_QUOTE_SIZE];
    size_t len = strlen(list);
    int n = snprintf(list + len, size - len, "%s%s", len ? ", " : "", instr_quote(q, item));
    if (n < 0 || (size_t)n >= size - len)
        list[len] = '\0'; /* did not fit: counted, not shown */
}

static void list_warn(const char *var, const char *list, uint32_t n, const char *what)
{
    uint32_t shown = 0;
    for (const char *p = list; *p; p++)
        shown += *p == ',' ? 1 : 0;
    shown += *list ? 1 : 0;
    if (n > shown)
        instr_warn("%s: %s%s%u more %s", var, list, *list ? " and " : "", n - shown, what);
    else
        instr_warn("%s: %s %s", var, list, what);
}

/* The clock events (task-clock, cpu-clock) form a group of their own: with them as the
 * leader, the other software events (page faults) go uncounted for a while, and as members
 * of another group their values are updated only when the thread leaves the CPU. So a thread
 * has at most two groups, and two reads per event when both kinds are asked for. */
static int is_clock(const perf_name *e)
{
    return e->type == PERF_TYPE_SOFTWARE &&
           (e->config == PERF_COUNT_SW_CPU_CLOCK || e->config == PERF_COUNT_SW_TASK_CLOCK);
}

static void group_order(perf_ctx *c)
{
    uint32_t k = 0;
    for (int clocks = 0; clocks < 2; clocks++)
        for (uint32_t i = 0; i < c->n; i++)
            if (is_clock(c->ev[i]) == clocks)
                c->order[k++] = i;
    c->split = c->n;
    for (uint32_t i = 0; i < c->n; i++)
        if (is_clock(c->ev[c->order[i]]) && c->split == c->n)
            c->split = i;
}

/* Per thread: the group's descriptors (the leader first). */
typedef struct perf_thread {
    int fd[MAX_EVENTS];
    uint32_t n, split; /* descriptors [0, split) and [split, n) are the two groups */
} perf_thread;

static int open_event(const perf_name *e, int group_fd)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = e->type;
    a.config = e->config;
    /* The kernel's part too where allowed (page faults and context switches happen in the
     * kernel: user-only counting misses them); else, as perf_event_paranoid 2 demands for
     * hardware events, the user part only. */
    a.exclude_kernel = 0;
    a.exclude_hv = 1;
    /* With the times the group was enabled and running: a group of more hardware events
     * than the CPU has counters is counted only part of the time, or never (said at the
     * end). */
    a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
                    PERF_FORMAT_TOTAL_TIME_RUNNING;
    int fd = (int)syscall(SYS_perf_event_open, &a, 0 /* this thread */, -1, group_fd,
                          PERF_FLAG_FD_CLOEXEC);
    if (fd < 0 && (errno == EACCES || errno == EPERM) && !a.exclude_kernel) {
        a.exclude_kernel = 1;
        fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
    }
    return fd;
}

static const char *why(int err)
{
    switch (err) {
    case ENOENT:
    case EOPNOTSUPP:
    case ENODEV:
        return "this machine does not expose it (virtual machines often have no hardware "
               "counters)";
    case EACCES:
    case EPERM:
        return "not permitted (see /proc/sys/kernel/perf_event_paranoid)";
    case ENOSYS:
        return "the kernel has no perf_event_open";
    case EMFILE:
        return "too many open files";
    default:
        return strerror(err);
    }
}

static void *thread_begin(instr_metric_source *src)
{
    const perf_ctx *c = src->ctx;
    perf_thread *t = instr_mem_calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->split = c->split;
    for (uint32_t i = 0; i < c->n; i++) {
        const perf_name *e = c->ev[c->order[i]];
        uint32_t leader = i < t->split ? 0 : t->split;
        int fd = open_event(e, i == leader ? -1 : t->fd[leader]);
        if (fd < 0) {
            /* The start-up thread had these counters: a failure here is a limit reached
             * since (open files: every thread keeps its descriptors until the end). Said
             * once; the thread's values stay 0. */
            static int said;
            if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
                instr_warn("%s: cannot count %s on thread %d: %s; its values stay 0 (and those "
                           "of later threads that fail the same way, not said again)",
                           c->var, e->name, (int)gettid(), why(errno));
            for (uint32_t k = 0; k < i; k++)
                close(t->fd[k]);
            instr_mem_free(t);
            return NULL;
        }
        t->fd[i] = fd;
    }
    t->n = c->n;
    return t;
}

/* The least share of its enabled time (per mille) that a group was counted on some thread,
 * per group (the clocks' group is never short of counters); 1000: always. */
static uint32_t least_share[2] = {1000, 1000};

static void short_of_counters(int g, uint64_t enabled, uint64_t running)
{
    uint32_t share = (uint32_t)(running * 1000 / enabled);
    uint32_t old = __atomic_load_n(&least_share[g], __ATOMIC_RELAXED);
    while (share < old && !__atomic_compare_exchange_n(&least_share[g], &old, share, 0,
                                                       __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
}

/* A group read: the count, the times enabled and running, the values. */
#define HEAD 3

static void read_values(instr_metric_source *src, void *thread, uint64_t *out, uint64_t now)
{
    (void)now;
    const perf_ctx *c = src->ctx;
    perf_thread *t = thread;
    uint64_t buf[HEAD + MAX_EVENTS];
    for (int g = 0; g < 2; g++) {
        uint32_t first = g ? t->split : 0, n = (g ? t->n : t->split) - first;
        if (!n)
            continue;
        ssize_t got = read(t->fd[first], buf, (HEAD + n) * sizeof *buf);
        if (got != (ssize_t)((HEAD + n) * sizeof *buf) || buf[0] != n)
            return;
        if (__builtin_expect(buf[2] < buf[1], 0))
            short_of_counters(g, buf[1], buf[2]);
        for (uint32_t k = 0; k < n; k++)
            out[c->order[first + k]] = buf[HEAD + k];
    }
}

/* At the end: one line when a group was not counted all the time. */
static void finish(instr_metric_source *src)
{
    const perf_ctx *c = src->ctx;
    for (uint32_t g = 0; g < 2; g++) {
        uint32_t share = __atomic_load_n(&least_share[g], __ATOMIC_RELAXED);
        if (share >= 1000)
            continue;
        char names[256] = "";
        uint32_t from = g ? c->split : 0, to = g ? c->n : c->split;
        for (uint32_t i = from; i < to; i++) {
            size_t len = strlen(names);
            snprintf(names + len, sizeof names - len, "%s%s", len ? "," : "",
                     c->ev[c->order[i]]->name);
        }
        if (share == 0)
            instr_warn("%s: the group %s was never counted on some thread (the CPU has fewer "
                       "counters than these events need at once): their values there are 0; "
                       "ask for fewer hardware events",
                       c->var, names);
        else
            instr_warn("%s: the group %s was counted only %.1f %% of the time on some thread "
                       "(the CPU has fewer counters than these events need at once, so the "
                       "kernel took turns): their values are what was counted, not scaled; "
                       "ask for fewer hardware events",
                       c->var, names, share / 10.0);
    }
}

static const instr_metric_source_ops ops = {
    .thread_begin = thread_begin, .read = read_values, .finish = finish};

static void one_item(void *arg, const char *item)
{
    perf_ctx *c = arg;
    const perf_name *e = NULL;
    for (size_t i = 0; i < NNAMES && !e; i++)
        if (strcmp(item, names[i].name) == 0)
            e = &names[i];
    if (!e) {
        list_add(c->unknown, sizeof c->unknown, item);
        c->nunknown++;
        return;
    }
    for (uint32_t i = 0; i < c->n; i++)
        if (c->ev[i]->type == e->type && c->ev[i]->config == e->config)
            return; /* asked for twice (or by another of its names) */
    if (c->n == MAX_EVENTS) {
        list_add(c->over, sizeof c->over, e->name);
        c->nover++;
        return;
    }
    /* Tried alone on this thread: whether the machine has it at all. */
    int fd = open_event(e, -1);
    if (fd < 0) {
        instr_warn("%s: event %s is not available: %s; the run goes on without it", c->var,
                   e->name, why(errno));
        return;
    }
    close(fd);
    if (instr_metrics_add_counter(e->name, e->description, e->unit, "perf"))
        c->ev[c->n++] = e;
}

void instr_metrics_perf_init(const char *var, const char *spec)
{
    perf_ctx *c = instr_mem_calloc(1, sizeof *c);
    if (!c)
        return;
    c->var = var;
    instr_metrics_source_begin();
    instr_metrics_each_item(spec, one_item, c);
    if (c->nunknown)
        list_warn(var, c->unknown, c->nunknown,
                  c->nunknown == 1 ? "is not a perf event instr knows (instructions, cycles, "
                                     "cache-misses, branch-misses, task-clock, page-faults, "
                                     "context-switches, ...; docs/metrics.md): left out"
                                   : "are not perf events instr knows (instructions, cycles, "
                                     "cache-misses, branch-misses, task-clock, page-faults, "
                                     "context-switches, ...; docs/metrics.md): left out");
    if (c->nover) {
        char what[96];
        snprintf(what, sizeof what, "left out: more than %d events", MAX_EVENTS);
        list_warn(var, c->over, c->nover, what);
    }
    group_order(c);
    if (c->n == 0 || instr_metrics_source_end(&ops, c) != 0)
        instr_mem_free(c);
}
