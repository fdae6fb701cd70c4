/* ompt.h — the OpenMP adapter: an OMPT tool inside libinstr-rt (docs/openmp.md).
 *
 *   tool.c       ompt_start_tool, callback registration, the libgomp notice
 *   callbacks.c  OMPT callbacks -> regions on the calling thread's location; teams; the
 *                event model (model.h) that runtime/gomp/ feeds on GNU libgomp as well
 *   names.c      one region per (construct, code address), named "!$omp parallel @file.c:42"
 *                from debug info (elfutils libdw), resolved once per construct */
#ifndef INSTR_RT_OMPT_H
#define INSTR_RT_OMPT_H

#include <stdint.h>

/* The constructs a region can stand for. The order is the names' order in names.c. */
enum instr_omp_construct {
    INSTR_OMP_PARALLEL,
    INSTR_OMP_IMPLICIT_TASK,
    INSTR_OMP_IMPLICIT_BARRIER,
    INSTR_OMP_BARRIER,
    INSTR_OMP_IMPL_BARRIER, /* a barrier the runtime adds (reductions) */
    INSTR_OMP_TASKWAIT,
    INSTR_OMP_TASKGROUP,
    INSTR_OMP_REDUCTION,
    INSTR_OMP_LOOP,
    INSTR_OMP_SECTIONS,
    INSTR_OMP_SINGLE,
    INSTR_OMP_WORKSHARE,
    INSTR_OMP_TASKLOOP,
    INSTR_OMP_MASKED,
    INSTR_OMP_CRITICAL,
    INSTR_OMP_CRITICAL_WAIT,
    INSTR_OMP_ORDERED,
    INSTR_OMP_ORDERED_WAIT,
    INSTR_OMP_LOCK,         /* from acquire to release; the wait is a child region */
    INSTR_OMP_LOCK_WAIT,
    INSTR_OMP_TASK_CREATE,
    INSTR_OMP_TASK,         /* an explicit task's execution */
    INSTR_OMP_TEAMS,        /* the league, on the thread that encounters teams */
    INSTR_OMP_INITIAL_TASK, /* a team's initial task in a league (every team's thread) */
    INSTR_OMP_DISTRIBUTE,
    INSTR_OMP_ATOMIC,       /* where the runtime implements an atomic with a lock */
    INSTR_OMP_ATOMIC_WAIT,
    INSTR_OMP_SCOPE,
    INSTR_OMP_TASKGROUP_WAIT, /* the end of a taskgroup, waiting for its tasks */
    INSTR_OMP_NCONSTRUCTS
};

/* The region handle of a construct at a code address (NULL: unknown). Lock-free once the
 * pair was seen; the first time resolves the source location under the registry lock.
 * 0 when no region could be made. */
uint32_t instr_omp_region(int construct, const void *codeptr);

/* The constructs at codeptr (a GOMP_* call's return address) are named from entry, the
 * outlined body the call was handed, when their regions are made; before the first event of
 * the site. Lock-free once noted. */
void instr_omp_name_by_entry(const void *codeptr, const void *entry);

/* Source file and line of a code address, from the DWARF line table (libdw); 0 when found.
 * With the registry lock held (runtime/openacc names its constructs' sites with it too). */
int instr_omp_source_line(uintptr_t addr, const char **file, int *line);

#endif
