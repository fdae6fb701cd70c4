/* xray_throttle.h — what throttling (runtime/throttle/) asks of the XRay adapter, through the
 * source it registers (runtime/core/sources.h). */
#ifndef INSTR_XRAY_THROTTLE_H
#define INSTR_XRAY_THROTTLE_H

#include "../runtime/core/sources.h"

#include <stdint.h>

/* The function at addr gets handle h in the handler's table; with unpatch, its sleds are
 * unpatched too. 0; 1 when no function with sleds has that address; -1 when the patching
 * lock is taken (a patch call of the program is under way, or this thread is inside one):
 * the caller tries again later. */
int instr_xray_throttle(const void *addr, uint32_t h, int unpatch);

/* The source: instr_xray_throttle is its set_handle. */
extern const instr_source instr_xray_source;

#endif
