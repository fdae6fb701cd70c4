/* registry.c — two-level table of region entries; see registry.h. */
#include "registry.h"
#include "log.h"
#include "../util/pages.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_BITS 10
#define CHUNK_SIZE (1u << CHUNK_BITS)
#define MAX_CHUNKS 4096u /* 4 Mi regions */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static instr_region_info *chunks[MAX_CHUNKS];
static uint32_t count; /* published with release after the entry is complete */
void (*instr_registry_on_add)(uint32_t handle);

_Thread_local int instr_registry_held __attribute__((tls_model("initial-exec")));

void instr_registry_lock(void)
{
    pthread_mutex_lock(&lock);
    instr_registry_held++;
}
void instr_registry_unlock(void)
{
    instr_registry_held--;
    pthread_mutex_unlock(&lock);
}
int instr_registry_trylock(void)
{
    if (pthread_mutex_trylock(&lock) != 0)
        return 0;
    instr_registry_held++;
    return 1;
}

static const char *copy(const char *s)
{
    /* Strings are copied: a dlclose'd library takes its string literals with it. */
    char *c = instr_mem_strdup(s ? s : "");
    return c ? c : "";
}

uint32_t instr_registry_add_locked(const instr_region_info *info)
{
    uint32_t h = count + 1;
    uint32_t c = h >> CHUNK_BITS;
    if (c >= MAX_CHUNKS)
        return 0;
    if (!chunks[c]) {
        instr_region_info *chunk = instr_mem_calloc(CHUNK_SIZE, sizeof *chunk);
        if (!chunk)
            return 0;
        __atomic_store_n(&chunks[c], chunk, __ATOMIC_RELEASE);
    }
    instr_region_info *e = &chunks[c][h & (CHUNK_SIZE - 1)];
    e->name = copy(info->name);
    e->mangled = copy(info->mangled && *info->mangled ? info->mangled : info->name);
    e->file = copy(info->file);
    e->object = copy(info->object);
    e->line_begin = info->line_begin;
    e->line_end = info->line_end;
    e->addr = info->addr;
    e->source = info->source;
    __atomic_store_n(&count, h, __ATOMIC_RELEASE);
    if (instr_registry_on_add)
        instr_registry_on_add(h);
    return h;
}

const instr_region_info *instr_registry_get(uint32_t h)
{
    if (h == 0 || h > __atomic_load_n(&count, __ATOMIC_ACQUIRE))
        return NULL;
    instr_region_info *chunk = __atomic_load_n(&chunks[h >> CHUNK_BITS], __ATOMIC_ACQUIRE);
    return &chunk[h & (CHUNK_SIZE - 1)];
}

uint32_t instr_registry_count(void) { return __atomic_load_n(&count, __ATOMIC_ACQUIRE); }

const char *instr_region_source_name(int source)
{
    switch (source) {
    case INSTR_SOURCE_HOOKS: return "hooks";
    case INSTR_SOURCE_CYG: return "cyg";
    case INSTR_SOURCE_MANUAL: return "manual";
    case INSTR_SOURCE_XRAY: return "xray";
    case INSTR_SOURCE_MPI: return "mpi";
    case INSTR_SOURCE_OPENMP: return "openmp";
    case INSTR_SOURCE_SAMPLED: return "sampled";
    case INSTR_SOURCE_MEMORY: return "memory";
    case INSTR_SOURCE_KOKKOS: return "kokkos";
    case INSTR_SOURCE_IO: return "io";
    case INSTR_SOURCE_OPENACC: return "openacc";
    default: return "unknown";
    }
}
