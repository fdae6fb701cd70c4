/* core.h — event core internals shared by core.c (locations and slow paths) and
 * lifecycle.c (start-up, end, fork). Not for adapters: they use event.h. */
#ifndef INSTR_RT_CORE_H
#define INSTR_RT_CORE_H

#include "event.h"
#include "substrate.h"

#include <pthread.h>

/* Active substrates, in slot order. */
extern const instr_substrate *instr_active[INSTR_MAX_SUBSTRATES];
extern unsigned instr_nactive;

/* Guards the location list and thread ends against the end of measurement. */
extern pthread_mutex_t instr_loc_lock;

/* Called once by lifecycle.c: the pthread key whose destructor hands a thread's data over. */
int instr_core_init_locations(void);
/* The location list (by id). With instr_loc_lock held. */
instr_location *const *instr_core_locations(uint32_t *n);
/* Dispatches exits for every open recorded region of `loc` at t; returns how many. */
uint64_t instr_core_close_all(instr_location *loc, uint64_t t);
/* The calling thread's location leaves the direct trace path, if it was on it: its open
 * regions become the core's stack (before the end closes them). */
void instr_core_leave_direct(void);
/* For an adapter that needs every location's stack in the core: the direct trace path is not
 * taken from now on (locations on it leave it at their next event), nor chosen at start-up if
 * that comes later. (The OpenMP master, which closes its workers' late-ending constructs in
 * their locations, uses instr_core_close_listed instead.) */
void instr_core_direct_off(void);
/* 0 once instr_core_direct_off was called. */
int instr_core_direct_allowed(void);
/* A thread of the runtime's own (the trace's converter): its events, if any (the memory
 * recorder sees a library's malloc), are ignored and it never becomes a location. */
void instr_core_thread_unmeasured(void);
/* Forked child: only the calling thread's location survives; it becomes location 0. */
void instr_core_fork_child(uint64_t t);

/* Set by an adapter of a parallel job (runtime/job/ext_job.c for libinstr-rt-mpi): called at
 * the end after the substrates wrote this process's results, to combine them job-wide. */
extern void (*instr_job_hook)(const instr_run *run);
/* This process's rank in its parallel job once it joined the job's directory; -1 outside a
 * job. Its end-of-run line then names the rank. */
extern int instr_job_rank;

/* For adapters of threading runtimes (runtime/ompt/). The calling thread's location,
 * created now if it has none yet (a thread becomes a location when it starts); NULL when
 * nothing is recorded. */
instr_location *instr_core_location_self(void);
/* Exits, at time t, the regions of `loc` open above stack depth `depth`, on behalf of the
 * location's thread, which must be parked where the caller's synchronisation orders its
 * earlier and later events (an OpenMP worker in the runtime's barrier). Returns how many. */
uint64_t instr_core_close_above(instr_location *loc, uint32_t depth, uint64_t t);
/* The same when the caller also knows the regions it opened there itself: open[0 .. n), the
 * innermost last (handle 0: not recorded, skipped). A location on the direct trace path keeps
 * no stack in the core (its depth is not known there): these are then closed, innermost
 * first, and what is open above them is closed with them by the trace's conversion. */
uint64_t instr_core_close_listed(instr_location *loc, uint32_t depth, const uint32_t *open,
                                 uint32_t n, uint64_t t);
/* Open regions of `loc` (its stack depth), whichever stack it uses. */
uint32_t instr_core_depth(const instr_location *loc);

void instr_init(void);
void instr_finalize(void);
/* 1 when libinstr-rt-mpi is linked (runtime/job/mpi_exchange.c defines the symbol): asked
 * through a weak reference, since a dlsym that fails allocates from malloc. */
int instr_core_mpi_linked(void);

#endif
