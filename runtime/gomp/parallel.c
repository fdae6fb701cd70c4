/* parallel.c — parallel regions, worksharing and barriers of libgomp into the OpenMP event
 * model (../ompt/model.h), in the order LLVM's libomp reports them through OMPT.
 *
 * GOMP_parallel returns only after the team joined, so the fork record lives on the forking
 * thread's stack: every thread of the team, the master included, runs team_member instead of
 * the outlined body. team_member opens the thread's implicit task under the fork path (the
 * model grafts workers there), runs the body and opens the implicit barrier at the end of the
 * region. The master closes its own barrier and implicit task when the real GOMP_parallel
 * returned, and with them its workers' (docs/openmp.md, "Workers' late end callbacks"):
 * libgomp's workers are parked then, in its pool's dock (the outermost team) or on their
 * way out of the thread (nested teams), and record nothing until the master forks again. A
 * worker hands the model the late end of its implicit task when it next joins a team. */
#include "gomp.h"
#include "state.h"
#include "../ompt/model.h"
#include "../ompt/ompt.h"

#define EXPORT __attribute__((visibility("default")))

_Thread_local ompt_data_t *instr_gomp_task INSTR_GOMP_TLS;

ompt_data_t *instr_gomp_current_task(void)
{
    static _Thread_local ompt_data_t initial INSTR_GOMP_TLS;
    return instr_gomp_task ? instr_gomp_task : &initial;
}

typedef struct fork_record {
    void (*fn)(void *);
    void *data;
    ompt_data_t parallel;    /* the team, the model's handle */
    ompt_data_t master_task; /* the master's implicit task: it ends after team_member */
    unsigned nthreads;       /* the team's size at most */
    int work;                /* a combined construct's worksharing (ompt_work_t), or 0 */
    const void *ra;          /* the construct's code address */
    int barrier;             /* the team has an implicit barrier (more than one thread) */
    ompt_data_t *enc;        /* the task that encountered the construct */
    ompt_data_t *saved;      /* the forking thread's task, back after the join */
} fork_record;

/* Implicit tasks of this worker that the master closed; the model is told at the next fork. */
static _Thread_local unsigned late_ends INSTR_GOMP_TLS;
static _Thread_local int worker_known INSTR_GOMP_TLS;

/* A member of the team (thread `index`) begins its implicit task, before the body. */
static void member_enter(fork_record *f, unsigned index, ompt_data_t *task)
{
    if (index != 0) {
        for (; late_ends > 0; late_ends--)
            instr_omp_on_implicit_task(ompt_scope_end, NULL, NULL, 0, 0, ompt_task_implicit);
        if (!worker_known) {
            worker_known = 1;
            instr_omp_on_thread_begin(ompt_thread_worker, NULL);
        }
    }
    instr_omp_on_implicit_task(ompt_scope_begin, &f->parallel, task, f->nthreads, index,
                               ompt_task_implicit);
    instr_gomp_task = task;
    if (f->work)
        instr_omp_on_work((ompt_work_t)f->work, ompt_scope_begin, &f->parallel, task, 0, f->ra);
}

/* The member leaves the body: the implicit barrier at the end of the region. Constructs the
 * body left open (a cancelled region skips their ends) end here. */
static void member_leave(fork_record *f, unsigned index, ompt_data_t *task, unsigned constructs)
{
    instr_gomp_constructs_unwind(constructs);
    instr_omp_close_innermost(INSTR_OMP_SINGLE);
    /* A team of one has no barrier to wait at: libomp reports none either. */
    if (index == 0)
        f->barrier = REAL(omp_get_num_threads)() > 1;
    if (f->barrier || index != 0)
        instr_omp_on_sync_region(ompt_sync_region_barrier_implicit_parallel, ompt_scope_begin,
                                 &f->parallel, task, NULL);
}

static void team_member(void *arg)
{
    fork_record *f = arg;
    unsigned index = (unsigned)REAL(omp_get_thread_num)();
    ompt_data_t own = {0}, *task = index == 0 ? &f->master_task : &own;
    ompt_data_t *outer = instr_gomp_task;
    unsigned constructs = instr_gomp_constructs_depth();
    member_enter(f, index, task);
    f->fn(f->data);
    member_leave(f, index, task, constructs);
    if (index != 0) {
        late_ends++;
        instr_gomp_task = outer;
    }
}

/* The model's fork, before the real entry point starts the team. */
static void fork_begin(fork_record *f, unsigned nthreads_arg)
{
    f->nthreads = nthreads_arg ? nthreads_arg : (unsigned)REAL(omp_get_max_threads)();
    f->enc = instr_gomp_current_task();
    f->saved = instr_gomp_task;
    instr_omp_on_parallel_begin(f->enc, NULL, &f->parallel, f->nthreads, ompt_parallel_team,
                                f->ra);
}

/* The model's join, after the team joined: the master's barrier and implicit task end, and
 * with them its workers' (instr_core_close_above in the model). */
static void fork_end(fork_record *f)
{
    if (f->barrier)
        instr_omp_on_sync_region(ompt_sync_region_barrier_implicit_parallel, ompt_scope_end,
                                 &f->parallel, &f->master_task, NULL);
    instr_omp_on_implicit_task(ompt_scope_end, &f->parallel, &f->master_task, 0, 0,
                               ompt_task_implicit);
    instr_gomp_task = f->saved;
    instr_omp_on_parallel_end(&f->parallel, f->enc, ompt_parallel_team, f->ra);
}

/* Runs `start(team_member, &f)` (the real entry point) between the model's fork and join; the
 * sites are named from the outlined body (../ompt/names.c). The old GOMP_parallel_start does not
 * name from its body: hand-written callers pass a function of their own. */
#define FORK(work_kind, code, nthreads_arg, ...)                                                \
    do {                                                                                      \
        fork_record f = {.fn = fn, .data = data, .work = (work_kind), .ra = (code)};           \
        instr_omp_name_by_entry(f.ra, (const void *)fn);                                      \
        fork_begin(&f, (nthreads_arg));                                                       \
        __VA_ARGS__;                                                                          \
        fork_end(&f);                                                                         \
    } while (0)

EXPORT void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags)
{
    if (!instr_gomp_on) {
        REAL(GOMP_parallel)(fn, data, num_threads, flags);
        return;
    }
    FORK(0, INSTR_GOMP_RA, num_threads,
         REAL(GOMP_parallel)(team_member, &f, num_threads, flags));
}

/* This library's own GOMP_parallel (a reference to the name itself would bind to the first
 * definition in the process): real.c tells from it whether the calls reach the wrappers. */
extern __typeof__(GOMP_parallel) instr_gomp_parallel_own
    __attribute__((alias("GOMP_parallel"), visibility("hidden")));

EXPORT void GOMP_parallel_sections(void (*fn)(void *), void *data, unsigned num_threads,
                                   unsigned count, unsigned flags)
{
    if (!instr_gomp_on) {
        REAL(GOMP_parallel_sections)(fn, data, num_threads, count, flags);
        return;
    }
    FORK(ompt_work_sections, INSTR_GOMP_RA, num_threads,
         REAL(GOMP_parallel_sections)(team_member, &f, num_threads, count, flags));
}

#define PARALLEL_LOOP(name)                                                                   \
    EXPORT void name(void (*fn)(void *), void *data, unsigned num_threads, long start,        \
                     long end, long incr, long chunk, unsigned flags)                         \
    {                                                                                         \
        if (!instr_gomp_on) {                                                                 \
            REAL(name)(fn, data, num_threads, start, end, incr, chunk, flags);                \
            return;                                                                           \
        }                                                                                     \
        FORK(ompt_work_loop, INSTR_GOMP_RA, num_threads,                                      \
             REAL(name)(team_member, &f, num_threads, start, end, incr, chunk, flags));       \
    }
PARALLEL_LOOP(GOMP_parallel_loop_static)
PARALLEL_LOOP(GOMP_parallel_loop_dynamic)
PARALLEL_LOOP(GOMP_parallel_loop_guided)
PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_dynamic)
PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_guided)

#define PARALLEL_LOOP_RUNTIME(name)                                                           \
    EXPORT void name(void (*fn)(void *), void *data, unsigned num_threads, long start,        \
                     long end, long incr, unsigned flags)                                     \
    {                                                                                         \
        if (!instr_gomp_on) {                                                                 \
            REAL(name)(fn, data, num_threads, start, end, incr, flags);                       \
            return;                                                                           \
        }                                                                                     \
        FORK(ompt_work_loop, INSTR_GOMP_RA, num_threads,                                      \
             REAL(name)(team_member, &f, num_threads, start, end, incr, flags));              \
    }
PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_runtime)
PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_nonmonotonic_runtime)
PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_maybe_nonmonotonic_runtime)

/* gcc before 4.9 (objects and libraries compiled by it): the master runs the body itself
 * between GOMP_parallel_start and GOMP_parallel_end, so the fork record lives in a
 * per-thread stack of the regions it forked that way. */
#define OLD_FORKS_MAX 8
static _Thread_local fork_record old_forks[OLD_FORKS_MAX] INSTR_GOMP_TLS;
static _Thread_local unsigned old_depth INSTR_GOMP_TLS, old_overflow INSTR_GOMP_TLS;
static _Thread_local unsigned old_constructs[OLD_FORKS_MAX] INSTR_GOMP_TLS;

EXPORT void GOMP_parallel_start(void (*fn)(void *), void *data, unsigned num_threads)
{
    if (!instr_gomp_on || old_depth == OLD_FORKS_MAX) {
        old_overflow += instr_gomp_on;
        REAL(GOMP_parallel_start)(fn, data, num_threads);
        return;
    }
    fork_record *f = &old_forks[old_depth];
    *f = (fork_record){.fn = fn, .data = data, .ra = INSTR_GOMP_RA};
    fork_begin(f, num_threads);
    REAL(GOMP_parallel_start)(team_member, f, num_threads);
    old_constructs[old_depth++] = instr_gomp_constructs_depth();
    member_enter(f, 0, &f->master_task);
}

EXPORT void GOMP_parallel_end(void)
{
    if (!instr_gomp_on || old_overflow) {
        old_overflow -= old_overflow > 0;
        REAL(GOMP_parallel_end)();
        return;
    }
    if (old_depth == 0) { /* a start made before the wrappers recorded */
        REAL(GOMP_parallel_end)();
        return;
    }
    fork_record *f = &old_forks[--old_depth];
    member_leave(f, 0, &f->master_task, old_constructs[old_depth]);
    REAL(GOMP_parallel_end)();
    fork_end(f);
}

/* ---- teams on the host ---- */

/* libgomp 12 runs a host teams construct's teams one after another on the encountering
 * thread (GOMP_teams_reg calls fn once per team): the league's regions as libomp reports
 * them, each team's initial task on that thread. */
typedef struct league {
    void (*fn)(void *);
    void *data;
    ompt_data_t parallel;
} league;

static void team_initial(void *arg)
{
    league *l = arg;
    ompt_data_t task = {0}, *outer = instr_gomp_task;
    unsigned constructs = instr_gomp_constructs_depth();
    instr_omp_on_implicit_task(ompt_scope_begin, &l->parallel, &task, 1, 0, ompt_task_initial);
    instr_gomp_task = &task;
    l->fn(l->data);
    instr_gomp_constructs_unwind(constructs);
    instr_omp_on_implicit_task(ompt_scope_end, &l->parallel, &task, 1, 0, ompt_task_initial);
    instr_gomp_task = outer;
}

EXPORT void GOMP_teams_reg(void (*fn)(void *), void *data, unsigned num_teams,
                           unsigned thread_limit, unsigned flags)
{
    if (!instr_gomp_on) {
        REAL(GOMP_teams_reg)(fn, data, num_teams, thread_limit, flags);
        return;
    }
    const void *ra = INSTR_GOMP_RA;
    league l = {.fn = fn, .data = data};
    ompt_data_t *enc = instr_gomp_current_task();
    instr_omp_name_by_entry(ra, (const void *)fn);
    instr_omp_on_parallel_begin(enc, NULL, &l.parallel, num_teams ? num_teams : 1,
                                ompt_parallel_league, ra);
    REAL(GOMP_teams_reg)(team_initial, &l, num_teams, thread_limit, flags);
    instr_omp_on_parallel_end(&l.parallel, enc, ompt_parallel_league, ra);
}

/* ---- barriers ---- */

/* A barrier the thread enters (kind: explicit, or a worksharing construct's implicit one),
 * around the real call. GOMP's single has no end call: an open one ends here. */
#define BARRIER(kind, ra, call)                                                               \
    do {                                                                                      \
        instr_omp_close_innermost(INSTR_OMP_SINGLE);                                          \
        ompt_data_t *task_ = instr_gomp_current_task();                                       \
        instr_omp_on_sync_region((kind), ompt_scope_begin, NULL, task_, (ra));                \
        call;                                                                                 \
        instr_omp_on_sync_region((kind), ompt_scope_end, NULL, task_, (ra));                  \
    } while (0)

/* GOMP_barrier and GOMP_barrier_cancel: gcc calls them for `#pragma omp barrier` and at the
 * end of constructs that make no runtime call of their own (a static loop, scope, single):
 * the latter is that construct's implicit barrier when the GCC plugin marked the construct
 * (constructs.c). */
#define PLAIN_BARRIER(call)                                                                   \
    do {                                                                                      \
        instr_omp_close_innermost(INSTR_OMP_SINGLE);                                          \
        const void *construct_ = instr_gomp_construct_barrier();                              \
        if (construct_)                                                                       \
            BARRIER(ompt_sync_region_barrier_implicit_workshare, construct_, call);           \
        else                                                                                  \
            BARRIER(ompt_sync_region_barrier_explicit, INSTR_GOMP_RA, call);                  \
    } while (0)

EXPORT void GOMP_barrier(void)
{
    if (!instr_gomp_on) {
        REAL(GOMP_barrier)();
        return;
    }
    PLAIN_BARRIER(REAL(GOMP_barrier)());
}

EXPORT bool GOMP_barrier_cancel(void)
{
    if (!instr_gomp_on)
        return REAL(GOMP_barrier_cancel)();
    bool r;
    PLAIN_BARRIER(r = REAL(GOMP_barrier_cancel)());
    return r;
}

/* ---- worksharing ---- */

static void work_begin(ompt_work_t kind, const void *ra)
{
    instr_omp_close_innermost(INSTR_OMP_SINGLE);
    instr_omp_on_work(kind, ompt_scope_begin, NULL, instr_gomp_current_task(), 0, ra);
}

static void work_end(ompt_work_t kind, const void *ra)
{
    instr_omp_on_work(kind, ompt_scope_end, NULL, instr_gomp_current_task(), 0, ra);
}

/* The end of a worksharing construct: its region, then its implicit barrier (libomp
 * reports it also in a team of one). */
#define WORK_END(kind, call)                                                                  \
    do {                                                                                      \
        const void *ra_ = INSTR_GOMP_RA;                                                      \
        work_end((kind), ra_);                                                                \
        BARRIER(ompt_sync_region_barrier_implicit_workshare, ra_, call);                      \
    } while (0)

/* GOMP_<kind>_end, _end_cancel and _end_nowait: the construct's end, with its implicit
 * barrier where there is one. */
#define WORK_END_WRAPPERS(kind, work)                                                         \
    EXPORT void GOMP_##kind##_end(void)                                                       \
    {                                                                                         \
        if (!instr_gomp_on) {                                                                 \
            REAL(GOMP_##kind##_end)();                                                        \
            return;                                                                           \
        }                                                                                     \
        WORK_END(work, REAL(GOMP_##kind##_end)());                                            \
    }                                                                                         \
    EXPORT bool GOMP_##kind##_end_cancel(void)                                                \
    {                                                                                         \
        if (!instr_gomp_on)                                                                   \
            return REAL(GOMP_##kind##_end_cancel)();                                          \
        bool r;                                                                               \
        WORK_END(work, r = REAL(GOMP_##kind##_end_cancel)());                                 \
        return r;                                                                             \
    }                                                                                         \
    EXPORT void GOMP_##kind##_end_nowait(void)                                                \
    {                                                                                         \
        if (instr_gomp_on)                                                                    \
            work_end(work, INSTR_GOMP_RA);                                                    \
        REAL(GOMP_##kind##_end_nowait)();                                                     \
    }

EXPORT bool GOMP_single_start(void)
{
    if (!instr_gomp_on)
        return REAL(GOMP_single_start)();
    const void *ra = INSTR_GOMP_RA;
    instr_omp_close_innermost(INSTR_OMP_SINGLE);
    bool executor = REAL(GOMP_single_start)();
    ompt_data_t *task = instr_gomp_current_task();
    instr_omp_on_work(executor ? ompt_work_single_executor : ompt_work_single_other,
                      ompt_scope_begin, NULL, task, 1, ra);
    if (!executor)
        instr_omp_on_work(ompt_work_single_other, ompt_scope_end, NULL, task, 1, ra);
    return executor;
}

EXPORT void *GOMP_single_copy_start(void)
{
    if (!instr_gomp_on)
        return REAL(GOMP_single_copy_start)();
    const void *ra = INSTR_GOMP_RA;
    work_begin(ompt_work_single_other, ra);
    void *r = REAL(GOMP_single_copy_start)();
    if (r) /* not the executor: it waited for the copy */
        work_end(ompt_work_single_other, ra);
    return r;
}

EXPORT void GOMP_single_copy_end(void *data)
{
    if (!instr_gomp_on) {
        REAL(GOMP_single_copy_end)(data);
        return;
    }
    WORK_END(ompt_work_single_executor, REAL(GOMP_single_copy_end)(data));
}

EXPORT unsigned GOMP_sections_start(unsigned count)
{
    if (instr_gomp_on)
        work_begin(ompt_work_sections, INSTR_GOMP_RA);
    return REAL(GOMP_sections_start)(count);
}

EXPORT unsigned GOMP_sections2_start(unsigned count, uintptr_t *reductions, void **mem)
{
    if (instr_gomp_on)
        work_begin(ompt_work_sections, INSTR_GOMP_RA);
    return REAL(GOMP_sections2_start)(count, reductions, mem);
}

WORK_END_WRAPPERS(sections, ompt_work_sections)

/* Loops: the region from the start call to the end call; GOMP_loop_*_next only forwards
 * (libgomp exports them itself). */
#define LOOP_START(name, params, args)                                                        \
    EXPORT bool name params                                                                   \
    {                                                                                         \
        if (instr_gomp_on)                                                                    \
            work_begin(ompt_work_loop, INSTR_GOMP_RA);                                        \
        return REAL(name) args;                                                               \
    }
#define LONG6 (long s, long e, long i, long c, long *is, long *ie)
#define LONG6_ARGS (s, e, i, c, is, ie)
#define LONG5 (long s, long e, long i, long *is, long *ie)
#define LONG5_ARGS (s, e, i, is, ie)
#define ULL7                                                                                  \
    (bool up, instr_gomp_ull s, instr_gomp_ull e, instr_gomp_ull i, instr_gomp_ull c,          \
     instr_gomp_ull *is, instr_gomp_ull *ie)
#define ULL7_ARGS (up, s, e, i, c, is, ie)
#define ULL6                                                                                  \
    (bool up, instr_gomp_ull s, instr_gomp_ull e, instr_gomp_ull i, instr_gomp_ull *is,        \
     instr_gomp_ull *ie)
#define ULL6_ARGS (up, s, e, i, is, ie)
LOOP_START(GOMP_loop_static_start, LONG6, LONG6_ARGS)
LOOP_START(GOMP_loop_dynamic_start, LONG6, LONG6_ARGS)
LOOP_START(GOMP_loop_guided_start, LONG6, LONG6_ARGS)
LOOP_START(GOMP_loop_nonmonotonic_dynamic_start, LONG6, LONG6_ARGS)
LOOP_START(GOMP_loop_nonmonotonic_guided_start, LONG6, LONG6_ARGS)
LOOP_START(GOMP_loop_runtime_start, LONG5, LONG5_ARGS)
LOOP_START(GOMP_loop_nonmonotonic_runtime_start, LONG5, LONG5_ARGS)
LOOP_START(GOMP_loop_maybe_nonmonotonic_runtime_start, LONG5, LONG5_ARGS)
LOOP_START(GOMP_loop_ordered_static_start, LONG6, LONG6_ARGS)
LOOP_START(GOMP_loop_ordered_dynamic_start, LONG6, LONG6_ARGS)
LOOP_START(GOMP_loop_ordered_guided_start, LONG6, LONG6_ARGS)
LOOP_START(GOMP_loop_ordered_runtime_start, LONG5, LONG5_ARGS)
LOOP_START(GOMP_loop_start,
           (long s, long e, long i, long sched, long c, long *is, long *ie, uintptr_t *red,
            void **mem),
           (s, e, i, sched, c, is, ie, red, mem))
LOOP_START(GOMP_loop_ordered_start,
           (long s, long e, long i, long sched, long c, long *is, long *ie, uintptr_t *red,
            void **mem),
           (s, e, i, sched, c, is, ie, red, mem))
LOOP_START(GOMP_loop_ull_static_start, ULL7, ULL7_ARGS)
LOOP_START(GOMP_loop_ull_dynamic_start, ULL7, ULL7_ARGS)
LOOP_START(GOMP_loop_ull_guided_start, ULL7, ULL7_ARGS)
LOOP_START(GOMP_loop_ull_nonmonotonic_dynamic_start, ULL7, ULL7_ARGS)
LOOP_START(GOMP_loop_ull_nonmonotonic_guided_start, ULL7, ULL7_ARGS)
LOOP_START(GOMP_loop_ull_runtime_start, ULL6, ULL6_ARGS)
LOOP_START(GOMP_loop_ull_nonmonotonic_runtime_start, ULL6, ULL6_ARGS)
LOOP_START(GOMP_loop_ull_maybe_nonmonotonic_runtime_start, ULL6, ULL6_ARGS)
LOOP_START(GOMP_loop_ull_ordered_static_start, ULL7, ULL7_ARGS)
LOOP_START(GOMP_loop_ull_ordered_dynamic_start, ULL7, ULL7_ARGS)
LOOP_START(GOMP_loop_ull_ordered_guided_start, ULL7, ULL7_ARGS)
LOOP_START(GOMP_loop_ull_ordered_runtime_start, ULL6, ULL6_ARGS)
LOOP_START(GOMP_loop_ull_start,
           (bool up, instr_gomp_ull s, instr_gomp_ull e, instr_gomp_ull i, long sched,
            instr_gomp_ull c, instr_gomp_ull *is, instr_gomp_ull *ie, uintptr_t *red,
            void **mem),
           (up, s, e, i, sched, c, is, ie, red, mem))
LOOP_START(GOMP_loop_ull_ordered_start,
           (bool up, instr_gomp_ull s, instr_gomp_ull e, instr_gomp_ull i, long sched,
            instr_gomp_ull c, instr_gomp_ull *is, instr_gomp_ull *ie, uintptr_t *red,
            void **mem),
           (up, s, e, i, sched, c, is, ie, red, mem))

/* Doacross loops (ordered(n)): the loop's region as any other's; the waits and posts of its
 * iterations (GOMP_doacross_wait/_post) only forward: OMPT reports them as no region. */
LOOP_START(GOMP_loop_doacross_static_start,
           (unsigned n, long *counts, long c, long *is, long *ie), (n, counts, c, is, ie))
LOOP_START(GOMP_loop_doacross_dynamic_start,
           (unsigned n, long *counts, long c, long *is, long *ie), (n, counts, c, is, ie))
LOOP_START(GOMP_loop_doacross_guided_start,
           (unsigned n, long *counts, long c, long *is, long *ie), (n, counts, c, is, ie))
LOOP_START(GOMP_loop_doacross_runtime_start, (unsigned n, long *counts, long *is, long *ie),
           (n, counts, is, ie))
LOOP_START(GOMP_loop_doacross_start,
           (unsigned n, long *counts, long sched, long c, long *is, long *ie, uintptr_t *red,
            void **mem),
           (n, counts, sched, c, is, ie, red, mem))
LOOP_START(GOMP_loop_ull_doacross_static_start,
           (unsigned n, instr_gomp_ull *counts, instr_gomp_ull c, instr_gomp_ull *is,
            instr_gomp_ull *ie),
           (n, counts, c, is, ie))
LOOP_START(GOMP_loop_ull_doacross_dynamic_start,
           (unsigned n, instr_gomp_ull *counts, instr_gomp_ull c, instr_gomp_ull *is,
            instr_gomp_ull *ie),
           (n, counts, c, is, ie))
LOOP_START(GOMP_loop_ull_doacross_guided_start,
           (unsigned n, instr_gomp_ull *counts, instr_gomp_ull c, instr_gomp_ull *is,
            instr_gomp_ull *ie),
           (n, counts, c, is, ie))
LOOP_START(GOMP_loop_ull_doacross_runtime_start,
           (unsigned n, instr_gomp_ull *counts, instr_gomp_ull *is, instr_gomp_ull *ie),
           (n, counts, is, ie))
LOOP_START(GOMP_loop_ull_doacross_start,
           (unsigned n, instr_gomp_ull *counts, long sched, instr_gomp_ull c,
            instr_gomp_ull *is, instr_gomp_ull *ie, uintptr_t *red, void **mem),
           (n, counts, sched, c, is, ie, red, mem))

WORK_END_WRAPPERS(loop, ompt_work_loop)
