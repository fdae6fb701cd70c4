/* cyg.h — the -finstrument-functions adapter (cyg.c), as the rest of the runtime sees it. */
#ifndef INSTR_RT_CYG_H
#define INSTR_RT_CYG_H

#include "../core/sources.h"

#include <stdint.h>

/* With the registry lock held: the function at addr gets handle h in the address table
 * (throttling, runtime/throttle/). 0 when the table has no such address. */
int instr_cyg_set_handle_locked(const void *addr, uint32_t h);
/* The handle of the function at fn as the address table has it now, without a lock:
 * INSTR_HANDLE_UNREGISTERED when it has none yet. */
uint32_t instr_cyg_handle(uintptr_t fn);

/* The source (core/sources.h): throttling changes its regions' handles. */
extern const instr_source instr_cyg_source;

#endif
