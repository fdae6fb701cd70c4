/* empty_hooks.c — the reference pair: -finstrument-functions hooks that do nothing (compiled
 * without -finstrument-functions). docs/architecture.md, "Budgets": instr's profile mode per
 * call costs at most 3x the overhead of these. */
__attribute__((noinline)) void __cyg_profile_func_enter(void *fn, void *site)
{
    __asm__ volatile("" ::"r"(fn), "r"(site) : "memory");
}
__attribute__((noinline)) void __cyg_profile_func_exit(void *fn, void *site)
{
    __asm__ volatile("" ::"r"(fn), "r"(site) : "memory");
}
