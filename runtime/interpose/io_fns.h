/* io_fns.h — I/O recording's paradigms and functions (docs/io.md), and the entry points of
 * libinstr-rt's recorder (io.c) that libinstr-rt-mpi's MPI-IO wrappers (runtime/mpi/mpi_io.c,
 * mpi_msg.c) call. No other include: the MPI library's wrappers include it. */
#ifndef INSTR_RT_INTERPOSE_IO_FNS_H
#define INSTR_RT_INTERPOSE_IO_FNS_H

#include <stdint.h>

/* The paradigms, as INSTR_IO names them (bit 1 << p in the mask). */
enum instr_io_paradigm { INSTR_IO_POSIX, INSTR_IO_STDIO, INSTR_IO_MPIIO, INSTR_IO_NPARADIGMS };

/* The functions recorded, as the profile and the trace name them. */
enum instr_io_fn {
    /* POSIX */
    INSTR_IOF_OPEN, INSTR_IOF_OPEN64, INSTR_IOF_OPENAT, INSTR_IOF_OPENAT64, INSTR_IOF_CREAT,
    INSTR_IOF_CREAT64, INSTR_IOF_CLOSE, INSTR_IOF_READ, INSTR_IOF_WRITE, INSTR_IOF_PREAD,
    INSTR_IOF_PREAD64, INSTR_IOF_PWRITE, INSTR_IOF_PWRITE64, INSTR_IOF_READV, INSTR_IOF_WRITEV,
    INSTR_IOF_LSEEK, INSTR_IOF_LSEEK64, INSTR_IOF_FSYNC, INSTR_IOF_FDATASYNC, INSTR_IOF_DUP,
    INSTR_IOF_DUP2, INSTR_IOF_DUP3, INSTR_IOF_UNLINK, INSTR_IOF_READ_CHK, INSTR_IOF_PREAD_CHK,
    INSTR_IOF_PREAD64_CHK, INSTR_IOF_PREADV, INSTR_IOF_PREADV64, INSTR_IOF_PWRITEV,
    INSTR_IOF_PWRITEV64, INSTR_IOF_MMAP, INSTR_IOF_MMAP64, INSTR_IOF_STAT, INSTR_IOF_STAT64,
    INSTR_IOF_FSTAT, INSTR_IOF_FSTAT64, INSTR_IOF_LSTAT, INSTR_IOF_LSTAT64, INSTR_IOF_FSTATAT,
    INSTR_IOF_FSTATAT64, INSTR_IOF_XSTAT, INSTR_IOF_XSTAT64, INSTR_IOF_FXSTAT,
    INSTR_IOF_FXSTAT64, INSTR_IOF_LXSTAT, INSTR_IOF_LXSTAT64, INSTR_IOF_FXSTATAT,
    INSTR_IOF_FXSTATAT64,
    /* ISO C */
    INSTR_IOF_FOPEN, INSTR_IOF_FOPEN64, INSTR_IOF_FDOPEN, INSTR_IOF_FCLOSE, INSTR_IOF_FREAD,
    INSTR_IOF_FWRITE, INSTR_IOF_FPUTS, INSTR_IOF_PUTS, INSTR_IOF_FPUTC, INSTR_IOF_PUTC,
    INSTR_IOF_FGETS, INSTR_IOF_FGETC, INSTR_IOF_GETC, INSTR_IOF_FPRINTF, INSTR_IOF_VFPRINTF,
    INSTR_IOF_PRINTF, INSTR_IOF_FFLUSH, INSTR_IOF_FSEEK, INSTR_IOF_FSEEKO, INSTR_IOF_FSEEKO64,
    INSTR_IOF_FPRINTF_CHK, INSTR_IOF_VFPRINTF_CHK, INSTR_IOF_PRINTF_CHK, INSTR_IOF_FGETS_CHK,
    INSTR_IOF_FREAD_CHK,
    /* MPI-IO (libinstr-rt-mpi, runtime/mpi/mpi_io.c) */
    INSTR_IOF_MPI_FILE_OPEN, INSTR_IOF_MPI_FILE_CLOSE, INSTR_IOF_MPI_FILE_DELETE,
    INSTR_IOF_MPI_FILE_SET_VIEW, INSTR_IOF_MPI_FILE_SYNC, INSTR_IOF_MPI_FILE_SEEK,
    INSTR_IOF_MPI_FILE_SEEK_SHARED, INSTR_IOF_MPI_FILE_READ_AT, INSTR_IOF_MPI_FILE_READ_AT_ALL,
    INSTR_IOF_MPI_FILE_WRITE_AT, INSTR_IOF_MPI_FILE_WRITE_AT_ALL, INSTR_IOF_MPI_FILE_IREAD_AT,
    INSTR_IOF_MPI_FILE_IWRITE_AT, INSTR_IOF_MPI_FILE_IREAD_AT_ALL,
    INSTR_IOF_MPI_FILE_IWRITE_AT_ALL, INSTR_IOF_MPI_FILE_READ, INSTR_IOF_MPI_FILE_READ_ALL,
    INSTR_IOF_MPI_FILE_WRITE, INSTR_IOF_MPI_FILE_WRITE_ALL, INSTR_IOF_MPI_FILE_IREAD,
    INSTR_IOF_MPI_FILE_IWRITE, INSTR_IOF_MPI_FILE_IREAD_ALL, INSTR_IOF_MPI_FILE_IWRITE_ALL,
    INSTR_IOF_MPI_FILE_READ_SHARED, INSTR_IOF_MPI_FILE_WRITE_SHARED,
    INSTR_IOF_MPI_FILE_IREAD_SHARED, INSTR_IOF_MPI_FILE_IWRITE_SHARED,
    INSTR_IOF_MPI_FILE_READ_ORDERED, INSTR_IOF_MPI_FILE_WRITE_ORDERED,
    /* split collectives: the operation begins in _begin and completes in _end */
    INSTR_IOF_MPI_FILE_READ_AT_ALL_BEGIN, INSTR_IOF_MPI_FILE_WRITE_AT_ALL_BEGIN,
    INSTR_IOF_MPI_FILE_READ_ALL_BEGIN, INSTR_IOF_MPI_FILE_WRITE_ALL_BEGIN,
    INSTR_IOF_MPI_FILE_READ_ORDERED_BEGIN, INSTR_IOF_MPI_FILE_WRITE_ORDERED_BEGIN,
    INSTR_IOF_N
};

/* One MPI-IO call from libinstr-rt-mpi (runtime/mpi/mpi_io.c), begun at t0 (event clock):
 * fh the MPI_File's handle value, name the file name of an open (else NULL); an open maps fh
 * to the file, a close unmaps it. */
__attribute__((visibility("default"))) void instr_ext_io_mpi(int fn, uintptr_t fh,
                                                             const char *name, int closes,
                                                             int failed, uint64_t requested,
                                                             uint64_t bytes, uint64_t t0);
/* A non-blocking MPI-IO operation (MPI_File_iread..., a split collective's _begin) that
 * started: what its completion needs, in the trace (IoOperationIssued; match 0: not in the
 * trace) and in the profile (its bytes; profile 0: not recorded there). */
typedef struct instr_io_pending {
    uint64_t match;  /* the operation's matching id on its location */
    uint32_t handle; /* the trace's handle ref */
    uint32_t loc;    /* the id of the location that issued it */
    int profile;     /* 1: its bytes go into the profile at completion */
    int fn;          /* the function that started it */
    uint32_t file;   /* the recorder's file */
    const void *node;   /* the call path it started in */
    const void *thread; /* the recorder's thread that started it */
} instr_io_pending;
/* A non-blocking MPI-IO call (MPI_File_iread...) that started: recorded as an operation of
 * instr_ext_io_mpi (its time the call's), without bytes: they count when it completes;
 * *pending says how the trace and the profile complete it. */
__attribute__((visibility("default"))) void instr_ext_io_mpi_started(int fn, uintptr_t fh,
                                                                     int failed,
                                                                     uint64_t requested,
                                                                     uint64_t t0,
                                                                     instr_io_pending *pending);
/* Its request completed with `bytes` moved (how 0), or was tested and is not complete yet
 * (1), in a wait or test of the calling thread: IoOperationComplete or IoOperationTest on
 * that thread's location when it issued it; at completion the bytes go into the profile, in
 * the call path it started in (when this thread started it; else this call's call path). */
__attribute__((visibility("default"))) void instr_ext_io_mpi_done(const instr_io_pending *pending,
                                                                  int how, uint64_t bytes);
/* The paradigms recorded (bit 1 << paradigm), for libinstr-rt-mpi. */
__attribute__((visibility("default"))) int instr_ext_io_mask(void);

#endif
