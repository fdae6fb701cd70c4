/* openmp.c — the trace substrate's hook for thread-parallel models (runtime/ompt/):
 * OTF2 ThreadFork/ThreadJoin records on the forking thread's location, so that viewers draw
 * an OpenMP team as one, and the paradigm and role of OpenMP regions in the definitions.
 *
 * The records go into the calling thread's own compact buffer, like Enter/Leave (events.c),
 * and become OTF2 records with them (convert.c). */
#include "trace.h"
#include "../core/event.h"

#include <string.h>

static instr_tloc *tloc(instr_location *loc)
{
    if (instr_state_get() != INSTR_STATE_RUNNING)
        return NULL;
    int slot = instr_substrate_slot(&instr_trace_substrate);
    return slot < 0 ? NULL : loc->sub[slot];
}

void instr_trace_thread_fork(instr_location *loc, uint32_t nthreads, uint64_t t)
{
    instr_tloc *s = tloc(loc);
    if (s)
        instr_record_put(s, (uint32_t)INSTR_TREC_FORK << INSTR_TREC_KIND_SHIFT |
                               (nthreads & INSTR_TREC_ARG_MASK), t);
}

void instr_trace_thread_join(instr_location *loc, uint64_t t)
{
    instr_tloc *s = tloc(loc);
    if (s)
        instr_record_put(s, (uint32_t)INSTR_TREC_JOIN << INSTR_TREC_KIND_SHIFT, t);
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
