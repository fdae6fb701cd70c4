/* sources.c — the registered event sources (sources.h). */
#include "sources.h"

#include <stddef.h>

#define MAX_SOURCES 16

/* Written at start-up, read afterwards from any thread without a lock. */
static const instr_source *sources[MAX_SOURCES];

void instr_source_register(const instr_source *source)
{
    if (source && source->id >= 0 && source->id < MAX_SOURCES)
        __atomic_store_n(&sources[source->id], source, __ATOMIC_RELEASE);
}

const instr_source *instr_source_of(int id)
{
    if (id < 0 || id >= MAX_SOURCES)
        return NULL;
    return __atomic_load_n(&sources[id], __ATOMIC_ACQUIRE);
}
