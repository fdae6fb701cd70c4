/* memory.h — the INSTR_TOTAL_MEMORY budget. Substrates take memory for per-thread data in
 * chunks (never per event); when the budget is spent they drop data and count what they
 * dropped, and the run goes on. */
#ifndef INSTR_RT_MEMORY_H
#define INSTR_RT_MEMORY_H

#include <stddef.h>
#include <stdint.h>

/* A zeroed chunk of `size` bytes from the page allocator (util/pages.h) charged to the
 * budget, or NULL when the budget is spent. */
void *instr_mem_chunk(size_t size);
/* The same from mmap: async-signal-safe (a signal handler's first visit of a call path may
 * need a node while the interrupted code holds the page allocator's lock). Never freed. */
void *instr_mem_chunk_mapped(size_t size);
/* Charges `size` bytes to the budget for memory the caller gets itself (the trace maps its
 * chunks: mmap is async-signal-safe); 0, or -1 when the budget is spent. No allocation. */
int instr_mem_charge(size_t size);
void instr_mem_uncharge(size_t size);
uint64_t instr_mem_used(void);
/* 1 once a request was refused. */
int instr_mem_exhausted(void);
/* In a forked child: the parent's chunks are no longer the child's concern. */
void instr_mem_reset(void);

#endif
