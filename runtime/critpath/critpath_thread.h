/* critpath_thread.h — one thread's critical-path state, shared by the substrate (critpath.c)
 * and its OpenMP part (openmp.c); private to runtime/critpath/. */
#ifndef INSTR_RT_CRITPATH_THREAD_H
#define INSTR_RT_CRITPATH_THREAD_H

#include "record.h"

#include <stdint.h>

#include "../core/xcharge.h"

#define MAX_HANDLES INSTR_XCHARGE_HANDLES /* the registry's limit (registry.c) */
#define MAX_DEPTH INSTR_XCHARGE_DEPTH     /* deeper frames are charged to the deepest one kept */

/* What keeps the cursor from charging an event inline (instr_xcharge.hold.by[]): the nesting
 * of MPI calls; inside an OpenMP barrier or wait (waiting, not computing); inside MPI_Init
 * (time is on no clock); the CPU-time clock or dependent metrics (every event does more). */
enum { CP_IN_MPI, CP_IN_OMP, CP_PAUSED, CP_EXTRA };

struct cp_state {
    /* First (the cursor path with events reads it as its substrate's location data): the
     * ticks of the last charge, the open regions, and the segment's ticks per handle (with
     * the list of the handles touched), useful and of it outside any region. */
    instr_xcharge x;
    /* Ticks of the segment waiting in OpenMP and in MPI. Every event adds to one of them or
     * to x's only (the clock of computation plus OpenMP and the total are sums of them), so
     * that the common case, useful time, costs one add. */
    uint64_t seg_omp_wait, seg_mpi;
    uint64_t useful, total, mpi;                          /* ticks since the start (own) */
    uint64_t syncs;
    /* Dependent metrics: their values at the last event, their sum in the segment, whether
     * the thread was waiting (MPI, an OpenMP barrier or mutex) at the last event and whether
     * a wait ended since: the values move at events only, so the interval between two
     * events inside one wait (the thread waited at both, no wait ended between) is the
     * wait's, every other one is computation. */
    uint64_t mlast[INSTR_CP_MAX_METRICS], mseg[INSTR_CP_MAX_METRICS];
    int mwaiting, mstarted, mwait_ended;
    instr_cp_record path;     /* the path as of the last exchange, ns */
    /* While the thread runs explicit tasks (tasks.c), `path` is the running task's; its own
     * (its implicit task's) waits here, with whether it was waiting. */
    int in_task, own_in_omp;
    instr_cp_record own_path;
    /* The task the thread runs, and its implicit task (OMPT task data addresses; NULL when
     * not known): the runtime may report a wait with a copy of the task's data. */
    const void *cur_task, *own_task;
};

/* The calling thread's state (NULL: the path is off, or the thread has no location yet). */
struct cp_state *instr_cp_self(void);
/* The path's clock now (ticks of the event clock, or the thread's CPU time in ns). */
uint64_t instr_cp_now(void);
/* Charges the ticks since the last charge to the clocks the thread's state says. */
void instr_cp_charge(struct cp_state *s, uint64_t t);
/* The dependent metrics: how many, each one's index among the run's synchronous metrics
 * and its value type. */
extern uint32_t instr_cp_nmetrics;
extern uint32_t instr_cp_metric_index[INSTR_CP_MAX_METRICS];
/* Adds b to a, by the metric's value type. */
uint64_t instr_cp_metric_add(uint32_t m, uint64_t a, uint64_t b);
/* metrics.c: the names of INSTR_CRITICAL_PATH_METRICS (after the metrics substrate
 * started), and the metrics' differences at an enter or exit. */
void instr_cp_metrics_init(void);
void instr_cp_metrics_event(struct cp_state *s);
/* Appends the current segment to the thread's path. */
void instr_cp_close_segment(struct cp_state *s, uint64_t t);

#endif
