/* symbols.h — address to function name, through the ELF symbol tables of the loaded
 * executable and DSOs (PIE and dlopen'ed libraries included), for -finstrument-functions
 * (and later XRay functions compiled without the plugin). Slow path only: callers hold the
 * registry lock, which also serialises this module. */
#ifndef INSTR_RT_SYMBOLS_H
#define INSTR_RT_SYMBOLS_H

typedef struct instr_symbol {
    const char *mangled; /* symbol name, or "0x<offset>@<object>" when none covers it */
    const char *object;  /* path of the executable or DSO, "" when unknown */
} instr_symbol;

/* Fills *out (strings owned by this module, valid until the next call). 0 when a symbol was
 * found, -1 when only the fallback name could be made. */
int instr_symbols_lookup(const void *addr, instr_symbol *out);

/* Demangled (Itanium) name from instr_mem_alloc, or NULL (not mangled, or no demangler: C programs do
 * not load libstdc++, and C names need none). Uses __cxa_demangle found with dlsym. */
char *instr_demangle(const char *mangled);

#endif
