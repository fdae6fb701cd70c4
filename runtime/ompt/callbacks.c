/* callbacks.c — OMPT callbacks turned into regions on the calling thread's location.
 *
 * Every construct becomes an enter/exit pair in the event core, on the thread the callback
 * runs on, so instrumented functions a thread runs inside an implicit or explicit task nest
 * under that task. Begin/end callbacks do not always carry the same code address (a loop's
 * end reports the loop's end), so each thread keeps its own small stack of open constructs
 * and an end closes the innermost open construct of its kind.
 *
 * Workers' implicit barrier and implicit task end late: LLVM's libomp reports their end only
 * when the worker is woken for the next parallel region (or at shutdown, after the end of
 * measurement). Recording them then would count the idle time between regions as barrier
 * time. So the team's master closes its workers' open regions when it leaves the implicit
 * barrier itself: the workers are parked in the runtime then, and libomp's barrier orders
 * their earlier events before, and their next events after, what the master writes into
 * their locations. The workers' late end callbacks are then ignored. */
#include "ompt.h"
#include "model.h"
#include "../critpath/openmp.h"
#include "../core/core.h"
#include "../core/event.h"
#include "../core/log.h"
#include "../core/registry.h"
#include "../plugins/substrate_plugins.h"
#include "../profile/graft.h"
#ifdef INSTR_RT_HAVE_TRACE
#include "../trace/trace.h"
#include "../util/pages.h"
#endif

#include <omp-tools.h>
#include <stdlib.h>
#include <string.h>

#define OPEN_MAX 128 /* open constructs per thread; deeper ones are not recorded */
#define FRAMES_MAX 16 /* nested implicit tasks per thread */
#define TASKS_MAX 64  /* explicit tasks running (nested, suspended) per thread */

typedef struct othread othread;

/* One parallel region in flight; owned by the thread that forked it (pd->ptr). */
typedef struct team {
    const void *codeptr;
    int league;             /* a teams construct: its members run initial tasks */
    const void *fork_point; /* the master's profile node inside the parallel region */
    struct itask **member; /* by thread index in the team; [0] is the master */
    uint32_t cap;
    struct team *next;     /* the owner's free list */
    instr_cp_team cp;      /* the critical path's records (INSTR_CRITICAL_PATH=1) */
} team;

/* An implicit task on a thread. */
typedef struct itask {
    othread *owner;
    team *team;
    uint32_t index;       /* thread number in the team */
    uint32_t core_depth;  /* the location's stack depth below the implicit task */
    uint32_t open_depth;  /* this thread's open-construct depth below it */
    int open;             /* 0 once closed (by the master for a worker) */
    uint32_t cp_barriers; /* barriers of the team this thread passed (critical path) */
    const void *task_data; /* OMPT's data of the implicit task (critical path) */
    instr_profile_graft graft; /* a worker's: its work under the master's fork point */
} itask;

struct othread {
    instr_location *loc;
    struct {
        uint32_t handle;
        int construct;
        uintptr_t tag;
    } open[OPEN_MAX];
    uint32_t nopen, overflow;
    itask frame[FRAMES_MAX];
    uint32_t nframes, frames_overflow;
    team *pool;
    struct {
        const ompt_data_t *task;
        instr_profile_graft graft; /* the task's work under its creation path */
    } tasks[TASKS_MAX];
    uint32_t ntasks;
    const void *initial_task; /* OMPT's data of the program's initial task on this thread */
};

static _Thread_local othread self;

static instr_location *location(void)
{
    if (!self.loc)
        self.loc = instr_core_location_self();
    return self.loc;
}

static void push(int construct, uintptr_t tag, const void *codeptr)
{
    if (self.nopen == OPEN_MAX) {
        self.overflow++;
        return;
    }
    uint32_t h = instr_omp_region(construct, codeptr);
    self.open[self.nopen].handle = h;
    self.open[self.nopen].construct = construct;
    self.open[self.nopen].tag = tag;
    self.nopen++;
    if (h)
        instr_event_enter(h);
}

static void task_graft_end(const ompt_data_t *task);

/* Closes the innermost open construct of this kind and tag, and what is still open above it
 * (the event core does the same for its stack). An explicit task closed that way (an untied
 * task that completed on another thread) ends its graft after its region, so that the cursor
 * returns to the region the task ran in. */
static void pop(int construct, uintptr_t tag)
{
    if (self.overflow) {
        self.overflow--;
        return;
    }
    uint32_t k = self.nopen;
    while (k > 0 && !(self.open[k - 1].construct == construct && self.open[k - 1].tag == tag))
        k--;
    if (k == 0)
        return;
    uint32_t h = self.open[k - 1].handle, top = self.nopen;
    self.nopen = k - 1;
    if (h)
        instr_event_exit(h);
    /* The regions first, then the graft frames below them, innermost first. */
    for (uint32_t i = top; i-- > k - 1;)
        if (self.open[i].construct == INSTR_OMP_TASK)
            task_graft_end((const ompt_data_t *)self.open[i].tag);
}

void instr_omp_close_innermost(int construct)
{
    if (!self.overflow && self.nopen > 0 && self.open[self.nopen - 1].construct == construct)
        pop(construct, self.open[self.nopen - 1].tag);
}

/* ---- threads and parallel regions ---- */

void instr_omp_on_thread_begin(ompt_thread_t type, ompt_data_t *thread_data)
{
    (void)thread_data;
    instr_plugins_openmp_worker = type == ompt_thread_worker;
    location(); /* a thread becomes a location when it starts */
}

void instr_omp_on_parallel_begin(ompt_data_t *encountering_task_data,
                              const ompt_frame_t *encountering_task_frame,
                              ompt_data_t *parallel_data, unsigned int requested_parallelism,
                              int flags, const void *codeptr_ra)
{
    (void)encountering_task_data, (void)encountering_task_frame;
    parallel_data->ptr = NULL;
    team *t = self.pool;
    if (t)
        self.pool = t->next;
    else if (!(t = instr_mem_calloc(1, sizeof *t)))
        return;
    if (t->cap < requested_parallelism) {
        itask **m = instr_mem_realloc(t->member, requested_parallelism * sizeof *m);
        if (!m) {
            t->next = self.pool;
            self.pool = t;
            return;
        }
        t->member = m;
        t->cap = requested_parallelism;
    }
    memset(t->member, 0, t->cap * sizeof *t->member);
    t->codeptr = codeptr_ra;
    t->league = (flags & ompt_parallel_league) != 0;
    parallel_data->ptr = t;
#ifdef INSTR_RT_HAVE_TRACE
    if (location())
        instr_trace_thread_fork(self.loc, requested_parallelism, instr_clock_now());
#endif
    if (instr_plugins_omp)
        instr_plugins_omp_event(INSTR_PLUGINS_OMP_FORK, requested_parallelism);
    push(t->league ? INSTR_OMP_TEAMS : INSTR_OMP_PARALLEL, (uintptr_t)t, codeptr_ra);
    instr_cp_omp_fork(&t->cp);
    t->fork_point = instr_profile_cursor(self.loc);
}

void instr_omp_on_parallel_end(ompt_data_t *parallel_data, ompt_data_t *encountering_task_data,
                            int flags, const void *codeptr_ra)
{
    (void)encountering_task_data, (void)flags, (void)codeptr_ra;
    team *t = parallel_data->ptr;
    if (!t)
        return;
    pop(t->league ? INSTR_OMP_TEAMS : INSTR_OMP_PARALLEL, (uintptr_t)t);
#ifdef INSTR_RT_HAVE_TRACE
    if (self.loc)
        instr_trace_thread_join(self.loc, instr_clock_now());
#endif
    if (instr_plugins_omp)
        instr_plugins_omp_event(INSTR_PLUGINS_OMP_JOIN, 0);
    parallel_data->ptr = NULL;
    t->next = self.pool;
    self.pool = t;
}

/* The master, leaving the team: end the workers' implicit barrier and implicit task now. */
static void close_workers(team *t)
{
    uint64_t now = instr_clock_now();
    for (uint32_t i = 1; i < t->cap; i++) {
        itask *w = t->member[i];
        if (!w || !w->open)
            continue;
        if (w->owner->loc) {
            /* The constructs the worker opened in the implicit task, for a location on the
             * direct trace path, whose stack is its records (the core does not know it). */
            uint32_t open[OPEN_MAX], n = 0;
            for (uint32_t k = w->open_depth; k < w->owner->nopen && n < OPEN_MAX; k++)
                open[n++] = w->owner->open[k].handle;
            instr_core_close_listed(w->owner->loc, w->core_depth, open, n, now);
            instr_profile_graft_end(w->owner->loc, &w->graft);
        }
        w->owner->nopen = w->open_depth;
        w->owner->overflow = 0;
        w->open = 0;
        t->member[i] = NULL;
    }
}

void instr_omp_on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                             ompt_data_t *task_data, unsigned int actual_parallelism,
                             unsigned int index, int flags)
{
    (void)actual_parallelism;
    /* The program's initial task spans the program, not a construct; a league's teams run
     * initial tasks of their own (parallel_data is then the league's). */
    int league = 0;
    if (flags & ompt_task_initial) {
        team *lt = NULL;
        if (endpoint == ompt_scope_begin)
            lt = parallel_data ? parallel_data->ptr : NULL;
        else if (self.nframes > 0 && !self.frames_overflow)
            lt = self.frame[self.nframes - 1].team; /* no parallel_data at the end */
        league = lt && lt->league;
    }
    if ((flags & ompt_task_initial) && !league && endpoint == ompt_scope_begin) {
        self.initial_task = task_data; /* the task of the code outside parallel regions */
        instr_cp_implicit_task_begin(task_data);
    }
    if (!(flags & ompt_task_implicit) && !league)
        return;
    int construct = league ? INSTR_OMP_INITIAL_TASK : INSTR_OMP_IMPLICIT_TASK;
    if (endpoint == ompt_scope_begin) {
        if (self.nframes == FRAMES_MAX) {
            self.frames_overflow++;
            return;
        }
        team *t = parallel_data ? parallel_data->ptr : NULL;
        instr_location *loc = location();
        itask *f = &self.frame[self.nframes++];
        *f = (itask){.owner = &self, .team = t, .index = index,
                     .core_depth = loc ? instr_core_depth(loc) : 0, .open_depth = self.nopen, .open = 1,
                     .task_data = task_data};
        if (t && index < t->cap)
            t->member[index] = f;
        /* A worker continues the master's call path (docs/openmp.md, "Call paths"). */
        f->graft.saved = NULL;
        if (t && index != 0) {
            instr_profile_graft_begin(loc, t->fork_point, &f->graft);
            instr_cp_omp_worker_begin(&t->cp);
        }
        instr_cp_implicit_task_begin(task_data);
        push(construct, (uintptr_t)t, t ? t->codeptr : NULL);
        return;
    }
    if (self.frames_overflow) {
        self.frames_overflow--;
        return;
    }
    if (self.nframes == 0)
        return;
    itask *f = &self.frame[--self.nframes];
    if (!f->open)
        return; /* a worker's late end: the master closed it already */
    if (f->index == 0 && f->team)
        close_workers(f->team);
    pop(construct, (uintptr_t)f->team);
    instr_profile_graft_end(self.loc, &f->graft);
    f->open = 0;
    /* The thread is back in the task that encountered the parallel region. */
    instr_cp_implicit_task_end(self.nframes > 0 && !self.frames_overflow
                                   ? self.frame[self.nframes - 1].task_data
                                   : self.initial_task);
}

/* ---- synchronisation ---- */

static int sync_construct(ompt_sync_region_t kind)
{
    switch ((int)kind) {
    case ompt_sync_region_barrier_explicit: return INSTR_OMP_BARRIER;
    case ompt_sync_region_barrier_implementation: return INSTR_OMP_IMPL_BARRIER;
    case ompt_sync_region_taskwait: return INSTR_OMP_TASKWAIT;
    case ompt_sync_region_taskgroup: return INSTR_OMP_TASKGROUP;
    case ompt_sync_region_reduction: return INSTR_OMP_REDUCTION;
    default: return INSTR_OMP_IMPLICIT_BARRIER; /* implicit, parallel, workshare, teams */
    }
}

/* The thread's innermost team (not a league) and the barriers it passed in it, for the
 * critical path; NULL outside a parallel region. */
static instr_cp_team *cp_team(uint32_t **barriers)
{
    if (self.nframes == 0 || self.frames_overflow)
        return NULL;
    itask *f = &self.frame[self.nframes - 1];
    if (!f->open || !f->team || f->team->league)
        return NULL;
    *barriers = &f->cp_barriers;
    return &f->team->cp;
}

/* The critical path through taskwait and the end of a taskgroup: the waiting task takes the
 * paths of the tasks it waited for. */
static void cp_task_wait(int group, ompt_scope_endpoint_t endpoint, const ompt_data_t *task_data)
{
    if (endpoint == ompt_scope_begin)
        instr_cp_task_wait_begin();
    else
        instr_cp_task_wait_end(task_data, group);
}

/* The critical path through a barrier of the team (not a league's). */
static void cp_barrier(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint)
{
    switch ((int)kind) {
    case ompt_sync_region_barrier:
    case ompt_sync_region_barrier_implicit:
    case ompt_sync_region_barrier_explicit:
    case ompt_sync_region_barrier_implementation:
    case ompt_sync_region_barrier_implicit_workshare:
    case ompt_sync_region_barrier_implicit_parallel: break;
    default: return;
    }
    uint32_t *n;
    instr_cp_team *t = cp_team(&n);
    if (!t)
        return;
    if (endpoint == ompt_scope_begin)
        instr_cp_omp_barrier_begin(t, *n);
    else
        instr_cp_omp_barrier_end(t, (*n)++);
}

void instr_omp_on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                           ompt_data_t *parallel_data, ompt_data_t *task_data,
                           const void *codeptr_ra)
{
    (void)parallel_data;
    int c = sync_construct(kind);
    if (c == INSTR_OMP_IMPLICIT_BARRIER && self.nframes > 0) {
        itask *f = &self.frame[self.nframes - 1];
        if (!f->open)
            return; /* a worker's late end: the master closed it already */
        /* Workers get no code address, and the master's may differ from the fork's: one
         * site, the parallel region's. */
        if (f->team && (!codeptr_ra || kind == ompt_sync_region_barrier_implicit_parallel))
            codeptr_ra = f->team->codeptr;
    }
    /* The barrier's region lies inside the critical path's wait (its dependent metrics
     * count the events at its ends as the wait's). */
    int taskwait = kind == ompt_sync_region_taskwait;
    if (endpoint == ompt_scope_begin) {
        cp_barrier(kind, endpoint);
        if (taskwait)
            cp_task_wait(0, endpoint, task_data);
        push(c, 0, codeptr_ra);
    } else {
        pop(c, 0);
        cp_barrier(kind, endpoint);
        if (taskwait)
            cp_task_wait(0, endpoint, task_data);
    }
}

/* A taskgroup's region spans the construct; the wait for its tasks at its end is a region of
 * its own inside (LLVM's libomp reports it with the sync-region-wait callback). The other
 * kinds' waits are their sync regions. */
void instr_omp_on_sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                                ompt_data_t *parallel_data, ompt_data_t *task_data,
                                const void *codeptr_ra)
{
    (void)parallel_data;
    if (kind != ompt_sync_region_taskgroup)
        return;
    if (endpoint == ompt_scope_begin) {
        cp_task_wait(1, endpoint, task_data);
        push(INSTR_OMP_TASKGROUP_WAIT, 0, codeptr_ra);
    } else {
        pop(INSTR_OMP_TASKGROUP_WAIT, 0);
        cp_task_wait(1, endpoint, task_data);
    }
}

static int mutex_construct(ompt_mutex_t kind, int wait)
{
    switch ((int)kind) {
    case ompt_mutex_critical: return wait ? INSTR_OMP_CRITICAL_WAIT : INSTR_OMP_CRITICAL;
    case ompt_mutex_ordered: return wait ? INSTR_OMP_ORDERED_WAIT : INSTR_OMP_ORDERED;
    case ompt_mutex_atomic: return wait ? INSTR_OMP_ATOMIC_WAIT : INSTR_OMP_ATOMIC;
    case ompt_mutex_lock:
    case ompt_mutex_nest_lock:
    case ompt_mutex_test_lock:
    case ompt_mutex_test_nest_lock: return wait ? INSTR_OMP_LOCK_WAIT : INSTR_OMP_LOCK;
    default: return -1;
    }
}

static int is_test(ompt_mutex_t kind)
{
    return kind == ompt_mutex_test_lock || kind == ompt_mutex_test_nest_lock;
}

void instr_omp_on_mutex_acquire(ompt_mutex_t kind, unsigned int hint, unsigned int impl,
                             ompt_wait_id_t wait_id, const void *codeptr_ra)
{
    (void)hint, (void)impl;
    int held = mutex_construct(kind, 0);
    if (held < 0 || is_test(kind))
        return; /* a test may fail: its region starts when it succeeds */
    push(held, (uintptr_t)wait_id, codeptr_ra);
    push(mutex_construct(kind, 1), (uintptr_t)wait_id, codeptr_ra);
    instr_cp_omp_wait_begin();
}

void instr_omp_on_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr_ra)
{
    int held = mutex_construct(kind, 0);
    if (held < 0)
        return;
    if (is_test(kind))
        push(held, (uintptr_t)wait_id, codeptr_ra);
    else
        pop(mutex_construct(kind, 1), (uintptr_t)wait_id);
    instr_cp_omp_acquired((uint64_t)wait_id);
    if (instr_plugins_omp)
        instr_plugins_omp_event(INSTR_PLUGINS_OMP_ACQUIRE_LOCK, (uint64_t)wait_id);
}

void instr_omp_on_mutex_released(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr_ra)
{
    (void)codeptr_ra;
    int held = mutex_construct(kind, 0);
    if (held >= 0 && instr_plugins_omp)
        instr_plugins_omp_event(INSTR_PLUGINS_OMP_RELEASE_LOCK, (uint64_t)wait_id);
    if (held >= 0) {
        instr_cp_omp_released((uint64_t)wait_id);
        pop(held, (uintptr_t)wait_id);
    }
}

/* A nest lock acquired again by its owner: no acquired/released pair follows; the
 * acquisition is one short visit. */
void instr_omp_on_nest_lock(ompt_scope_endpoint_t endpoint, ompt_wait_id_t wait_id,
                         const void *codeptr_ra)
{
    (void)codeptr_ra;
    if (endpoint == ompt_scope_begin)
        pop(INSTR_OMP_LOCK, (uintptr_t)wait_id);
}

/* ---- worksharing and masked ---- */

static int work_construct(ompt_work_t kind)
{
    switch ((int)kind) {
    case ompt_work_sections: return INSTR_OMP_SECTIONS;
    case ompt_work_single_executor:
    case ompt_work_single_other: return INSTR_OMP_SINGLE;
    case ompt_work_workshare: return INSTR_OMP_WORKSHARE;
    case ompt_work_taskloop: return INSTR_OMP_TASKLOOP;
    case ompt_work_distribute: return INSTR_OMP_DISTRIBUTE;
    case ompt_work_scope: return INSTR_OMP_SCOPE;
    default: return INSTR_OMP_LOOP; /* loop and its static/dynamic/guided/other forms */
    }
}

void instr_omp_on_work(ompt_work_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                    ompt_data_t *task_data, uint64_t count, const void *codeptr_ra)
{
    (void)parallel_data, (void)task_data, (void)count;
    int c = work_construct(kind);
    if (c < 0)
        return;
    if (endpoint == ompt_scope_begin)
        push(c, 0, codeptr_ra);
    else
        pop(c, 0);
}

void instr_omp_on_masked(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                      ompt_data_t *task_data, const void *codeptr_ra)
{
    (void)parallel_data, (void)task_data;
    if (endpoint == ompt_scope_begin)
        push(INSTR_OMP_MASKED, 0, codeptr_ra);
    else
        pop(INSTR_OMP_MASKED, 0);
}

/* ---- explicit tasks ---- */

/* task_data->value of an explicit task: these bits and either the region of its execution
 * or (TASK_CREATED_AT) the creating thread's profile node of `!$omp task (create)`, whose
 * parent is the creation path and whose region's address names the task's region. */
#define TASK_EXPLICIT (1ull << 63)
#define TASK_STARTED (1ull << 62)
#define TASK_CREATED_AT (1ull << 61)
#define TASK_PAYLOAD ((1ull << 61) - 1)

void instr_omp_on_task_create(ompt_data_t *encountering_task_data,
                           const ompt_frame_t *encountering_task_frame, ompt_data_t *new_task_data,
                           int flags, int has_dependences, const void *codeptr_ra)
{
    (void)encountering_task_frame, (void)has_dependences;
    new_task_data->value = 0;
    if (!(flags & ompt_task_explicit))
        return;
    new_task_data->value = TASK_EXPLICIT | instr_omp_region(INSTR_OMP_TASK, codeptr_ra);
    push(INSTR_OMP_TASK_CREATE, 0, codeptr_ra);
    instr_cp_task_create(new_task_data, encountering_task_data,
                         (flags & ompt_task_undeferred) != 0);
    if (instr_plugins_omp)
        instr_plugins_omp_event(INSTR_PLUGINS_OMP_TASK_CREATE, (uint64_t)(uintptr_t)new_task_data);
    /* With a profile: remember where the task was created (docs/openmp.md, "Call paths").
     * Not for untied tasks: they may move to another thread mid-way, and their time could
     * not be given back where they ran. */
    const void *created = (flags & ompt_task_untied) ? NULL : instr_profile_cursor(location());
    uint32_t h = instr_omp_region(INSTR_OMP_TASK_CREATE, codeptr_ra);
    if (created && h && instr_profile_cursor_region(created) == h &&
        ((uintptr_t)created & ~TASK_PAYLOAD) == 0)
        new_task_data->value = TASK_EXPLICIT | TASK_CREATED_AT | (uintptr_t)created;
    pop(INSTR_OMP_TASK_CREATE, 0);
}

/* The region of a task's execution, and the creation path to graft it under (NULL: none). */
static uint32_t task_region(uint64_t value, const void **creation)
{
    *creation = NULL;
    if (!(value & TASK_CREATED_AT))
        return (uint32_t)value;
    const void *create = (const void *)(uintptr_t)(value & TASK_PAYLOAD);
    const instr_region_info *r = instr_registry_get(instr_profile_cursor_region(create));
    *creation = instr_profile_cursor_parent(create);
    return instr_omp_region(INSTR_OMP_TASK, r ? r->addr : NULL);
}

/* A task's region is closed on this thread: end its graft (and those of tasks above it). */
static void task_graft_end(const ompt_data_t *task)
{
    for (uint32_t k = self.ntasks; k-- > 0;) {
        if (self.tasks[k].task != task)
            continue;
        instr_profile_graft_end(self.loc, &self.tasks[k].graft);
        self.ntasks = k; /* tied tasks end in order; what was above ended with it */
        return;
    }
}

void instr_omp_on_task_schedule(ompt_data_t *prior_task_data, ompt_task_status_t prior_task_status,
                             ompt_data_t *next_task_data)
{
    int prior_explicit = prior_task_data && (prior_task_data->value & TASK_EXPLICIT);
    int prior_done = prior_task_status == ompt_task_complete ||
                     prior_task_status == ompt_task_cancel ||
                     prior_task_status == ompt_task_detach;
    if (prior_explicit && prior_done) {
        if (instr_plugins_omp)
            instr_plugins_omp_event(INSTR_PLUGINS_OMP_TASK_COMPLETE,
                                    (uint64_t)(uintptr_t)prior_task_data);
        pop(INSTR_OMP_TASK, (uintptr_t)prior_task_data); /* ends its graft too */
    }
    /* The critical path follows the task: after the prior task's region ended, before the
     * next one's begins. The fulfilment of a detached task's event (on any thread, maybe
     * while the task's body still runs) switches nothing. */
    if (prior_task_status != ompt_task_early_fulfill &&
        prior_task_status != ompt_task_late_fulfill) {
        uint32_t *barriers = NULL;
        instr_cp_team *team = cp_team(&barriers);
        instr_cp_task_switch(prior_task_data, prior_explicit, prior_done, next_task_data,
                             next_task_data && (next_task_data->value & TASK_EXPLICIT), team,
                             team ? *barriers : 0);
    }
    if (instr_plugins_omp && next_task_data && (next_task_data->value & TASK_EXPLICIT))
        instr_plugins_omp_event(INSTR_PLUGINS_OMP_TASK_SWITCH, (uint64_t)(uintptr_t)next_task_data);
    if (next_task_data && (next_task_data->value & TASK_EXPLICIT) &&
        !(next_task_data->value & TASK_STARTED)) {
        /* Tied tasks resume where they were suspended, so a task that ran before is still
         * open on this thread's stack. */
        next_task_data->value |= TASK_STARTED;
        const void *creation;
        uint32_t h = task_region(next_task_data->value, &creation);
        if (self.nopen == OPEN_MAX) {
            self.overflow++;
            return;
        }
        if (creation && self.ntasks < TASKS_MAX && location()) {
            self.tasks[self.ntasks].task = next_task_data;
            instr_profile_graft_begin(self.loc, creation, &self.tasks[self.ntasks].graft);
            self.ntasks++;
        }
        self.open[self.nopen].handle = h;
        self.open[self.nopen].construct = INSTR_OMP_TASK;
        self.open[self.nopen].tag = (uintptr_t)next_task_data;
        self.nopen++;
        if (h)
            instr_event_enter(h);
    }
}

/* A dependence between two tasks (depend clauses): the successor starts after the
 * predecessor completed. */
void instr_omp_on_task_dependence(ompt_data_t *src_task_data, ompt_data_t *sink_task_data)
{
    instr_cp_task_dependence(src_task_data, sink_task_data);
}

/* ---- registration ---- */

int instr_ompt_register(ompt_set_callback_t set)
{
    struct {
        ompt_callbacks_t which;
        ompt_callback_t fn;
    } cbs[] = {
        {ompt_callback_thread_begin, (ompt_callback_t)instr_omp_on_thread_begin},
        {ompt_callback_parallel_begin, (ompt_callback_t)instr_omp_on_parallel_begin},
        {ompt_callback_parallel_end, (ompt_callback_t)instr_omp_on_parallel_end},
        {ompt_callback_implicit_task, (ompt_callback_t)instr_omp_on_implicit_task},
        {ompt_callback_sync_region, (ompt_callback_t)instr_omp_on_sync_region},
        {ompt_callback_sync_region_wait, (ompt_callback_t)instr_omp_on_sync_region_wait},
        {ompt_callback_work, (ompt_callback_t)instr_omp_on_work},
        {ompt_callback_masked, (ompt_callback_t)instr_omp_on_masked},
        {ompt_callback_mutex_acquire, (ompt_callback_t)instr_omp_on_mutex_acquire},
        {ompt_callback_mutex_acquired, (ompt_callback_t)instr_omp_on_mutex_acquired},
        {ompt_callback_mutex_released, (ompt_callback_t)instr_omp_on_mutex_released},
        {ompt_callback_nest_lock, (ompt_callback_t)instr_omp_on_nest_lock},
        {ompt_callback_task_create, (ompt_callback_t)instr_omp_on_task_create},
        {ompt_callback_task_schedule, (ompt_callback_t)instr_omp_on_task_schedule},
        {ompt_callback_task_dependence, (ompt_callback_t)instr_omp_on_task_dependence},
    };
    int missing = 0;
    for (size_t i = 0; i < sizeof cbs / sizeof *cbs; i++) {
        int r = set(cbs[i].which, cbs[i].fn);
        if (r != ompt_set_always) {
            missing++;
            instr_info(1, "OpenMP: the runtime reports callback %d %s (%d)", (int)cbs[i].which,
                       r == ompt_set_never ? "never" : "only sometimes", r);
        }
    }
    return missing;
}
