/* openmp.h — the critical path through OpenMP synchronisation (docs/critical-path.md), called
 * by the OMPT adapter (runtime/ompt/callbacks.c). Every function does nothing when the path
 * is off or the calling thread has no state. */
#ifndef INSTR_RT_CRITPATH_OPENMP_H
#define INSTR_RT_CRITPATH_OPENMP_H

#include "record.h"

#include <stdint.h>

/* One parallel region's paths, owned by the team (zeroed memory is a valid unlocked team). */
typedef struct instr_cp_team {
    int lock;                /* a spin lock: held for one record's copy */
    instr_cp_record fork;    /* the master's path at the fork */
    /* The team's maximum at its barriers, alternately: a thread that left barrier n may
     * reach barrier n + 1 before a slower one read barrier n's maximum, never barrier n + 2.
     * What an earlier barrier left in a slot is no longer than any member's path, so a slot
     * needs no reset. */
    instr_cp_record sync[2];
} instr_cp_team;

/* The master at the fork. */
void instr_cp_omp_fork(instr_cp_team *t);
/* A worker's implicit task begins: its path is the master's at the fork; the time since its
 * last event (idle in the runtime) is on no clock. */
void instr_cp_omp_worker_begin(instr_cp_team *t);
/* A barrier of the team (n: how many barriers this thread passed in it): its path joins the
 * team's maximum at the begin, and takes it at the end; the wait is not useful. */
void instr_cp_omp_barrier_begin(instr_cp_team *t, uint32_t n);
void instr_cp_omp_barrier_end(instr_cp_team *t, uint32_t n);
/* A mutex (critical, lock, ordered): the releasing thread's path goes to the next thread
 * that acquires it. The wait for it is not useful. */
void instr_cp_omp_wait_begin(void);
/* The end of a wait of thread s's (barrier, mutex, taskwait): the wait's segment closed, no
 * longer inside the OpenMP runtime. */
struct cp_state;
void instr_cp_omp_wait_done(struct cp_state *s);
void instr_cp_omp_acquired(uint64_t wait_id);
void instr_cp_omp_released(uint64_t wait_id);

/* Explicit tasks (tasks.c). A task is known by the address of its OMPT task data, the
 * waiting task (implicit or explicit) by its own. A task starts from the path its creator
 * had at its creation, made longer by the paths of its predecessors (depend clauses) when
 * they complete; a completed task's path goes to its parent (taskwait), its ancestors
 * (taskgroup) and the team's next barrier. */
/* A completed task's path joins the maximum of the team's barrier `n` (tasks.c). */
void instr_cp_omp_task_to_barrier(instr_cp_team *t, uint32_t n, const instr_cp_record *path);
/* undeferred: the creating task continues only after the task completed (if(0), a final or
 * serialised team's task): its continuation takes the task's path. */
void instr_cp_task_create(const void *task, const void *parent, int undeferred);
void instr_cp_task_dependence(const void *pred, const void *succ);
/* An implicit task begins: what an earlier implicit task at the same address left is
 * forgotten. */
void instr_cp_implicit_task_begin(const void *task);
/* An implicit task ended: the thread runs `outer` again (the enclosing implicit task, or the
 * program's initial task; NULL when not known). */
void instr_cp_implicit_task_end(const void *outer);
/* The thread switches from task `prior` (explicit or not; done: it completed) to `next`.
 * team and barrier: the thread's team and how many barriers the thread passed in it (the
 * completed task's path joins that barrier's maximum); team NULL outside a parallel region. */
void instr_cp_task_switch(const void *prior, int prior_explicit, int prior_done,
                          const void *next, int next_explicit, instr_cp_team *team,
                          uint32_t barrier);
/* taskwait (group 0) or taskgroup (group 1) of `task`: the wait is not useful, and at its
 * end the task takes the longest of its own path and those of its completed children
 * (taskwait) or descendants (taskgroup). */
void instr_cp_task_wait_begin(void);
void instr_cp_task_wait_end(const void *task, int group);

#endif
