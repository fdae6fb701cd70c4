/* hooks.h — the ABI v1 hooks adapter (hooks.c), as the rest of the runtime sees it. */
#ifndef INSTR_RT_HOOKS_H
#define INSTR_RT_HOOKS_H

/* Start-up, after the run-time filter is read: registers every plugin descriptor of the
 * executable and the libraries loaded so far. */
void instr_hooks_register_loaded(void);

#endif
