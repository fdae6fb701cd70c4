/* regions.c — OpenACC's constructs in the registry (source "openacc"), named as the OpenMP
 * adapter names OpenMP's: "!$acc parallel @file.c:12". The place is the one the OpenACC
 * runtime gives (GCC's libgomp gives none: docs/openacc.md), else the source line of the
 * construct's call into the runtime (callbacks.c finds it), from the DWARF line table
 * through the OpenMP adapter's lookup; "!$acc parallel" without either. A per-thread cache
 * keyed by the construct and its call site answers repeated constructs without the registry
 * lock. */
#include "openacc.h"
#include "../core/event.h"
#include "../core/region_table.h"
#include "../core/registry.h"
#include "../core/rtfilter.h"
#ifdef INSTR_RT_HAVE_LIBDW
#include "../ompt/ompt.h"
#endif

#include <stdio.h>
#include <string.h>

#define CACHE 16
#define BUCKETS 256
#define NAME_MAX_LEN 4096

static instr_named_region *buckets[BUCKETS];
static instr_region_table table = {buckets, BUCKETS};
static _Thread_local struct {
    const char *what;
    uintptr_t site;
    const instr_named_region *e;
} cache[CACHE] __attribute__((tls_model("initial-exec")));

/* The place of a construct's name, for add(). */
typedef struct place {
    const char *file;
    int line;
} place;

/* With the registry lock held. */
static uint32_t add(int kind, const char *name, void *arg)
{
    (void)kind;
    const char *file = ((const place *)arg)->file;
    int line = ((const place *)arg)->line;
    if (!instr_rtfilter_includes(name, name, file ? file : ""))
        return 0;
    instr_region_info info = {.name = name, .mangled = name, .file = file ? file : "",
                              .object = "", .line_begin = line > 0 ? (uint32_t)line : 0,
                              .line_end = line > 0 ? (uint32_t)line : 0,
                              .source = INSTR_SOURCE_OPENACC};
    return instr_registry_add_locked(&info);
}

/* The file's last part, as the OpenMP adapter's names have it. */
static const char *base_name(const char *file)
{
    const char *b = strrchr(file, '/');
    return b ? b + 1 : file;
}

uint32_t instr_openacc_region(const char *what, uintptr_t site, const char *file, int line)
{
    if (file && line <= 0)
        file = NULL;
    uint32_t slot = (uint32_t)((((uintptr_t)what >> 3) + (site >> 2)) % CACHE);
    if (!file && cache[slot].e && cache[slot].what == what && cache[slot].site == site)
        return cache[slot].e->handle;
    if (!instr_events_wanted())
        return 0;
    char name[NAME_MAX_LEN];
    const instr_named_region *e;
    instr_registry_lock();
#ifdef INSTR_RT_HAVE_LIBDW
    if (!file && site)
        (void)instr_omp_source_line(site - 1, &file, &line); /* the call instruction */
#endif
    if (file && line > 0)
        snprintf(name, sizeof name, "!$acc %s @%s:%d", what, base_name(file), line);
    else
        snprintf(name, sizeof name, "!$acc %s", what);
    e = instr_region_table_get_locked(&table, 0, name, add, &(place){file, line});
    instr_registry_unlock();
    if (!e)
        return 0;
    cache[slot].what = what;
    cache[slot].site = site;
    cache[slot].e = e;
    return e->handle;
}
