/* constructs.c — OpenMP constructs that gcc compiles to no call of GNU libgomp, recorded
 * through the calls the GCC plugin inserts around them before OpenMP lowering
 * (gcc_plugin/omp_constructs.cc; the kinds in include/instr_abi.h): a loop with a static
 * schedule, distribute, master and masked, scope, and the end of single's body (libgomp has
 * no end call of single). Into the same event model as the OMPT adapter
 * (../ompt/model.h), with begin's return address as the construct's code address, so that
 * the regions are named as libomp's: "!$omp for @f.c:12", also without -g.
 *
 * gcc ends such a construct without nowait with a plain GOMP_barrier call, between begin and
 * end: the thread keeps the constructs it is in (a small stack, this thread's task with each),
 * and GOMP_barrier's wrapper asks instr_gomp_construct_barrier whether the barrier is the
 * implicit barrier of the innermost one. The loop's or scope's region then ends before the
 * barrier, as libomp reports it.
 *
 * On LLVM's libomp (gcc code linked with or preloading it), or when nothing is recorded, the
 * entry points do nothing: instr_gomp_on is 0 (real.c). The static runtime, which has no
 * GOMP_* wrappers, defines them as no-ops (INSTR_RT_GOMP_STATIC), so that objects compiled
 * with the plugin still link. */
#include "instr_abi.h"

#ifdef INSTR_RT_GOMP_STATIC

#define EXPORT __attribute__((visibility("default")))
EXPORT void __instr_gomp_construct_begin(unsigned kind) { (void)kind; }
EXPORT void __instr_gomp_construct_end(unsigned kind) { (void)kind; }

#else

#include "gomp.h"
#include "state.h"
#include "../ompt/model.h"
#include "../ompt/ompt.h"

#define EXPORT __attribute__((visibility("default")))

#define NESTED_MAX 32 /* constructs open on one thread (nested parallel regions in them) */

typedef struct open_construct {
    unsigned kind;
    int open;             /* its region is open (a loop's or scope's until its barrier) */
    const void *ra;       /* the construct's code address */
    const ompt_data_t *task; /* the task it runs in: a barrier of another task is not its */
} open_construct;

static _Thread_local open_construct nested[NESTED_MAX] INSTR_GOMP_TLS;
static _Thread_local unsigned depth INSTR_GOMP_TLS, overflow INSTR_GOMP_TLS;

static int work_kind(unsigned kind)
{
    switch (kind) {
    case INSTR_GOMP_CONSTRUCT_LOOP: return ompt_work_loop;
    case INSTR_GOMP_CONSTRUCT_DISTRIBUTE: return ompt_work_distribute;
    case INSTR_GOMP_CONSTRUCT_SCOPE: return ompt_work_scope;
    default: return 0;
    }
}

/* Ends the region of a construct that is open. */
static void close_region(open_construct *c)
{
    if (!c->open)
        return;
    c->open = 0;
    ompt_data_t *task = instr_gomp_current_task();
    if (c->kind == INSTR_GOMP_CONSTRUCT_MASKED)
        instr_omp_on_masked(ompt_scope_end, NULL, task, c->ra);
    else if (work_kind(c->kind))
        instr_omp_on_work((ompt_work_t)work_kind(c->kind), ompt_scope_end, NULL, task, 0, c->ra);
}

EXPORT void __instr_gomp_construct_begin(unsigned kind)
{
    if (!instr_gomp_on)
        return;
    if (depth == NESTED_MAX) {
        overflow++;
        return;
    }
    const void *ra = INSTR_GOMP_RA;
    ompt_data_t *task = instr_gomp_current_task();
    open_construct *c = &nested[depth++];
    *c = (open_construct){.kind = kind, .open = 1, .ra = ra, .task = task};
    if (kind == INSTR_GOMP_CONSTRUCT_MASKED) {
        instr_omp_on_masked(ompt_scope_begin, NULL, task, ra);
    } else if (work_kind(kind)) {
        /* a worksharing construct: GOMP's single ends at the next one */
        instr_omp_close_innermost(INSTR_OMP_SINGLE);
        instr_omp_on_work((ompt_work_t)work_kind(kind), ompt_scope_begin, NULL, task, 0, ra);
    } else {
        c->open = 0; /* single: its region is GOMP_single_start's */
    }
}

EXPORT void __instr_gomp_construct_end(unsigned kind)
{
    if (!instr_gomp_on)
        return;
    if (kind == INSTR_GOMP_CONSTRUCT_SINGLE_BODY) {
        /* the executor leaves single's body: its region ends here, as on libomp */
        instr_omp_close_innermost(INSTR_OMP_SINGLE);
        return;
    }
    if (overflow) {
        overflow--;
        return;
    }
    if (depth == 0 || nested[depth - 1].kind != kind)
        return; /* unbalanced: a begin that was not recorded */
    close_region(&nested[--depth]);
}

unsigned instr_gomp_constructs_depth(void) { return depth + overflow; }

void instr_gomp_constructs_unwind(unsigned mark)
{
    while (depth + overflow > mark) {
        if (overflow)
            overflow--;
        else
            close_region(&nested[--depth]);
    }
}

const void *instr_gomp_construct_barrier(void)
{
    if (depth == 0 || overflow)
        return NULL;
    open_construct *c = &nested[depth - 1];
    if (c->task != instr_gomp_current_task() || c->kind == INSTR_GOMP_CONSTRUCT_MASKED ||
        c->kind == INSTR_GOMP_CONSTRUCT_DISTRIBUTE || c->ra == NULL)
        return NULL;
    close_region(c);
    const void *ra = c->ra;
    c->ra = NULL; /* one implicit barrier per construct */
    return ra;
}

#endif
