/* mpi_io.c — MPI-IO for I/O recording (INSTR_IO=mpiio or all, docs/io.md): the MPI_File_*
 * wrappers (mpi_calls.txt) hand each call to libinstr-rt's recorder (instr_ext_io_mpi,
 * runtime/interpose/io.c), which keeps it per call path (the call's own region,
 * MPI_File_...), per file and per function like POSIX and ISO C I/O. Bytes: the datatype's
 * size times the count asked for; moved, from the status (MPI_Get_count in bytes) for the
 * blocking forms, and the count asked for when a non-blocking one started. In the job's trace
 * a non-blocking one is issued when it starts and completed by the wait or test of its
 * request, with the bytes of its status then (mpi_msg.c keeps the request). */
#include "mpi_wrap.h"

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
    if (p.match && rc == MPI_SUCCESS)
        instr_mpi_io_request(request, &p);
}
