/* mpi_persistent.c — persistent requests (MPI_Send_init and its modes, MPI_Recv_init,
 * MPI_Start, MPI_Startall, MPI_Request_free) for the job's trace and substrate plugins
 * (interface version 3; docs/plugins.md, docs/mpi.md "Trace").
 *
 * A request made by an init call is remembered with what it does (partner, tag, size,
 * communicator) until the program frees it. Each start is one non-blocking operation: the
 * trace writes MpiIsend (a send) or MpiIrecvRequest (a receive) in MPI_Start, and
 * MpiIsendComplete or MpiIrecv in the wait or test that completes it (mpi_msg.c), as for
 * MPI_Isend/MPI_Irecv; plugins get init, start, complete and free with the request's id,
 * which is the same for every start. The profile does not count them (docs/mpi.md).
 *
 * The table is a small array searched linearly under a mutex: programs keep few persistent
 * requests, and the calls that use it cost far more. */
#include "mpi_wrap.h"
#include "../util/pages.h"

#include <pthread.h>
#include <string.h>

typedef struct persistent {
    MPI_Request req;
    int send, peer, tag;
    uint64_t bytes;
    MPI_Comm comm;
    uint64_t plugin_request; /* its id for plugins, or 0 */
} persistent;

static persistent *table;
static uint32_t n, cap;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int same(MPI_Request a, MPI_Request b) { return memcmp(&a, &b, sizeof a) == 0; }

static int wanted(void)
{
    return (instr_mpi_plugin_events & INSTR_EXT_PLUGINS_PERSISTENT) ||
           __atomic_load_n(&instr_mpi_tracing, __ATOMIC_RELAXED);
}

/* With the lock: the entry of r, or NULL. */
static persistent *find(MPI_Request r)
{
    for (uint32_t i = 0; i < n; i++)
        if (same(table[i].req, r))
            return &table[i];
    return NULL;
}

/* With the lock: room for more; 0 or -1. */
static int grow(void)
{
    uint32_t c = cap ? 2 * cap : 16;
    persistent *t = instr_mem_realloc(table, (size_t)c * sizeof *t);
    if (!t)
        return -1;
    table = t;
    cap = c;
    return 0;
}

void instr_mpi_persistent_init(int rc, const MPI_Request *request, int send, int count,
                               MPI_Datatype type, int peer, int tag, MPI_Comm comm)
{
    if (rc != MPI_SUCCESS || !request || *request == MPI_REQUEST_NULL || !wanted())
        return;
    int size = 0;
    uint64_t bytes = 0;
    if (count > 0 && PMPI_Type_size(type, &size) == MPI_SUCCESS && size > 0)
        bytes = (uint64_t)count * (uint64_t)size;
    persistent e = {*request, send, peer, tag, bytes, comm, 0};
    if (instr_mpi_plugin_events & INSTR_EXT_PLUGINS_PERSISTENT) {
        e.plugin_request = instr_mpi_plugins_request_id();
        instr_mpi_plugins_event(&(instr_ext_plugins_mpi_ev){
            .what = INSTR_EXT_PLUGINS_P_INIT,
            .op = send ? INSTR_SUBSTRATE_PERSISTENT_SEND : INSTR_SUBSTRATE_PERSISTENT_RECV,
            .partner = peer, .tag = tag, .comm = instr_mpi_comm_def(comm), .bytes = bytes,
            .request = e.plugin_request});
    }
    pthread_mutex_lock(&lock);
    persistent *old = find(*request); /* a handle MPI reused without our seeing it freed */
    if (old) {
        *old = e;
    } else if (n < cap || grow() == 0) {
        table[n++] = e;
    } /* else out of memory: this request is not followed */
    pthread_mutex_unlock(&lock);
}

void instr_mpi_persistent_start(int rc, int count, const MPI_Request *requests)
{
    if (rc != MPI_SUCCESS || !requests || !__atomic_load_n(&n, __ATOMIC_RELAXED))
        return;
    for (int i = 0; i < count; i++) {
        pthread_mutex_lock(&lock);
        persistent *p = find(requests[i]);
        persistent e = p ? *p : (persistent){0};
        pthread_mutex_unlock(&lock);
        if (!p)
            continue;
        if (e.plugin_request)
            instr_mpi_plugins_event(&(instr_ext_plugins_mpi_ev){
                .what = INSTR_EXT_PLUGINS_P_START, .request = e.plugin_request});
        instr_mpi_persistent_started(&requests[i], e.send, e.peer, e.tag, e.bytes, e.comm,
                                     e.plugin_request);
    }
}

void instr_mpi_persistent_free(MPI_Request request)
{
    if (!__atomic_load_n(&n, __ATOMIC_RELAXED))
        return;
    pthread_mutex_lock(&lock);
    persistent *p = find(request);
    uint64_t id = p ? p->plugin_request : 0;
    if (p)
        *p = table[--n];
    pthread_mutex_unlock(&lock);
    if (id)
        instr_mpi_plugins_event(&(instr_ext_plugins_mpi_ev){.what = INSTR_EXT_PLUGINS_P_FREE,
                                                              .request = id});
}
