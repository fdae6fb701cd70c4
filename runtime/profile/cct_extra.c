/* cct_extra.c — instr_cct_extra (cct.h): where the hooks' and cyg's events go when the
 * inline cursor path is not on, set with the path flag (core/lifecycle.c, core.c, pause). */
#include "profile.h"

instr_cct_extra_ops instr_cct_extra = {
    .enter_key = instr_cyg_enter_miss,
    .exit_key = instr_cyg_exit_miss,
    .enter_region = instr_hooks_enter_miss,
    .exit_region = instr_hooks_exit_miss,
};

void instr_cct_extra_set(const instr_cct_extra_ops *ops)
{
    __atomic_store_n(&instr_cct_extra.enter_key, ops->enter_key, __ATOMIC_RELEASE);
    __atomic_store_n(&instr_cct_extra.exit_key, ops->exit_key, __ATOMIC_RELEASE);
    __atomic_store_n(&instr_cct_extra.enter_region, ops->enter_region, __ATOMIC_RELEASE);
    __atomic_store_n(&instr_cct_extra.exit_region, ops->exit_region, __ATOMIC_RELEASE);
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
