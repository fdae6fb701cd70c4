/* gomp.h — OpenMP constructs of GCC-compiled code on GNU libgomp (docs/openmp.md, "gcc
 * -fopenmp"). libgomp has no OMPT; gcc compiles every construct that needs the runtime into a
 * call of a GOMP_* entry point. libinstr-rt defines those entry points: each one forwards to
 * libgomp's (found once at start-up with dlvsym(RTLD_NEXT)) and, around the call, feeds the
 * same event model as the OMPT adapter (runtime/ompt/model.h).
 *
 *   real.c      the libgomp functions the wrappers forward to; whether constructs are recorded
 *   parallel.c  parallel (the team's threads run a wrapper of the outlined body), worksharing
 *               (for, sections, single) and barriers
 *   sync.c      critical, atomic, ordered and the omp_*_lock API
 *   tasks.c     task (creation, execution under the creating path), taskwait, taskgroup,
 *               taskloop
 *   constructs.c the constructs gcc compiles to no GOMP_* call (static loops, master, masked,
 *               ...), through the calls the GCC plugin inserts around them
 *
 * A program on LLVM's libomp (which also defines GOMP_*) is recorded through OMPT: there the
 * wrappers only forward, as they do when nothing is recorded. */
#ifndef INSTR_RT_GOMP_H
#define INSTR_RT_GOMP_H

#include <stdbool.h>
#include <stdint.h>

/* 1 when GOMP_* calls reach these wrappers, libgomp serves them and events are wanted. */
int instr_gomp_recording(void);
/* 1 when the process runs on GNU libgomp (GOMP_* defined after libinstr-rt, not by libomp). */
int instr_gomp_on_libgomp(void);

typedef unsigned long long instr_gomp_ull;

/* X(return type, name, libgomp's symbol version, parameter list) of every wrapped function. */
#define INSTR_GOMP_FUNCTIONS(X)                                                                 \
    X(void, GOMP_parallel, "GOMP_4.0", (void (*)(void *), void *, unsigned, unsigned))          \
    X(void, GOMP_parallel_sections, "GOMP_4.0",                                                 \
      (void (*)(void *), void *, unsigned, unsigned, unsigned))                                 \
    X(void, GOMP_parallel_loop_static, "GOMP_4.0",                                              \
      (void (*)(void *), void *, unsigned, long, long, long, long, unsigned))                   \
    X(void, GOMP_parallel_loop_dynamic, "GOMP_4.0",                                             \
      (void (*)(void *), void *, unsigned, long, long, long, long, unsigned))                   \
    X(void, GOMP_parallel_loop_guided, "GOMP_4.0",                                              \
      (void (*)(void *), void *, unsigned, long, long, long, long, unsigned))                   \
    X(void, GOMP_parallel_loop_nonmonotonic_dynamic, "GOMP_4.5",                                \
      (void (*)(void *), void *, unsigned, long, long, long, long, unsigned))                   \
    X(void, GOMP_parallel_loop_nonmonotonic_guided, "GOMP_4.5",                                 \
      (void (*)(void *), void *, unsigned, long, long, long, long, unsigned))                   \
    X(void, GOMP_parallel_loop_runtime, "GOMP_4.0",                                             \
      (void (*)(void *), void *, unsigned, long, long, long, unsigned))                         \
    X(void, GOMP_parallel_loop_nonmonotonic_runtime, "GOMP_5.0",                                \
      (void (*)(void *), void *, unsigned, long, long, long, unsigned))                         \
    X(void, GOMP_parallel_loop_maybe_nonmonotonic_runtime, "GOMP_5.0",                          \
      (void (*)(void *), void *, unsigned, long, long, long, unsigned))                         \
    X(void, GOMP_barrier, "GOMP_1.0", (void))                                                   \
    X(bool, GOMP_barrier_cancel, "GOMP_4.0", (void))                                            \
    X(bool, GOMP_single_start, "GOMP_1.0", (void))                                              \
    X(void *, GOMP_single_copy_start, "GOMP_1.0", (void))                                       \
    X(void, GOMP_single_copy_end, "GOMP_1.0", (void *))                                         \
    X(unsigned, GOMP_sections_start, "GOMP_1.0", (unsigned))                                    \
    X(unsigned, GOMP_sections2_start, "GOMP_5.0", (unsigned, uintptr_t *, void **))             \
    X(void, GOMP_sections_end, "GOMP_1.0", (void))                                              \
    X(bool, GOMP_sections_end_cancel, "GOMP_4.0", (void))                                       \
    X(void, GOMP_sections_end_nowait, "GOMP_1.0", (void))                                       \
    X(bool, GOMP_loop_static_start, "GOMP_1.0", (long, long, long, long, long *, long *))       \
    X(bool, GOMP_loop_dynamic_start, "GOMP_1.0", (long, long, long, long, long *, long *))      \
    X(bool, GOMP_loop_guided_start, "GOMP_1.0", (long, long, long, long, long *, long *))       \
    X(bool, GOMP_loop_nonmonotonic_dynamic_start, "GOMP_4.5",                                   \
      (long, long, long, long, long *, long *))                                                 \
    X(bool, GOMP_loop_nonmonotonic_guided_start, "GOMP_4.5",                                    \
      (long, long, long, long, long *, long *))                                                 \
    X(bool, GOMP_loop_runtime_start, "GOMP_1.0", (long, long, long, long *, long *))            \
    X(bool, GOMP_loop_nonmonotonic_runtime_start, "GOMP_5.0", (long, long, long, long *, long *)) \
    X(bool, GOMP_loop_maybe_nonmonotonic_runtime_start, "GOMP_5.0",                             \
      (long, long, long, long *, long *))                                                       \
    X(bool, GOMP_loop_ordered_static_start, "GOMP_1.0", (long, long, long, long, long *, long *)) \
    X(bool, GOMP_loop_ordered_dynamic_start, "GOMP_1.0",                                        \
      (long, long, long, long, long *, long *))                                                 \
    X(bool, GOMP_loop_ordered_guided_start, "GOMP_1.0", (long, long, long, long, long *, long *)) \
    X(bool, GOMP_loop_ordered_runtime_start, "GOMP_1.0", (long, long, long, long *, long *))    \
    X(bool, GOMP_loop_start, "GOMP_5.0",                                                        \
      (long, long, long, long, long, long *, long *, uintptr_t *, void **))                     \
    X(bool, GOMP_loop_ordered_start, "GOMP_5.0",                                                \
      (long, long, long, long, long, long *, long *, uintptr_t *, void **))                     \
    X(bool, GOMP_loop_ull_static_start, "GOMP_2.0",                                             \
      (bool, instr_gomp_ull, instr_gomp_ull, instr_gomp_ull, instr_gomp_ull, instr_gomp_ull *,  \
       instr_gomp_ull *))                                                                       \
    X(bool, GOMP_loop_ull_dynamic_start, "GOMP_2.0",                                            \
      (bool, instr_gomp_ull, instr_gomp_ull, instr_gomp_ull, instr_gomp_ull, instr_gomp_ull *,  \
       instr_gomp_ull *))                                                                       \
    X(bool, GOMP_loop_ull_guided_start, "GOMP_2.0",                                             \
      (bool, instr_gomp_ull, instr_gomp_ull, instr_gomp_ull, instr_gomp_ull, instr_gomp_ull *,  \
       instr_gomp_ull *))                                                                       \
    X(bool, GOMP_loop_ull_nonmonotonic_dynamic_start, "GOMP_4.5",                               \
      (bool, instr_gomp_ull, instr_gomp_ull, instr_gomp_ull, instr_gomp_ull, instr_gomp_ull *,  \
       instr_gomp_ull *))                                                                       \
    X(bool, GOMP_loop_ull_nonmonotonic_guided_start, "GOMP_4.5",                                \
      (bool, instr_gomp_ull, instr_gomp_ull, instr_gomp_ull, instr_gomp_ull, instr_gomp_ull *,  \
       instr_gomp_ull *))                                                                       \
    X(bool, GOMP_loop_ull_runtime_start, "GOMP_2.0",                                            \
      (bool, instr_gomp_ull, instr_gomp_ull, instr_gomp_ull, instr_gomp_ull *,                  \
       instr_gomp_ull *))                                                                       \
    X(bool, GOMP_loop_ull_nonmonotonic_runtime_start, "GOMP_5.0",                               \
      (bool, instr_gomp_ull, instr_gomp_ull, instr_gomp_ull, instr_gomp_ull *,                  \
       instr_gomp_ull *))                                                                       \
    X(bool, GOMP_loop_ull_maybe_nonmonotonic_runtime_start, "GOMP_5.0",                         \
      (bool, instr_gomp_ull, instr_gomp_ull, instr_gomp_ull, instr_gomp_ull *,                  \
       instr_gomp_ull *))                                                                       \
    X(bool, GOMP_loop_ull_ordered_static_start, "GOMP_2.0",                                     \
      (bool, instr_gomp_ull, instr_gomp_ull, instr_gomp_ull, instr_gomp_ull, instr_gomp_ull *,  \
       instr_gomp_ull *))                                                                       \
    X(bool, GOMP_loop_ull_ordered_dynamic_start, "GOMP_2.0",                                    \
      (bool, instr_gomp_ull, instr_gomp_ull, instr_gomp_ull, instr_gomp_ull, instr_gomp_ull *,  \
       instr_gomp_ull *))                                                                       \
    X(bool, GOMP_loop_ull_ordered_guided_start, "GOMP_2.0",                                     \
      (bool, instr_gomp_ull, instr_gomp_ull, instr_gomp_ull, instr_gomp_ull, instr_gomp_ull *,  \
       instr_gomp_ull *))                                                                       \
    X(bool, GOMP_loop_ull_ordered_runtime_start, "GOMP_2.0",                                    \
      (bool, instr_gomp_ull, instr_gomp_ull, instr_gomp_ull, instr_gomp_ull *,                  \
       instr_gomp_ull *))                                                                       \
    X(bool, GOMP_loop_ull_start, "GOMP_5.0",                                                    \
      (bool, instr_gomp_ull, instr_gomp_ull, instr_gomp_ull, long, instr_gomp_ull,              \
       instr_gomp_ull *, instr_gomp_ull *, uintptr_t *, void **))                               \
    X(bool, GOMP_loop_ull_ordered_start, "GOMP_5.0",                                            \
      (bool, instr_gomp_ull, instr_gomp_ull, instr_gomp_ull, long, instr_gomp_ull,              \
       instr_gomp_ull *, instr_gomp_ull *, uintptr_t *, void **))                               \
    X(void, GOMP_loop_end, "GOMP_1.0", (void))                                                  \
    X(bool, GOMP_loop_end_cancel, "GOMP_4.0", (void))                                           \
    X(void, GOMP_loop_end_nowait, "GOMP_1.0", (void))                                           \
    X(void, GOMP_critical_start, "GOMP_1.0", (void))                                            \
    X(void, GOMP_critical_end, "GOMP_1.0", (void))                                              \
    X(void, GOMP_critical_name_start, "GOMP_1.0", (void **))                                    \
    X(void, GOMP_critical_name_end, "GOMP_1.0", (void **))                                      \
    X(void, GOMP_atomic_start, "GOMP_1.0", (void))                                              \
    X(void, GOMP_atomic_end, "GOMP_1.0", (void))                                                \
    X(void, GOMP_ordered_start, "GOMP_1.0", (void))                                             \
    X(void, GOMP_ordered_end, "GOMP_1.0", (void))                                               \
    X(void, omp_set_lock, "OMP_3.0", (void *))                                                  \
    X(void, omp_unset_lock, "OMP_3.0", (void *))                                                \
    X(int, omp_test_lock, "OMP_3.0", (void *))                                                  \
    X(void, omp_set_nest_lock, "OMP_3.0", (void *))                                             \
    X(void, omp_unset_nest_lock, "OMP_3.0", (void *))                                           \
    X(int, omp_test_nest_lock, "OMP_3.0", (void *))                                             \
    X(void, GOMP_task, "GOMP_2.0",                                                              \
      (void (*)(void *), void *, void (*)(void *, void *), long, long, bool, unsigned, void **, \
       int, void *))                                                                            \
    X(void, GOMP_taskloop, "GOMP_4.5",                                                          \
      (void (*)(void *), void *, void (*)(void *, void *), long, long, unsigned, unsigned long, \
       int, long, long, long))                                                                  \
    X(void, GOMP_taskloop_ull, "GOMP_4.5",                                                      \
      (void (*)(void *), void *, void (*)(void *, void *), long, long, unsigned, unsigned long, \
       int, instr_gomp_ull, instr_gomp_ull, instr_gomp_ull))                                    \
    X(void, GOMP_taskwait, "GOMP_2.0", (void))                                                  \
    X(void, GOMP_taskgroup_start, "GOMP_4.0", (void))                                           \
    X(void, GOMP_taskgroup_end, "GOMP_4.0", (void))                                             \
    X(void, GOMP_parallel_start, "GOMP_1.0", (void (*)(void *), void *, unsigned))              \
    X(void, GOMP_parallel_end, "GOMP_1.0", (void))                                              \
    X(void, GOMP_teams_reg, "GOMP_5.0", (void (*)(void *), void *, unsigned, unsigned, unsigned)) \
    X(bool, GOMP_loop_doacross_static_start, "GOMP_4.5", (unsigned, long *, long, long *, long *)) \
    X(bool, GOMP_loop_doacross_dynamic_start, "GOMP_4.5",                                       \
      (unsigned, long *, long, long *, long *))                                                 \
    X(bool, GOMP_loop_doacross_guided_start, "GOMP_4.5", (unsigned, long *, long, long *, long *)) \
    X(bool, GOMP_loop_doacross_runtime_start, "GOMP_4.5", (unsigned, long *, long *, long *))   \
    X(bool, GOMP_loop_doacross_start, "GOMP_5.0",                                               \
      (unsigned, long *, long, long, long *, long *, uintptr_t *, void **))                     \
    X(bool, GOMP_loop_ull_doacross_static_start, "GOMP_4.5",                                    \
      (unsigned, instr_gomp_ull *, instr_gomp_ull, instr_gomp_ull *, instr_gomp_ull *))         \
    X(bool, GOMP_loop_ull_doacross_dynamic_start, "GOMP_4.5",                                   \
      (unsigned, instr_gomp_ull *, instr_gomp_ull, instr_gomp_ull *, instr_gomp_ull *))         \
    X(bool, GOMP_loop_ull_doacross_guided_start, "GOMP_4.5",                                    \
      (unsigned, instr_gomp_ull *, instr_gomp_ull, instr_gomp_ull *, instr_gomp_ull *))         \
    X(bool, GOMP_loop_ull_doacross_runtime_start, "GOMP_4.5",                                   \
      (unsigned, instr_gomp_ull *, instr_gomp_ull *, instr_gomp_ull *))                         \
    X(bool, GOMP_loop_ull_doacross_start, "GOMP_5.0",                                           \
      (unsigned, instr_gomp_ull *, long, instr_gomp_ull, instr_gomp_ull *, instr_gomp_ull *,    \
       uintptr_t *, void **))                                                                   \
    X(int, omp_get_thread_num, "OMP_1.0", (void))                                               \
    X(int, omp_get_num_threads, "OMP_1.0", (void))                                              \
    X(int, omp_get_max_threads, "OMP_1.0", (void))

/* The functions the wrappers forward to: instr_gomp_real.GOMP_parallel, ... */
#define INSTR_GOMP_POINTER(ret, name, version, params) ret(*name) params;
struct instr_gomp_real {
    INSTR_GOMP_FUNCTIONS(INSTR_GOMP_POINTER)
};
#undef INSTR_GOMP_POINTER
extern struct instr_gomp_real instr_gomp_real;
/* 1 while the wrappers record (set once at start-up, see instr_gomp_recording). */
extern int instr_gomp_on;
/* Resolves instr_gomp_real (once; a wrapper called before the runtime's constructor). */
void instr_gomp_resolve(void);

/* The code address of the construct whose implicit barrier the calling thread's GOMP_barrier
 * is (a construct the GCC plugin marked, constructs.c), its region ended; NULL: an explicit
 * barrier. */
const void *instr_gomp_construct_barrier(void);
/* How many marked constructs the calling thread is in; _unwind ends those above `depth`
 * (their end calls were skipped: a cancelled region) at the end of an implicit or explicit
 * task. */
unsigned instr_gomp_constructs_depth(void);
void instr_gomp_constructs_unwind(unsigned depth);

/* The real function `name`, resolved on the first call that came before start-up. */
#define REAL(name)                                                                            \
    (__builtin_expect(instr_gomp_real.name != 0, 1) ? (void)0 : instr_gomp_resolve(),          \
     instr_gomp_real.name)

#endif
