/* libinstr_substrate_probe.so — a test double (built with -DPROBE_VERSION=2 as
 * libinstr_substrate_probe2.so, a plugin of interface version 2): records what the runtime calls and checks,
 * at every event, that its own data slot of the location holds what it put there (another
 * plugin's slot next to it must not disturb it). At the end it writes probe.txt into the
 * experiment directory:
 *   config <value of INSTR_PROBE_WORD or (unset)>
 *   id <its plugin id>
 *   order <management events in the order they came, locations by id>
 *   events <enters> <exits>   balanced per location
 *   slot_errors <events whose slot held something else>
 *   depth_errors <exits without an open enter on their location>
 *   region<TAB>name<TAB>file<TAB>line_begin<TAB>line_end<TAB>kind   per defined region
 *   metrics <count>  metric_values <enters that came with values>
 *   clock <1 when clock_ticks grows and the frequency is above 1 MHz>
 *   comm <rank> <size> <reduce sum of rank+1>
 *   omp fork=N/T join=N create=N switch=N complete=N same_tasks=0|1 acquire=N release=N
 *       threads=B/E   (T: sum of the team sizes; same_tasks: completed = created)
 *   types <CPU thread locations> <OpenMP worker locations> def_locations <n>
 *   async <values> sorted=0|1 <name>=<values> ...   asynchronous metric values
 *   send|recv <partner> <tag> <bytes> <comm>, isend|irecv <partner> <tag> <bytes> <comm>
 *   <request>, isend_complete|irecv_request <request>, coll_begin, coll_end <op> <root>
 *   <comm>: MPI events in their order (the first 64) */
#define _GNU_SOURCE
#include <instr/instr_substrate_plugin.h>

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const instr_substrate_callbacks *cb;
static uint32_t me;
static char word[64] = "(unset)";
static char order[4096];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t enters, exits, slot_errors, depth_errors, with_values;
static uint32_t defined[4096], ndefined, metric_defs, location_defs, cpu_locs, omp_locs;
static uint64_t async_n, async_last, async_unsorted, async_per[16];

typedef struct mine {
    uint32_t magic, id;
    int64_t depth;
} mine;
#define MAGIC 0x9e0be

static void note(const char *what, const instr_substrate_location *loc)
{
    pthread_mutex_lock(&lock);
    size_t n = strlen(order);
    if (loc)
        snprintf(order + n, sizeof order - n, "%s%s:%u", n ? " " : "", what, cb->location_id(loc));
    else
        snprintf(order + n, sizeof order - n, "%s%s", n ? " " : "", what);
    pthread_mutex_unlock(&lock);
}

static int32_t initialize(const instr_substrate_init *init)
{
    cb = init->cb;
    me = init->plugin_id;
    const char *w = cb->config(me, "WORD");
    if (w)
        snprintf(word, sizeof word, "%s", w);
    if (cb->size < sizeof *cb)
        return -1;
    note("initialize", NULL);
    return 0;
}

static void new_definition(uint32_t kind, uint32_t handle)
{
    if (kind == INSTR_SUBSTRATE_DEF_METRIC)
        metric_defs++;
    else if (kind == INSTR_SUBSTRATE_DEF_LOCATION)
        __atomic_fetch_add(&location_defs, 1, __ATOMIC_RELAXED);
    else if (kind == INSTR_SUBSTRATE_DEF_REGION && ndefined < 4096)
        defined[ndefined++] = handle;
}

static void create_location(instr_substrate_location *loc, uint32_t type)
{
    mine *m = calloc(1, sizeof *m);
    if (type != cb->location_type(loc) || cb->location_get_data(loc, me) != NULL)
        slot_errors++;
    if (type == INSTR_SUBSTRATE_LOCATION_OPENMP_THREAD)
        __atomic_fetch_add(&omp_locs, 1, __ATOMIC_RELAXED);
    else
        __atomic_fetch_add(&cpu_locs, 1, __ATOMIC_RELAXED);
    m->magic = MAGIC;
    m->id = cb->location_id(loc);
    cb->location_set_data(loc, me, m);
    note("create", loc);
}

static void activate(instr_substrate_location *loc) { note("activate", loc); }
static void deactivate(instr_substrate_location *loc) { note("deactivate", loc); }

static void delete_location(instr_substrate_location *loc)
{
    mine *m = cb->location_get_data(loc, me);
    if (m && m->depth != 0)
        depth_errors++;
    note("delete", loc);
}

static mine *slot(instr_substrate_location *loc)
{
    mine *m = cb->location_get_data(loc, me);
    if (!m || m->magic != MAGIC || m->id != cb->location_id(loc)) {
        __atomic_fetch_add(&slot_errors, 1, __ATOMIC_RELAXED);
        return NULL;
    }
    return m;
}

static void enter(instr_substrate_location *loc, uint64_t t, uint32_t region,
                  const uint64_t *values)
{
    (void)t, (void)region;
    mine *m = slot(loc);
    if (m)
        m->depth++;
    __atomic_fetch_add(&enters, 1, __ATOMIC_RELAXED);
    if (values)
        __atomic_fetch_add(&with_values, 1, __ATOMIC_RELAXED);
}

static void leave(instr_substrate_location *loc, uint64_t t, uint32_t region,
                  const uint64_t *values)
{
    (void)t, (void)region, (void)values;
    mine *m = slot(loc);
    if (m && --m->depth < 0)
        __atomic_fetch_add(&depth_errors, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&exits, 1, __ATOMIC_RELAXED);
}

static char mpi[64][80];
static unsigned nmpi;

static void mpi_line(const char *fmt, long long a, long long b, long long c, long long d)
{
    pthread_mutex_lock(&lock);
    if (nmpi < 64)
        snprintf(mpi[nmpi++], sizeof mpi[0], fmt, a, b, c, d);
    pthread_mutex_unlock(&lock);
}

static void on_send(instr_substrate_location *loc, uint64_t t, int32_t partner, uint64_t comm,
                    int32_t tag, uint64_t bytes)
{
    (void)t;
    slot(loc);
    mpi_line("send %lld %lld %lld %lld", partner, tag, (long long)bytes, (long long)comm);
}

static void on_recv(instr_substrate_location *loc, uint64_t t, int32_t partner, uint64_t comm,
                    int32_t tag, uint64_t bytes)
{
    (void)t;
    slot(loc);
    mpi_line("recv %lld %lld %lld %lld", partner, tag, (long long)bytes, (long long)comm);
}

static void on_isend(instr_substrate_location *loc, uint64_t t, int32_t partner, uint64_t comm,
                     int32_t tag, uint64_t bytes, uint64_t req)
{
    (void)t;
    slot(loc);
    mpi_line("isend %lld %lld %lld %lld", partner, tag, (long long)bytes, (long long)comm);
    mpi_line("  request %lld", (long long)req, 0, 0, 0);
}

static void on_irecv(instr_substrate_location *loc, uint64_t t, int32_t partner, uint64_t comm,
                     int32_t tag, uint64_t bytes, uint64_t req)
{
    (void)t;
    slot(loc);
    mpi_line("irecv %lld %lld %lld %lld", partner, tag, (long long)bytes, (long long)comm);
    mpi_line("  request %lld", (long long)req, 0, 0, 0);
}

static void on_isend_complete(instr_substrate_location *loc, uint64_t t, uint64_t req)
{
    (void)t;
    slot(loc);
    mpi_line("isend_complete %lld", (long long)req, 0, 0, 0);
}

static void on_irecv_request(instr_substrate_location *loc, uint64_t t, uint64_t req)
{
    (void)t;
    slot(loc);
    mpi_line("irecv_request %lld", (long long)req, 0, 0, 0);
}

static void on_coll_begin(instr_substrate_location *loc, uint64_t t)
{
    (void)t;
    slot(loc);
    mpi_line("coll_begin", 0, 0, 0, 0);
}

static void on_coll_end(instr_substrate_location *loc, uint64_t t, uint32_t op, uint64_t comm,
                        int32_t root, uint64_t sent, uint64_t received)
{
    (void)t, (void)sent, (void)received;
    slot(loc);
    mpi_line("coll_end %lld %lld %lld", op, root, (long long)comm, 0);
}

static uint64_t n_fork, team_sum, n_join, n_switch, n_acquire, n_release, t_begin, t_end;
static uint64_t created[256], completed[256];
static unsigned ncreated, ncompleted;

static void on_fork(instr_substrate_location *loc, uint64_t t, uint64_t n)
{
    (void)t;
    slot(loc);
    __atomic_fetch_add(&n_fork, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&team_sum, n, __ATOMIC_RELAXED);
}

static void on_join(instr_substrate_location *loc, uint64_t t)
{
    (void)t;
    slot(loc);
    __atomic_fetch_add(&n_join, 1, __ATOMIC_RELAXED);
}

static void on_task_create(instr_substrate_location *loc, uint64_t t, uint64_t task)
{
    (void)t;
    slot(loc);
    pthread_mutex_lock(&lock);
    if (ncreated < 256)
        created[ncreated++] = task;
    pthread_mutex_unlock(&lock);
}

static void on_task_switch(instr_substrate_location *loc, uint64_t t, uint64_t task)
{
    (void)t, (void)task;
    slot(loc);
    __atomic_fetch_add(&n_switch, 1, __ATOMIC_RELAXED);
}

static void on_task_complete(instr_substrate_location *loc, uint64_t t, uint64_t task)
{
    (void)t;
    slot(loc);
    pthread_mutex_lock(&lock);
    if (ncompleted < 256)
        completed[ncompleted++] = task;
    pthread_mutex_unlock(&lock);
}

static void on_acquire(instr_substrate_location *loc, uint64_t t, uint64_t id)
{
    (void)t, (void)id;
    slot(loc);
    __atomic_fetch_add(&n_acquire, 1, __ATOMIC_RELAXED);
}

static void on_release(instr_substrate_location *loc, uint64_t t, uint64_t id)
{
    (void)t, (void)id;
    slot(loc);
    __atomic_fetch_add(&n_release, 1, __ATOMIC_RELAXED);
}

static void on_thread_begin(instr_substrate_location *loc, uint64_t t)
{
    (void)t;
    slot(loc);
    __atomic_fetch_add(&t_begin, 1, __ATOMIC_RELAXED);
}

static void on_thread_end(instr_substrate_location *loc, uint64_t t)
{
    (void)t;
    slot(loc);
    __atomic_fetch_add(&t_end, 1, __ATOMIC_RELAXED);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Called on one thread at the end, in time order. */
static void on_async(uint32_t metric, uint64_t t, uint64_t value)
{
    (void)value;
    if (async_n && t < async_last)
        async_unsorted++;
    async_last = t;
    async_n++;
    if (metric < 16)
        async_per[metric]++;
}

static void pre_unify(void) { note("pre_unify", NULL); }
static void init_mpp(void) { note("init_mpp", NULL); }

static int32_t write_data(const char *dir)
{
    note("write_data", NULL);
    char path[4096];
    snprintf(path, sizeof path, "%s/probe.txt", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
    if (!f)
        return -1;
    fprintf(f, "config %s\nid %u\norder %s\n", word, me, order);
    fprintf(f, "events %llu %llu\nslot_errors %llu\ndepth_errors %llu\n",
            (unsigned long long)enters, (unsigned long long)exits,
            (unsigned long long)slot_errors, (unsigned long long)depth_errors);
    for (uint32_t i = 0; i < ndefined; i++) {
        uint32_t r = defined[i];
        fprintf(f, "region\t%s\t%s\t%u\t%u\t%u\n", cb->region_name(r),
                *cb->region_file(r) ? cb->region_file(r) : "-", cb->region_line_begin(r),
                cb->region_line_end(r), cb->region_kind(r));
    }
    fprintf(f, "metrics %u %u metric_values %llu\n", cb->metric_count(), metric_defs,
            (unsigned long long)with_values);
    uint64_t a = cb->clock_ticks(), b = cb->clock_ticks();
    fprintf(f, "clock %d\n", b >= a && cb->clock_frequency() > 1000000);
    int32_t rank = cb->comm_rank(), size = cb->comm_size();
    int64_t one = rank + 1, sum = -1;
    cb->comm_reduce(&one, &sum, 1, INSTR_SUBSTRATE_INT64, INSTR_SUBSTRATE_SUM, 0);
    fprintf(f, "comm %d %d %lld\n", (int)rank, (int)size, rank == 0 ? (long long)sum : 0LL);
    qsort(created, ncreated, sizeof *created, cmp_u64);
    qsort(completed, ncompleted, sizeof *completed, cmp_u64);
    int same = ncreated == ncompleted &&
               memcmp(created, completed, ncreated * sizeof *created) == 0;
    fprintf(f, "omp fork=%llu/%llu join=%llu create=%u switch=%llu complete=%u same_tasks=%d "
               "acquire=%llu release=%llu threads=%llu/%llu\n",
            (unsigned long long)n_fork, (unsigned long long)team_sum, (unsigned long long)n_join,
            ncreated, (unsigned long long)n_switch, ncompleted, same,
            (unsigned long long)n_acquire, (unsigned long long)n_release,
            (unsigned long long)t_begin, (unsigned long long)t_end);
    fprintf(f, "types %u %u def_locations %u\n", cpu_locs, omp_locs, location_defs);
    fprintf(f, "async %llu sorted=%d", (unsigned long long)async_n, async_unsorted == 0);
    for (uint32_t m = 0; m < cb->async_metric_count() && m < 16; m++)
        fprintf(f, " %s=%llu", cb->async_metric_name(m), (unsigned long long)async_per[m]);
    fprintf(f, "\n");
    for (unsigned i = 0; i < nmpi; i++)
        fprintf(f, "mpi\t%s\n", mpi[i]);
    return fclose(f) == 0 ? 0 : -1;
}

static void finalize(void) {}

INSTR_SUBSTRATE_PLUGIN_ENTRY
{
    static const instr_substrate_plugin_info info = {
#ifdef PROBE_VERSION /* libinstr_substrate_probe2.so: an older plugin */
        .plugin_version = PROBE_VERSION,
#else
        .plugin_version = INSTR_SUBSTRATE_PLUGIN_VERSION,
#endif
        .initialize = initialize,
        .init_mpp = init_mpp,
        .new_definition = new_definition,
        .create_location = create_location,
        .activate_location = activate,
        .deactivate_location = deactivate,
        .delete_location = delete_location,
        .pre_unify = pre_unify,
        .write_data = write_data,
        .finalize = finalize,
        .events = {.enter_region = enter, .exit_region = leave, .mpi_send = on_send,
                   .mpi_recv = on_recv, .mpi_isend = on_isend, .mpi_irecv = on_irecv,
                   .mpi_isend_complete = on_isend_complete,
                   .mpi_irecv_request = on_irecv_request, .mpi_collective_begin = on_coll_begin,
                   .mpi_collective_end = on_coll_end, .thread_begin = on_thread_begin,
                   .thread_end = on_thread_end, .omp_fork = on_fork, .omp_join = on_join,
                   .omp_task_create = on_task_create, .omp_task_switch = on_task_switch,
                   .omp_task_complete = on_task_complete, .omp_acquire_lock = on_acquire,
                   .omp_release_lock = on_release, .async_metric_value = on_async},
    };
    return &info;
}
