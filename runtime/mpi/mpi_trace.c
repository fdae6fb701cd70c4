/* mpi_trace.c — the MPI side of the job's OTF2 trace (docs/mpi.md, "Trace"); the archive and
 * the definitions are the runtime's (runtime/trace/job.c, reached through ext.h).
 *
 *   MPI_Init      all ranks agree whether to trace (INSTR_ENABLE_TRACING must be set on all);
 *                 the archive is opened with OTF2's own MPI collective callbacks
 *                 (OTF2_MPI_Collectives.h, calling PMPI_*, on a private communicator);
 *                 MPI_COMM_WORLD and MPI_COMM_SELF get their refs; the clock offset against
 *                 rank 0 is measured.
 *   communicators every new communicator gets a job-wide identity (mpi_defs.c: the
 *                 world rank of its rank 0, the leader, and the leader's own counter); the
 *                 leader also records the members' world ranks. The local ref is cached as
 *                 an MPI attribute, so a freed and reused handle never finds a stale ref.
 *                 An inter-communicator is an OTF2 InterComm: its records' partners are
 *                 ranks in the remote group, as MPI's are.
 *   records       MpiSend/MpiRecv, MpiIsend/MpiIsendComplete, MpiIrecvRequest/MpiIrecv,
 *                 MpiCollectiveBegin/End, NonBlockingCollectiveRequest/Complete (communicator
 *                 creation and MPI_Comm_free too: CREATE_HANDLE, DESTROY_HANDLE), written into
 *                 the calling thread's event writer between the MPI region's Enter and Leave.
 *   the end       (after MPI_Finalize, all ranks) the clock offset again; recording stops,
 *                 and the job unifies the ranks' definitions by a tree and closes the
 *                 archive collectively (runtime/job/mpi_trace_unify.c). */
#include "mpi_wrap.h"
#include "../util/pages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int instr_mpi_tracing;

#ifdef INSTR_MPI_HAVE_TRACE
#include <otf2/otf2.h>
#define OTF2_MPI_USE_PMPI
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include <otf2/OTF2_MPI_Collectives.h>
#pragma GCC diagnostic pop

#define TAG_CLOCK 7302
#define PINGS 5

_Static_assert((int)INSTR_COLL_BARRIER == (int)OTF2_COLLECTIVE_OP_BARRIER &&
                   (int)INSTR_COLL_REDUCE_SCATTER_BLOCK ==
                       (int)OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK,
               "INSTR_COLL_* are OTF2's collective operations");
_Static_assert((int)INSTR_COLL_CREATE_HANDLE == (int)OTF2_COLLECTIVE_OP_CREATE_HANDLE &&
                   (int)INSTR_COLL_DESTROY_HANDLE == (int)OTF2_COLLECTIVE_OP_DESTROY_HANDLE,
               "INSTR_COLL_* are OTF2's collective operations");

static int keyval = MPI_KEYVAL_INVALID;
static uint32_t world_ref = UINT32_MAX, self_ref = UINT32_MAX;
static uint64_t next_request = 1;

static int setup(void *archive, void *arg)
{
    return OTF2_MPI_Archive_SetCollectiveCallbacks(archive, *(MPI_Comm *)arg, MPI_COMM_NULL) ==
                   OTF2_SUCCESS
               ? 0
               : -1;
}

/* Offset of this rank's clock against rank 0's (global = local + offset), measured down the
 * job's binomial tree (rank r's parent is r minus its lowest set bit): each rank is measured
 * by ping-pong against its parent, which answers with its own time plus its own offset (its
 * estimate of rank 0's time) and deviation; the exchange with the shortest round trip counts.
 * A parent serves its children once it is measured itself, the largest subtree first, so the
 * job takes ceil(log2 P) rounds instead of P - 1 exchanges with rank 0, and a rank's offset
 * composes the at most ceil(log2 P) hops of its path to rank 0, its deviation their half
 * round trips summed (docs/mpi.md, "Clocks"). Each first ping is waited for patiently (a
 * parent may be late); the 5 round trips that follow it run while both ranks are awake. */
static double clock_seconds[2]; /* how long this rank took: at MPI_Init, at the end */

static void clock_offset(MPI_Comm comm, int rank, int size)
{
    uint64_t msg[2], best = UINT64_MAX, mid = 0;
    int64_t offset = 0;
    double dev = 0.0;
    if (rank != 0) {
        int parent = rank - (rank & -rank);
        for (int k = 0; k < PINGS; k++) {
            MPI_Request req;
            uint64_t t1 = instr_ext_clock_now();
            PMPI_Send(NULL, 0, MPI_BYTE, parent, TAG_CLOCK, comm);
            instr_mpi_ring(parent);
            PMPI_Irecv(msg, 2, MPI_UINT64_T, parent, TAG_CLOCK, comm, &req);
            if (k == 0)
                instr_mpi_waitall_patient(1, &req);
            else
                PMPI_Wait(&req, MPI_STATUS_IGNORE);
            uint64_t t2 = instr_ext_clock_now();
            if (t2 - t1 < best) {
                double parent_dev;
                memcpy(&parent_dev, &msg[1], sizeof parent_dev);
                best = t2 - t1;
                mid = t1 + (t2 - t1) / 2;
                offset = (int64_t)(msg[0] - mid);
                dev = (double)best / 2 + parent_dev;
            }
        }
    }
    uint32_t limit = rank == 0 ? UINT32_MAX : (uint32_t)(rank & -rank), top = 1;
    while (top * 2 < limit && (uint64_t)rank + top * 2 < (uint64_t)size)
        top *= 2;
    for (uint32_t step = top; step >= 1; step /= 2) {
        if (step >= limit || (uint64_t)rank + step >= (uint64_t)size)
            continue;
        int child = rank + (int)step;
        for (int k = 0; k < PINGS; k++) {
            MPI_Request req;
            PMPI_Irecv(NULL, 0, MPI_BYTE, child, TAG_CLOCK, comm, &req);
            if (k == 0)
                instr_mpi_waitall_patient(1, &req);
            else
                PMPI_Wait(&req, MPI_STATUS_IGNORE);
            msg[0] = (uint64_t)((int64_t)instr_ext_clock_now() + offset);
            memcpy(&msg[1], &dev, sizeof dev);
            PMPI_Send(msg, 2, MPI_UINT64_T, child, TAG_CLOCK, comm);
            instr_mpi_ring(child);
        }
    }
    if (rank == 0)
        instr_ext_trace_clock_offset(instr_ext_clock_now(), 0, 0.0);
    else
        instr_ext_trace_clock_offset(mid, offset, dev);
}

void instr_mpi_trace_begin(MPI_Comm comm, int rank, int size, const char *jobdir)
{
    int want = jobdir && jobdir[0] && instr_ext_trace_wanted(), all = 0, any = 0;
    PMPI_Allreduce(&want, &all, 1, MPI_INT, MPI_MIN, comm);
    PMPI_Allreduce(&want, &any, 1, MPI_INT, MPI_MAX, comm);
    if (!all) {
        if (any && rank == 0)
            fprintf(stderr, "instr: INSTR_ENABLE_TRACING=1 on some ranks only: the job writes no "
                            "trace (give it to every rank: mpirun -x INSTR_ENABLE_TRACING=1)\n");
        return;
    }
    /* Metrics: one set on every rank, or none in the trace (before anything is converted). */
    uint64_t sig = instr_ext_trace_metrics_signature(), lo = 0, hi = 0;
    PMPI_Allreduce(&sig, &lo, 1, MPI_UINT64_T, MPI_MIN, comm);
    PMPI_Allreduce(&sig, &hi, 1, MPI_UINT64_T, MPI_MAX, comm);
    instr_ext_trace_metrics_agreed(lo == hi);
    if (lo != hi && rank == 0)
        fprintf(stderr, "instr: the ranks record different metrics (INSTR_METRIC_* settings, or "
                        "plugins found on some hosts only): the job's trace has no metrics; "
                        "each rank's profile has its own (give every rank the same settings)\n");
    int ok = instr_ext_trace_job_open(jobdir, rank, size, setup, &comm) == 0, all_ok = 0;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    if (!all_ok) {
        instr_ext_trace_job_abandon();
        if (rank == 0)
            fprintf(stderr, "instr: the job's OTF2 archive could not be opened on every rank "
                            "(messages above): no trace is written\n");
        return;
    }
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &keyval, NULL);
    world_ref = instr_ext_trace_comm(UINT32_MAX, 0, "MPI_COMM_WORLD", 0, NULL, UINT32_MAX);
    self_ref = instr_ext_trace_comm(UINT32_MAX, 1, "MPI_COMM_SELF", 0, NULL, UINT32_MAX);
    double t0 = PMPI_Wtime();
    clock_offset(comm, rank, size);
    clock_seconds[0] = PMPI_Wtime() - t0;
    __atomic_store_n(&instr_mpi_tracing, 1, __ATOMIC_RELEASE);
}

void instr_mpi_trace_measure_end(MPI_Comm comm, int rank, int size)
{
    if (instr_mpi_tracing) {
        double t0 = PMPI_Wtime();
        clock_offset(comm, rank, size);
        clock_seconds[1] = PMPI_Wtime() - t0;
    }
}

void instr_mpi_trace_clock_seconds(double s[2])
{
    s[0] = clock_seconds[0];
    s[1] = clock_seconds[1];
}

int instr_mpi_trace_stop(void)
{
    if (!instr_mpi_tracing || !instr_ext_trace_job_is_open())
        return 0;
    instr_mpi_tracing = 0;
    return 1;
}

void instr_mpi_trace_release(void)
{
    if (keyval != MPI_KEYVAL_INVALID)
        PMPI_Comm_free_keyval(&keyval);
}

uint32_t instr_mpi_comm_ref(MPI_Comm comm)
{
    if (comm == MPI_COMM_WORLD)
        return world_ref;
    if (comm == MPI_COMM_SELF)
        return self_ref;
    if (comm == MPI_COMM_NULL || keyval == MPI_KEYVAL_INVALID)
        return UINT32_MAX;
    void *v = NULL;
    int flag = 0;
    if (PMPI_Comm_get_attr(comm, keyval, &v, &flag) != MPI_SUCCESS || !flag)
        return UINT32_MAX;
    return (uint32_t)((uintptr_t)v - 1);
}

void instr_mpi_trace_comm_new(MPI_Comm c, const uint32_t id[2], const char *name,
                              uint32_t nmembers, const uint32_t *members, uint32_t parent)
{
    if (!__atomic_load_n(&instr_mpi_tracing, __ATOMIC_ACQUIRE))
        return;
    uint32_t ref = instr_ext_trace_comm(id[0], id[1], name, nmembers, members, parent);
    if (ref != UINT32_MAX)
        PMPI_Comm_set_attr(c, keyval, (void *)(uintptr_t)(ref + 1));
}

void instr_mpi_trace_win_new(const uint32_t id[2], const char *name, uint32_t comm_ref)
{
    if (__atomic_load_n(&instr_mpi_tracing, __ATOMIC_ACQUIRE))
        instr_ext_trace_win(id[0], id[1], name, comm_ref);
}

/* A collective's root for OTF2 (mpi_coll.c: INSTR_SUBSTRATE_ROOT_*). */
static uint32_t otf2_root(int root)
{
#if OTF2_VERSION_MAJOR < 3 /* no inter-communicators before OTF2 3.0 */
    root = root < 0 ? -1 : root;
#endif
    return root >= 0                               ? (uint32_t)root
           : root == INSTR_SUBSTRATE_ROOT_SELF       ? (uint32_t)OTF2_COLLECTIVE_ROOT_SELF
           : root == INSTR_SUBSTRATE_ROOT_THIS_GROUP ? (uint32_t)OTF2_COLLECTIVE_ROOT_THIS_GROUP
                                                     : OTF2_UNDEFINED_UINT32;
}

uint64_t instr_mpi_request_id(void)
{
    return __atomic_fetch_add(&next_request, 1, __ATOMIC_RELAXED);
}

/* The writer and time for a record; NULL when this thread writes no trace. */
#define WRITER(w, t)                                                                           \
    uint64_t t;                                                                                \
    OTF2_EvtWriter *w = instr_ext_trace_writer(&t);                                            \
    if (!w)                                                                                    \
    return

void instr_mpi_trace_send(int dest, uint32_t comm, int tag, uint64_t bytes)
{
    WRITER(w, t);
    OTF2_EvtWriter_MpiSend(w, NULL, t, (uint32_t)dest, comm, (uint32_t)tag, bytes);
}

void instr_mpi_trace_isend(int dest, uint32_t comm, int tag, uint64_t bytes, uint64_t req)
{
    WRITER(w, t);
    OTF2_EvtWriter_MpiIsend(w, NULL, t, (uint32_t)dest, comm, (uint32_t)tag, bytes, req);
}

void instr_mpi_trace_isend_complete(uint64_t req)
{
    WRITER(w, t);
    OTF2_EvtWriter_MpiIsendComplete(w, NULL, t, req);
}

void instr_mpi_trace_recv(int source, uint32_t comm, int tag, uint64_t bytes)
{
    WRITER(w, t);
    OTF2_EvtWriter_MpiRecv(w, NULL, t, (uint32_t)source, comm, (uint32_t)tag, bytes);
}

void instr_mpi_trace_irecv_request(uint64_t req)
{
    WRITER(w, t);
    OTF2_EvtWriter_MpiIrecvRequest(w, NULL, t, req);
}

void instr_mpi_trace_irecv(int source, uint32_t comm, int tag, uint64_t bytes, uint64_t req)
{
    WRITER(w, t);
    OTF2_EvtWriter_MpiIrecv(w, NULL, t, (uint32_t)source, comm, (uint32_t)tag, bytes, req);
}

void instr_mpi_trace_coll_begin(void)
{
    WRITER(w, t);
    OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, t);
}

void instr_mpi_trace_coll_end(int op, uint32_t comm, int root, uint64_t sent, uint64_t recvd)
{
    WRITER(w, t);
    OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, t, (OTF2_CollectiveOp)op, comm, otf2_root(root),
                                    sent, recvd);
}

void instr_mpi_trace_icoll_request(uint64_t req)
{
    WRITER(w, t);
    OTF2_EvtWriter_NonBlockingCollectiveRequest(w, NULL, t, req);
}

void instr_mpi_trace_icoll_complete(int op, uint32_t comm, int root, uint64_t sent,
                                    uint64_t recvd, uint64_t req)
{
    WRITER(w, t);
    OTF2_EvtWriter_NonBlockingCollectiveComplete(
        w, NULL, t, (OTF2_CollectiveOp)op, comm, otf2_root(root), sent, recvd, req);
}

#else /* a runtime without OTF2: no trace records, the same interface */

void instr_mpi_trace_begin(MPI_Comm comm, int rank, int size, const char *jobdir)
{
    (void)comm, (void)rank, (void)size, (void)jobdir;
}
void instr_mpi_trace_measure_end(MPI_Comm comm, int rank, int size)
{
    (void)comm, (void)rank, (void)size;
}
void instr_mpi_trace_clock_seconds(double s[2]) { s[0] = s[1] = 0.0; }
int instr_mpi_trace_stop(void) { return 0; }
void instr_mpi_trace_release(void) {}
uint32_t instr_mpi_comm_ref(MPI_Comm comm)
{
    (void)comm;
    return UINT32_MAX;
}
void instr_mpi_trace_comm_new(MPI_Comm c, const uint32_t id[2], const char *name,
                              uint32_t nmembers, const uint32_t *members, uint32_t parent)
{
    (void)c, (void)id, (void)name, (void)nmembers, (void)members, (void)parent;
}
void instr_mpi_trace_win_new(const uint32_t id[2], const char *name, uint32_t comm_ref)
{
    (void)id, (void)name, (void)comm_ref;
}
uint64_t instr_mpi_request_id(void) { return 0; }
void instr_mpi_trace_send(int dest, uint32_t comm, int tag, uint64_t bytes)
{
    (void)dest, (void)comm, (void)tag, (void)bytes;
}
void instr_mpi_trace_isend(int dest, uint32_t comm, int tag, uint64_t bytes, uint64_t req)
{
    (void)dest, (void)comm, (void)tag, (void)bytes, (void)req;
}
void instr_mpi_trace_isend_complete(uint64_t req) { (void)req; }
void instr_mpi_trace_recv(int source, uint32_t comm, int tag, uint64_t bytes)
{
    (void)source, (void)comm, (void)tag, (void)bytes;
}
void instr_mpi_trace_irecv_request(uint64_t req) { (void)req; }
void instr_mpi_trace_irecv(int source, uint32_t comm, int tag, uint64_t bytes, uint64_t req)
{
    (void)source, (void)comm, (void)tag, (void)bytes, (void)req;
}
void instr_mpi_trace_coll_begin(void) {}
void instr_mpi_trace_coll_end(int op, uint32_t comm, int root, uint64_t sent, uint64_t recvd)
{
    (void)op, (void)comm, (void)root, (void)sent, (void)recvd;
}
void instr_mpi_trace_icoll_request(uint64_t req) { (void)req; }
void instr_mpi_trace_icoll_complete(int op, uint32_t comm, int root, uint64_t sent,
                                    uint64_t recvd, uint64_t req)
{
    (void)op, (void)comm, (void)root, (void)sent, (void)recvd, (void)req;
}
#endif
