/* cct_extra.c — instr_cct_extra (cct.h): where the hooks' and cyg's events go when the
 * inline cursor path is not on, set with the path flag (core/lifecycle.c, core.c, pause). */
#include "profile.h"

instr_cct_extra_ops instr_cct_extra = {
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
        if (__atomic_load_n(&instr_cct_extra.field, __ATOMIC_RELAXED) != ops->field)           \
            __atomic_store_n(&instr_cct_extra.field, ops->field, __ATOMIC_RELEASE);            \
    } while (0)

void instr_cct_extra_set(const instr_cct_extra_ops *ops)
{
    SET_IF_CHANGED(enter_key);
    SET_IF_CHANGED(exit_key);
    SET_IF_CHANGED(enter_region);
    SET_IF_CHANGED(exit_region);
}

void instr_cct_extra_misses(void)
{
    instr_cct_extra_set(&(instr_cct_extra_ops){
        .enter_key = instr_cyg_enter_miss,
        .exit_key = instr_cyg_exit_miss,
        .enter_region = instr_hooks_enter_miss,
        .exit_region = instr_hooks_exit_miss,
    });
}

void instr_cct_extra_metrics(void)
{
    instr_cct_extra_set(&(instr_cct_extra_ops){
        .enter_key = instr_cct_metrics_enter_key,
        .exit_key = instr_cct_metrics_exit_key,
        .enter_region = instr_cct_metrics_enter_region,
        .exit_region = instr_cct_metrics_exit_region,
    });
}

#ifdef INSTR_RT_HAVE_TRACE
void instr_cct_extra_trace(void)
{
    instr_cct_extra_set(&(instr_cct_extra_ops){
        .enter_key = instr_cyg_enter_miss,
        .exit_key = instr_cyg_exit_miss,
        .enter_region = instr_hooks_trace_enter,
        .exit_region = instr_hooks_trace_exit,
    });
}
#endif
