/* sources.c — the registered event sources (sources.h). */
#include "sources.h"
#include "registry.h"

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

int instr_source_set_handle_in_registry(int (*set_locked)(const void *addr, uint32_t h),
                                        const void *addr, uint32_t h)
{
    if (!instr_registry_trylock())
        return -1;
    int found = set_locked(addr, h);
    instr_registry_unlock();
    return found ? 0 : 1;
}
