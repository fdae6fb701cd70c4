/* register.c — how the OpenACC runtime gets the callbacks (docs/openacc.md).
 *
 * libgomp calls acc_register_library in each library ACC_PROFLIB names, and never the one
 * a program or a library linked into it defines; registering later is allowed, though: any
 * code may call acc_prof_register, whose first call enables the interface. So at start-up
 * this source calls libgomp's acc_prof_register itself, found through a weak reference (no
 * dlsym: a failing lookup keeps its error in memory from the program's malloc), when a
 * loaded object other than libgomp imports one of the GOACC_* entry points GCC's OpenACC
 * code calls: only a program that uses OpenACC registers (registering allocates from the
 * program's malloc, in libgomp). acc_register_library is here too, so that ACC_PROFLIB can
 * name the runtime (a program not built through instr, libgomp loaded by dlopen); both ways
 * together register once. */
#include "openacc.h"
#include "../core/registry.h"

#include <elf.h>
#include <link.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

/* libgomp's (acc_prof.h); NULL when libgomp is not loaded, or only in a local scope. */
extern void acc_prof_register(int event, void (*callback)(void *, void *, void *), int reg)
    __attribute__((weak));

EXPORT void acc_register_library(instr_openacc_reg reg, instr_openacc_reg unreg,
                                 void *(*lookup)(const char *))
{
    (void)unreg;
    (void)lookup;
    instr_openacc_register(reg);
}

/* 1 when the object's dynamic string table holds a name that begins with "GOACC_": the
 * object imports (or, libgomp, defines) GCC's OpenACC entry points. */
static int imports_goacc(struct dl_phdr_info *info)
{
    const char *strtab = NULL;
    size_t strsz = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type != PT_DYNAMIC)
            continue;
        const ElfW(Dyn) *d = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
        for (; d->d_tag != DT_NULL; d++) {
            if (d->d_tag == DT_STRTAB)
                strtab = (const char *)d->d_un.d_ptr;
            else if (d->d_tag == DT_STRSZ)
                strsz = d->d_un.d_val;
        }
    }
    if (!strtab || strsz == 0)
        return 0;
    /* The dynamic linker relocates the entry in place in most objects, not in all (the
     * vDSO's, read-only dynamic sections): an address below the load address is still
     * relative. */
    if ((ElfW(Addr))strtab < info->dlpi_addr)
        strtab += info->dlpi_addr;
    for (size_t i = 0; i + 6 <= strsz; i++)
        if ((i == 0 || strtab[i - 1] == '\0') && memcmp(strtab + i, "GOACC_", 6) == 0)
            return 1;
    return 0;
}

static int uses_openacc(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    const char *name = info->dlpi_name ? info->dlpi_name : "";
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    if (strncmp(base, "libgomp", 7) == 0 || strncmp(base, "linux-vdso", 10) == 0)
        return 0;
    return imports_goacc(info);
}

static void start(void)
{
    if (acc_prof_register && dl_iterate_phdr(uses_openacc, NULL))
        instr_openacc_register((instr_openacc_reg)acc_prof_register);
}

const instr_source instr_openacc_source = {
    .id = INSTR_SOURCE_OPENACC,
    .name = "openacc",
    .start = start,
};
