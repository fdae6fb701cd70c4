/* critpath_thread.h — one thread's critical-path state, shared by the substrate (critpath.c)
 * and its OpenMP part (openmp.c); private to runtime/critpath/. */
#ifndef INSTR_RT_CRITPATH_THREAD_H
#define INSTR_RT_CRITPATH_THREAD_H

#include "record.h"

#include <stdint.h>

#define MAX_HANDLES (4u << 20) /* the registry's limit (registry.c) */
#define MAX_DEPTH 4096u        /* deeper frames are charged to the deepest one kept */

struct cp_state {
    uint64_t t_last;          /* ticks of the last charge */
    int in_mpi;               /* nesting of MPI calls */
    int in_omp;               /* inside an OpenMP barrier: waiting, not computing */
    int paused;               /* inside MPI_Init: time is on no clock */
    uint32_t depth;
    uint32_t stack[MAX_DEPTH];
    uint64_t *seg;            /* ticks per handle in the current segment */
    uint32_t *touched, ntouched;
    uint64_t seg_outside, seg_useful, seg_total, seg_omp; /* ticks */
    uint64_t useful, total, mpi;                          /* ticks since the start (own) */
    uint64_t syncs;
    instr_cp_record path;     /* the path as of the last exchange, ns */
};

/* The calling thread's state (NULL: the path is off, or the thread has no location yet). */
struct cp_state *instr_cp_self(void);
/* The path's clock now (ticks of the event clock, or the thread's CPU time in ns). */
uint64_t instr_cp_now(void);
/* Charges the ticks since the last charge to the clocks the thread's state says. */
void instr_cp_charge(struct cp_state *s, uint64_t t);
/* Appends the current segment to the thread's path. */
void instr_cp_close_segment(struct cp_state *s, uint64_t t);

#endif
