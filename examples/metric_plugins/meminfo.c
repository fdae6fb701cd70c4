/* libinstr_metric_meminfo.so — an asynchronous metric plugin, once per host: a background
 * thread reads /proc/meminfo every 10 ms and keeps the values with the runtime's clock; the
 * runtime takes them at the end and writes them into the trace at their own times.
 *
 * INSTR_METRIC_MEMINFO: comma-separated /proc/meminfo field names, shell wildcards allowed
 * (MemFree, Mem*, Cached; default MemAvailable). Values in KiB (base 2, exponent 10 bytes),
 * absolute readings. A value is also taken at the start and at the end of measurement
 * (synchronize), so every run has at least two. */
#include <instr/instr_metric_plugin.h>

#include <fnmatch.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_FIELDS 64
#define PERIOD_NS 10000000L

static uint64_t (*now)(void);
static char *field[MAX_FIELDS]; /* counters added, by id */
static int nfields;
static instr_metric_timed_value *vals[MAX_FIELDS];
static uint64_t nvals[MAX_FIELDS], capvals[MAX_FIELDS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t sampler;
static int running, stop;

static void set_clock(uint64_t (*clock_time)(void)) { now = clock_time; }

static int32_t initialize(void) { return now ? 0 : -1; /* needs the runtime's clock */ }

/* Calls fn for every "Name: value kB" line of /proc/meminfo. */
static void each_line(void (*fn)(const char *name, uint64_t kib, void *arg), void *arg)
{
    FILE *f = fopen("/proc/meminfo", "re");
    if (!f)
        return;
    char line[256], name[128];
    unsigned long long v;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "%127[^:]: %llu", name, &v) == 2)
            fn(name, v, arg);
    fclose(f);
}

typedef struct { const char *spec; instr_metric_properties *list; int n; } props_arg;

static void consider(const char *name, uint64_t kib, void *arg)
{
    (void)kib;
    props_arg *a = arg;
    const char *spec = *a->spec ? a->spec : "MemAvailable";
    int wanted = 0;
    char *copy = strdup(spec), *save = NULL;
    for (char *p = copy ? strtok_r(copy, ",", &save) : NULL; p && !wanted;
         p = strtok_r(NULL, ",", &save))
        wanted = fnmatch(p, name, 0) == 0;
    free(copy);
    if (!wanted || a->n == MAX_FIELDS)
        return;
    instr_metric_properties *p = &a->list[a->n++];
    p->name = strdup(name);
    p->description = strdup("/proc/meminfo field, sampled every 10 ms");
    p->unit = strdup("B");
    p->base = 2;
    p->exponent = 10;
    p->value_type = INSTR_METRIC_UINT64;
    p->mode = INSTR_METRIC_ABSOLUTE;
    p->semantics = INSTR_METRIC_POINT;
}

static instr_metric_properties *get_metric_properties(const char *spec)
{
    props_arg a = {spec, calloc(MAX_FIELDS + 1, sizeof *a.list), 0};
    if (a.list)
        each_line(consider, &a);
    return a.list;
}

static int32_t add_counter(const char *name)
{
    if (nfields == MAX_FIELDS)
        return -1;
    field[nfields] = strdup(name);
    return field[nfields] ? nfields++ : -1;
}

static void record(const char *name, uint64_t kib, void *arg)
{
    uint64_t t = *(uint64_t *)arg;
    for (int i = 0; i < nfields; i++) {
        if (strcmp(name, field[i]) != 0)
            continue;
        if (nvals[i] == capvals[i]) {
            uint64_t cap = capvals[i] ? 2 * capvals[i] : 256;
            instr_metric_timed_value *grown = realloc(vals[i], cap * sizeof *grown);
            if (!grown)
                return;
            vals[i] = grown;
            capvals[i] = cap;
        }
        vals[i][nvals[i]++] = (instr_metric_timed_value){t, kib};
    }
}

static void sample(void)
{
    pthread_mutex_lock(&lock);
    uint64_t t = now();
    each_line(record, &t);
    pthread_mutex_unlock(&lock);
}

static void *sampling(void *arg)
{
    (void)arg;
    struct timespec period = {0, PERIOD_NS};
    while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
        sample();
        nanosleep(&period, NULL);
    }
    return NULL;
}

static void synchronize(int is_responsible, int is_end)
{
    if (!is_responsible)
        return;
    if (!is_end) {
        sample();
        running = pthread_create(&sampler, NULL, sampling, NULL) == 0;
        return;
    }
    if (running) {
        __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
        pthread_join(sampler, NULL);
        running = 0;
    }
    sample();
}

static uint64_t get_all_values(int32_t id, instr_metric_timed_value **out)
{
    pthread_mutex_lock(&lock);
    uint64_t n = nvals[id];
    *out = vals[id];
    vals[id] = NULL;
    nvals[id] = capvals[id] = 0;
    pthread_mutex_unlock(&lock);
    return n;
}

static void finalize(void)
{
    for (int i = 0; i < nfields; i++) {
        free(field[i]);
        free(vals[i]);
    }
    nfields = 0;
}

INSTR_METRIC_PLUGIN_ENTRY
{
    static const instr_metric_plugin_info info = {
        .plugin_version = INSTR_METRIC_PLUGIN_VERSION,
        .synchronicity = INSTR_METRIC_ASYNC,
        .scope = INSTR_METRIC_PER_HOST,
        .initialize = initialize,
        .finalize = finalize,
        .get_metric_properties = get_metric_properties,
        .add_counter = add_counter,
        .get_all_values = get_all_values,
        .set_clock = set_clock,
        .synchronize = synchronize,
    };
    return &info;
}
