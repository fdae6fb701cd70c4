/* io.h — I/O recording (INSTR_IO=posix,stdio,mpiio|all, docs/io.md): what the recorder
 * (io.c) keeps, what its wrappers (io_posix.c, io_stdio.c) hand it for one call, and what its
 * report (io_report.c) reads at the end. */
#ifndef INSTR_RT_INTERPOSE_IO_H
#define INSTR_RT_INTERPOSE_IO_H

#include "../core/event.h"
#include "io_fns.h"

#include <stdint.h>

/* What an operation does, for the trace (OTF2's I/O operation modes) and the byte counts. */
enum instr_io_kind {
    INSTR_IOK_OPEN, INSTR_IOK_CLOSE, INSTR_IOK_READ, INSTR_IOK_WRITE, INSTR_IOK_SEEK,
    INSTR_IOK_FLUSH, INSTR_IOK_DUP, INSTR_IOK_UNLINK,
    INSTR_IOK_MAP,  /* mmap of a file: its bytes are the length mapped, neither read nor written */
    INSTR_IOK_STAT  /* the stat family: no bytes */
};

typedef struct instr_io_fn_info {
    const char *name;
    uint8_t paradigm, kind;
} instr_io_fn_info;
extern const instr_io_fn_info instr_io_fns[INSTR_IOF_N];

/* The C library's function (dlsym(RTLD_NEXT) at its first call). */
extern void *instr_io_real_fn[INSTR_IOF_N];
void *instr_io_resolve(enum instr_io_fn fn);
static inline void *instr_io_real(enum instr_io_fn fn)
{
    void *p = __atomic_load_n(&instr_io_real_fn[fn], __ATOMIC_RELAXED);
    return __builtin_expect(p != 0, 1) ? p : instr_io_resolve(fn);
}

/* The one word the wrappers test: bit 1 << paradigm when it is recorded. */
extern int instr_io_mask;

/* A call path's figures for one paradigm on one thread. Every call is an operation; a call
 * that failed (-1, NULL, EOF with the stream's error flag) is also a failed one. ticks: the
 * event clock's, inside the C library's function. */
typedef struct instr_iorec_counts {
    uint64_t ops, failed, bytes_read, bytes_written, ticks;
} instr_iorec_counts;

typedef struct instr_iorec_slot {
    const instr_pnode *node;
    instr_iorec_counts c[INSTR_IO_NPARADIGMS];
} instr_iorec_slot;

/* One thread that did recorded I/O. */
typedef struct instr_iorec_thread {
    struct instr_iorec_thread *next; /* every thread's, newest first */
    instr_location *loc;          /* its location once it has one, else NULL */
    int tid;
    instr_iorec_slot *slots;      /* open addressing by node; cap a power of two */
    uint32_t cap, n;
    int has_outside;
    instr_iorec_slot outside;     /* node NULL: outside any region */
} instr_iorec_thread;

/* One file: its name (or the handle's, "<fd N>", when it has none) and its figures per
 * paradigm, summed over threads (atomic adds). */
typedef struct instr_iorec_file {
    const char *name;
    instr_iorec_counts c[INSTR_IO_NPARADIGMS];
    uint32_t trace_ref; /* the trace's definition, 0: none yet */
} instr_iorec_file;

/* A call in progress: from instr_iorec_begin (before the C library's function) to
 * instr_iorec_end (after it). */
typedef struct instr_iorec_call {
    uintptr_t ra;
    uint64_t t0;
} instr_iorec_call;

/* What a call did, for instr_iorec_end. */
typedef struct instr_iorec_what {
    int fd;           /* the descriptor it worked on (-1: none) */
    const char *path; /* a file opened or unlinked: its name (NULL: fd's file) */
    int new_fd;       /* opened or duplicated: the new descriptor (-1: none, or it failed) */
    int closes;       /* fd (or mpi_fh) no more refers to its file afterwards */
    uintptr_t mpi_fh; /* an MPI_File's handle value (0: none, the call is not MPI-IO) */
    int failed;
    uint64_t requested; /* bytes asked to read or write */
    uint64_t bytes;     /* bytes read or written */
    struct instr_io_pending *pending; /* non-blocking MPI-IO: issued in the trace, completed
                                       * later (NULL: a call that completes on return) */
} instr_iorec_what;

/* 0: the call is the runtime's own (or measurement does not run): call the C library's
 * function only. */
int instr_iorec_begin(instr_iorec_call *c, uintptr_t ra);
/* After the C library's function: the call's outcome, recorded inside the core's guard. */
void instr_iorec_end(const instr_iorec_call *c, enum instr_io_fn fn, const instr_iorec_what *w);

/* For the report, after the end. */
instr_iorec_thread *instr_iorec_threads(void);
uint32_t instr_iorec_nfiles(void);
const instr_iorec_file *instr_iorec_file_at(uint32_t i);
/* Per function: calls, failed calls, bytes moved. */
void instr_iorec_fn_totals(enum instr_io_fn fn, uint64_t *calls, uint64_t *failed,
                           uint64_t *bytes);
/* Calls not recorded: a signal handler's that interrupted the recorder on its thread. */
uint64_t instr_iorec_dropped(void);
instr_iorec_counts instr_iorec_counts_of(const instr_iorec_thread *th, const instr_pnode *node,
                                         int paradigm);

#endif
