/* memory.c — budgeted chunk allocation (INSTR_TOTAL_MEMORY). */
#include "memory.h"
#include "config.h"
#include "../util/pages.h"

#include <stdlib.h>
#include <sys/mman.h>

static uint64_t used;
static int exhausted;

int instr_mem_charge(size_t size)
{
    uint64_t before = __atomic_fetch_add(&used, size, __ATOMIC_RELAXED);
    if (before + size > instr_cfg.total_memory) {
        __atomic_fetch_sub(&used, size, __ATOMIC_RELAXED);
        __atomic_store_n(&exhausted, 1, __ATOMIC_RELAXED);
        return -1;
    }
    return 0;
}

void instr_mem_uncharge(size_t size) { __atomic_fetch_sub(&used, size, __ATOMIC_RELAXED); }

void *instr_mem_chunk_mapped(size_t size)
{
    if (instr_mem_charge(size) != 0)
        return NULL;
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        instr_mem_uncharge(size);
        __atomic_store_n(&exhausted, 1, __ATOMIC_RELAXED);
        return NULL;
    }
    return p;
}

void *instr_mem_chunk(size_t size)
{
    if (instr_mem_charge(size) != 0)
        return NULL;
    void *p = instr_mem_calloc(1, size);
    if (!p) {
        __atomic_fetch_sub(&used, size, __ATOMIC_RELAXED);
        __atomic_store_n(&exhausted, 1, __ATOMIC_RELAXED);
    }
    return p;
}

uint64_t instr_mem_used(void) { return __atomic_load_n(&used, __ATOMIC_RELAXED); }
int instr_mem_exhausted(void) { return __atomic_load_n(&exhausted, __ATOMIC_RELAXED); }

void instr_mem_reset(void)
{
    __atomic_store_n(&used, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&exhausted, 0, __ATOMIC_RELAXED);
}
