/* metric_events.c — metrics in the trace (docs/metrics.md, "Metrics in the trace").
 *
 * Synchronous metrics: at every enter and exit the metrics substrate, which sees the event
 * first, appends one compact record per metric (kind INSTR_TREC_METRIC, the metric's index,
 * the value in the time field) to the thread's buffer: every strictly synchronous metric,
 * and a synchronous plugin's metrics only at the events where the plugin was asked (its
 * minimum interval passed). The conversion (convert.c) collects them and writes, right after
 * the Enter or Leave that follows and at its time, one OTF2 Metric event per class whose
 * values all came: class 0 holds the strictly synchronous metrics (SYNCHRONOUS_STRICT), then
 * one class per synchronous plugin (SYNCHRONOUS).
 *
 * Asynchronous metrics: their values (collected at the end, in time order, by
 * runtime/metrics/) go to a location of their own, of type METRIC, in the process's location
 * group: one Metric event per value, at its own time, so every stream stays in time order.
 *
 * Definitions: one MetricMember per metric; the synchronous classes above, then one class
 * per asynchronous metric.
 *
 * An MPI job: the ranks compare their metric sets (synchronous and asynchronous) at
 * MPI_Init (before the job's archive opens and any record is converted); when they are the
 * same, rank 0 writes the definitions for all (runtime/job/trace_global_defs.c) and every
 * location's Metric events use those refs; when not, the job's trace has no metrics (one line says so; the profiles have
 * them). Each rank that took asynchronous values (per-host and once metrics: only the
 * elected rank, runtime/metrics/plugin.c) writes them into a location of its own after its
 * threads', (rank << 32) | id; job.c defines it in the rank's location group. */
#include "trace.h"
#include "../core/config.h"
#include "../core/log.h"
#include "../metrics/metrics.h"
#include "../util/hash.h"
#include "../util/pages.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Metrics per OTF2 Metric event at most (its count is a uint8_t). */
#define MAX_PER_EVENT 255u

static uint32_t nsync_traced(void)
{
    return instr_metrics_nsync < MAX_PER_EVENT ? instr_metrics_nsync : MAX_PER_EVENT;
}

/* The synchronous classes: made once, from the run's metric set (fixed at start-up). */
#define MAX_CLASSES 64
typedef struct sync_class {
    uint32_t n;
    OTF2_MetricOccurrence occurrence;
    const char *source;            /* a synchronous plugin's name; NULL: the strict class */
    uint32_t member[MAX_PER_EVENT];
    OTF2_Type type[MAX_PER_EVENT];
} sync_class;
static sync_class classes[MAX_CLASSES];
static uint32_t nclasses;
static pthread_once_t classes_once = PTHREAD_ONCE_INIT;

static OTF2_Type otf2_type(uint32_t value_type);

static void make_classes(void)
{
    uint32_t n = nsync_traced();
    for (int strict = 1; strict >= 0; strict--)
        for (uint32_t i = 0; i < n; i++) {
            const instr_metric *m = &instr_metrics_sync[i];
            if ((m->synchronicity == INSTR_METRIC_STRICTLY_SYNC) != strict)
                continue;
            const char *source = strict ? NULL : m->source;
            uint32_t c = 0;
            while (c < nclasses && classes[c].source != source)
                c++;
            if (c == nclasses) {
                if (nclasses == MAX_CLASSES)
                    continue; /* more synchronous plugins than classes: left out */
                classes[nclasses++] = (sync_class){
                    .occurrence = strict ? OTF2_METRIC_SYNCHRONOUS_STRICT
                                         : OTF2_METRIC_SYNCHRONOUS,
                    .source = source};
            }
            sync_class *k = &classes[c];
            k->type[k->n] = otf2_type(m->value_type);
            k->member[k->n++] = i;
        }
}

static uint32_t sync_classes(void)
{
    pthread_once(&classes_once, make_classes);
    return nclasses;
}

/* The class of asynchronous metric k: after the synchronous classes (OTF2 wants metric
 * references dense, in order). */
static OTF2_MetricRef async_class(uint32_t k) { return sync_classes() + k; }

/* An MPI job (instr_trace_job_pending): -1 until the ranks compared their metric sets at
 * MPI_Init, then 1 when they are the same, 0 when not (the records are dropped). */
static int job_agreed = -1;

/* In an MPI job too: its records wait with the events until MPI_Init said whether the ranks
 * agree. */
int instr_trace_metrics_wanted(void) { return nsync_traced() > 0; }

/* One value of the event that follows, from the metrics substrate (instr_metrics_record_values). */
static void put_value(void *data, uint32_t index, uint64_t value)
{
    instr_record_put(data, (uint32_t)INSTR_TREC_METRIC << INSTR_TREC_KIND_SHIFT | index, value);
}

void instr_trace_metrics_ask(void)
{
    if (instr_trace_metrics_wanted())
        instr_metrics_record_values(&instr_trace_substrate, put_value);
}

uint64_t instr_trace_metrics_signature(void)
{
    uint32_t n = nsync_traced(), na = instr_metrics_nasync;
    if (!n && !na)
        return 0;
    uint64_t h = instr_fnv1a(INSTR_FNV1A_BASIS, &n, sizeof n);
    h = instr_fnv1a(h, &na, sizeof na);
    for (uint32_t i = 0; i < n + na; i++) {
        const instr_metric *m = i < n ? &instr_metrics_sync[i] : &instr_metrics_async[i - n];
        const char *text[] = {m->name, m->unit, m->description, m->source};
        for (int k = 0; k < 4; k++)
            h = instr_fnv1a(h, text[k], strlen(text[k]) + 1);
        uint32_t num[] = {m->base, (uint32_t)m->exponent, m->value_type, m->mode,
                          m->semantics, m->synchronicity, m->scope};
        h = instr_fnv1a(h, num, sizeof num);
    }
    return h ? h : 1;
}

void instr_trace_metrics_job(int agreed) { __atomic_store_n(&job_agreed, agreed, __ATOMIC_RELEASE); }

/* Whether this process's trace takes Metric events and their definitions: always outside a
 * job; in a job, when the ranks agreed. */
static int traced(void)
{
    return !instr_trace_job_pending || __atomic_load_n(&job_agreed, __ATOMIC_ACQUIRE) == 1;
}

static OTF2_Type otf2_type(uint32_t value_type)
{
    return value_type == INSTR_METRIC_DOUBLE  ? OTF2_TYPE_DOUBLE
           : value_type == INSTR_METRIC_INT64 ? OTF2_TYPE_INT64
                                              : OTF2_TYPE_UINT64;
}

static OTF2_MetricMode otf2_mode(const instr_metric *m)
{
    static const OTF2_MetricMode acc[] = {OTF2_METRIC_ACCUMULATED_START,
                                          OTF2_METRIC_ACCUMULATED_POINT,
                                          OTF2_METRIC_ACCUMULATED_LAST,
                                          OTF2_METRIC_ACCUMULATED_NEXT};
    /* OTF2 has no absolute START: a reading stands for its own time. */
    static const OTF2_MetricMode abs[] = {OTF2_METRIC_ABSOLUTE_POINT, OTF2_METRIC_ABSOLUTE_POINT,
                                          OTF2_METRIC_ABSOLUTE_LAST, OTF2_METRIC_ABSOLUTE_NEXT};
    uint32_t sem = m->semantics <= INSTR_METRIC_NEXT ? m->semantics : 0;
    return m->mode == INSTR_METRIC_ABSOLUTE ? abs[sem] : acc[sem];
}

void instr_trace_metric_record(instr_tloc *s, uint32_t index, uint64_t value)
{
    uint32_t n = nsync_traced();
    if (!traced())
        return;
    if (!s->mpend) {
        if (!n || !(s->mpend = instr_mem_calloc(n, sizeof *s->mpend)) ||
            !(s->mset = instr_mem_calloc(n, sizeof *s->mset))) {
            instr_mem_free(s->mpend);
            s->mpend = NULL;
            return;
        }
    }
    if (index >= n)
        return;
    s->mpend[index].unsigned_int = value;
    s->mset[index] = 1;
    s->mpend_n++;
}

void instr_trace_metric_emit(instr_tloc *s, uint64_t t)
{
    if (!s->mpend)
        return;
    s->mpend_n = 0;
    uint32_t nc = sync_classes();
    OTF2_MetricValue values[MAX_PER_EVENT];
    for (uint32_t c = 0; c < nc; c++) {
        const sync_class *k = &classes[c];
        uint32_t got = 0;
        for (uint32_t j = 0; j < k->n; j++) {
            got += s->mset[k->member[j]];
            values[j] = s->mpend[k->member[j]];
        }
        if (got != k->n)
            continue; /* a synchronous plugin not asked at this event */
        if (OTF2_EvtWriter_Metric(s->writer, NULL, t, c, (uint8_t)k->n, k->type, values) !=
            OTF2_SUCCESS)
            s->refused++;
    }
    memset(s->mset, 0, nsync_traced());
}

/* The location of the asynchronous values: after every thread's. */
static uint64_t async_ref;
static uint64_t async_events;

int instr_trace_metric_async_write(OTF2_Archive *a, uint64_t t_start, uint64_t *t_last)
{
    const instr_metric_async_values *v = &instr_metrics_async_values;
    if (!traced() || !v->n)
        return 0;
    for (instr_tloc *s = instr_trace_locs; s; s = s->next)
        if (s->ref >= async_ref)
            async_ref = s->ref + 1;
    OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(a, async_ref);
    if (!w)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < v->n; i++) {
        const instr_metric_async_value *x = &v->v[i];
        if (x->metric >= instr_metrics_nasync || x->t < t_start)
            continue;
        OTF2_Type type = otf2_type(instr_metrics_async[x->metric].value_type);
        OTF2_MetricValue value = {.unsigned_int = x->value};
        if (OTF2_EvtWriter_Metric(w, NULL, x->t, async_class(x->metric), 1, &type, &value) !=
            OTF2_SUCCESS) {
            rc = -1;
            break;
        }
        async_events++;
        if (x->t > *t_last)
            *t_last = x->t;
    }
    if (OTF2_Archive_CloseEvtWriter(a, w) != OTF2_SUCCESS)
        rc = -1;
    return rc;
}

int instr_trace_metric_async_location(uint64_t *ref, uint64_t *events)
{
    *ref = async_ref;
    *events = async_events;
    return async_events > 0;
}

int instr_trace_metric_async_local_defs(OTF2_Archive *a)
{
    if (!async_events)
        return 0;
    OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(a, async_ref);
    return dw && OTF2_Archive_CloseDefWriter(a, dw) == OTF2_SUCCESS ? 0 : -1;
}

OTF2_ErrorCode instr_trace_metric_defs(OTF2_GlobalDefWriter *w, instr_strtab *st)
{
    if (!traced())
        return OTF2_SUCCESS;
    uint32_t nasync = instr_metrics_nasync;
    OTF2_ErrorCode rc = OTF2_SUCCESS;
    uint32_t nsync = nsync_traced();
    for (uint32_t k = 0; k < nsync + nasync && rc == OTF2_SUCCESS; k++) {
        const instr_metric *m = k < nsync ? &instr_metrics_sync[k]
                                          : &instr_metrics_async[k - nsync];
        rc = OTF2_GlobalDefWriter_WriteMetricMember(
            w, k, instr_strtab_ref(st, m->name), instr_strtab_ref(st, m->description),
            strcmp(m->source, "papi") == 0 ? OTF2_METRIC_TYPE_PAPI : OTF2_METRIC_TYPE_OTHER,
            otf2_mode(m), otf2_type(m->value_type), m->base == 2 ? OTF2_BASE_BINARY
                                                                : OTF2_BASE_DECIMAL,
            m->exponent, instr_strtab_ref(st, m->unit));
    }
    uint32_t nc = sync_classes();
    for (uint32_t c = 0; c < nc && rc == OTF2_SUCCESS; c++) {
        OTF2_MetricMemberRef members[MAX_PER_EVENT];
        for (uint32_t j = 0; j < classes[c].n; j++)
            members[j] = classes[c].member[j];
        rc = OTF2_GlobalDefWriter_WriteMetricClass(w, c, (uint8_t)classes[c].n, members,
                                                   classes[c].occurrence,
                                                   OTF2_RECORDER_KIND_CPU);
    }
    for (uint32_t k = 0; k < nasync && rc == OTF2_SUCCESS; k++) {
        OTF2_MetricMemberRef member = nsync + k;
        rc = OTF2_GlobalDefWriter_WriteMetricClass(w, async_class(k), 1, &member,
                                                   OTF2_METRIC_ASYNCHRONOUS,
                                                   OTF2_RECORDER_KIND_ABSTRACT);
    }
    /* An MPI job's locations of asynchronous values are the ranks' (job.c). */
    if (async_events && !instr_trace_job_pending && rc == OTF2_SUCCESS)
        rc = OTF2_GlobalDefWriter_WriteLocation(w, async_ref,
                                                instr_strtab_ref(st, "asynchronous metrics"),
                                                OTF2_LOCATION_TYPE_METRIC, async_events, 0);
    return rc;
}
