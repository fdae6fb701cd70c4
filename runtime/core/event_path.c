/* event_path.c — instr_event_path_table (event_path.h): where the framed sources' events go
 * when the inline cursor path is not on, set with the path flag (runtime/compose/, core.c,
 * pause). */
#include "event_path.h"

instr_event_path_ops instr_event_path_table = {
    .enter_key = instr_cyg_enter_miss,
    .exit_key = instr_cyg_exit_miss,
    .enter_region = instr_hooks_enter_miss,
    .exit_region = instr_hooks_exit_miss,
};

/* Only a pointer that changes is stored: the hooks read these plainly (an atomic load is not
 * folded into their indirect jump, an instruction more per event), so a store while other
 * threads are inside events (the end switching to the misses) races with them unless it is
 * left out; where the value stays, as for cyg's in trace mode, it is. */
#define SET_IF_CHANGED(field)                                                                  \
    do {                                                                                       \
        if (__atomic_load_n(&instr_event_path_table.field, __ATOMIC_RELAXED) != ops->field)    \
            __atomic_store_n(&instr_event_path_table.field, ops->field, __ATOMIC_RELEASE);     \
    } while (0)

void instr_event_path_set(const instr_event_path_ops *ops)
{
    SET_IF_CHANGED(enter_key);
    SET_IF_CHANGED(exit_key);
    SET_IF_CHANGED(enter_region);
    SET_IF_CHANGED(exit_region);
}

void instr_event_path_misses(void)
{
    instr_event_path_set(&(instr_event_path_ops){
        .enter_key = instr_cyg_enter_miss,
        .exit_key = instr_cyg_exit_miss,
        .enter_region = instr_hooks_enter_miss,
        .exit_region = instr_hooks_exit_miss,
    });
    instr_xray_path_off();
}
