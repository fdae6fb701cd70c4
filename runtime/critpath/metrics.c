/* metrics.c — dependent metrics on the critical path (INSTR_CRITICAL_PATH_METRICS; after
 * OTF-CPT's dependent metrics): synchronous metrics of the metrics substrate (docs/metrics.md)
 * summed along the useful path like its time. The metrics substrate reads the values at every
 * enter and exit before this substrate sees the event (it is first in the dispatch order), so
 * the critical path takes the differences between its events. */
#include "critpath.h"
#include "critpath_thread.h"
#include "../core/config.h"
#include "../core/log.h"
#include "../metrics/metrics.h"

#include <string.h>

uint32_t instr_cp_nmetrics;
uint32_t instr_cp_metric_index[INSTR_CP_MAX_METRICS];

uint64_t instr_cp_metric_add(uint32_t m, uint64_t a, uint64_t b)
{
    return instr_metric_add_delta(instr_metrics_sync[instr_cp_metric_index[m]].value_type, a,
                                  b, 0);
}

static void add_name(void *arg, const char *name)
{
    (void)arg;
    uint32_t i = 0;
    while (i < instr_metrics_nsync && strcmp(instr_metrics_sync[i].name, name) != 0)
        i++;
    if (i == instr_metrics_nsync) {
        instr_warn("INSTR_CRITICAL_PATH_METRICS: '%s' is not a synchronous metric of this run "
                   "(switch it on with INSTR_METRIC_*; docs/metrics.md): left out", name);
        return;
    }
    if (instr_cp_nmetrics == INSTR_CP_MAX_METRICS) {
        instr_warn("INSTR_CRITICAL_PATH_METRICS: '%s' left out: at most %d metrics", name,
                   INSTR_CP_MAX_METRICS);
        return;
    }
    for (uint32_t k = 0; k < instr_cp_nmetrics; k++)
        if (instr_cp_metric_index[k] == i)
            return;
    instr_cp_metric_index[instr_cp_nmetrics++] = i;
}

/* After the metrics substrate started: the names of INSTR_CRITICAL_PATH_METRICS. */
void instr_cp_metrics_init(void)
{
    const char *v = instr_env("INSTR_CRITICAL_PATH_METRICS");
    instr_cp_nmetrics = 0;
    if (v && *v)
        instr_metrics_each_item(v, add_name, NULL);
}

/* At an enter or exit: the metrics' differences since the last event join the segment when
 * the interval was computation (see critpath_thread.h). */
void instr_cp_metrics_event(struct cp_state *s)
{
    uint32_t n;
    const uint64_t *v = instr_metrics_thread_values(&n);
    int waiting = s->x.hold.by[CP_IN_MPI] || s->x.hold.by[CP_IN_OMP] || s->x.hold.by[CP_PAUSED];
    if (!v) {
        s->mwaiting = waiting;
        s->mwait_ended = 0;
        return;
    }
    for (uint32_t m = 0; m < instr_cp_nmetrics; m++) {
        uint32_t i = instr_cp_metric_index[m];
        if (i >= n)
            continue;
        uint32_t type = instr_metrics_sync[i].value_type;
        if (s->mstarted && !(waiting && s->mwaiting && !s->mwait_ended))
            s->mseg[m] = instr_metric_add_delta(type, s->mseg[m], v[i], s->mlast[m]);
        s->mlast[m] = v[i];
    }
    s->mstarted = 1;
    s->mwaiting = waiting;
    s->mwait_ended = 0;
}
