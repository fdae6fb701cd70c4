/* mpi_plugins.c — communication between the processes of an MPI job for substrate plugins
 * (instr_substrate_plugin.h comm_* callbacks; docs/plugins.md).
 *
 * In MPI_Init the adapter hands the runtime these functions, which work on a private
 * duplicate of MPI_COMM_WORLD through PMPI, so that a plugin's collectives never match the
 * program's messages nor show up as the program's MPI calls. The communicator lives until the
 * end of the process's measurement (write_data runs before the deferred PMPI_Finalize). A
 * rank that ends without MPI_Finalize cannot take part in collectives: the adapter takes the
 * functions back first, and its plugins see a job of one process. */
#include "mpi_wrap.h"
#include "../plugins/substrate_plugins.h"
#include "../include/instr_substrate_plugin.h"

unsigned instr_mpi_plugin_events;
static MPI_Comm comm = MPI_COMM_NULL;
static int rank, size;

static MPI_Datatype type_of(uint32_t t)
{
    switch (t) {
    case INSTR_SUBSTRATE_BYTE: return MPI_BYTE;
    case INSTR_SUBSTRATE_INT32: return MPI_INT32_T;
    case INSTR_SUBSTRATE_UINT32: return MPI_UINT32_T;
    case INSTR_SUBSTRATE_INT64: return MPI_INT64_T;
    case INSTR_SUBSTRATE_UINT64: return MPI_UINT64_T;
    case INSTR_SUBSTRATE_DOUBLE: return MPI_DOUBLE;
    default: return MPI_DATATYPE_NULL;
    }
}

static MPI_Op op_of(uint32_t op)
{
    switch (op) {
    case INSTR_SUBSTRATE_SUM: return MPI_SUM;
    case INSTR_SUBSTRATE_MIN: return MPI_MIN;
    case INSTR_SUBSTRATE_MAX: return MPI_MAX;
    default: return MPI_OP_NULL;
    }
}

/* MPI counts are int: larger transfers are refused rather than cut. */
static int count_ok(uint64_t count) { return count <= (uint64_t)INT32_MAX; }

static int c_rank(void) { return rank; }
static int c_size(void) { return size; }
static int c_barrier(void) { return PMPI_Barrier(comm) == MPI_SUCCESS ? 0 : -1; }

static int c_bcast(void *buf, uint64_t count, uint32_t type, int root)
{
    if (!count_ok(count) || type_of(type) == MPI_DATATYPE_NULL)
        return -1;
    return PMPI_Bcast(buf, (int)count, type_of(type), root, comm) == MPI_SUCCESS ? 0 : -1;
}

static int c_gather(const void *send, void *recv, uint64_t count, uint32_t type, int root)
{
    if (!count_ok(count) || type_of(type) == MPI_DATATYPE_NULL)
        return -1;
    return PMPI_Gather(send, (int)count, type_of(type), recv, (int)count, type_of(type), root,
                       comm) == MPI_SUCCESS ? 0 : -1;
}

static int c_reduce(const void *send, void *recv, uint64_t count, uint32_t type, uint32_t op,
                    int root)
{
    if (!count_ok(count) || type_of(type) == MPI_DATATYPE_NULL || op_of(op) == MPI_OP_NULL)
        return -1;
    return PMPI_Reduce(send, recv, (int)count, type_of(type), op_of(op), root, comm) ==
                   MPI_SUCCESS ? 0 : -1;
}

static const instr_plugins_comm functions = {
    .rank = c_rank, .size = c_size, .barrier = c_barrier,
    .bcast = c_bcast, .gather = c_gather, .reduce = c_reduce,
    .comm_def = instr_mpi_defs_comm, .group_def = instr_mpi_defs_group,
    .window_def = instr_mpi_defs_window, .remote_group = instr_mpi_defs_remote_group,
};

void instr_mpi_plugins_begin(void)
{
    /* Every rank duplicates (collective), whether its plugins loaded or not. */
    if (comm != MPI_COMM_NULL || PMPI_Comm_dup(MPI_COMM_WORLD, &comm) != MPI_SUCCESS)
        return;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    if (instr_ext_plugins_active()) {
        instr_ext_plugins_comm(&functions);
        instr_mpi_plugin_events = instr_ext_plugins_mpi_events();
    }
    instr_mpi_defs_begin(comm); /* collective, on every rank */
}

uint64_t instr_mpi_plugins_request_id(void)
{
    static uint64_t next;
    return __atomic_add_fetch(&next, 1, __ATOMIC_RELAXED);
}

void instr_mpi_plugins_alone(void) { instr_ext_plugins_comm(NULL); }

void instr_mpi_plugins_end(void)
{
    instr_ext_plugins_comm(NULL);
    if (comm != MPI_COMM_NULL)
        PMPI_Comm_free(&comm);
}
