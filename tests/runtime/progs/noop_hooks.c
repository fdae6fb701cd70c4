/* No-op ABI hooks for the uninstrumented build of hooks.c, which calls them by hand. */
#include <instr_abi.h>
void __instr_enter(struct instr_region *region) { (void)region; }
void __instr_exit(struct instr_region *region) { (void)region; }
