/* hooks.h — the ABI v1 hooks adapter (hooks.c), as the rest of the runtime sees it. */
#ifndef INSTR_RT_HOOKS_H
#define INSTR_RT_HOOKS_H

#include "../core/event_path.h"
#include "../core/sources.h"

#include <stdint.h>

/* Start-up, after the run-time filter is read: registers every plugin descriptor of the
 * executable and the libraries loaded so far. */
void instr_hooks_register_loaded(void);

/* With the registry lock held: handle h for every descriptor of the function at addr, and
 * for its descriptors registered later (throttling, runtime/throttle/). 0 when no descriptor
 * has that address. */
int instr_hooks_set_handle_locked(const void *addr, uint32_t h);

/* The direct trace path's functions for the jump table (core/event_path.h): they take the
 * hooks' slow path when the thread is not on the path. */
void instr_hooks_trace_enter(INSTR_PATH_ENTER_ARGS);
void instr_hooks_trace_exit(INSTR_PATH_EXIT_ARGS);
/* The same with another timer than the TSC (INSTR_FAST_TRACE_CLOCK). */
void instr_hooks_trace_enter_clock(INSTR_PATH_ENTER_ARGS);
void instr_hooks_trace_exit_clock(INSTR_PATH_EXIT_ARGS);

/* The source (core/sources.h): throttling changes its regions' handles. */
extern const instr_source instr_hooks_source;

#endif
