/* event_path.h — the event core's per-mode jump table: where the events of the sources whose
 * events have a stack frame of their own (hooks by region handle, cyg by key) go when the
 * inline cursor path is not on (event.h, instr_event_enter_framed).
 *
 * One jump through it (one instruction, as a direct jump), so that no mode pays a test for
 * another. Set with the path flag (instr_fast) by the composition unit (runtime/compose/)
 * and by the core when the flag goes off: before start-up and whenever the flag goes off,
 * the framed sources' slow paths (the misses below); the cursor path with metrics, with
 * plugins, or the plugins alone with INSTR_FAST_TABLE; the direct trace path by region
 * handle with INSTR_FAST_TRACE. The functions are set one pointer at a time (atomic stores):
 * an event that still sees the one before belongs to the time before, as with the flag.
 *
 * A mode's functions take the cursor state the source loaded for its inline path (s), by
 * the source's key or by region handle; at enter also the source's own context (hooks: the
 * region's descriptor) and stack address. The argument order is the one the hooks have
 * their values in (the descriptor in the first, the cursor state where gcc keeps it), so
 * that the jump needs no moves. */
#ifndef INSTR_RT_EVENT_PATH_H
#define INSTR_RT_EVENT_PATH_H

#include "cursor.h"

#include <stdint.h>

#define INSTR_PATH_ENTER_ARGS void *ctx, uintptr_t what, instr_pstate *s, uintptr_t sp
#define INSTR_PATH_EXIT_ARGS instr_pstate *s, uintptr_t what

typedef struct instr_event_path_ops {
    void (*enter_key)(INSTR_PATH_ENTER_ARGS);
    void (*exit_key)(INSTR_PATH_EXIT_ARGS);
    void (*enter_region)(INSTR_PATH_ENTER_ARGS);
    void (*exit_region)(INSTR_PATH_EXIT_ARGS);
} instr_event_path_ops;
extern instr_event_path_ops instr_event_path_table __attribute__((visibility("hidden")));
void instr_event_path_set(const instr_event_path_ops *ops);
/* The framed sources' slow paths (the flag is off, or INSTR_FAST_CURSOR). */
void instr_event_path_misses(void);

/* What the framed sources provide for every mode: their slow paths, which a mode's function
 * calls on a miss (the node is not the cursor's last child, or not the cursor; also every
 * handle that is not a region's), with the same arguments; by key, the handle of a key as
 * the source's table has it now, without a lock (INSTR_HANDLE_UNREGISTERED when it has none
 * yet). Called by name, not through a pointer, which would cost every event an instruction:
 * the source by region handle is the hooks (adapters/hooks.c), by key cyg
 * (adapters/cyg.c). */
void instr_hooks_enter_miss(INSTR_PATH_ENTER_ARGS);
void instr_hooks_exit_miss(INSTR_PATH_EXIT_ARGS);
void instr_cyg_enter_miss(INSTR_PATH_ENTER_ARGS);
void instr_cyg_exit_miss(INSTR_PATH_EXIT_ARGS);
uint32_t instr_cyg_handle(uintptr_t fn);
/* The XRay adapter's handler for a mode (xray_adapter/xray.c) is that mode's own, as this
 * table is: instr_event_path_misses, which every change of the flag to off calls, puts its
 * general handler back. */
void instr_xray_path_off(void);

#endif
