/* mpi_msg.c — message counts and sizes per call path.
 *
 * Sends count when they are posted (the size is count x the datatype's size). A receive's
 * size is what arrived: MPI_Get_count(status, MPI_BYTE). Blocking receives know it on return;
 * a nonblocking receive is remembered by its request handle until a wait or test completes
 * it, and is counted there (in the completion call's call path, as Score-P does).
 * Persistent requests (MPI_Recv_init/MPI_Start) are not counted in the profile (docs/mpi.md);
 * each start of one is tracked here for the trace and substrate plugins when they want it
 * (mpi_persistent.c). The table is small and guarded by a mutex: MPI calls cost far more.
 *
 * While the job is traced (mpi_trace.c) the same table also holds nonblocking sends and
 * collectives, each with its OTF2 request id, so that the completing wait or test writes
 * MpiIsendComplete, MpiIrecv or NonBlockingCollectiveComplete; and non-blocking MPI-IO
 * operations in the trace (mpi_io.c), whose wait writes IoOperationComplete and whose test,
 * when nothing completed, IoOperationTest. */
#include "mpi_wrap.h"
#include "../util/hash.h"
#include "../util/table.h"
#include "../util/pages.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { RECV, SEND, COLL, CP_COLL, FILE_IO, COMM_IDUP };

typedef struct pending {
    MPI_Request req;
    int used;         /* 0 free, 1 used, 2 tombstone */
    int kind;         /* RECV, SEND (traced only), COLL (traced only) */
    uint32_t comm;    /* trace ref of the communicator; UINT32_MAX: no records */
    int op, root;     /* COLL */
    uint64_t id;      /* OTF2 request id (traced) */
    uint64_t sent, recvd; /* COLL */
    MPI_Comm mpi_comm;    /* RECV: the receive's communicator (substrate plugins, the
                           * critical path's piggyback) */
    uint64_t plugin_request; /* RECV, SEND: the request's id for substrate plugins, or 0 */
    int cp_only;      /* RECV: a persistent receive, tracked for its piggyback only */
    int persistent;   /* RECV, SEND: a start of a persistent request (not in the profile) */
    int peer, tag;    /* SEND, persistent: the init's partner and tag */
    uint64_t bytes;   /* SEND, persistent: its size */
    uint64_t comm_def; /* the communicator's definition for plugins (COLL; persistent) */
    void *cp_state;   /* CP_COLL: the critical path's reduction of a nonblocking collective */
    instr_io_pending io; /* FILE_IO: the operation in the trace */
    MPI_Comm *newcomm;   /* COMM_IDUP: where MPI writes the new handle at completion */
    uint32_t idup[2];    /* COMM_IDUP: its identity (mpi_defs.c) */
    int define;          /* COMM_IDUP: the new communicator gets its definitions */
} pending;

static pending *table;
static size_t cap, count;
static int ntracked; /* read without the lock as a hint: 0 means no wait needs to look */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static size_t slot_of(MPI_Request r)
{
    uintptr_t k = 0;
    memcpy(&k, &r, sizeof r < sizeof k ? sizeof r : sizeof k);
    return instr_hash_bits(k ^ (k >> 17), 32);
}

static int same(MPI_Request a, MPI_Request b) { return memcmp(&a, &b, sizeof a) == 0; }

/* With the lock: the entry of r, or NULL. */
static pending *find(MPI_Request r)
{
    if (!cap)
        return NULL;
    for (size_t i = slot_of(r) & (cap - 1), n = 0; n < cap; i = (i + 1) & (cap - 1), n++) {
        if (!table[i].used)
            return NULL;
        if (table[i].used == 1 && same(table[i].req, r))
            return &table[i];
    }
    return NULL;
}

static size_t slot_hash(const void *slot) { return slot_of(((const pending *)slot)->req); }
static int slot_live(const void *slot) { return ((const pending *)slot)->used == 1; }

/* Doubles the table; the tombstones stay behind. */
static int grow(void)
{
    if (instr_table_grow(&table, &cap, sizeof *table, 64, slot_hash, slot_live) != 0)
        return -1;
    count = (size_t)ntracked;
    return 0;
}

static void add(MPI_Request r, pending e)
{
    pthread_mutex_lock(&lock);
    if ((2 * (count + 1) > cap && grow() != 0)) {
        pthread_mutex_unlock(&lock);
        return; /* out of memory: this receive is not counted */
    }
    size_t i = slot_of(r) & (cap - 1);
    while (table[i].used == 1)
        i = (i + 1) & (cap - 1);
    if (!table[i].used)
        count++;
    e.req = r;
    e.used = 1;
    table[i] = e;
    __atomic_store_n(&ntracked, ntracked + 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&lock);
}

/* With the lock: 1 when r was tracked (now forgotten; its entry into *out). */
static int take(MPI_Request r, pending *out)
{
    pending *p = find(r);
    if (!p)
        return 0;
    if (out)
        *out = *p;
    p->used = 2; /* tombstone: keeps probe chains intact */
    __atomic_store_n(&ntracked, ntracked - 1, __ATOMIC_RELAXED);
    return 1;
}

static uint64_t type_bytes(int count, MPI_Datatype datatype)
{
    int size = 0;
    if (count <= 0 || PMPI_Type_size(datatype, &size) != MPI_SUCCESS || size <= 0)
        return 0;
    return (uint64_t)count * (uint64_t)size;
}

static int tracing(void) { return __atomic_load_n(&instr_mpi_tracing, __ATOMIC_RELAXED); }

void instr_mpi_sent(int rc, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    if (rc != MPI_SUCCESS || dest == MPI_PROC_NULL)
        return;
    if (instr_mpi_cp)
        instr_mpi_cp_send(dest, tag, comm);
    uint64_t b = type_bytes(count, datatype);
    instr_ext_messages(b, 0, 1, 0, 0);
    instr_mpi_plugins_msg(INSTR_EXT_PLUGINS_SEND, dest, comm, tag, b, 0);
    uint32_t c;
    if (tracing() && (c = instr_mpi_comm_ref(comm)) != UINT32_MAX)
        instr_mpi_trace_send(dest, c, tag, b);
}

void instr_mpi_isent(int rc, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                     const MPI_Request *request)
{
    if (rc != MPI_SUCCESS || dest == MPI_PROC_NULL)
        return;
    if (instr_mpi_cp)
        instr_mpi_cp_send(dest, tag, comm);
    uint64_t b = type_bytes(count, datatype);
    instr_ext_messages(b, 0, 1, 0, 0);
    if (!request || *request == MPI_REQUEST_NULL)
        return;
    pending e = {.kind = SEND, .comm = UINT32_MAX};
    if (tracing() && (e.comm = instr_mpi_comm_ref(comm)) != UINT32_MAX) {
        e.id = instr_mpi_request_id();
        instr_mpi_trace_isend(dest, e.comm, tag, b, e.id);
    }
    if (instr_mpi_plugin_events & INSTR_EXT_PLUGINS_ISEND) {
        e.plugin_request = instr_mpi_plugins_request_id();
        instr_mpi_plugins_msg(INSTR_EXT_PLUGINS_ISEND, dest, comm, tag, b, e.plugin_request);
    }
    if (e.comm != UINT32_MAX || e.plugin_request)
        add(*request, e);
}

void instr_mpi_icoll_posted(const MPI_Request *request, int op, uint32_t comm, int root,
                            uint64_t sent, uint64_t recvd, uint64_t plugin_request,
                            uint64_t comm_def)
{
    if (!request || *request == MPI_REQUEST_NULL)
        return;
    pending e = {.kind = COLL, .comm = comm, .op = op, .root = root, .sent = sent,
                 .recvd = recvd, .plugin_request = plugin_request, .comm_def = comm_def};
    if (comm != UINT32_MAX) {
        e.id = instr_mpi_request_id();
        instr_mpi_trace_icoll_request(e.id);
    }
    if (comm != UINT32_MAX || plugin_request)
        add(*request, e);
}

void instr_mpi_persistent_started(const MPI_Request *request, int send, int peer, int tag,
                                  uint64_t bytes, MPI_Comm comm, uint64_t plugin_request)
{
    if (!request || *request == MPI_REQUEST_NULL || peer == MPI_PROC_NULL)
        return;
    pending e = {.kind = send ? SEND : RECV, .comm = UINT32_MAX, .mpi_comm = comm,
                 .plugin_request = plugin_request, .persistent = 1, .peer = peer, .tag = tag,
                 .bytes = bytes, .comm_def = UINT64_MAX};
    if (plugin_request)
        e.comm_def = instr_mpi_comm_def(comm);
    if (tracing() && (e.comm = instr_mpi_comm_ref(comm)) != UINT32_MAX) {
        e.id = instr_mpi_request_id();
        if (send)
            instr_mpi_trace_isend(peer, e.comm, tag, bytes, e.id);
        else
            instr_mpi_trace_irecv_request(e.id);
    }
    if (e.comm != UINT32_MAX || plugin_request)
        add(*request, e);
}

/* Bytes of a completed receive, or -1 when nothing arrived (MPI_PROC_NULL, cancelled). */
static int64_t received_bytes(const MPI_Status *status)
{
    if (!status || status->MPI_SOURCE == MPI_PROC_NULL)
        return -1;
    int cancelled = 0;
    if (PMPI_Test_cancelled(status, &cancelled) == MPI_SUCCESS && cancelled)
        return -1;
    int n = 0;
    if (PMPI_Get_count(status, MPI_BYTE, &n) != MPI_SUCCESS || n == MPI_UNDEFINED || n < 0)
        n = 0;
    return n;
}

void instr_mpi_received(int rc, const MPI_Status *status, MPI_Comm comm)
{
    int64_t n;
    if (rc != MPI_SUCCESS || (n = received_bytes(status)) < 0)
        return;
    if (instr_mpi_cp)
        instr_mpi_cp_recv(status, comm);
    instr_ext_messages(0, (uint64_t)n, 0, 1, 0);
    instr_mpi_plugins_msg(INSTR_EXT_PLUGINS_RECV, status->MPI_SOURCE, comm, status->MPI_TAG,
                          (uint64_t)n, 0);
    uint32_t c;
    if (tracing() && (c = instr_mpi_comm_ref(comm)) != UINT32_MAX)
        instr_mpi_trace_recv(status->MPI_SOURCE, c, status->MPI_TAG, (uint64_t)n);
}

void instr_mpi_irecv(int rc, const MPI_Request *request, int source, int tag, MPI_Comm comm)
{
    (void)tag;
    if (rc != MPI_SUCCESS || !request || *request == MPI_REQUEST_NULL || source == MPI_PROC_NULL)
        return;
    pending e = {.kind = RECV, .comm = UINT32_MAX, .mpi_comm = comm};
    if (tracing() && (e.comm = instr_mpi_comm_ref(comm)) != UINT32_MAX) {
        e.id = instr_mpi_request_id();
        instr_mpi_trace_irecv_request(e.id);
    }
    if (instr_mpi_plugin_events & INSTR_EXT_PLUGINS_IRECV) {
        e.plugin_request = instr_mpi_plugins_request_id();
        instr_ext_plugins_mpi_request(INSTR_EXT_PLUGINS_IRECV, e.plugin_request);
    }
    add(*request, e);
}

void instr_mpi_cp_irecv(const MPI_Request *request, MPI_Comm comm)
{
    if (request && *request != MPI_REQUEST_NULL)
        add(*request, (pending){.kind = RECV, .comm = UINT32_MAX, .mpi_comm = comm, .cp_only = 1});
}

void instr_mpi_cp_icoll_posted(const MPI_Request *request, void *state)
{
    add(*request, (pending){.kind = CP_COLL, .comm = UINT32_MAX, .cp_state = state});
}

void instr_mpi_io_request(const MPI_Request *request, const instr_io_pending *p)
{
    if (request && *request != MPI_REQUEST_NULL)
        add(*request, (pending){.kind = FILE_IO, .comm = UINT32_MAX, .io = *p});
}

void instr_mpi_comm_idup_posted(int rc, MPI_Comm comm, MPI_Comm *newcomm,
                                const MPI_Request *request, const uint32_t id[2], int define)
{
    if (rc != MPI_SUCCESS || !newcomm || !request || *request == MPI_REQUEST_NULL ||
        comm == MPI_COMM_NULL)
        return;
    pending e = {.kind = COMM_IDUP, .comm = UINT32_MAX, .newcomm = newcomm,
                 .idup = {id ? id[0] : 0, id ? id[1] : 0}, .define = define && id,
                 .op = INSTR_COLL_CREATE_HANDLE, .root = -1, .comm_def = UINT64_MAX};
    /* A non-blocking collective on comm (an untraced one, reaching outside the job: none). */
    if (tracing() && (e.comm = instr_mpi_comm_ref(comm)) != UINT32_MAX) {
        e.id = instr_mpi_request_id();
        instr_mpi_trace_icoll_request(e.id);
    }
    if (instr_mpi_plugin_events & INSTR_EXT_PLUGINS_HANDLE) {
        e.plugin_request = instr_mpi_plugins_request_id();
        e.comm_def = instr_mpi_comm_def(comm);
        instr_mpi_plugins_event(&(instr_ext_plugins_mpi_ev){
            .what = INSTR_EXT_PLUGINS_ICOLL_BEGIN, .op = INSTR_COLL_CREATE_HANDLE, .root = -1,
            .comm = e.comm_def, .request = e.plugin_request});
    }
    if (e.define || e.comm != UINT32_MAX || e.plugin_request)
        add(*request, e);
}

instr_mpi_idup_t instr_mpi_comm_idup_freeing(MPI_Request request)
{
    instr_mpi_idup_t d = {.req = MPI_REQUEST_NULL};
    if (request == MPI_REQUEST_NULL || !__atomic_load_n(&ntracked, __ATOMIC_RELAXED))
        return d;
    pthread_mutex_lock(&lock);
    pending *p = find(request), e;
    if (p && p->kind == COMM_IDUP && take(request, &e))
        d = (instr_mpi_idup_t){request,  e.newcomm, {e.idup[0], e.idup[1]}, e.define,
                               e.comm,   e.id,      e.plugin_request,       e.comm_def};
    pthread_mutex_unlock(&lock);
    return d;
}

void instr_mpi_comm_idup_not_freed(int rc, const instr_mpi_idup_t *d)
{
    /* Refused: the request is still the program's, to be completed by a wait or test (its
     * begin records were written when it was posted). */
    if (rc != MPI_SUCCESS && d->req != MPI_REQUEST_NULL)
        add(d->req, (pending){.kind = COMM_IDUP, .comm = d->comm, .newcomm = d->newcomm,
                              .idup = {d->id[0], d->id[1]}, .define = d->define,
                              .op = INSTR_COLL_CREATE_HANDLE, .root = -1, .id = d->trace_id,
                              .plugin_request = d->plugin_request, .comm_def = d->comm_def});
}

void instr_mpi_forget(MPI_Request request)
{
    if (!__atomic_load_n(&ntracked, __ATOMIC_RELAXED))
        return;
    pthread_mutex_lock(&lock);
    while (take(request, NULL))
        ;
    pthread_mutex_unlock(&lock);
}

instr_mpi_wait_t instr_mpi_wait_begin(int count, const MPI_Request *requests)
{
    instr_mpi_wait_t w;
    w.n = 0;
    w.saved = NULL;
    w.statuses = NULL;
    if (count <= 0 || !requests || !__atomic_load_n(&ntracked, __ATOMIC_RELAXED))
        return w;
    if (count > INSTR_MPI_WAIT_INLINE) {
        w.saved = instr_mem_alloc((size_t)count * sizeof *w.saved);
        if (!w.saved)
            return w; /* out of memory: receives completed here are not counted */
        memcpy(w.saved, requests, (size_t)count * sizeof *w.saved);
    } else {
        memcpy(w.saved_inline, requests, (size_t)count * sizeof *requests);
    }
    w.n = count;
    return w;
}

MPI_Status *instr_mpi_statuses(instr_mpi_wait_t *w, MPI_Status *statuses)
{
    if (w->n == 0 || statuses != MPI_STATUSES_IGNORE)
        return statuses;
    if (w->n <= INSTR_MPI_WAIT_INLINE)
        return w->statuses_inline;
    w->statuses = instr_mem_alloc((size_t)w->n * sizeof *w->statuses);
    return w->statuses ? w->statuses : statuses;
}

/* One tracked operation of a completed request. */
static void finish(const pending *ep, MPI_Status *status)
{
    pending e = *ep;
    int64_t n;
    switch (e.kind) {
    case RECV:
        if (status == MPI_STATUS_IGNORE || (n = received_bytes(status)) < 0)
            return;
        if (e.persistent) { /* its piggyback: the critical path's own (cp_only) entry */
            if (e.plugin_request)
                instr_mpi_plugins_event(&(instr_ext_plugins_mpi_ev){
                    .what = INSTR_EXT_PLUGINS_P_COMPLETE, .partner = status->MPI_SOURCE,
                    .tag = status->MPI_TAG, .comm = e.comm_def, .bytes = (uint64_t)n,
                    .request = e.plugin_request});
            if (e.comm != UINT32_MAX && tracing())
                instr_mpi_trace_irecv(status->MPI_SOURCE, e.comm, status->MPI_TAG,
                                      (uint64_t)n, e.id);
            break;
        }
        if (instr_mpi_cp)
            instr_mpi_cp_recv(status, e.mpi_comm);
        if (e.cp_only)
            return;
        instr_ext_messages(0, (uint64_t)n, 0, 1, 0);
        if (e.plugin_request)
            instr_mpi_plugins_msg(INSTR_EXT_PLUGINS_IRECV, status->MPI_SOURCE, e.mpi_comm,
                                  status->MPI_TAG, (uint64_t)n, e.plugin_request);
        if (e.comm != UINT32_MAX && tracing())
            instr_mpi_trace_irecv(status->MPI_SOURCE, e.comm, status->MPI_TAG, (uint64_t)n,
                                  e.id);
        break;
    case SEND:
        if (e.comm != UINT32_MAX && tracing())
            instr_mpi_trace_isend_complete(e.id);
        if (e.plugin_request && e.persistent)
            instr_mpi_plugins_event(&(instr_ext_plugins_mpi_ev){
                .what = INSTR_EXT_PLUGINS_P_COMPLETE, .partner = e.peer, .tag = e.tag,
                .comm = e.comm_def, .bytes = e.bytes, .request = e.plugin_request});
        else if (e.plugin_request)
            instr_ext_plugins_mpi_request(INSTR_EXT_PLUGINS_ISEND, e.plugin_request);
        break;
    case COLL:
        if (e.comm != UINT32_MAX && tracing())
            instr_mpi_trace_icoll_complete(e.op, e.comm, e.root, e.sent, e.recvd, e.id);
        if (e.plugin_request)
            instr_mpi_plugins_event(&(instr_ext_plugins_mpi_ev){
                .what = INSTR_EXT_PLUGINS_ICOLL_END, .op = (uint32_t)e.op, .root = e.root,
                .comm = e.comm_def, .sent = e.sent, .recvd = e.recvd,
                .request = e.plugin_request});
        break;
    case CP_COLL:
        instr_mpi_cp_icoll_done(e.cp_state);
        break;
    case COMM_IDUP:
        if (e.define)
            instr_mpi_comm_idup_done(*e.newcomm, e.idup, e.comm);
        if (e.comm != UINT32_MAX && tracing())
            instr_mpi_trace_icoll_complete(e.op, e.comm, e.root, 0, 0, e.id);
        if (e.plugin_request)
            instr_mpi_plugins_event(&(instr_ext_plugins_mpi_ev){
                .what = INSTR_EXT_PLUGINS_ICOLL_END, .op = (uint32_t)e.op, .root = e.root,
                .comm = e.comm_def, .request = e.plugin_request});
        break;
    case FILE_IO: {
        /* Not MPI_Test_cancelled: an MPI-IO request's status need not set that field (Open
         * MPI's OMPIO leaves it as it was). */
        int n = 0;
        if (status == MPI_STATUS_IGNORE ||
            PMPI_Get_count(status, MPI_BYTE, &n) != MPI_SUCCESS || n == MPI_UNDEFINED || n < 0)
            n = 0;
        instr_ext_io_mpi_done(&e.io, 0, (uint64_t)n);
        break;
    }
    }
}

/* A test that completed nothing: IoOperationTest for the MPI-IO operations among the
 * requests (they stay tracked). */
static void tested(const MPI_Request *saved, int n)
{
    for (int i = 0; i < n; i++) {
        pthread_mutex_lock(&lock);
        pending *p = find(saved[i]);
        pending e = p ? *p : (pending){0};
        pthread_mutex_unlock(&lock);
        if (p && e.kind == FILE_IO)
            instr_ext_io_mpi_done(&e.io, 1, 0);
    }
}

/* A request may be tracked twice (a traced nonblocking collective also has the critical
 * path's reduction): every entry of it is finished. */
static void completed(MPI_Request before, MPI_Status *status)
{
    pending e;
    for (;;) {
        pthread_mutex_lock(&lock);
        int was = take(before, &e);
        pthread_mutex_unlock(&lock);
        if (!was)
            return;
        finish(&e, status);
    }
}

void instr_mpi_wait_end(instr_mpi_wait_t *w, int rc, int count, const MPI_Request *requests,
                        const int *outcount, const int *indices, MPI_Status *statuses, int done)
{
    (void)requests;
    if (w->n == 0)
        return;
    const MPI_Request *saved = w->n > INSTR_MPI_WAIT_INLINE ? w->saved : w->saved_inline;
    if (rc == MPI_SUCCESS && done && statuses != MPI_STATUSES_IGNORE) {
        if (!outcount) {
            for (int i = 0; i < count && i < w->n; i++)
                completed(saved[i], &statuses[i]);
        } else if (*outcount != MPI_UNDEFINED) {
            for (int k = 0; k < *outcount; k++)
                if (indices[k] >= 0 && indices[k] < w->n)
                    completed(saved[indices[k]], &statuses[k]);
        }
    } else if (rc == MPI_SUCCESS && !done) {
        tested(saved, count < w->n ? count : w->n);
    }
    instr_mem_free(w->saved);
    instr_mem_free(w->statuses);
}
