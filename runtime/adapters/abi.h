/* abi.h — the compiler–runtime ABI check (include/instr_abi.h, docs/runtime.md "ABI"). */
#ifndef INSTR_RT_ABI_H
#define INSTR_RT_ABI_H

struct instr_region;

/* With the registry lock held: 1 when descriptor d was compiled for this runtime's
 * INSTR_ABI_VERSION. Otherwise 0, and the first time for d's object one line says that the
 * object's functions are not recorded. Reads only what every version keeps in place (the
 * version in the top byte of the second 32-bit field). */
int instr_abi_accepts(const struct instr_region *d);

#endif
