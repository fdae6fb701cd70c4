/* papi.c — INSTR_METRIC_PAPI: PAPI presets (PAPI_TOT_INS) and native event names, one event
 * set per thread read with one PAPI_read per event. Built when libpapi is found at configure
 * time; otherwise the variable gets one line saying this runtime has no PAPI.
 *
 * Each name is tried at start-up in an event set of the starting thread, added to the ones
 * accepted before, so that a name the machine lacks, or one that cannot be counted together
 * with the others, is left out with one line naming the variable, the event and PAPI's
 * reason. */
#include "metrics.h"
#include "../core/log.h"
#include "../util/text.h"
#include "../util/pages.h"

#ifdef INSTR_RT_HAVE_PAPI
#include <papi.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_EVENTS 32

typedef struct papi_ctx {
    const char *var;
    int probe; /* the start-up thread's event set, built while names are checked */
    int code[MAX_EVENTS];
    uint32_t n;
} papi_ctx;

typedef struct papi_thread {
    int set;
    long long v[MAX_EVENTS];
} papi_thread;

static unsigned long thread_id(void) { return (unsigned long)pthread_self(); }

static void *thread_begin(instr_metric_source *src)
{
    const papi_ctx *c = src->ctx;
    papi_thread *t = instr_mem_calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->set = PAPI_NULL;
    int rc = PAPI_create_eventset(&t->set);
    if (rc == PAPI_OK)
        rc = PAPI_add_events(t->set, (int *)c->code, (int)c->n);
    if (rc == PAPI_OK)
        rc = PAPI_start(t->set);
    if (rc != PAPI_OK) {
        instr_warn("%s: cannot count on thread %d: %s; its values stay 0", c->var, (int)gettid(),
                   PAPI_strerror(rc));
        instr_mem_free(t);
        return NULL;
    }
    return t;
}

static void read_values(instr_metric_source *src, void *thread, uint64_t *out, uint64_t now)
{
    (void)now;
    papi_thread *t = thread;
    if (PAPI_read(t->set, t->v) != PAPI_OK)
        return;
    for (uint32_t i = 0; i < src->n; i++)
        out[i] = (uint64_t)t->v[i];
}

static const instr_metric_source_ops ops = {
    .thread_begin = thread_begin, .read = read_values};

static void one_item(void *arg, const char *item)
{
    papi_ctx *c = arg;
    char q[INSTR_QUOTE_SIZE];
    int code;
    int rc = PAPI_event_name_to_code((char *)item, &code);
    if (rc != PAPI_OK) {
        instr_warn("%s: %s is not a PAPI event on this machine (%s; papi_avail and "
                   "papi_native_avail list them): left out",
                   c->var, instr_quote(q, item), PAPI_strerror(rc));
        return;
    }
    if (c->n == MAX_EVENTS) {
        instr_warn("%s: more than %d events: %s is left out", c->var, MAX_EVENTS, item);
        return;
    }
    /* Can it be counted here, together with the ones accepted before? */
    rc = PAPI_add_event(c->probe, code);
    if (rc == PAPI_OK) {
        rc = PAPI_start(c->probe);
        if (rc == PAPI_OK) {
            long long ignored[MAX_EVENTS];
            PAPI_stop(c->probe, ignored);
        } else {
            PAPI_remove_event(c->probe, code);
        }
    }
    if (rc != PAPI_OK) {
        instr_warn("%s: event %s is not available: %s (virtual machines often have no "
                   "hardware counters); the run goes on without it",
                   c->var, item, PAPI_strerror(rc));
        return;
    }
    PAPI_event_info_t info;
    const char *desc = PAPI_get_event_info(code, &info) == PAPI_OK ? info.long_descr : "";
    if (instr_metrics_add_counter(item, desc, "#", "papi"))
        c->code[c->n++] = code;
}

void instr_metrics_papi_init(const char *var, const char *spec)
{
    int rc = PAPI_library_init(PAPI_VER_CURRENT);
    if (rc != PAPI_VER_CURRENT) {
        instr_warn("%s: PAPI cannot start (%s); the run goes on without PAPI metrics", var,
                   rc > 0 ? "library version mismatch" : PAPI_strerror(rc));
        return;
    }
    if ((rc = PAPI_thread_init(thread_id)) != PAPI_OK) {
        instr_warn("%s: PAPI cannot count per thread (%s); the run goes on without PAPI "
                   "metrics",
                   var, PAPI_strerror(rc));
        return;
    }
    papi_ctx *c = instr_mem_calloc(1, sizeof *c);
    if (!c)
        return;
    c->var = var;
    c->probe = PAPI_NULL;
    if (PAPI_create_eventset(&c->probe) != PAPI_OK) {
        instr_mem_free(c);
        return;
    }
    instr_metrics_source_begin();
    instr_metrics_each_item(spec, one_item, c);
    PAPI_cleanup_eventset(c->probe);
    PAPI_destroy_eventset(&c->probe);
    if (c->n == 0 || instr_metrics_source_end(&ops, c) != 0)
        instr_mem_free(c);
}

#else

void instr_metrics_papi_init(const char *var, const char *spec)
{
    char q[INSTR_QUOTE_SIZE];
    instr_warn("%s=%s: this runtime was built without PAPI (libpapi-dev was not found at "
               "configure time); the run goes on without PAPI metrics",
               var, instr_quote(q, spec));
}

#endif
