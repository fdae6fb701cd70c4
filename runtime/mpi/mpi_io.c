/* mpi_io.c — MPI-IO for I/O recording (INSTR_IO=mpiio or all, docs/io.md): the MPI_File_*
 * wrappers (mpi_calls.txt) hand each call to libinstr-rt's recorder (instr_ext_io_mpi,
 * runtime/interpose/io.c), which keeps it per call path (the call's own region,
 * MPI_File_...), per file and per function like POSIX and ISO C I/O. Bytes: the datatype's
 * size times the count asked for; moved, from the status (MPI_Get_count in bytes). A
 * non-blocking one (MPI_File_iread...) counts as an operation when it starts (with the time
 * of its call) and its bytes when the wait or test of its request completes it, from the
 * status then (mpi_msg.c keeps the request); in the job's trace it is issued when it starts
 * and completed there. A split collective (MPI_File_read_all_begin ... _end) is one such
 * operation: it starts in _begin and completes in _end (this file keeps it by its file
 * handle: MPI allows one split collective per handle at a time). */
#include "mpi_wrap.h"
#include "../util/pages.h"

#include <pthread.h>

static int on(void) { return (instr_ext_io_mask() & (1 << INSTR_IO_MPIIO)) != 0; }

uint64_t instr_mpi_io_t0(void) { return on() ? instr_ext_clock_now() : 0; }

static uint64_t requested(int count, MPI_Datatype type)
{
    int size = 0;
    if (count <= 0 || PMPI_Type_size(type, &size) != MPI_SUCCESS || size <= 0)
        return 0;
    return (uint64_t)count * (uint64_t)size;
}

void instr_mpi_io_open(int rc, const char *filename, MPI_File *fh, uint64_t t0)
{
    if (on())
        instr_ext_io_mpi(INSTR_IOF_MPI_FILE_OPEN, rc == MPI_SUCCESS ? (uintptr_t)*fh : 0,
                         filename, 0, rc != MPI_SUCCESS, 0, 0, t0);
}

void instr_mpi_io_close(int rc, MPI_File fh, uint64_t t0)
{
    if (on())
        instr_ext_io_mpi(INSTR_IOF_MPI_FILE_CLOSE, (uintptr_t)fh, NULL, rc == MPI_SUCCESS,
                         rc != MPI_SUCCESS, 0, 0, t0);
}

void instr_mpi_io_delete(int rc, const char *filename, uint64_t t0)
{
    if (on())
        instr_ext_io_mpi(INSTR_IOF_MPI_FILE_DELETE, 0, filename, 0, rc != MPI_SUCCESS, 0, 0, t0);
}

void instr_mpi_io_op(int fn, int rc, MPI_File fh, uint64_t t0)
{
    if (on())
        instr_ext_io_mpi(fn, (uintptr_t)fh, NULL, 0, rc != MPI_SUCCESS, 0, 0, t0);
}

void instr_mpi_io_rw(int fn, int rc, MPI_File fh, int count, MPI_Datatype type,
                     MPI_Status *status, uint64_t t0)
{
    if (!on())
        return;
    uint64_t want = requested(count, type), moved = 0;
    int n = 0;
    if (rc == MPI_SUCCESS && status && PMPI_Get_count(status, MPI_BYTE, &n) == MPI_SUCCESS &&
        n != MPI_UNDEFINED && n > 0)
        moved = (uint64_t)n;
    instr_ext_io_mpi(fn, (uintptr_t)fh, NULL, 0, rc != MPI_SUCCESS, want, moved, t0);
}

void instr_mpi_io_started(int fn, int rc, MPI_File fh, int count, MPI_Datatype type,
                          const MPI_Request *request, uint64_t t0)
{
    if (!on())
        return;
    instr_io_pending p;
    instr_ext_io_mpi_started(fn, (uintptr_t)fh, rc != MPI_SUCCESS, requested(count, type), t0,
                             &p);
    if ((p.match || p.profile) && rc == MPI_SUCCESS)
        instr_mpi_io_request(request, &p);
}

/* Split collectives in progress, by file handle (few: one per open file at most). */
typedef struct split {
    MPI_File fh;
    instr_io_pending p;
} split;
static split *splits;
static uint32_t nsplits, capsplits;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void instr_mpi_io_split_begin(int fn, int rc, MPI_File fh, int count, MPI_Datatype type,
                              uint64_t t0)
{
    if (!on())
        return;
    instr_io_pending p;
    instr_ext_io_mpi_started(fn, (uintptr_t)fh, rc != MPI_SUCCESS, requested(count, type), t0,
                             &p);
    if (!(p.match || p.profile) || rc != MPI_SUCCESS)
        return;
    pthread_mutex_lock(&lock);
    if (nsplits == capsplits) {
        uint32_t c = capsplits ? 2 * capsplits : 8;
        split *t = instr_mem_realloc(splits, c * sizeof *t);
        if (t) {
            splits = t;
            capsplits = c;
        }
    }
    if (nsplits < capsplits) /* else out of memory: its completion is not recorded */
        splits[nsplits++] = (split){fh, p};
    pthread_mutex_unlock(&lock);
}

void instr_mpi_io_split_end(int rc, MPI_File fh, MPI_Status *status)
{
    if (!__atomic_load_n(&nsplits, __ATOMIC_RELAXED))
        return;
    instr_io_pending p;
    int found = 0;
    pthread_mutex_lock(&lock);
    for (uint32_t i = 0; i < nsplits && !found; i++)
        if (splits[i].fh == fh) {
            p = splits[i].p;
            splits[i] = splits[--nsplits];
            found = 1;
        }
    pthread_mutex_unlock(&lock);
    if (!found)
        return;
    int n = 0;
    uint64_t moved = 0;
    if (rc == MPI_SUCCESS && status && PMPI_Get_count(status, MPI_BYTE, &n) == MPI_SUCCESS &&
        n != MPI_UNDEFINED && n > 0)
        moved = (uint64_t)n;
    instr_ext_io_mpi_done(&p, 0, moved);
}
