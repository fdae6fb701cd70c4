/* substrate_plugin.c — INSTR_SUBSTRATE_PLUGINS: loads substrate plugins
 * (instr_substrate_plugin.h) and hands them the event stream; see substrate_plugins.h.
 *
 * Loading mirrors the metric plugins (core/plugin_load.c: the same search, the same lines):
 * every way a plugin can be bad (not found, no entry point, another ABI version, failed
 * initialisation) is said in one line naming the variable and the plugin, which is left out;
 * the run goes on. Per event type the plugins' functions are kept in a null-terminated list,
 * as the paper's design has it; an event type with an empty list is not dispatched. */
#include "substrate_plugins.h"
#include "../core/clock.h"
#include "../core/config.h"
#include "../core/core.h"
#include "../core/experiment.h"
#include "../core/log.h"
#include "../core/plugin_load.h"
#include "../core/registry.h"
#include "../util/text.h"
#include "../core/ext.h"
#include "../include/instr_substrate_plugin.h"
#include "../metrics/metrics.h"
#include "../profile/profile.h"
#include "../util/pages.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PLUGINS 16
#define VAR "INSTR_SUBSTRATE_PLUGINS"

typedef struct plugin {
    char name[48];
    uint32_t version; /* the interface version it was built for */
    char prefix[64]; /* INSTR_<NAME>_ */
    const instr_substrate_plugin_info *info; /* &full once loaded */
    /* The plugin's description as this runtime's version has it: a version 1 or 2
     * description is copied up to its end, the rest (flags, mpi) zero. */
    instr_substrate_plugin_info full;
} plugin;

static plugin plugins[MAX_PLUGINS];
static uint32_t nplugins;

struct instr_substrate_location {
    instr_location *core;
    uint32_t type; /* enum instr_substrate_location_type */
    const uint64_t *metrics; /* the metrics substrate's values of this location, or NULL */
    char name[32];
    int deleted;
    void *data[MAX_PLUGINS];
};

/* One null-terminated list per event type (enter and exit: substrate_plugins.h). */
instr_substrate_region_fn instr_plugins_enter_list[MAX_PLUGINS + 1];
instr_substrate_region_fn instr_plugins_exit_list[MAX_PLUGINS + 1];

/* The MPI events that name a communicator: [0] the plugins of versions 1 and 2 (its Fortran
 * handle), [1] those of version 3 (its definition). */
static instr_substrate_mpi_msg_fn send_list[2][MAX_PLUGINS + 1], recv_list[2][MAX_PLUGINS + 1];
static instr_substrate_mpi_req_msg_fn isend_list[2][MAX_PLUGINS + 1];
static instr_substrate_mpi_req_msg_fn irecv_list[2][MAX_PLUGINS + 1];
static instr_substrate_id_fn isend_complete_list[MAX_PLUGINS + 1];
static instr_substrate_id_fn irecv_request_list[MAX_PLUGINS + 1];
static instr_substrate_mpi_coll_begin_fn coll_begin_list[MAX_PLUGINS + 1];
static instr_substrate_mpi_coll_end_fn coll_end_list[2][MAX_PLUGINS + 1];
/* Version 3. */
static instr_substrate_mpi_icoll_fn icoll_begin_list[MAX_PLUGINS + 1];
static instr_substrate_mpi_icoll_fn icoll_end_list[MAX_PLUGINS + 1];
static instr_substrate_mpi_persistent_fn p_init_list[MAX_PLUGINS + 1];
static instr_substrate_id_fn p_start_list[MAX_PLUGINS + 1], p_free_list[MAX_PLUGINS + 1];
static instr_substrate_mpi_req_msg_fn p_complete_list[MAX_PLUGINS + 1];
static int have_v3; /* a version 3 plugin is loaded */
/* Version 4: the collectives on communicator handles (INSTR_SUBSTRATE_COLL_CREATE_HANDLE,
 * _DESTROY_HANDLE), which plugins of older versions do not know: their own lists, of the
 * version 4 plugins' functions only. */
static instr_substrate_mpi_coll_begin_fn handle_begin_list[MAX_PLUGINS + 1];
static instr_substrate_mpi_coll_end_fn handle_end_list[MAX_PLUGINS + 1];
static instr_substrate_mpi_icoll_fn handle_ibegin_list[MAX_PLUGINS + 1];
static instr_substrate_mpi_icoll_fn handle_iend_list[MAX_PLUGINS + 1];
static instr_substrate_plain_fn thread_begin_list[MAX_PLUGINS + 1];
static instr_substrate_plain_fn thread_end_list[MAX_PLUGINS + 1];
static instr_substrate_plain_fn join_list[MAX_PLUGINS + 1];
/* By enum instr_plugins_omp_event (the join's list is join_list). */
static instr_substrate_id_fn omp_lists[INSTR_PLUGINS_OMP_N][MAX_PLUGINS + 1];
static void (*async_list[MAX_PLUGINS + 1])(uint32_t, uint64_t, uint64_t);
_Thread_local int instr_plugins_openmp_worker;
int instr_plugins_omp;
int instr_plugins_reentrant;

/* ---- callbacks into the runtime ---- */

static const instr_plugins_comm *comm; /* NULL: one process */

static const instr_region_info *region(uint32_t h) { return instr_registry_get(h); }
static const char *cb_region_name(uint32_t h) { return region(h) ? region(h)->name : ""; }
static const char *cb_region_mangled(uint32_t h) { return region(h) ? region(h)->mangled : ""; }
static const char *cb_region_file(uint32_t h) { return region(h) ? region(h)->file : ""; }
static uint32_t cb_region_line_begin(uint32_t h) { return region(h) ? region(h)->line_begin : 0; }
static uint32_t cb_region_line_end(uint32_t h) { return region(h) ? region(h)->line_end : 0; }
static uint32_t cb_region_count(void) { return instr_registry_count(); }

static uint32_t cb_region_kind(uint32_t h)
{
    switch (region(h) ? region(h)->source : -1) {
    case INSTR_SOURCE_MANUAL: return INSTR_SUBSTRATE_REGION_USER;
    case INSTR_SOURCE_MPI: return INSTR_SUBSTRATE_REGION_MPI;
    case INSTR_SOURCE_OPENMP: return INSTR_SUBSTRATE_REGION_OPENMP;
    default: return INSTR_SUBSTRATE_REGION_FUNCTION;
    }
}

static uint32_t cb_location_id(const instr_substrate_location *l) { return l->core->id; }
static const char *cb_location_name(const instr_substrate_location *l) { return l->name; }
static uint32_t cb_location_type(const instr_substrate_location *l) { return l->type; }
static int32_t cb_location_thread(const instr_substrate_location *l) { return l->core->tid; }
static int32_t cb_location_rank(const instr_substrate_location *l)
{
    (void)l;
    return comm ? comm->rank() : 0;
}

static void *cb_location_get_data(const instr_substrate_location *l, uint32_t id)
{
    return id < MAX_PLUGINS ? l->data[id] : NULL;
}

static void cb_location_set_data(instr_substrate_location *l, uint32_t id, void *data)
{
    if (id < MAX_PLUGINS)
        l->data[id] = data;
}

static uint32_t cb_metric_count(void) { return instr_metrics_nsync; }
static const char *cb_metric_name(uint32_t i)
{
    return i < instr_metrics_nsync ? instr_metrics_sync[i].name : "";
}
static const char *cb_metric_unit(uint32_t i)
{
    return i < instr_metrics_nsync ? instr_metrics_sync[i].unit : "";
}
static uint32_t cb_metric_value_type(uint32_t i)
{
    return i < instr_metrics_nsync ? instr_metrics_sync[i].value_type : 0;
}

static uint32_t cb_async_metric_count(void) { return instr_metrics_nasync; }
static const char *cb_async_metric_name(uint32_t i)
{
    return i < instr_metrics_nasync ? instr_metrics_async[i].name : "";
}
static const char *cb_async_metric_unit(uint32_t i)
{
    return i < instr_metrics_nasync ? instr_metrics_async[i].unit : "";
}
static uint32_t cb_async_metric_value_type(uint32_t i)
{
    return i < instr_metrics_nasync ? instr_metrics_async[i].value_type : 0;
}

static uint64_t cb_clock_ticks(void) { return instr_clock_now(); }
static uint64_t cb_clock_frequency(void) { return (uint64_t)(instr_clock_hz() + 0.5); }

static const char *cb_config(uint32_t id, const char *suffix)
{
    char name[160];
    if (id >= nplugins || !suffix ||
        (size_t)snprintf(name, sizeof name, "%s%s", plugins[id].prefix, suffix) >= sizeof name)
        return NULL;
    return instr_env(name);
}

static size_t type_size(uint32_t type)
{
    switch (type) {
    case INSTR_SUBSTRATE_BYTE: return 1;
    case INSTR_SUBSTRATE_INT32:
    case INSTR_SUBSTRATE_UINT32: return 4;
    case INSTR_SUBSTRATE_INT64:
    case INSTR_SUBSTRATE_UINT64:
    case INSTR_SUBSTRATE_DOUBLE: return 8;
    default: return 0;
    }
}

static int32_t cb_comm_rank(void) { return comm ? comm->rank() : 0; }
static int32_t cb_comm_size(void) { return comm ? comm->size() : 1; }
static int32_t cb_comm_barrier(void) { return comm ? comm->barrier() : 0; }

static int32_t cb_comm_bcast(void *buf, uint64_t count, uint32_t type, int32_t root)
{
    if (!type_size(type))
        return -1;
    if (comm)
        return comm->bcast(buf, count, type, root);
    return root == 0 ? 0 : -1;
}

static int32_t cb_comm_gather(const void *send, void *recv, uint64_t count, uint32_t type,
                              int32_t root)
{
    if (!type_size(type))
        return -1;
    if (comm)
        return comm->gather(send, recv, count, type, root);
    if (root != 0)
        return -1;
    if (count)
        memmove(recv, send, count * type_size(type));
    return 0;
}

static int32_t cb_comm_reduce(const void *send, void *recv, uint64_t count, uint32_t type,
                              uint32_t op, int32_t root)
{
    if (!type_size(type) || op > INSTR_SUBSTRATE_MAX)
        return -1;
    if (comm)
        return comm->reduce(send, recv, count, type, op, root);
    if (root != 0)
        return -1;
    if (count)
        memmove(recv, send, count * type_size(type));
    return 0;
}

static int32_t cb_mpi_comm_def(uint32_t id, instr_substrate_mpi_comm_def *out)
{
    return comm && comm->comm_def && out ? comm->comm_def(id, out) : -1;
}

static int32_t cb_mpi_group_def(uint32_t id, instr_substrate_mpi_group_def *out)
{
    return comm && comm->group_def && out ? comm->group_def(id, out) : -1;
}

static int32_t cb_mpi_window_def(uint32_t id, instr_substrate_mpi_window_def *out)
{
    return comm && comm->window_def && out ? comm->window_def(id, out) : -1;
}

static int32_t cb_mpi_comm_remote_group(uint32_t id, uint32_t *group)
{
    return comm && comm->remote_group && group ? comm->remote_group(id, group) : -1;
}

static const instr_substrate_callbacks callbacks = {
    .size = sizeof(instr_substrate_callbacks),
    .region_name = cb_region_name,
    .region_mangled = cb_region_mangled,
    .region_file = cb_region_file,
    .region_line_begin = cb_region_line_begin,
    .region_line_end = cb_region_line_end,
    .region_kind = cb_region_kind,
    .region_count = cb_region_count,
    .location_id = cb_location_id,
    .location_name = cb_location_name,
    .location_type = cb_location_type,
    .location_thread = cb_location_thread,
    .location_rank = cb_location_rank,
    .location_get_data = cb_location_get_data,
    .location_set_data = cb_location_set_data,
    .metric_count = cb_metric_count,
    .metric_name = cb_metric_name,
    .metric_unit = cb_metric_unit,
    .metric_value_type = cb_metric_value_type,
    .async_metric_count = cb_async_metric_count,
    .async_metric_name = cb_async_metric_name,
    .async_metric_unit = cb_async_metric_unit,
    .async_metric_value_type = cb_async_metric_value_type,
    .clock_ticks = cb_clock_ticks,
    .clock_frequency = cb_clock_frequency,
    .config = cb_config,
    .comm_rank = cb_comm_rank,
    .comm_size = cb_comm_size,
    .comm_barrier = cb_comm_barrier,
    .comm_bcast = cb_comm_bcast,
    .comm_gather = cb_comm_gather,
    .comm_reduce = cb_comm_reduce,
    .mpi_comm_def = cb_mpi_comm_def,
    .mpi_group_def = cb_mpi_group_def,
    .mpi_window_def = cb_mpi_window_def,
    .mpi_comm_remote_group = cb_mpi_comm_remote_group,
};

INSTR_EXT_EXPORT int instr_ext_plugins_active(void)
{
    return instr_substrate_slot(&instr_plugins_substrate) >= 0;
}

INSTR_EXT_EXPORT void instr_ext_plugins_comm(const instr_plugins_comm *c)
{
    static int mpp_told;
    comm = c;
    if (!c || mpp_told)
        return;
    mpp_told = 1;
    for (uint32_t i = 0; i < nplugins; i++)
        if (plugins[i].info->init_mpp)
            plugins[i].info->init_mpp();
}

/* The calling thread's location for an event of an adapter, or NULL when nothing is
 * recorded on it now. */
static instr_substrate_location *self(void)
{
    instr_location *loc = instr_tls_loc;
    int slot = instr_substrate_slot(&instr_plugins_substrate);
    if (!loc || slot < 0 || instr_state_get() != INSTR_STATE_RUNNING)
        return NULL;
    return loc->sub[slot];
}

void instr_plugins_omp_event(int event, uint64_t what)
{
    instr_substrate_location *l = self();
    if (!l || event < 0 || event >= INSTR_PLUGINS_OMP_N)
        return;
    uint64_t t = instr_clock_now();
    if (event == INSTR_PLUGINS_OMP_JOIN) {
        for (instr_substrate_plain_fn *f = join_list; *f; f++)
            (*f)(l, t);
        return;
    }
    for (instr_substrate_id_fn *f = omp_lists[event]; *f; f++)
        (*f)(l, t, what);
}

#define ANY(list) ((list)[0][0] || (list)[1][0])

INSTR_EXT_EXPORT unsigned instr_ext_plugins_mpi_events(void)
{
    return (ANY(send_list) ? INSTR_EXT_PLUGINS_SEND : 0) |
           (ANY(recv_list) ? INSTR_EXT_PLUGINS_RECV : 0) |
           (coll_begin_list[0] || ANY(coll_end_list) ? INSTR_EXT_PLUGINS_COLL : 0) |
           (ANY(isend_list) || isend_complete_list[0] ? INSTR_EXT_PLUGINS_ISEND : 0) |
           (ANY(irecv_list) || irecv_request_list[0] ? INSTR_EXT_PLUGINS_IRECV : 0) |
           (icoll_begin_list[0] || icoll_end_list[0] ? INSTR_EXT_PLUGINS_ICOLL : 0) |
           (p_init_list[0] || p_start_list[0] || p_complete_list[0] || p_free_list[0]
                ? INSTR_EXT_PLUGINS_PERSISTENT : 0) |
           (have_v3 ? INSTR_EXT_PLUGINS_DEFS : 0) |
           (handle_begin_list[0] || handle_end_list[0] || handle_ibegin_list[0] ||
                    handle_iend_list[0]
                ? INSTR_EXT_PLUGINS_HANDLE
                : 0);
}

INSTR_EXT_EXPORT void instr_ext_plugins_mpi_msg(unsigned kind, int partner,
                                                instr_ext_plugins_comm_id comm, int tag,
                                                uint64_t bytes, uint64_t request)
{
    instr_substrate_location *l = self();
    if (!l)
        return;
    uint64_t t = instr_clock_now();
    for (int v = 0; v < 2; v++) {
        uint64_t c = v ? comm.def : comm.handle;
        if (kind == INSTR_EXT_PLUGINS_SEND || kind == INSTR_EXT_PLUGINS_RECV) {
            for (instr_substrate_mpi_msg_fn *f = kind == INSTR_EXT_PLUGINS_RECV ? recv_list[v]
                                                                                : send_list[v];
                 *f; f++)
                (*f)(l, t, partner, c, tag, bytes);
            continue;
        }
        for (instr_substrate_mpi_req_msg_fn *f = kind == INSTR_EXT_PLUGINS_IRECV ? irecv_list[v]
                                                                                  : isend_list[v];
             *f; f++)
            (*f)(l, t, partner, c, tag, bytes, request);
    }
}

INSTR_EXT_EXPORT void instr_ext_plugins_mpi_event(const instr_ext_plugins_mpi_ev *e)
{
    instr_substrate_location *l = self();
    if (!l)
        return;
    uint64_t t = instr_clock_now();
    switch (e->what) {
    case INSTR_EXT_PLUGINS_ICOLL_BEGIN:
    case INSTR_EXT_PLUGINS_ICOLL_END: {
        int handle = e->op >= INSTR_SUBSTRATE_COLL_CREATE_HANDLE;
        instr_substrate_mpi_icoll_fn *f =
            e->what == INSTR_EXT_PLUGINS_ICOLL_BEGIN ? (handle ? handle_ibegin_list
                                                               : icoll_begin_list)
                                                     : (handle ? handle_iend_list
                                                               : icoll_end_list);
        for (; *f; f++)
            (*f)(l, t, e->op, e->comm, e->root, e->sent, e->recvd, e->request);
        break;
    }
    case INSTR_EXT_PLUGINS_P_INIT:
        for (instr_substrate_mpi_persistent_fn *f = p_init_list; *f; f++)
            (*f)(l, t, e->op, e->partner, e->comm, e->tag, e->bytes, e->request);
        break;
    case INSTR_EXT_PLUGINS_P_START:
    case INSTR_EXT_PLUGINS_P_FREE:
        for (instr_substrate_id_fn *f = e->what == INSTR_EXT_PLUGINS_P_START ? p_start_list
                                                                              : p_free_list;
             *f; f++)
            (*f)(l, t, e->request);
        break;
    case INSTR_EXT_PLUGINS_P_COMPLETE:
        for (instr_substrate_mpi_req_msg_fn *f = p_complete_list; *f; f++)
            (*f)(l, t, e->partner, e->comm, e->tag, e->bytes, e->request);
        break;
    }
}

INSTR_EXT_EXPORT void instr_ext_plugins_mpi_def(uint32_t kind, uint32_t id)
{
    for (uint32_t i = 0; i < nplugins; i++)
        if (plugins[i].version >= 3 && plugins[i].info->new_definition)
            plugins[i].info->new_definition(kind, id);
}

INSTR_EXT_EXPORT void instr_ext_plugins_mpi_request(unsigned kind, uint64_t request)
{
    instr_substrate_location *l = self();
    if (!l)
        return;
    uint64_t t = instr_clock_now();
    for (instr_substrate_id_fn *f = kind == INSTR_EXT_PLUGINS_IRECV ? irecv_request_list
                                                                     : isend_complete_list;
         *f; f++)
        (*f)(l, t, request);
}

INSTR_EXT_EXPORT void instr_ext_plugins_mpi_coll_begin(int handle)
{
    instr_substrate_location *l = self();
    if (!l)
        return;
    uint64_t t = instr_clock_now();
    for (instr_substrate_mpi_coll_begin_fn *f = handle ? handle_begin_list : coll_begin_list;
         *f; f++)
        (*f)(l, t);
}

INSTR_EXT_EXPORT void instr_ext_plugins_mpi_coll_end(uint32_t op, instr_ext_plugins_comm_id comm,
                                                     int root, uint64_t sent, uint64_t recvd)
{
    instr_substrate_location *l = self();
    if (!l)
        return;
    uint64_t t = instr_clock_now();
    if (op >= INSTR_SUBSTRATE_COLL_CREATE_HANDLE) {
        for (instr_substrate_mpi_coll_end_fn *f = handle_end_list; *f; f++)
            (*f)(l, t, op, comm.def, root, sent, recvd);
        return;
    }
    for (int v = 0; v < 2; v++)
        for (instr_substrate_mpi_coll_end_fn *f = coll_end_list[v]; *f; f++)
            (*f)(l, t, op, v ? comm.def : comm.handle, root, sent, recvd);
}

/* ---- loading ---- */

static void load_one(void *arg, const char *name)
{
    (void)arg;
    if (!instr_plugin_name_ok(VAR, name))
        return;
    for (uint32_t i = 0; i < nplugins; i++)
        if (strcmp(plugins[i].name, name) == 0) {
            instr_warn("%s=%s: listed twice; loaded once", VAR, name);
            return;
        }
    if (nplugins == MAX_PLUGINS) {
        instr_warn("%s=%s: at most %d substrate plugins; left out", VAR, name, MAX_PLUGINS);
        return;
    }
    uint32_t version;
    const instr_substrate_plugin_info *given = instr_plugin_load(
        VAR, "substrate", name, INSTR_SUBSTRATE_PLUGIN_ENTRY_NAME,
        INSTR_SUBSTRATE_PLUGIN_VERSION_MIN, INSTR_SUBSTRATE_PLUGIN_VERSION, &version);
    if (!given)
        return;
    plugin *p = &plugins[nplugins];
    /* A version 1 description ends after events, a version 2 one after flags: only that
     * much is read. */
    memset(&p->full, 0, sizeof p->full);
    memcpy(&p->full, given,
           version == 1   ? offsetof(instr_substrate_plugin_info, flags)
           : version == 2 ? offsetof(instr_substrate_plugin_info, mpi)
                          : sizeof p->full);
    p->version = version;
    const instr_substrate_plugin_info *info = &p->full;
    snprintf(p->name, sizeof p->name, "%s", name);
    instr_plugin_var(p->prefix, sizeof p->prefix, "", name);
    strcat(p->prefix, "_");
    instr_substrate_init init = {.plugin_id = nplugins, .name = p->name, .cb = &callbacks};
    /* Counted first, so that config() answers during initialize. */
    nplugins++;
    int32_t rc = info->initialize ? info->initialize(&init) : 0;
    if (rc != 0) {
        instr_warn("%s=%s: the plugin failed to initialise (initialize returned %d); left out",
                   VAR, name, (int)rc);
        nplugins--;
        memset(p, 0, sizeof *p);
        return;
    }
    p->info = info;
    instr_info(1, "%s=%s: loaded%s%s%s", VAR, name, info->events.enter_region ? ", enter" : "",
               info->events.exit_region ? ", exit" : "",
               info->flags & INSTR_SUBSTRATE_PLUGIN_REENTRANT ? ", reentrant" : "");
}

/* Appends fn (when not NULL) to a null-terminated list of function pointers. */
#define PUT(list, fn)                                                                        \
    do {                                                                                     \
        unsigned k_ = 0;                                                                     \
        while ((list)[k_])                                                                   \
            k_++;                                                                            \
        (list)[k_] = (fn);                                                                   \
    } while (0)

/* ---- the substrate ---- */

/* One plugin wants the event: its function directly (a tail call). */
static void sp_enter_one(void *data, uint32_t region, uint64_t t)
{
    instr_substrate_location *l = data;
    if (l)
        instr_plugins_enter_list[0](l, t, region, l->metrics);
}

static void sp_exit_one(void *data, uint32_t region, uint64_t t)
{
    instr_substrate_location *l = data;
    if (l)
        instr_plugins_exit_list[0](l, t, region, l->metrics);
}

static void sp_enter(void *data, uint32_t region, uint64_t t)
{
    instr_substrate_location *l = data;
    if (!l)
        return;
    for (instr_substrate_region_fn *f = instr_plugins_enter_list; *f; f++)
        (*f)(l, t, region, l->metrics);
}

static void sp_exit(void *data, uint32_t region, uint64_t t)
{
    instr_substrate_location *l = data;
    if (!l)
        return;
    for (instr_substrate_region_fn *f = instr_plugins_exit_list; *f; f++)
        (*f)(l, t, region, l->metrics);
}

static int sp_wanted(void)
{
    const char *v = instr_env(VAR);
    return v && *v;
}

static void new_region(uint32_t h)
{
    for (uint32_t i = 0; i < nplugins; i++)
        if (plugins[i].info->new_definition)
            plugins[i].info->new_definition(INSTR_SUBSTRATE_DEF_REGION, h);
}

static int sp_init(void)
{
    instr_metrics_each_item(instr_env(VAR), load_one, NULL);
    if (nplugins == 0)
        return -1;
    for (uint32_t i = 0; i < nplugins; i++) {
        const instr_substrate_events *e = &plugins[i].info->events;
        PUT(instr_plugins_enter_list, e->enter_region);
        PUT(instr_plugins_exit_list, e->exit_region);
        int v3 = plugins[i].version >= 3;
        have_v3 |= v3;
        PUT(send_list[v3], e->mpi_send);
        PUT(recv_list[v3], e->mpi_recv);
        PUT(isend_list[v3], e->mpi_isend);
        PUT(irecv_list[v3], e->mpi_irecv);
        PUT(isend_complete_list, e->mpi_isend_complete);
        PUT(irecv_request_list, e->mpi_irecv_request);
        PUT(coll_begin_list, e->mpi_collective_begin);
        PUT(coll_end_list[v3], e->mpi_collective_end);
        const instr_substrate_mpi_events *m = &plugins[i].info->mpi;
        PUT(icoll_begin_list, m->mpi_icollective_begin);
        PUT(icoll_end_list, m->mpi_icollective_end);
        if (plugins[i].version >= 4) {
            PUT(handle_begin_list, e->mpi_collective_begin);
            PUT(handle_end_list, e->mpi_collective_end);
            PUT(handle_ibegin_list, m->mpi_icollective_begin);
            PUT(handle_iend_list, m->mpi_icollective_end);
        }
        PUT(p_init_list, m->mpi_persistent_init);
        PUT(p_start_list, m->mpi_persistent_start);
        PUT(p_complete_list, m->mpi_persistent_complete);
        PUT(p_free_list, m->mpi_persistent_free);
        PUT(thread_begin_list, e->thread_begin);
        PUT(thread_end_list, e->thread_end);
        PUT(join_list, e->omp_join);
        PUT(omp_lists[INSTR_PLUGINS_OMP_FORK], e->omp_fork);
        PUT(omp_lists[INSTR_PLUGINS_OMP_TASK_CREATE], e->omp_task_create);
        PUT(omp_lists[INSTR_PLUGINS_OMP_TASK_SWITCH], e->omp_task_switch);
        PUT(omp_lists[INSTR_PLUGINS_OMP_TASK_COMPLETE], e->omp_task_complete);
        PUT(omp_lists[INSTR_PLUGINS_OMP_ACQUIRE_LOCK], e->omp_acquire_lock);
        PUT(omp_lists[INSTR_PLUGINS_OMP_RELEASE_LOCK], e->omp_release_lock);
        PUT(async_list, e->async_metric_value);
    }
    /* Reentrant enter and exit: every plugin that wants one of them said so. */
    instr_plugins_reentrant = 1;
    for (uint32_t i = 0; i < nplugins; i++) {
        const instr_substrate_plugin_info *info = plugins[i].info;
        if ((info->events.enter_region || info->events.exit_region) &&
            !(info->flags & INSTR_SUBSTRATE_PLUGIN_REENTRANT))
            instr_plugins_reentrant = 0;
    }
    for (int k = 0; k < INSTR_PLUGINS_OMP_N; k++)
        if (omp_lists[k][0])
            instr_plugins_omp = 1;
    if (join_list[0])
        instr_plugins_omp = 1;
    /* An event no plugin wants is not dispatched to this substrate at all. */
    const instr_substrate_region_fn *in = instr_plugins_enter_list, *out = instr_plugins_exit_list;
    instr_plugins_substrate.enter = !in[0] ? NULL : in[1] ? sp_enter : sp_enter_one;
    instr_plugins_substrate.exit = !out[0] ? NULL : out[1] ? sp_exit : sp_exit_one;
    for (uint32_t i = 0; i < nplugins; i++) {
        if (!plugins[i].info->new_definition)
            continue;
        for (uint32_t m = 0; m < instr_metrics_nsync; m++)
            plugins[i].info->new_definition(INSTR_SUBSTRATE_DEF_METRIC, m);
        for (uint32_t m = 0; m < instr_metrics_nasync; m++)
            plugins[i].info->new_definition(INSTR_SUBSTRATE_DEF_ASYNC_METRIC, m);
        for (uint32_t r = 1; r <= instr_registry_count(); r++)
            plugins[i].info->new_definition(INSTR_SUBSTRATE_DEF_REGION, r);
    }
    instr_registry_on_add = new_region;
    return 0;
}

static void *sp_location_begin(instr_location *loc)
{
    instr_substrate_location *l = instr_mem_calloc(1, sizeof *l);
    if (!l) {
        instr_warn("%s: out of memory for thread %d; the plugins see none of its events", VAR,
                   loc->tid);
        return NULL;
    }
    l->core = loc;
    uint32_t n;
    l->metrics = instr_metrics_values_of(loc, &n);
    if (!n)
        l->metrics = NULL;
    snprintf(l->name, sizeof l->name, "thread %u", loc->id);
    l->type = instr_plugins_openmp_worker ? INSTR_SUBSTRATE_LOCATION_OPENMP_THREAD
                                          : INSTR_SUBSTRATE_LOCATION_CPU_THREAD;
    /* The cursor path with plugins (runtime/compose/): the profile calls the lists itself, with
     * the metric values of its nodes. */
    if (__atomic_load_n(&instr_fast, __ATOMIC_ACQUIRE) == INSTR_FAST_TABLE) {
        int ps = instr_substrate_slot(&instr_profile_substrate);
        instr_pstate *s = ps >= 0 ? loc->sub[ps] : NULL;
        if (s && instr_cct_plugins_attach(s, l, instr_plugins_enter_list,
                                          instr_plugins_exit_list, instr_plugins_reentrant) != 0)
            instr_warn("%s: out of memory for thread %d; the plugins see none of its enters "
                       "and exits",
                       VAR, loc->tid);
    }
    for (uint32_t i = 0; i < nplugins; i++)
        if (plugins[i].info->new_definition)
            plugins[i].info->new_definition(INSTR_SUBSTRATE_DEF_LOCATION, loc->id);
    for (uint32_t i = 0; i < nplugins; i++)
        if (plugins[i].info->create_location)
            plugins[i].info->create_location(l, l->type);
    for (uint32_t i = 0; i < nplugins; i++)
        if (plugins[i].info->activate_location)
            plugins[i].info->activate_location(l);
    if (thread_begin_list[0]) {
        uint64_t t = instr_clock_now();
        for (instr_substrate_plain_fn *f = thread_begin_list; *f; f++)
            (*f)(l, t);
    }
    return l;
}

static void delete_location(instr_substrate_location *l)
{
    if (!l || l->deleted)
        return;
    l->deleted = 1;
    if (thread_end_list[0]) {
        uint64_t t = instr_clock_now();
        for (instr_substrate_plain_fn *f = thread_end_list; *f; f++)
            (*f)(l, t);
    }
    for (uint32_t i = 0; i < nplugins; i++)
        if (plugins[i].info->deactivate_location)
            plugins[i].info->deactivate_location(l);
    for (uint32_t i = 0; i < nplugins; i++)
        if (plugins[i].info->delete_location)
            plugins[i].info->delete_location(l);
}

static void sp_location_end(void *data, uint64_t t)
{
    (void)t;
    delete_location(data);
}

static int sp_write(const instr_run *run, char *files, size_t size)
{
    /* From a signal handler the other processes are not at their end: a plugin's collective
     * would wait for ever. The plugins see a job of one process. */
    if (run->from_signal)
        comm = NULL;
    int slot = instr_substrate_slot(&instr_plugins_substrate);
    for (uint32_t i = 0; slot >= 0 && i < run->nlocations; i++)
        delete_location(run->locations[i]->sub[slot]);
    /* Collected by the metrics substrate's write, which comes first. */
    const instr_metric_async_values *a = &instr_metrics_async_values;
    for (size_t k = 0; async_list[0] && k < a->n; k++)
        for (void (**f)(uint32_t, uint64_t, uint64_t) = async_list; *f; f++)
            (*f)(a->v[k].metric, a->v[k].t, a->v[k].value);
    for (uint32_t i = 0; i < nplugins; i++)
        if (plugins[i].info->pre_unify)
            plugins[i].info->pre_unify();
    int failed = 0;
    for (uint32_t i = 0; i < nplugins; i++) {
        const instr_substrate_plugin_info *info = plugins[i].info;
        if (!info->write_data)
            continue;
        /* a rank without files of its own (INSTR_RANK_FILES): its directory, made now */
        if (instr_experiment_materialize() != 0 || info->write_data(run->dir) != 0) {
            instr_warn("%s=%s: the plugin could not write its results into %s (write_data "
                       "failed; its own message, if any, says why)",
                       VAR, plugins[i].name, run->dir ? run->dir : "(no directory)");
            failed = 1;
            continue;
        }
        size_t len = strlen(files);
        snprintf(files + len, size - len, "%s%s's results", len ? ", " : "", plugins[i].name);
    }
    for (uint32_t i = 0; i < nplugins; i++)
        if (plugins[i].info->finalize)
            plugins[i].info->finalize();
    /* Nothing is called any more: a thread the program did not join may still be inside a
     * plugin, so the objects stay loaded. */
    instr_registry_on_add = NULL;
    return failed ? -1 : 0;
}

instr_substrate instr_plugins_substrate = {
    .name = "plugins",
    .wanted = sp_wanted,
    .init = sp_init,
    .fast_paths = INSTR_SUBSTRATE_CURSOR_AFTER | INSTR_SUBSTRATE_DIRECT_ALONE,
    .location_begin = sp_location_begin,
    .location_end = sp_location_end,
    .write = sp_write,
};
