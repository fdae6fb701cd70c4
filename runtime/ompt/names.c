/* names.c — regions of OpenMP constructs: one per (construct, code address).
 *
 * The code address is OMPT's codeptr_ra, the return address of the runtime call the
 * compiler emitted for the construct. Its source line comes from the program's DWARF line
 * table through elfutils (libdw); that lookup is slow, so it is done once per pair, under the
 * registry lock, and the handle is published in an open-addressing table that events read
 * without a lock. Without a line table the name carries the function the construct is in,
 * demangled and without the suffix of an outlined body ("!$omp for @calc"), from the ELF
 * symbols.
 *
 * A region is one construct site. Its linkage name is the site itself, "!$omp for
 * @app+0x1a2b" (object and offset in it, the same in every rank that runs the same binary),
 * so that the job profile and the trace, which unify regions by name and linkage name, keep
 * sites apart; two sites whose names would be equal get "#2", "#3", ... (see `given`).
 *
 * gcc's GOMP_parallel, GOMP_task, GOMP_taskloop and GOMP_teams_reg are handed the outlined
 * body of their construct. Its entry carries the construct's own line in gcc's line table,
 * where the call's return address at -O2 can carry a neighbouring statement's line (the
 * scheduler moves argument set-up across the call); the GOMP_* wrappers note the body's
 * entry for their call site (instr_omp_name_by_entry), and the site is named from it. */
#include "ompt.h"
#include "../core/log.h"
#include "../core/registry.h"
#include "../symbols/symbols.h"
#include "../util/addr_map.h"
#include "../util/pages.h"

#ifdef INSTR_RT_HAVE_LIBDW
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const construct_name[INSTR_OMP_NCONSTRUCTS] = {
    [INSTR_OMP_PARALLEL] = "!$omp parallel",
    [INSTR_OMP_IMPLICIT_TASK] = "!$omp implicit task",
    [INSTR_OMP_IMPLICIT_BARRIER] = "!$omp implicit barrier",
    [INSTR_OMP_BARRIER] = "!$omp barrier",
    [INSTR_OMP_IMPL_BARRIER] = "!$omp barrier (runtime)",
    [INSTR_OMP_TASKWAIT] = "!$omp taskwait",
    [INSTR_OMP_TASKGROUP] = "!$omp taskgroup",
    [INSTR_OMP_REDUCTION] = "!$omp reduction",
    [INSTR_OMP_LOOP] = "!$omp for",
    [INSTR_OMP_SECTIONS] = "!$omp sections",
    [INSTR_OMP_SINGLE] = "!$omp single",
    [INSTR_OMP_WORKSHARE] = "!$omp workshare",
    [INSTR_OMP_TASKLOOP] = "!$omp taskloop",
    [INSTR_OMP_MASKED] = "!$omp masked",
    [INSTR_OMP_CRITICAL] = "!$omp critical",
    [INSTR_OMP_CRITICAL_WAIT] = "!$omp critical (wait)",
    [INSTR_OMP_ORDERED] = "!$omp ordered",
    [INSTR_OMP_ORDERED_WAIT] = "!$omp ordered (wait)",
    [INSTR_OMP_LOCK] = "omp_set_lock",
    [INSTR_OMP_LOCK_WAIT] = "omp_set_lock (wait)",
    [INSTR_OMP_TASK_CREATE] = "!$omp task (create)",
    [INSTR_OMP_TASK] = "!$omp task",
    [INSTR_OMP_TEAMS] = "!$omp teams",
    [INSTR_OMP_INITIAL_TASK] = "!$omp initial task",
    [INSTR_OMP_DISTRIBUTE] = "!$omp distribute",
    [INSTR_OMP_ATOMIC] = "!$omp atomic",
    [INSTR_OMP_ATOMIC_WAIT] = "!$omp atomic (wait)",
    [INSTR_OMP_SCOPE] = "!$omp scope",
    [INSTR_OMP_TASKGROUP_WAIT] = "!$omp taskgroup (wait)",
};

#define TABLE_BITS 14
#define TABLE (1u << TABLE_BITS)

/* (construct, address) -> region, read without a lock; it never grows: beyond three quarters
 * of TABLE distinct pairs, one region each construct (util/addr_map.h). */
static instr_addr_map table;
static uint32_t fallback[INSTR_OMP_NCONSTRUCTS]; /* table full or no address */

/* Code address -> index in entry_addr: the outlined body its construct is named from. */
#define ENTRY_BITS 12
#define ENTRY_MAX 3072 /* three quarters of 2^ENTRY_BITS: addr_map's fill limit */
static instr_addr_map entries;
static const void *entry_addr[ENTRY_MAX];
static uint32_t entry_count;

#ifdef INSTR_RT_HAVE_LIBDW
static Dwfl *dwfl;
static int dwfl_failed;

/* Source file and line of a code address, from the DWARF line table. 0 when found. */
int instr_omp_source_line(uintptr_t addr, const char **file, int *line)
{
    if (!dwfl && !dwfl_failed) {
        static const Dwfl_Callbacks cb = {.find_elf = dwfl_linux_proc_find_elf,
                                          .find_debuginfo = dwfl_standard_find_debuginfo};
        dwfl = dwfl_begin(&cb);
        if (!dwfl || dwfl_linux_proc_report(dwfl, getpid()) != 0 ||
            dwfl_report_end(dwfl, NULL, NULL) != 0) {
            instr_info(1, "OpenMP: cannot read this process's modules with libdw (%s): "
                          "constructs are named by function and offset",
                       dwfl_errmsg(-1));
            if (dwfl)
                dwfl_end(dwfl);
            dwfl = NULL;
            dwfl_failed = 1;
        }
    }
    if (!dwfl)
        return -1;
    Dwfl_Module *mod = dwfl_addrmodule(dwfl, addr);
    if (!mod) {
        /* A library loaded after the first lookup: report the modules again. */
        dwfl_report_begin_add(dwfl);
        dwfl_linux_proc_report(dwfl, getpid());
        dwfl_report_end(dwfl, NULL, NULL);
        mod = dwfl_addrmodule(dwfl, addr);
    }
    if (!mod)
        return -1;
    Dwfl_Line *l = dwfl_module_getsrc(mod, addr);
    if (l) {
        /* elfutils 0.188 leaves the line at 0 when no address pointer is given. */
        Dwarf_Addr at = 0;
        int col = 0;
        const char *f = dwfl_lineinfo(l, &at, line, &col, NULL, NULL);
        if (f && *line > 0) {
            *file = f;
            return 0;
        }
    }
    /* Without .debug_aranges (clang does not emit them by default) the lookup above finds no
     * compilation unit: walk the units and ask each whether it covers the address. */
    Dwarf_Die *cu = NULL;
    Dwarf_Addr bias = 0;
    while ((cu = dwfl_module_nextcu(mod, cu, &bias)) != NULL) {
        if (dwarf_haspc(cu, addr - bias) <= 0)
            continue;
        Dwarf_Line *dl = dwarf_getsrc_die(cu, addr - bias);
        const char *f = dl ? dwarf_linesrc(dl, NULL, NULL) : NULL;
        if (f && dwarf_lineno(dl, line) == 0 && *line > 0) {
            *file = f;
            return 0;
        }
        return -1;
    }
    return -1;
}
#else
int instr_omp_source_line(uintptr_t addr, const char **file, int *line)
{
    (void)addr, (void)file, (void)line;
    return -1;
}
#endif

/* The function a symbol stands for, as the user wrote it: the suffix of an outlined body or
 * clone (".omp_outlined.1", "._omp_fn.0", ".part.0") cut, demangled, without parameters:
 * "_ZN2ns4calcERNS_6DomainEi.omp_outlined" -> "ns::calc". */
static void function_name(const char *mangled, char *out, size_t size)
{
    char base[256];
    size_t n = strcspn(mangled, ".");
    if (n == 0 || n >= sizeof base)
        n = strlen(mangled) < sizeof base ? strlen(mangled) : sizeof base - 1;
    memcpy(base, mangled, n);
    base[n] = '\0';
    char *d = instr_demangle(base);
    const char *s = d ? d : base;
    /* Parameters start at the first '(' outside template arguments and "(anonymous ...)". */
    size_t len = strlen(s);
    int angle = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '<')
            angle++;
        else if (s[i] == '>' && angle > 0)
            angle--;
        else if (s[i] == '(' && angle == 0 && strncmp(s + i, "(anonymous", 10) != 0 && i > 0) {
            len = i;
            break;
        }
    }
    snprintf(out, size, "%.*s", (int)len, s);
    instr_mem_free(d);
}

/* Names already given, by hash: a second site with the same name gets "#2". Under the
 * registry lock.
 *
 * A site is a code address. Two addresses with one source location are not merged: an
 * optimiser's copies of one construct (loop unrolling, inlining into several callers) look
 * exactly like two constructs to which gcc's line table gives one line (it does so for
 * consecutive parallel regions), and merging those would put one construct's time into
 * another's. */
static struct {
    uint64_t hash;
    uint32_t count;
} given[TABLE];

static uint32_t name_slot(const char *name)
{
    uint64_t h = instr_fnv1a_str(INSTR_FNV1A_BASIS, name) | 1;
    uint32_t i = (uint32_t)(h >> 40) & (TABLE - 1);
    for (uint32_t k = 0; k < TABLE; k++, i = (i + 1) & (TABLE - 1)) {
        if (given[i].hash == h || !given[i].hash) {
            given[i].hash = h;
            return i;
        }
    }
    return UINT32_MAX;
}

/* The OpenMP runtime's own code: a code address there (a construct's call was a tail call,
 * or libomp's GOMP layer passed its own) says nothing about the program's source. */
static int in_openmp_runtime(const Dl_info *dl)
{
    static const void *base;
    static int looked;
    if (!looked) {
        Dl_info rt;
        void *fork = dlsym(RTLD_DEFAULT, "__kmpc_fork_call");
        if (fork && dladdr(fork, &rt))
            base = rt.dli_fbase;
        looked = 1;
    }
    return base && dl->dli_fbase == base;
}

/* Registers the region of a pair; with the registry lock held. */
static uint32_t make_region(int construct, uintptr_t ra)
{
    char name[512], site[512];
    const char *file = "", *object = "";
    int line = 0;
    if (!ra) {
        snprintf(name, sizeof name, "%s", construct_name[construct]);
        snprintf(site, sizeof site, "%s", name);
    } else {
        /* The return address is the instruction after the call: look up the call itself, or
         * the outlined body's entry noted for it. */
        uintptr_t at = ra - 1;
        instr_addr_slot *e = instr_addr_map_find(&entries, ra);
        if (e)
            at = (uintptr_t)entry_addr[e->value];
        instr_symbol sym;
        int have_sym = instr_symbols_lookup((const void *)at, &sym) == 0;
        object = sym.object;
        Dl_info dl;
        int have_dl = dladdr((const void *)at, &dl) && dl.dli_fbase;
        if (have_dl && in_openmp_runtime(&dl)) {
            snprintf(name, sizeof name, "%s", construct_name[construct]);
            file = "";
        } else if (instr_omp_source_line(at, &file, &line) == 0) {
            const char *base = strrchr(file, '/');
            snprintf(name, sizeof name, "%s @%s:%d", construct_name[construct],
                     base ? base + 1 : file, line);
        } else if (have_sym) {
            char fn[256];
            function_name(sym.mangled, fn, sizeof fn);
            snprintf(name, sizeof name, "%s @%s", construct_name[construct], fn);
            file = "";
        } else {
            snprintf(name, sizeof name, "%s", construct_name[construct]);
            file = "";
        }
        if (e)
            have_dl = dladdr((const void *)(ra - 1), &dl) && dl.dli_fbase;
        if (have_dl) {
            const char *obj = dl.dli_fname ? strrchr(dl.dli_fname, '/') : NULL;
            snprintf(site, sizeof site, "%s @%s+0x%lx", construct_name[construct],
                     obj ? obj + 1 : dl.dli_fname ? dl.dli_fname : "?",
                     (unsigned long)(ra - 1 - (uintptr_t)dl.dli_fbase));
        } else {
            snprintf(site, sizeof site, "%s @0x%lx", construct_name[construct],
                     (unsigned long)(ra - 1));
        }
    }
    uint32_t slot = name_slot(name);
    if (slot != UINT32_MAX && ++given[slot].count > 1) {
        size_t len = strlen(name);
        snprintf(name + len, sizeof name - len, " #%u", given[slot].count);
    }
    instr_region_info info = {.name = name, .mangled = site, .file = file, .object = object,
                              .line_begin = (uint32_t)line, .line_end = (uint32_t)line,
                              .addr = (const void *)ra, .source = INSTR_SOURCE_OPENMP};
    uint32_t h = instr_registry_add_locked(&info);
    if (h)
        instr_info(2, "OpenMP: region %u %s", h, name);
    return h;
}

void instr_omp_name_by_entry(const void *codeptr, const void *entry)
{
    uintptr_t ra = (uintptr_t)codeptr;
    if (!ra || !entry || instr_addr_map_find(&entries, ra))
        return;
    instr_registry_lock();
    if (!instr_addr_map_find(&entries, ra) && entry_count < ENTRY_MAX &&
        instr_addr_map_reserve(&entries, ENTRY_BITS, ENTRY_BITS) == 0) {
        entry_addr[entry_count] = entry; /* published by the key's release store */
        if (instr_addr_map_insert(&entries, ra, entry_count, ENTRY_BITS, ENTRY_BITS) == 0)
            entry_count++;
    }
    instr_registry_unlock();
}

uint32_t instr_omp_region(int construct, const void *codeptr)
{
    if (construct < 0 || construct >= INSTR_OMP_NCONSTRUCTS)
        return 0;
    uintptr_t ra = (uintptr_t)codeptr;
    if (!ra) {
        uint32_t h = __atomic_load_n(&fallback[construct], __ATOMIC_ACQUIRE);
        if (h)
            return h;
        instr_registry_lock();
        if (!(h = fallback[construct]))
            __atomic_store_n(&fallback[construct], h = make_region(construct, 0),
                             __ATOMIC_RELEASE);
        instr_registry_unlock();
        return h;
    }
    /* Code addresses are distinct per call site; the construct goes in the low bits. */
    uintptr_t key = ra * INSTR_OMP_NCONSTRUCTS + (uintptr_t)construct + 1;
    instr_addr_slot *slot = instr_addr_map_find(&table, key);
    if (slot)
        return __atomic_load_n(&slot->value, __ATOMIC_RELAXED);
    /* Not there: insert under the lock, unless another thread got there first. */
    instr_registry_lock();
    uint32_t h;
    if ((slot = instr_addr_map_find(&table, key)) != NULL) {
        h = slot->value;
    } else if (instr_addr_map_reserve(&table, TABLE_BITS, TABLE_BITS) == 0) {
        h = make_region(construct, ra);
        instr_addr_map_insert(&table, key, h, TABLE_BITS, TABLE_BITS);
    } else {
        instr_registry_unlock();
        return instr_omp_region(construct, NULL);
    }
    instr_registry_unlock();
    return h;
}
