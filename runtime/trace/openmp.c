/* openmp.c — the trace substrate's hook for thread-parallel models (runtime/ompt/):
 * OTF2 ThreadFork/ThreadJoin records on the forking thread's location, so that viewers draw
 * an OpenMP team as one, and the paradigm and role of OpenMP regions in the definitions.
 *
 * The records go into the calling thread's own event writer, like Enter/Leave (events.c):
 * no lock, no allocation. */
#include "trace.h"
#include "../core/event.h"

#include <string.h>

static instr_tloc *tloc(instr_location *loc)
{
    if (instr_state_get() != INSTR_STATE_RUNNING)
        return NULL;
    int slot = instr_substrate_slot(&instr_trace_substrate);
    if (slot < 0)
        return NULL;
    instr_tloc *s = loc->sub[slot];
    return s && s->writer ? s : NULL;
}

static uint64_t monotone(instr_tloc *s, uint64_t t)
{
    if (t < s->last)
        t = s->last;
    s->last = t;
    return t;
}

void instr_trace_thread_fork(instr_location *loc, uint32_t nthreads, uint64_t t)
{
    instr_tloc *s = tloc(loc);
    if (s && OTF2_EvtWriter_ThreadFork(s->writer, NULL, monotone(s, t), OTF2_PARADIGM_OPENMP,
                                       nthreads) != OTF2_SUCCESS)
        s->refused++;
}

void instr_trace_thread_join(instr_location *loc, uint64_t t)
{
    instr_tloc *s = tloc(loc);
    if (s && OTF2_EvtWriter_ThreadJoin(s->writer, NULL, monotone(s, t), OTF2_PARADIGM_OPENMP) !=
                 OTF2_SUCCESS)
        s->refused++;
}

OTF2_RegionRole instr_trace_openmp_role(const char *name)
{
    static const struct {
        const char *prefix;
        OTF2_RegionRole role;
    } roles[] = {
        {"!$omp parallel", OTF2_REGION_ROLE_PARALLEL},
        {"!$omp implicit task", OTF2_REGION_ROLE_TASK},
        {"!$omp implicit barrier", OTF2_REGION_ROLE_IMPLICIT_BARRIER},
        {"!$omp barrier", OTF2_REGION_ROLE_BARRIER},
        {"!$omp taskwait", OTF2_REGION_ROLE_TASK_WAIT},
        {"!$omp taskgroup", OTF2_REGION_ROLE_TASK_WAIT},
        {"!$omp reduction", OTF2_REGION_ROLE_CODE},
        {"!$omp for", OTF2_REGION_ROLE_LOOP},
        {"!$omp sections", OTF2_REGION_ROLE_SECTIONS},
        {"!$omp single", OTF2_REGION_ROLE_SINGLE},
        {"!$omp workshare", OTF2_REGION_ROLE_WORKSHARE},
        {"!$omp taskloop", OTF2_REGION_ROLE_LOOP},
        {"!$omp masked", OTF2_REGION_ROLE_MASTER},
        {"!$omp critical (wait)", OTF2_REGION_ROLE_CRITICAL},
        {"!$omp critical", OTF2_REGION_ROLE_CRITICAL},
        {"!$omp ordered (wait)", OTF2_REGION_ROLE_ORDERED},
        {"!$omp ordered", OTF2_REGION_ROLE_ORDERED},
        {"omp_set_lock", OTF2_REGION_ROLE_WRAPPER},
        {"!$omp task (create)", OTF2_REGION_ROLE_TASK_CREATE},
        {"!$omp task", OTF2_REGION_ROLE_TASK},
    };
    for (size_t i = 0; i < sizeof roles / sizeof *roles; i++)
        if (strncmp(name, roles[i].prefix, strlen(roles[i].prefix)) == 0)
            return roles[i].role;
    return OTF2_REGION_ROLE_CODE;
}
