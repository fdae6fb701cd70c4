/* mpi_coll.c — collectives: the bytes each rank sends and receives and one operation per
 * call (into the profile's `collectives`; its message counts are for point-to-point
 * messages), and the OTF2 records (MpiCollectiveBegin/End around a blocking one;
 * NonBlockingCollectiveRequest now and ...Complete in the wait or test that completes a
 * nonblocking one).
 *
 * Bytes follow Score-P's convention, which keeps the job's sent and received bytes equal:
 * a block is count x datatype size; a rooted call counts every rank's block at the root
 * (Bcast: the root sends N blocks, each rank receives one; Gather: each rank sends one, the
 * root receives N), an all-to-all call N blocks per rank, Scan rank r sends N - r blocks and
 * receives r + 1 (Exscan N - r - 1 and r). With MPI_IN_PLACE the rank's own block is taken
 * from the arguments MPI uses instead. On an inter-communicator the data goes to the other
 * group (R ranks): a rooted call's root (MPI_ROOT) sends or receives R blocks, the other
 * group's ranks one each, the root's group's other ranks (MPI_PROC_NULL) nothing; an
 * all-to-all call sends and receives R blocks per rank (Reduce_scatter and _block: its
 * whole vector out, its own block from each of the R ranks in), so that the job's sent and
 * received bytes stay equal. Neighbourhood collectives are not covered (region only; docs/mpi.md).
 *
 * Communicator creation and MPI_Comm_free are collectives too, as Score-P records them
 * (instr_mpi_comm_coll_begin/_end): MpiCollectiveBegin/End with OTF2's CREATE_HANDLE or
 * DESTROY_HANDLE, root undefined, sizes 0; not in the profile's collectives. So are an RMA
 * window's creation and MPI_Win_free, on the window's communicator
 * (instr_mpi_win_coll_begin). */
#include "mpi_wrap.h"

_Static_assert((int)INSTR_COLL_CREATE_HANDLE == (int)INSTR_SUBSTRATE_COLL_CREATE_HANDLE &&
                   (int)INSTR_COLL_DESTROY_HANDLE == (int)INSTR_SUBSTRATE_COLL_DESTROY_HANDLE &&
                   (int)INSTR_COLL_REDUCE_SCATTER_BLOCK ==
                       (int)INSTR_SUBSTRATE_COLL_REDUCE_SCATTER_BLOCK,
               "INSTR_COLL_* are the plugin interface's collective operations");

static uint64_t bytes(int count, MPI_Datatype t)
{
    int size = 0;
    if (count <= 0 || t == MPI_DATATYPE_NULL || PMPI_Type_size(t, &size) != MPI_SUCCESS ||
        size <= 0)
        return 0;
    return (uint64_t)count * (uint64_t)size;
}

static int nprocs(MPI_Comm comm)
{
    int n = 0;
    PMPI_Comm_size(comm, &n);
    return n > 0 ? n : 0;
}

static int myrank(MPI_Comm comm)
{
    int r = 0;
    PMPI_Comm_rank(comm, &r);
    return r;
}

static int inter(MPI_Comm comm)
{
    int flag = 0;
    return PMPI_Comm_test_inter(comm, &flag) == MPI_SUCCESS && flag;
}

/* An inter-communicator's remote group size; 0 for an intra-communicator. */
static int remote_size(MPI_Comm comm)
{
    int n = 0;
    if (!inter(comm) || PMPI_Comm_remote_size(comm, &n) != MPI_SUCCESS || n < 0)
        return 0;
    return n;
}

static uint64_t sum(const int *counts, int n, MPI_Datatype t)
{
    uint64_t total = 0;
    for (int i = 0; counts && i < n; i++)
        total += bytes(counts[i], t);
    return total;
}

void instr_mpi_coll_begin(MPI_Comm comm)
{
    if (instr_mpi_plugin_events & INSTR_EXT_PLUGINS_COLL)
        instr_ext_plugins_mpi_coll_begin(0);
    if (__atomic_load_n(&instr_mpi_tracing, __ATOMIC_RELAXED) &&
        instr_mpi_comm_ref(comm) != UINT32_MAX)
        instr_mpi_trace_coll_begin();
}

/* A blocking call's End follows its Begin whatever happened (sizes 0 on error), so that the
 * pair stays balanced; an untraced communicator (one reaching outside the job, e.g. MPI_Comm_spawn's)
 * gets neither. */
static void finish(int rc, int op, MPI_Comm comm, int root, uint64_t sent, uint64_t recvd,
                   const MPI_Request *request)
{
    /* An inter-communicator's root group: the interface's own numbers (OTF2's meaning). */
    if (root == MPI_ROOT)
        root = INSTR_SUBSTRATE_ROOT_SELF;
    else if (root == MPI_PROC_NULL)
        root = INSTR_SUBSTRATE_ROOT_THIS_GROUP;
    if (rc == MPI_SUCCESS) /* a nonblocking one counts where it starts, as its bytes do */
        instr_ext_messages(sent, recvd, 0, 0, 1);
    if (!request && (instr_mpi_plugin_events & INSTR_EXT_PLUGINS_COLL))
        instr_ext_plugins_mpi_coll_end((uint32_t)op, instr_mpi_plugins_comm(comm), root,
                                       rc == MPI_SUCCESS ? sent : 0,
                                       rc == MPI_SUCCESS ? recvd : 0);
    int tracing = __atomic_load_n(&instr_mpi_tracing, __ATOMIC_RELAXED);
    uint32_t c = tracing ? instr_mpi_comm_ref(comm) : UINT32_MAX;
    if (!request) {
        if (c != UINT32_MAX)
            instr_mpi_trace_coll_end(op, c, root, rc == MPI_SUCCESS ? sent : 0,
                                     rc == MPI_SUCCESS ? recvd : 0);
        return;
    }
    if (rc != MPI_SUCCESS || *request == MPI_REQUEST_NULL)
        return;
    /* A non-blocking one: begins now for plugins, ends in the wait or test (mpi_msg.c). */
    uint64_t preq = 0, def = UINT64_MAX;
    if (instr_mpi_plugin_events & INSTR_EXT_PLUGINS_ICOLL) {
        preq = instr_mpi_plugins_request_id();
        def = instr_mpi_comm_def(comm);
        instr_mpi_plugins_event(&(instr_ext_plugins_mpi_ev){
            .what = INSTR_EXT_PLUGINS_ICOLL_BEGIN, .op = (uint32_t)op, .root = root,
            .comm = def, .sent = sent, .recvd = recvd, .request = preq});
    }
    if (c != UINT32_MAX || preq)
        instr_mpi_icoll_posted(request, op, c, root, sent, recvd, preq, def);
}

void instr_mpi_coll_barrier(int rc, MPI_Comm comm, const MPI_Request *request)
{
    finish(rc, INSTR_COLL_BARRIER, comm, -1, 0, 0, request);
}

void instr_mpi_coll_bcast(int rc, int count, MPI_Datatype t, int root, MPI_Comm comm,
                          const MPI_Request *request)
{
    uint64_t b = bytes(count, t);
    if (inter(comm)) { /* the root sends to every rank of the other group */
        int remote = 0;
        PMPI_Comm_remote_size(comm, &remote);
        finish(rc, INSTR_COLL_BCAST, comm, root, root == MPI_ROOT ? (uint64_t)remote * b : 0,
               root >= 0 ? b : 0, request);
        return;
    }
    uint64_t sent = myrank(comm) == root ? (uint64_t)nprocs(comm) * b : 0;
    finish(rc, INSTR_COLL_BCAST, comm, root, sent, b, request);
}

void instr_mpi_coll_gather(int rc, int op, const void *sendbuf, int scount, MPI_Datatype st,
                           int rcount, const int *rcounts, MPI_Datatype rt, int root,
                           MPI_Comm comm, const MPI_Request *request)
{
    int rn = remote_size(comm);
    if (rn) { /* no MPI_IN_PLACE on an inter-communicator */
        uint64_t recvd = 0;
        if (root == MPI_ROOT)
            recvd = rcounts ? sum(rcounts, rn, rt) : (uint64_t)rn * bytes(rcount, rt);
        finish(rc, op, comm, root, root >= 0 ? bytes(scount, st) : 0, recvd, request);
        return;
    }
    int n = nprocs(comm), me = myrank(comm);
    uint64_t sent = sendbuf == MPI_IN_PLACE ? bytes(rcounts ? rcounts[me] : rcount, rt)
                                            : bytes(scount, st);
    uint64_t recvd = 0;
    if (me == root)
        recvd = rcounts ? sum(rcounts, n, rt) : (uint64_t)n * bytes(rcount, rt);
    finish(rc, op, comm, root, sent, recvd, request);
}

void instr_mpi_coll_scatter(int rc, int op, int scount, const int *scounts, MPI_Datatype st,
                            const void *recvbuf, int rcount, MPI_Datatype rt, int root,
                            MPI_Comm comm, const MPI_Request *request)
{
    int rn = remote_size(comm);
    if (rn) {
        uint64_t sent = 0;
        if (root == MPI_ROOT)
            sent = scounts ? sum(scounts, rn, st) : (uint64_t)rn * bytes(scount, st);
        finish(rc, op, comm, root, sent, root >= 0 ? bytes(rcount, rt) : 0, request);
        return;
    }
    int n = nprocs(comm), me = myrank(comm);
    uint64_t sent = 0;
    if (me == root)
        sent = scounts ? sum(scounts, n, st) : (uint64_t)n * bytes(scount, st);
    uint64_t recvd = recvbuf == MPI_IN_PLACE ? bytes(scounts ? scounts[me] : scount, st)
                                             : bytes(rcount, rt);
    finish(rc, op, comm, root, sent, recvd, request);
}

void instr_mpi_coll_allgather(int rc, int op, const void *sendbuf, int scount, MPI_Datatype st,
                              int rcount, const int *rcounts, MPI_Datatype rt, MPI_Comm comm,
                              const MPI_Request *request)
{
    int rn = remote_size(comm); /* an inter-communicator: to and from the other group */
    int n = rn ? rn : nprocs(comm), me = myrank(comm);
    uint64_t block = sendbuf == MPI_IN_PLACE && !rn
                         ? bytes(rcounts ? rcounts[me] : rcount, rt)
                         : bytes(scount, st);
    uint64_t recvd = rcounts ? sum(rcounts, n, rt) : (uint64_t)n * bytes(rcount, rt);
    finish(rc, op, comm, -1, (uint64_t)n * block, recvd, request);
}

void instr_mpi_coll_alltoall(int rc, int op, const void *sendbuf, int scount,
                             const int *scounts, const MPI_Datatype *sts, MPI_Datatype st,
                             int rcount, const int *rcounts, const MPI_Datatype *rts,
                             MPI_Datatype rt, MPI_Comm comm, const MPI_Request *request)
{
    int rn = remote_size(comm); /* an inter-communicator: to and from the other group */
    int n = rn ? rn : nprocs(comm);
    uint64_t sent = 0, recvd = 0;
    if (rts) {
        for (int i = 0; rcounts && i < n; i++)
            recvd += bytes(rcounts[i], rts[i]);
        for (int i = 0; scounts && sts && sendbuf != MPI_IN_PLACE && i < n; i++)
            sent += bytes(scounts[i], sts[i]);
    } else if (rcounts) {
        recvd = sum(rcounts, n, rt);
        sent = sendbuf == MPI_IN_PLACE ? 0 : sum(scounts, n, st);
    } else {
        recvd = (uint64_t)n * bytes(rcount, rt);
        sent = sendbuf == MPI_IN_PLACE ? 0 : (uint64_t)n * bytes(scount, st);
    }
    if (sendbuf == MPI_IN_PLACE)
        sent = recvd;
    finish(rc, op, comm, -1, sent, recvd, request);
}

void instr_mpi_coll_reduce(int rc, int op, int count, const int *rcounts, MPI_Datatype t,
                           int root, MPI_Comm comm, const MPI_Request *request)
{
    uint64_t n = (uint64_t)nprocs(comm), me = (uint64_t)myrank(comm), b = bytes(count, t);
    uint64_t sent = 0, recvd = 0, rn = (uint64_t)remote_size(comm);
    if (rn) { /* no scans on an inter-communicator */
        switch (op) {
        case INSTR_COLL_REDUCE:
            sent = root >= 0 ? b : 0;
            recvd = root == MPI_ROOT ? rn * b : 0;
            break;
        case INSTR_COLL_ALLREDUCE:
            sent = recvd = rn * b;
            break;
        /* The local group's blocks make the vector (both groups' vectors are as long), the
         * other group's vectors reduce into the rank's own block. */
        case INSTR_COLL_REDUCE_SCATTER_BLOCK:
            sent = n * b;
            recvd = rn * b;
            break;
        case INSTR_COLL_REDUCE_SCATTER:
            sent = sum(rcounts, (int)n, t);
            recvd = rcounts ? rn * bytes(rcounts[me], t) : 0;
            break;
        }
        finish(rc, op, comm, op == INSTR_COLL_REDUCE ? root : -1, sent, recvd, request);
        return;
    }
    switch (op) {
    case INSTR_COLL_REDUCE:
        sent = b;
        recvd = (int)me == root ? n * b : 0;
        break;
    case INSTR_COLL_ALLREDUCE:
    case INSTR_COLL_REDUCE_SCATTER_BLOCK:
        sent = recvd = n * b;
        break;
    case INSTR_COLL_REDUCE_SCATTER:
        sent = sum(rcounts, (int)n, t);
        recvd = rcounts ? n * bytes(rcounts[me], t) : 0;
        break;
    case INSTR_COLL_SCAN:
        sent = (n - me) * b;
        recvd = (me + 1) * b;
        break;
    case INSTR_COLL_EXSCAN:
        sent = (n - me - 1) * b;
        recvd = me * b;
        break;
    }
    finish(rc, op, comm, op == INSTR_COLL_REDUCE ? root : -1, sent, recvd, request);
}

/* A communicator's or window's creation or free begun on the communicator whose trace ref
 * and plugins' definition these are (on_new: to be ended over the new communicator). */
static instr_mpi_handle_t handle_begin(uint32_t ref, uint64_t def, int on_new)
{
    instr_mpi_handle_t h = {UINT32_MAX, UINT64_MAX, 0, on_new};
    if (instr_mpi_plugin_events & INSTR_EXT_PLUGINS_HANDLE) {
        h.def = def;
        h.on |= 2;
        instr_ext_plugins_mpi_coll_begin(1);
    }
    /* An untraced communicator (one reaching outside the job: MPI_Comm_spawn's) gets
     * neither record. */
    if (__atomic_load_n(&instr_mpi_tracing, __ATOMIC_RELAXED) && ref != UINT32_MAX) {
        h.ref = ref;
        h.on |= 1;
        instr_mpi_trace_coll_begin();
    }
    return h;
}

instr_mpi_handle_t instr_mpi_comm_coll_begin(MPI_Comm comm, int on_new)
{
    if (comm == MPI_COMM_NULL)
        return (instr_mpi_handle_t){UINT32_MAX, UINT64_MAX, 0, on_new};
    return handle_begin(instr_mpi_comm_ref(comm), instr_mpi_comm_def(comm), on_new);
}

instr_mpi_handle_t instr_mpi_win_coll_begin(MPI_Win win)
{
    uint32_t ref;
    uint64_t def;
    if (win == MPI_WIN_NULL)
        return (instr_mpi_handle_t){UINT32_MAX, UINT64_MAX, 0, 0};
    instr_mpi_win_comm(win, &ref, &def);
    return handle_begin(ref, def, 0);
}

void instr_mpi_comm_coll_end(const instr_mpi_handle_t *h, int op, MPI_Comm made)
{
    uint32_t ref = h->ref;
    uint64_t def = h->def;
    if (h->on_new && made != MPI_COMM_NULL) { /* MPI_Comm_create_group: over the new one */
        uint32_t r = h->on & 1 ? instr_mpi_comm_ref(made) : UINT32_MAX;
        uint64_t d = h->on & 2 ? instr_mpi_comm_def(made) : UINT64_MAX;
        ref = r != UINT32_MAX ? r : ref;
        def = d != UINT64_MAX ? d : def;
    }
    if (h->on & 2)
        instr_ext_plugins_mpi_coll_end((uint32_t)op, (instr_ext_plugins_comm_id){0, def}, -1, 0,
                                       0);
    if (h->on & 1)
        instr_mpi_trace_coll_end(op, ref, -1, 0, 0);
}
