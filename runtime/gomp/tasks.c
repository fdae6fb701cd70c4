/* tasks.c — explicit tasks of libgomp into the OpenMP event model (../ompt/model.h).
 *
 * libgomp copies a deferred task's data into the task (with the copy function gcc passes,
 * else memcpy) and later runs fn on the copy. The wrapper gives libgomp a copy function of
 * its own and a larger argument block: a header before the task's data. The copy runs in
 * GOMP_task on the creating thread, into the block the task will run on (libgomp's task
 * allocation, or for an undeferred task a buffer on the creating thread's stack, live until
 * the task ran): that is where the model learns of the task's creation, with the header's
 * ompt_data_t as the task's handle. run_task then brackets the body with the model's task
 * switches, as libomp reports them through OMPT, so the task runs under its creation path.
 *
 * GOMP_taskloop writes each task's iteration bounds into the first two words of its block:
 * the header keeps them free and run_task moves them to the task's own data. */
#include "gomp.h"
#include "state.h"
#include "../ompt/model.h"
#include "../ompt/ompt.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

/* gcc's task flags (gomp-constants.h). */
#define TASK_FLAG_UNTIED (1u << 0)
#define TASK_FLAG_DEPEND (1u << 3)
#define TASK_FLAG_IF (1u << 10)
#define TASK_FLAG_NOGROUP (1u << 11)
#define TASK_FLAG_REDUCTION (1u << 12)

typedef struct task_header {
    unsigned long long bounds[2]; /* GOMP_taskloop's start and end of this task */
    void (*fn)(void *);
    size_t offset; /* of the task's own data */
    int taskloop;  /* bounds are the task's: its data begins with them */
    ompt_data_t task; /* the model's handle of the task */
} task_header;

/* What GOMP_task's caller hands the copy function. */
typedef struct task_source {
    void (*fn)(void *);
    void *data;
    void (*cpyfn)(void *, void *);
    long arg_size;
    size_t offset;
    ompt_data_t *parent;
    int flags; /* OMPT's task flags */
    int has_dependences;
    int taskloop;
    const void *ra;
} task_source;

static void copy_task(void *dst, void *src)
{
    task_source *s = src;
    task_header *h = dst;
    h->fn = s->fn;
    h->offset = s->offset;
    h->taskloop = s->taskloop;
    h->task.value = 0;
    /* libgomp runs a task at once, not only for if(0), but also outside every team, in a
     * final task and when its team has many tasks queued; then, and only then, it copies the
     * data into a buffer on its own stack, between this frame and GOMP_task's wrapper (the
     * stack grows down). The model hands such a task's path back to its creator. */
    char here;
    int undeferred = (uintptr_t)dst > (uintptr_t)&here && (uintptr_t)dst < (uintptr_t)s;
    instr_omp_on_task_create(s->parent, NULL, &h->task,
                             s->flags | (undeferred ? ompt_task_undeferred : 0),
                             s->has_dependences, s->ra);
    if (s->cpyfn)
        s->cpyfn((char *)dst + s->offset, s->data);
    else
        memcpy((char *)dst + s->offset, s->data, (size_t)s->arg_size);
}

static void run_task(void *arg)
{
    task_header *h = arg;
    char *data = (char *)arg + h->offset;
    if (h->taskloop)
        memcpy(data, h->bounds, sizeof h->bounds);
    ompt_data_t *prior = instr_gomp_current_task();
    ompt_data_t *saved = instr_gomp_task;
    instr_omp_on_task_schedule(prior, ompt_task_switch, &h->task);
    instr_gomp_task = &h->task;
    unsigned constructs = instr_gomp_constructs_depth();
    h->fn(data);
    instr_gomp_constructs_unwind(constructs);
    instr_omp_on_task_schedule(&h->task, ompt_task_complete, prior);
    instr_gomp_task = saved;
}

/* The wrapped block's size and alignment, and the offset of the task's data in it. */
static void wrapped_layout(long arg_size, long arg_align, long *size, long *align,
                           size_t *offset)
{
    size_t a = (size_t)arg_align > _Alignof(task_header) ? (size_t)arg_align
                                                          : _Alignof(task_header);
    *offset = (sizeof(task_header) + a - 1) / a * a;
    *size = (long)*offset + arg_size;
    *align = (long)a;
}

EXPORT void GOMP_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                      long arg_size, long arg_align, bool if_clause, unsigned flags,
                      void **depend, int priority, void *detach)
{
    if (!instr_gomp_on) {
        REAL(GOMP_task)(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend,
                        priority, detach);
        return;
    }
    const void *ra = INSTR_GOMP_RA;
    instr_omp_name_by_entry(ra, (const void *)fn);
    task_source s = {.fn = fn, .data = data, .cpyfn = cpyfn, .arg_size = arg_size,
                     .parent = instr_gomp_current_task(), .ra = ra,
                     .has_dependences = (flags & TASK_FLAG_DEPEND) != 0,
                     .flags = ompt_task_explicit |
                              (flags & TASK_FLAG_UNTIED ? ompt_task_untied : 0) |
                              (if_clause ? 0 : ompt_task_undeferred)};
    long size, align;
    wrapped_layout(arg_size, arg_align, &size, &align, &s.offset);
    REAL(GOMP_task)(run_task, &s, copy_task, size, align, if_clause, flags, depend, priority,
                    detach);
}

EXPORT void GOMP_taskwait(void)
{
    if (!instr_gomp_on) {
        REAL(GOMP_taskwait)();
        return;
    }
    const void *ra = INSTR_GOMP_RA;
    ompt_data_t *task = instr_gomp_current_task();
    instr_omp_on_sync_region(ompt_sync_region_taskwait, ompt_scope_begin, NULL, task, ra);
    REAL(GOMP_taskwait)();
    instr_omp_on_sync_region(ompt_sync_region_taskwait, ompt_scope_end, NULL, task, ra);
}

EXPORT void GOMP_taskgroup_start(void)
{
    if (instr_gomp_on)
        instr_omp_on_sync_region(ompt_sync_region_taskgroup, ompt_scope_begin, NULL,
                                 instr_gomp_current_task(), INSTR_GOMP_RA);
    REAL(GOMP_taskgroup_start)();
}

EXPORT void GOMP_taskgroup_end(void)
{
    if (!instr_gomp_on) {
        REAL(GOMP_taskgroup_end)();
        return;
    }
    const void *ra = INSTR_GOMP_RA;
    ompt_data_t *task = instr_gomp_current_task();
    instr_omp_on_sync_region_wait(ompt_sync_region_taskgroup, ompt_scope_begin, NULL, task, ra);
    REAL(GOMP_taskgroup_end)();
    instr_omp_on_sync_region_wait(ompt_sync_region_taskgroup, ompt_scope_end, NULL, task, ra);
    instr_omp_on_sync_region(ompt_sync_region_taskgroup, ompt_scope_end, NULL, task, ra);
}

/* taskloop: the construct's region on the encountering thread, inside the taskgroup the
 * construct has without nogroup (as libomp reports it; libgomp waits for the group's tasks
 * inside GOMP_taskloop, so that wait is in the taskloop's region, with no region of its own);
 * its tasks as GOMP_task's
 * (with a reduction clause libgomp reads the task data's own words: its tasks are then
 * forwarded as they are, recorded where they run). */
#define TASKLOOP(name, type)                                                                  \
    EXPORT void name(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),          \
                     long arg_size, long arg_align, unsigned flags, unsigned long num_tasks,  \
                     int priority, type start, type end, type step)                           \
    {                                                                                         \
        if (!instr_gomp_on) {                                                                 \
            REAL(name)(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, priority,     \
                       start, end, step);                                                     \
            return;                                                                           \
        }                                                                                     \
        const void *ra = INSTR_GOMP_RA;                                                       \
        instr_omp_name_by_entry(ra, (const void *)fn);                                        \
        ompt_data_t *task = instr_gomp_current_task();                                        \
        int group = !(flags & TASK_FLAG_NOGROUP);                                             \
        if (group)                                                                            \
            instr_omp_on_sync_region(ompt_sync_region_taskgroup, ompt_scope_begin, NULL, task,  \
                                     ra);                                                     \
        instr_omp_on_work(ompt_work_taskloop, ompt_scope_begin, NULL, task, 0, ra);           \
        if (flags & TASK_FLAG_REDUCTION) {                                                    \
            REAL(name)(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, priority,     \
                       start, end, step);                                                     \
        } else {                                                                              \
            task_source s = {.fn = fn, .data = data, .cpyfn = cpyfn, .arg_size = arg_size,    \
                             .parent = task, .ra = ra, .taskloop = 1,                         \
                             .flags = ompt_task_explicit |                                    \
                                      (flags & TASK_FLAG_UNTIED ? ompt_task_untied : 0) |     \
                                      (flags & TASK_FLAG_IF ? 0 : ompt_task_undeferred)};     \
            long size, align;                                                                 \
            wrapped_layout(arg_size, arg_align, &size, &align, &s.offset);                    \
            REAL(name)(run_task, &s, copy_task, size, align, flags, num_tasks, priority,     \
                       start, end, step);                                                     \
        }                                                                                     \
        instr_omp_on_work(ompt_work_taskloop, ompt_scope_end, NULL, task, 0, ra);             \
        if (group)                                                                            \
            instr_omp_on_sync_region(ompt_sync_region_taskgroup, ompt_scope_end, NULL, task,    \
                                     ra);                                                     \
    }
TASKLOOP(GOMP_taskloop, long)
TASKLOOP(GOMP_taskloop_ull, instr_gomp_ull)
