/* mpi_critpath.c — the critical path's exchanges in an MPI job (INSTR_CRITICAL_PATH=1;
 * docs/critical-path.md).
 *
 * The piggyback of a message is a separate message: the sender's path record (critpath.h's
 * instr_cp_record, header and used entries only, at most 1,576 bytes) on a private duplicate
 * of MPI_COMM_WORLD, sent to the destination's rank in MPI_COMM_WORLD with the application
 * message's tag, right after the application's send was posted. The receiver, once its
 * receive completed, receives it from the status's source (translated to MPI_COMM_WORLD)
 * with the status's tag, so MPI_ANY_SOURCE and MPI_ANY_TAG receive the right one. Messages
 * of one pair with one tag are received in the order they were sent on both communicators
 * (MPI's non-overtaking rule), so the k-th piggyback belongs to the k-th message. The
 * application's messages, their matching and their communicators are untouched.
 *
 * A blocking collective is followed by an MPI_Allreduce of the records over the same
 * communicator with an operation that keeps the longer path (collectives on one communicator
 * are ordered, and every participant makes the same extra call). MPI_Init and MPI_Finalize
 * take the maximum over MPI_COMM_WORLD; at MPI_Finalize rank 0 also gathers every rank's
 * totals and the names of the regions on the path and writes critical-path.json. */
#include "mpi_wrap.h"
#include "../util/array.h"
#include "../util/pages.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int instr_mpi_cp;
static MPI_Comm cp_comm = MPI_COMM_NULL;
static MPI_Datatype cp_type = MPI_DATATYPE_NULL;
static MPI_Op cp_op = MPI_OP_NULL;
static MPI_Group world_group = MPI_GROUP_NULL;

static void keep_longer(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    instr_cp_record *a = in, *b = inout;
    for (int i = 0; i < *len; i++)
        instr_ext_cp_max(&b[i], &a[i]);
}

/* The longest path over comm, into this process's clock. */
static void reduce(MPI_Comm comm)
{
    instr_cp_record mine, all;
    size_t used = instr_ext_cp_snapshot(&mine);
    memset((char *)&mine + used, 0, sizeof mine - used);
    if (PMPI_Allreduce(&mine, &all, 1, cp_type, cp_op, comm) == MPI_SUCCESS)
        instr_ext_cp_merge(&all, sizeof all);
}

void instr_mpi_cp_init(MPI_Comm job_comm, int rank)
{
    /* Every rank must agree, or one would wait for a piggyback that never comes. */
    int mine = instr_ext_cp_on(), all = 0;
    PMPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, job_comm);
    if (!all) {
        if (mine)
            fprintf(stderr, "instr: INSTR_CRITICAL_PATH=1 is not set on every rank (or the "
                            "runtime could not start it on some): the critical path is not "
                            "measured\n");
        return;
    }
    if (PMPI_Comm_dup(MPI_COMM_WORLD, &cp_comm) != MPI_SUCCESS ||
        PMPI_Type_contiguous((int)sizeof(instr_cp_record), MPI_BYTE, &cp_type) != MPI_SUCCESS ||
        PMPI_Type_commit(&cp_type) != MPI_SUCCESS ||
        PMPI_Op_create(keep_longer, 1, &cp_op) != MPI_SUCCESS ||
        PMPI_Comm_group(MPI_COMM_WORLD, &world_group) != MPI_SUCCESS)
        return;
    instr_ext_cp_set_rank(rank);
    reduce(cp_comm); /* MPI_Init synchronises: the path so far is the longest start-up */
    instr_mpi_cp = 1;
}

/* The rank in MPI_COMM_WORLD of rank r of comm (of its remote group for an
 * intercommunicator); -1 when it cannot be known. */
static int world_rank(MPI_Comm comm, int r)
{
    if (comm == MPI_COMM_WORLD || comm == MPI_COMM_NULL)
        return comm == MPI_COMM_WORLD ? r : -1;
    int inter = 0, w = MPI_UNDEFINED;
    MPI_Group g;
    PMPI_Comm_test_inter(comm, &inter);
    if ((inter ? PMPI_Comm_remote_group(comm, &g) : PMPI_Comm_group(comm, &g)) != MPI_SUCCESS)
        return -1;
    PMPI_Group_translate_ranks(g, 1, &r, world_group, &w);
    PMPI_Group_free(&g);
    return w == MPI_UNDEFINED ? -1 : w;
}

void instr_mpi_cp_send(int dest, int tag, MPI_Comm comm)
{
    int w = world_rank(comm, dest);
    if (w < 0)
        return;
    instr_cp_record rec;
    size_t used = instr_ext_cp_snapshot(&rec);
    /* Small enough to go eagerly (docs/critical-path.md): this never waits for the receiver. */
    PMPI_Send(&rec, (int)used, MPI_BYTE, w, tag, cp_comm);
}

void instr_mpi_cp_recv(const MPI_Status *status, MPI_Comm comm)
{
    int w = world_rank(comm, status->MPI_SOURCE);
    if (w < 0)
        return;
    instr_cp_record rec;
    MPI_Status st;
    int n = 0;
    if (PMPI_Recv(&rec, (int)sizeof rec, MPI_BYTE, w, status->MPI_TAG, cp_comm, &st) !=
            MPI_SUCCESS ||
        PMPI_Get_count(&st, MPI_BYTE, &n) != MPI_SUCCESS || n <= 0)
        return;
    instr_ext_cp_merge(&rec, (size_t)n);
}

void instr_mpi_cp_coll(MPI_Comm comm)
{
    int inter = 0;
    if (comm == MPI_COMM_NULL || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
        return; /* an intercommunicator's allreduce mixes the groups' values: not taken */
    reduce(comm);
}

void instr_mpi_cp_finalize(int rank, int size)
{
    reduce(cp_comm);
    instr_cp_record path;
    instr_ext_cp_snapshot(&path);
    instr_cp_process me, *procs = rank == 0 ? instr_mem_calloc((size_t)size, sizeof *procs) : NULL;
    instr_ext_cp_process(&me);
    PMPI_Gather(&me, (int)sizeof me, MPI_BYTE, procs, (int)sizeof me, MPI_BYTE, 0, cp_comm);
    /* Each region is named by the rank that put it on the path. */
    size_t len = 0;
    char *names = instr_ext_cp_names(&path, &len);
    int mylen = (int)len, *lens = rank == 0 ? instr_mem_calloc((size_t)size, sizeof *lens) : NULL;
    int *displs = rank == 0 ? instr_mem_calloc((size_t)size, sizeof *displs) : NULL;
    PMPI_Gather(&mylen, 1, MPI_INT, lens, 1, MPI_INT, 0, cp_comm);
    char *all = NULL;
    size_t total = 0;
    if (rank == 0 && lens && displs) {
        for (int r = 0; r < size; r++) {
            displs[r] = (int)total;
            total += (size_t)lens[r];
        }
        all = instr_mem_alloc(total + 1);
    }
    PMPI_Gatherv(names ? names : "", mylen, MPI_CHAR, all, lens, displs, MPI_CHAR, 0, cp_comm);
    if (rank == 0) {
        if (procs && all)
            instr_ext_cp_write(NULL, size, procs, &path, all, total);
        else
            fprintf(stderr, "instr: critical path: out of memory at the end: "
                            "critical-path.json is not written\n");
    }
    instr_mem_free(names);
    instr_mem_free(all);
    instr_mem_free(lens);
    instr_mem_free(displs);
    instr_mem_free(procs);
    instr_mpi_cp = 0; /* what comes after MPI_Finalize is not exchanged */
}

/* Persistent requests: a short list (programs make few), guarded by a mutex. */
typedef struct persistent {
    MPI_Request req;
    int send, peer, tag;
    MPI_Comm comm;
} persistent;
static persistent *plist;
static size_t pn, pcap;
static pthread_mutex_t plock = PTHREAD_MUTEX_INITIALIZER;

void instr_mpi_cp_persistent(int rc, const MPI_Request *request, int send, int peer, int tag,
                             MPI_Comm comm)
{
    if (!instr_mpi_cp || rc != MPI_SUCCESS || !request || *request == MPI_REQUEST_NULL ||
        peer == MPI_PROC_NULL)
        return;
    pthread_mutex_lock(&plock);
    if (instr_array_grow(&plist, &pcap, pn + 1, sizeof *plist, 16) == 0)
        plist[pn++] = (persistent){*request, send, peer, tag, comm};
    pthread_mutex_unlock(&plock);
}

static int find_persistent(MPI_Request r, persistent *out)
{
    for (size_t i = 0; i < pn; i++)
        if (memcmp(&plist[i].req, &r, sizeof r) == 0) {
            *out = plist[i];
            return 1;
        }
    return 0;
}

void instr_mpi_cp_start(int rc, int count, const MPI_Request *requests)
{
    if (!instr_mpi_cp || rc != MPI_SUCCESS || !requests)
        return;
    for (int i = 0; i < count; i++) {
        persistent p;
        pthread_mutex_lock(&plock);
        int known = find_persistent(requests[i], &p);
        pthread_mutex_unlock(&plock);
        if (!known)
            continue;
        if (p.send)
            instr_mpi_cp_send(p.peer, p.tag, p.comm);
        else
            instr_mpi_cp_irecv(&requests[i], p.comm);
    }
}

void instr_mpi_cp_forget(MPI_Request request)
{
    if (!__atomic_load_n(&pn, __ATOMIC_RELAXED))
        return;
    pthread_mutex_lock(&plock);
    for (size_t i = 0; i < pn; i++)
        if (memcmp(&plist[i].req, &request, sizeof request) == 0) {
            plist[i] = plist[--pn];
            break;
        }
    pthread_mutex_unlock(&plock);
}

/* A nonblocking collective: the reduction of the records as of its start, itself started now
 * (every participant starts it right after the program's call, so in the same order), and
 * waited for when the program's request completes. */
typedef struct icoll {
    MPI_Request req;
    instr_cp_record mine, all;
} icoll;

void instr_mpi_cp_icoll(MPI_Comm comm, const MPI_Request *request)
{
    int inter = 0;
    if (!request || *request == MPI_REQUEST_NULL || comm == MPI_COMM_NULL ||
        PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
        return;
    /* Every participant must start the reduction: out of memory, this rank starts it in a
     * buffer of its own and waits for it at once (the others started theirs already or
     * will right after their own call, so this never waits for long). */
    static icoll spare;
    icoll *c = instr_mem_alloc(sizeof *c);
    icoll *use = c ? c : &spare;
    size_t used = instr_ext_cp_snapshot(&use->mine);
    memset((char *)&use->mine + used, 0, sizeof use->mine - used);
    if (PMPI_Iallreduce(&use->mine, &use->all, 1, cp_type, cp_op, comm, &use->req) !=
        MPI_SUCCESS) {
        instr_mem_free(c);
        return;
    }
    if (c) {
        instr_mpi_cp_icoll_posted(request, c);
    } else if (PMPI_Wait(&spare.req, MPI_STATUS_IGNORE) == MPI_SUCCESS) {
        instr_ext_cp_merge(&spare.all, sizeof spare.all);
    }
}

void instr_mpi_cp_icoll_done(void *state)
{
    icoll *c = state;
    if (PMPI_Wait(&c->req, MPI_STATUS_IGNORE) == MPI_SUCCESS)
        instr_ext_cp_merge(&c->all, sizeof c->all);
    instr_mem_free(c);
}

/* Matched probes: message handle -> communicator, from MPI_(I)mprobe to MPI_(I)mrecv, for
 * the critical path's piggyback and the trace's and plugins' receive records (mpi_msg.c). A
 * short list: a program holds few probed messages at a time. */
typedef struct probed {
    MPI_Message msg;
    MPI_Comm comm;
} probed;
static probed *mlist;
static size_t mn, mcap;

void instr_mpi_mprobe(MPI_Message message, MPI_Comm comm)
{
    int wanted = instr_mpi_cp || __atomic_load_n(&instr_mpi_tracing, __ATOMIC_RELAXED) ||
                 (instr_mpi_plugin_events & (INSTR_EXT_PLUGINS_RECV | INSTR_EXT_PLUGINS_IRECV));
    if (!wanted || message == MPI_MESSAGE_NULL || message == MPI_MESSAGE_NO_PROC)
        return;
    pthread_mutex_lock(&plock);
    if (instr_array_grow(&mlist, &mcap, mn + 1, sizeof *mlist, 16) == 0) {
        mlist[mn] = (probed){message, comm};
        __atomic_store_n(&mn, mn + 1, __ATOMIC_RELAXED); /* read without the lock as a hint */
    }
    pthread_mutex_unlock(&plock);
}

MPI_Comm instr_mpi_message_comm(MPI_Message message)
{
    MPI_Comm c = MPI_COMM_NULL;
    if (!__atomic_load_n(&mn, __ATOMIC_RELAXED))
        return c;
    pthread_mutex_lock(&plock);
    for (size_t i = 0; i < mn; i++)
        if (memcmp(&mlist[i].msg, &message, sizeof message) == 0) {
            c = mlist[i].comm;
            mlist[i] = mlist[mn - 1];
            __atomic_store_n(&mn, mn - 1, __ATOMIC_RELAXED);
            break;
        }
    pthread_mutex_unlock(&plock);
    return c;
}
