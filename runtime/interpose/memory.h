/* memory.h — memory recording (INSTR_MEMORY=1, docs/memory.md): what the recorder
 * (memory.c) keeps and its report (memory_report.c) reads at the end. */
#ifndef INSTR_RT_INTERPOSE_MEMORY_H
#define INSTR_RT_INTERPOSE_MEMORY_H

#include "../core/event.h"

#include <stdint.h>

/* A call path's counts on one thread: allocations made and released there (a realloc that
 * moves or resizes a block is a release of the old block and an allocation of the new one). */
typedef struct instr_memrec_counts {
    uint64_t allocs, frees, bytes_allocated, bytes_freed;
} instr_memrec_counts;

/* One call path's counts: its node in the thread's tree (NULL: outside any region). */
typedef struct instr_memrec_slot {
    const instr_pnode *node;
    instr_memrec_counts c;
} instr_memrec_slot;

/* One thread that allocated or released a recorded block. */
typedef struct instr_memrec_thread {
    struct instr_memrec_thread *next;  /* every thread's, newest first */
    instr_location *loc;            /* its location once it has one, else NULL */
    int tid;
    uint64_t live, high_water;      /* bytes it allocated that no thread released yet */
    instr_memrec_counts total;
    instr_memrec_slot *slots;          /* open addressing by node; cap a power of two */
    uint32_t cap, n;
    int has_outside;                /* slot for node NULL in use */
    instr_memrec_slot outside;
} instr_memrec_thread;

/* A block still live: its size and where it was allocated. */
typedef struct instr_memrec_block {
    uintptr_t addr;
    uint64_t size;
    const instr_pnode *node;
    instr_memrec_thread *owner;
} instr_memrec_block;

/* The process's figures. */
typedef struct instr_memrec_totals {
    uint64_t live, high_water;
    /* Calls not recorded: dropped, a signal handler's that interrupted the recorder on its
     * thread; stale, blocks that reappeared at an address still recorded as live (their
     * release was not recorded); in_runtime, calls while the runtime worked on the thread
     * (its own, or a signal handler's that interrupted it). */
    uint64_t dropped, stale, in_runtime;
} instr_memrec_totals;

/* 1 when recording is on this run. */
int instr_memrec_recording(void);
/* The threads, newest first. */
instr_memrec_thread *instr_memrec_threads(void);
void instr_memrec_get_totals(instr_memrec_totals *out);
/* Calls fn for every live block (each shard locked while it is walked). */
void instr_memrec_each_block(void (*fn)(const instr_memrec_block *b, void *arg), void *arg);
/* The counts of node on thread th (zeros when none). */
instr_memrec_counts instr_memrec_counts_of(const instr_memrec_thread *th, const instr_pnode *node);

#endif
