/* io_events.h — I/O recording in the trace (docs/io.md, "The trace"): what the recorder
 * (runtime/interpose/io.c) hands the trace substrate for one recorded call, and the files it
 * names. No OTF2 type here: the recorder is built without OTF2's headers. */
#ifndef INSTR_RT_TRACE_IO_EVENTS_H
#define INSTR_RT_TRACE_IO_EVENTS_H

#include "../core/event.h"

#include <stdint.h>

/* What a call does, as the trace writes it. */
enum instr_trace_io_op {
    INSTR_TRACE_IO_OTHER,   /* Enter and Leave only (seek, dup, unlink) */
    INSTR_TRACE_IO_CREATE,  /* IoCreateHandle when it succeeded */
    INSTR_TRACE_IO_DESTROY, /* IoDestroyHandle when it succeeded */
    INSTR_TRACE_IO_READ,    /* IoOperationBegin and IoOperationComplete */
    INSTR_TRACE_IO_WRITE,
    INSTR_TRACE_IO_FLUSH
};

/* One call: its region (registry handle, source INSTR_SOURCE_IO), its times, its handle (a
 * ref instr_trace_io_files defines), what it does, the bytes asked for and moved. */
typedef struct instr_trace_iocall {
    uint32_t region;
    uint32_t handle;
    unsigned op, failed;
    unsigned nonblocking; /* a read or write issued now, completed by instr_trace_io_done */
    uint64_t t_begin, t_end;
    uint64_t requested, bytes;
} instr_trace_iocall;

/* The recorder's files and handles that the trace uses, for the definitions (read at the end
 * of measurement): refs from 0, dense, in the order of their first traced call. */
typedef struct instr_trace_io_files {
    uint32_t (*nfiles)(void);
    const char *(*file_name)(uint32_t ref);
    uint32_t (*nhandles)(void);
    /* Handle ref's file ref and paradigm (0 POSIX, 1 ISO C, 2 MPI-IO). */
    void (*handle)(uint32_t ref, uint32_t *file_ref, uint32_t *paradigm);
} instr_trace_io_files;

/* At start-up, when I/O recording is on: the archive defines the paradigms, files, handles. */
void instr_trace_io_enable(const instr_trace_io_files *files);
/* 1 when the calling thread's location `loc` is traced now (its calls should be written). */
int instr_trace_io_wanted(instr_location *loc);
/* Appends the call's records to loc's compact buffer, from the recorder inside the guard.
 * A read, write or flush: its matching id on the location (never 0), else 0. */
uint64_t instr_trace_io_call(instr_location *loc, const instr_trace_iocall *c);
/* A non-blocking operation that loc_id's location issued (handle, matching id) completed
 * with `bytes` moved (how 0), or was tested and is not complete (1), in
 * the calling thread: its record on the thread's location, now, when that is loc_id's. */
void instr_trace_io_done(uint32_t loc_id, uint32_t handle, uint64_t match, int how,
                         uint64_t bytes);

#endif
