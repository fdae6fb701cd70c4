/* throttle.h — run-time throttling (INSTR_THROTTLE=<visits>,<ns per visit>): a region that a
 * thread has visited at least <visits> times with less than <ns per visit> inclusive time on
 * average stops being recorded, and its call sites stop calling the runtime.
 *
 * How (docs/runtime.md, "throttling"): the throttle substrate, first in the dispatch order and
 * active only with INSTR_THROTTLE set, counts per thread and per region the visits, the
 * inclusive time and the open frames. When a region crosses the threshold it is throttled in
 * two steps, so that enter and exit stay balanced:
 *
 * 1. draining: the adapter's handle becomes region | INSTR_HANDLE_THROTTLING. The call sites'
 *    guard (`handle != UINT32_MAX`) still calls the hooks, which no fast path matches: an
 *    enter pushes an unrecorded frame (instr_throttle_enter), an exit closes the innermost
 *    frame of the region, recorded or not (instr_throttle_exit). Frames recorded before keep
 *    their exits.
 * 2. throttled: once no recorded frame of the region is open on any thread, the handle becomes
 *    INSTR_HANDLE_EXCLUDED (hooks: every descriptor of the function; XRay: the sled is
 *    unpatched; -finstrument-functions: the address table's entry), and the runtime is no
 *    longer called for it.
 *
 * Only regions of compiled code (hooks, -finstrument-functions, XRay) are throttled, never MPI,
 * OpenMP or manual regions. With INSTR_THROTTLE unset nothing here runs: the substrate is not
 * active and the inline paths stay as they are. */
#ifndef INSTR_RT_THROTTLE_H
#define INSTR_RT_THROTTLE_H

#include "../core/substrate.h"
#include "../include/instr_abi.h"

#include <stdint.h>

/* Set in an adapter's handle while the region drains (step 1). Region handles stay below it. */
#define INSTR_HANDLE_THROTTLING 0x80000000u

extern const instr_substrate instr_throttle_substrate;

/* 1 when handle h is a draining region's (step 1): the adapter calls instr_throttle_enter/exit
 * with h & ~INSTR_HANDLE_THROTTLING instead of the event core. */
static inline int instr_handle_throttling(uint32_t h)
{
    return (h & INSTR_HANDLE_THROTTLING) && h != INSTR_HANDLE_EXCLUDED;
}

/* Events of a draining region (out of line: they also try step 2). */
void instr_throttle_enter(uint32_t region);
void instr_throttle_exit(uint32_t region);

/* What the writers show of a throttled region. */
typedef struct instr_throttle_mark {
    uint64_t visit;    /* the deciding thread's visits of the region when it was throttled */
    uint64_t mean_ns;  /* their mean inclusive time then */
    uint32_t location; /* that thread's location id */
    int excluded;      /* 1: step 2 was reached (the runtime is no longer called) */
} instr_throttle_mark;

/* 1 and *out when `region` was throttled in this run; 0 otherwise. */
int instr_throttle_mark_of(uint32_t region, instr_throttle_mark *out);

#endif
