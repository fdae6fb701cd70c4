/* libinstr_substrate_reent.so (and reent2, the same plugin under a second name) — a test
 * double that declares itself reentrant (INSTR_SUBSTRATE_PLUGIN_REENTRANT) and is: it counts
 * enters and exits per location and region with one atomic addition each on counters
 * allocated when the location is created, so a call interrupted by a signal handler whose
 * events call it again loses nothing. To make such a handler arrive while it runs, it raises
 * SIGUSR1 itself inside its enter of the region named by INSTR_<NAME>_RAISE_ENTER and inside
 * its exit of INSTR_<NAME>_RAISE_EXIT.
 *
 * Built with -DREENT_PROTECTED (libinstr_substrate_reent_protected.so) its description is a
 * version 1 one, whose flags the runtime must not read (they say reentrant all the same): it
 * is called with signal handlers kept away, and their events are dropped.
 *
 * At the end it writes <name>.txt into the experiment directory:
 *   enter <region name> <count>   per region, over all locations
 *   exit <region name> <count>
 *   nested <calls that began while another call of it ran on the same thread>
 *   raised <signals it raised> */
#define _GNU_SOURCE
#include <instr/instr_substrate_plugin.h>

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_REGIONS 1024

static const instr_substrate_callbacks *cb;
static uint32_t me;
static char name[64];
static char raise_enter[128], raise_exit[128];
static uint32_t raise_enter_h, raise_exit_h; /* their handles once defined; 0: none */
static uint64_t nested, raised;
static _Thread_local int running; /* calls of this plugin running on the thread */

typedef struct counts {
    uint64_t enter[MAX_REGIONS], exit[MAX_REGIONS];
} counts;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t total_enter[MAX_REGIONS], total_exit[MAX_REGIONS];

static void setting(const char *suffix, char *out, size_t size)
{
    const char *v = cb->config(me, suffix);
    snprintf(out, size, "%s", v ? v : "");
}

static int32_t initialize(const instr_substrate_init *init)
{
    cb = init->cb;
    me = init->plugin_id;
    snprintf(name, sizeof name, "%s", init->name);
    setting("RAISE_ENTER", raise_enter, sizeof raise_enter);
    setting("RAISE_EXIT", raise_exit, sizeof raise_exit);
    return 0;
}

static void new_definition(uint32_t kind, uint32_t handle)
{
    if (kind != INSTR_SUBSTRATE_DEF_REGION)
        return;
    const char *n = cb->region_name(handle);
    if (*raise_enter && strcmp(n, raise_enter) == 0)
        __atomic_store_n(&raise_enter_h, handle, __ATOMIC_RELAXED);
    if (*raise_exit && strcmp(n, raise_exit) == 0)
        __atomic_store_n(&raise_exit_h, handle, __ATOMIC_RELAXED);
}

static void create_location(instr_substrate_location *loc, uint32_t type)
{
    (void)type;
    cb->location_set_data(loc, me, calloc(1, sizeof(counts)));
}

/* One event: counted (one atomic addition: a nested call cannot come between its load and
 * its store), then perhaps the signal, while this call still runs. */
static void count(instr_substrate_location *loc, uint32_t region, int is_exit)
{
    if (running++)
        __atomic_fetch_add(&nested, 1, __ATOMIC_RELAXED);
    counts *c = cb->location_get_data(loc, me);
    if (c && region < MAX_REGIONS)
        __atomic_fetch_add(is_exit ? &c->exit[region] : &c->enter[region], 1, __ATOMIC_RELAXED);
    if (region == __atomic_load_n(is_exit ? &raise_exit_h : &raise_enter_h, __ATOMIC_RELAXED)) {
        __atomic_fetch_add(&raised, 1, __ATOMIC_RELAXED);
        raise(SIGUSR1);
    }
    running--;
}

static void enter(instr_substrate_location *loc, uint64_t t, uint32_t region,
                  const uint64_t *metrics)
{
    (void)t, (void)metrics;
    count(loc, region, 0);
}

static void leave(instr_substrate_location *loc, uint64_t t, uint32_t region,
                  const uint64_t *metrics)
{
    (void)t, (void)metrics;
    count(loc, region, 1);
}

static void delete_location(instr_substrate_location *loc)
{
    counts *c = cb->location_get_data(loc, me);
    if (!c)
        return;
    cb->location_set_data(loc, me, NULL);
    pthread_mutex_lock(&lock);
    for (uint32_t r = 0; r < MAX_REGIONS; r++) {
        total_enter[r] += c->enter[r];
        total_exit[r] += c->exit[r];
    }
    pthread_mutex_unlock(&lock);
    free(c);
}

static int32_t write_data(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.txt", dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        fprintf(stderr, "%s: cannot create %s\n", name, path);
        return -1;
    }
    for (uint32_t r = 1; r < MAX_REGIONS && r <= cb->region_count(); r++) {
        if (total_enter[r])
            fprintf(f, "enter %s %llu\n", cb->region_name(r), (unsigned long long)total_enter[r]);
        if (total_exit[r])
            fprintf(f, "exit %s %llu\n", cb->region_name(r), (unsigned long long)total_exit[r]);
    }
    fprintf(f, "nested %llu\nraised %llu\n", (unsigned long long)nested,
            (unsigned long long)raised);
    return fclose(f) == 0 ? 0 : -1;
}

INSTR_SUBSTRATE_PLUGIN_ENTRY
{
    static instr_substrate_plugin_info info = {
        .plugin_version = INSTR_SUBSTRATE_PLUGIN_VERSION,
        .initialize = initialize,
        .new_definition = new_definition,
        .create_location = create_location,
        .delete_location = delete_location,
        .write_data = write_data,
        .events = {.enter_region = enter, .exit_region = leave},
        .flags = INSTR_SUBSTRATE_PLUGIN_REENTRANT,
    };
#ifdef REENT_PROTECTED
    info.plugin_version = 1;
#endif
    return &info;
}
