/* resolve.c — a sampled address to what it stands for, at the end of measurement, through
 * elfutils (libdwfl over this process's modules): the function from the DWARF scopes (or the
 * symbol table without -g), the functions inlined at the address (DW_TAG_inlined_subroutine
 * scopes, named with their declaration's file and line) and the source line. Every distinct
 * address is resolved once and kept. Addresses in instr's runtime, the MPI library or the
 * OpenMP runtime stand for one frame named after that part (docs/sampling.md). */
#include "samples.h"
#include "../core/config.h"
#include "../core/log.h"
#include "../symbols/symbols.h"
#include "../util/hash.h"
#include "../util/pages.h"

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <elf.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static Dwfl *dwfl;
static int dwfl_failed;
/* INSTR_SAMPLING_DEBUGINFO=all: also the debug information of separate files (a library's
 * /usr/lib/debug/.build-id/... file), read once per object, which for a system library means
 * decompressing megabytes of DWARF (libm's: about 280 million instructions, most of the
 * resolution's cost on a short run; docs/performance.md). By default only the objects that
 * carry their DWARF themselves (the program, libraries built with -g) are read: a frame in
 * the others is named from the symbol table (the separate file's, which holds the local
 * symbols too), as without -g. */
static int debuginfo_all = -1;

typedef struct entry {
    uintptr_t pc;
    instr_spc *v;
} entry;
static entry *cache;
static size_t cache_cap, cache_n;

static Dwfl *open_dwfl(void)
{
    if (dwfl || dwfl_failed)
        return dwfl;
    static const Dwfl_Callbacks cb = {.find_elf = dwfl_linux_proc_find_elf,
                                      .find_debuginfo = dwfl_standard_find_debuginfo};
    dwfl = dwfl_begin(&cb);
    if (!dwfl || dwfl_linux_proc_report(dwfl, getpid()) != 0 ||
        dwfl_report_end(dwfl, NULL, NULL) != 0) {
        instr_warn("sampling: cannot read this process's modules with libdw (%s): sampled "
                   "frames are named by address",
                   dwfl_errmsg(-1));
        if (dwfl)
            dwfl_end(dwfl);
        dwfl = NULL;
        dwfl_failed = 1;
    }
    return dwfl;
}

static Dwfl_Module *module_of(uintptr_t pc)
{
    if (!open_dwfl())
        return NULL;
    Dwfl_Module *m = dwfl_addrmodule(dwfl, pc);
    if (!m) {
        /* A library loaded after the first look: report the modules again. */
        dwfl_report_begin_add(dwfl);
        dwfl_linux_proc_report(dwfl, getpid());
        dwfl_report_end(dwfl, NULL, NULL);
        m = dwfl_addrmodule(dwfl, pc);
    }
    return m;
}

/* Whether the ELF file at path has a .debug_info section of its own (read from its section
 * headers: no DWARF is loaded for it). */
static int has_own_dwarf(const char *path)
{
    int fd = path && *path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    if (fd < 0)
        return 0;
    int found = 0;
    Elf64_Ehdr eh;
    Elf64_Shdr *sh = NULL;
    char *names = NULL;
    if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
        eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) ||
        eh.e_shnum == 0 || eh.e_shstrndx >= eh.e_shnum)
        goto done;
    size_t bytes = (size_t)eh.e_shnum * sizeof *sh;
    sh = instr_mem_alloc(bytes);
    if (!sh || pread(fd, sh, bytes, (off_t)eh.e_shoff) != (ssize_t)bytes)
        goto done;
    const Elf64_Shdr *st = &sh[eh.e_shstrndx];
    if (st->sh_size == 0 || st->sh_size > ((size_t)1 << 24))
        goto done;
    names = instr_mem_alloc(st->sh_size + 1);
    if (!names || pread(fd, names, st->sh_size, (off_t)st->sh_offset) != (ssize_t)st->sh_size)
        goto done;
    names[st->sh_size] = 0;
    for (unsigned i = 0; i < eh.e_shnum && !found; i++)
        if (sh[i].sh_name < st->sh_size && sh[i].sh_type != SHT_NOBITS &&
            (strcmp(names + sh[i].sh_name, ".debug_info") == 0 ||
             strcmp(names + sh[i].sh_name, ".zdebug_info") == 0))
            found = 1;
done:
    instr_mem_free(names);
    instr_mem_free(sh);
    close(fd);
    return found;
}

/* Whether the module's DWARF is read for its frames (see debuginfo_all); decided once per
 * module, kept in its user data. */
static int use_dwarf(Dwfl_Module *mod, const char *path)
{
    if (debuginfo_all < 0) {
        const char *v = instr_env("INSTR_SAMPLING_DEBUGINFO");
        debuginfo_all = v && strcmp(v, "all") == 0;
        if (v && !debuginfo_all && strcmp(v, "own") != 0)
            instr_warn("INSTR_SAMPLING_DEBUGINFO=%s is neither own nor all: using own", v);
    }
    if (debuginfo_all)
        return 1;
    void **user = NULL;
    dwfl_module_info(mod, &user, NULL, NULL, NULL, NULL, NULL, NULL);
    /* NULL: not decided yet (libdwfl's initial value), 2: read, 3: not read. */
    if (user && *user)
        return *user == (void *)2;
    int yes = has_own_dwarf(path);
    if (user)
        *user = (void *)(uintptr_t)(yes ? 2 : 3);
    return yes;
}

static const char *base_name(const char *path)
{
    const char *s = path ? strrchr(path, '/') : NULL;
    return s ? s + 1 : path ? path : "";
}

static int starts(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

/* The part of the program a library is, when its samples are attributed to it as a whole. */
static const char *runtime_part(const char *object)
{
    if (starts(object, "libinstr-rt") || starts(object, "libunwind"))
        return "instr runtime";
    if (starts(object, "libmpi") || starts(object, "libopen-pal") ||
        starts(object, "libopen-rte") || starts(object, "libpmix") || starts(object, "libucp") ||
        starts(object, "libucs") || starts(object, "libuct") || starts(object, "libfabric") ||
        starts(object, "libprrte") || starts(object, "libhwloc") || starts(object, "libevent"))
        return "MPI library";
    if (starts(object, "libgomp") || starts(object, "libomp") || starts(object, "libiomp"))
        return "OpenMP runtime";
    return NULL;
}

static char *dupf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *dupf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (instr_mem_vasprintf(&s, fmt, ap) < 0)
        s = NULL;
    va_end(ap);
    return s;
}

/* Demangled when it is a C++ name (in the runtime's pages either way). */
static char *display(const char *name)
{
    char *d = instr_demangle(name);
    return d ? d : instr_mem_strdup(name ? name : "?");
}

/* A symbol's name without its version (exp@@GLIBC_2.29), in buf. */
static const char *unversioned(const char *name, char *buf, size_t size)
{
    const char *at = name ? strchr(name, '@') : NULL;
    if (!at || at == name || (size_t)(at - name) >= size)
        return name;
    memcpy(buf, name, (size_t)(at - name));
    buf[at - name] = 0;
    return buf;
}

static const char *die_name(Dwarf_Die *die)
{
    Dwarf_Attribute a;
    const char *s = NULL;
    if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
        dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a))
        s = dwarf_formstring(&a);
    if (!s && dwarf_attr_integrate(die, DW_AT_name, &a))
        s = dwarf_formstring(&a);
    return s;
}

/* The file a function is declared in. DWARF 5's file 0 is the unit's own file, which
 * elfutils 0.188 does not look up: then the unit's name. */
static const char *decl_file(Dwarf_Die *die, Dwarf_Die *cu)
{
    const char *f = dwarf_decl_file(die);
    if (f)
        return f;
    Dwarf_Attribute a;
    Dwarf_Word idx;
    if (dwarf_attr_integrate(die, DW_AT_decl_file, &a) && dwarf_formudata(&a, &idx) == 0 &&
        idx == 0)
        return dwarf_diename(cu);
    return NULL;
}

static void set_frame(instr_sframe *f, const char *kind, char *func, const char *file,
                      int line, uintptr_t entry, const char *object)
{
    f->func = func ? func : "?";
    f->file = file ? instr_mem_strdup(file) : "";
    if (!f->file)
        f->file = "";
    f->line = line > 0 ? (uint32_t)line : 0;
    f->entry = entry;
    if (*f->file && f->line)
        f->name = dupf("%s %s @%s:%u", kind, f->func, base_name(f->file), f->line);
    else if (object && *object)
        f->name = dupf("%s %s (%s)", kind, f->func, object);
    else
        f->name = dupf("%s %s", kind, f->func);
    if (!f->name)
        f->name = f->func;
}

static instr_spc *resolve_now(uintptr_t pc)
{
    instr_spc *v = instr_mem_calloc(1, sizeof *v);
    instr_sframe *fr = instr_mem_calloc(INSTR_SAMPLE_MAX_FRAMES, sizeof *fr);
    if (!v || !fr) {
        instr_mem_free(v);
        instr_mem_free(fr);
        return NULL;
    }
    v->frames = fr;
    Dwfl_Module *mod = module_of(pc);
    const char *path = NULL;
    if (mod)
        path = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
    char *object_path = instr_mem_strdup(path ? path : "");
    for (unsigned i = 0; i < INSTR_SAMPLE_MAX_FRAMES; i++)
        fr[i].object = object_path ? object_path : "";
    v->line.object = fr[0].object;
    const char *object = base_name(path);
    GElf_Off off = 0;
    GElf_Sym sym;
    char symbuf[512];
    const char *sname = mod ? dwfl_module_addrinfo(mod, pc, &off, &sym, NULL, NULL, NULL) : NULL;
    sname = unversioned(sname, symbuf, sizeof symbuf);
    uintptr_t entry = sname ? pc - off : 0;
    const char *part = runtime_part(object);
    if (part) {
        char *func = sname ? display(sname) : dupf("0x%llx", (unsigned long long)pc);
        fr[0].func = func ? func : "?";
        fr[0].file = "";
        fr[0].entry = entry;
        fr[0].collapse = 1;
        fr[0].name = dupf("[%s] %s", part, fr[0].func);
        if (!fr[0].name)
            fr[0].name = fr[0].func;
        v->n = 1;
        return v;
    }
    if (!mod) {
        set_frame(&fr[0], "[sampled]", dupf("0x%llx", (unsigned long long)pc), NULL, 0, 0, NULL);
        v->n = 1;
        return v;
    }
    unsigned n = 0;
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = use_dwarf(mod, path) ? dwfl_module_addrdie(mod, pc, &bias) : NULL;
    if (!cu && use_dwarf(mod, path)) {
        /* No .debug_aranges (clang writes none): the compile unit whose ranges hold pc. */
        while ((cu = dwfl_module_nextcu(mod, cu, &bias)) && dwarf_haspc(cu, pc - bias) <= 0)
            ;
    }
    Dwarf_Die *scopes = NULL;
    int ns = cu ? dwarf_getscopes(cu, pc - bias, &scopes) : 0;
    if (ns > 0) {
        /* dwarf_getscopes follows an inlined function to its abstract definition; its DIE's
         * physical parents are the functions it was inlined into. */
        Dwarf_Die inner = scopes[0], *phys = NULL;
        int np = dwarf_getscopes_die(&inner, &phys);
        free(scopes);
        scopes = np > 0 ? phys : NULL;
        ns = np > 0 ? np : 0;
        if (np <= 0)
            free(phys);
    }
    /* Outermost first: the subprogram, then the inlined subroutines within it. */
    for (int i = ns - 1; i >= 0 && n < INSTR_SAMPLE_MAX_FRAMES; i--) {
        int tag = dwarf_tag(&scopes[i]);
        if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
            continue;
        int line = 0;
        dwarf_decl_line(&scopes[i], &line);
        const char *file = decl_file(&scopes[i], cu);
        if (tag == DW_TAG_subprogram) {
            /* The symbol's name is the one a profile of the instrumented functions uses. */
            const char *nm = sname ? sname : die_name(&scopes[i]);
            set_frame(&fr[n++], "[sampled]", display(nm), file, line, entry, NULL);
        } else {
            set_frame(&fr[n++], "[inlined]", display(die_name(&scopes[i])), file, line, 0,
                      NULL);
        }
    }
    free(scopes);
    if (n == 0)
        set_frame(&fr[n++], "[sampled]",
                  /* Code without a symbol (PLT stubs): one frame per object. */
                  sname ? display(sname) : instr_mem_strdup("(no symbol)"),
                  NULL, 0, entry, object);
    v->n = n;
    /* From the unit found above: dwfl_module_getsrc would need .debug_aranges too. */
    Dwarf_Line *l = cu ? dwarf_getsrc_die(cu, pc - bias) : NULL;
    int line = 0;
    const char *file = l && dwarf_lineno(l, &line) == 0 ? dwarf_linesrc(l, NULL, NULL) : NULL;
    if (file && line > 0) {
        instr_sframe *lf = &v->line;
        lf->func = "";
        lf->file = instr_mem_strdup(file);
        lf->line = (uint32_t)line;
        const char *inner = fr[n - 1].file;
        if (inner && *inner && strcmp(inner, file) == 0)
            lf->name = dupf("line %d", line);
        else
            lf->name = dupf("line %s:%d", base_name(file), line);
        if (!lf->file)
            lf->file = "";
    }
    return v;
}

static int cache_grow(void)
{
    size_t cap = cache_cap ? cache_cap * 2 : 4096;
    entry *c = instr_mem_calloc(cap, sizeof *c);
    if (!c)
        return -1;
    for (size_t i = 0; i < cache_cap; i++) {
        if (!cache[i].v)
            continue;
        size_t j = instr_hash_mix(cache[i].pc) & (cap - 1);
        while (c[j].v)
            j = (j + 1) & (cap - 1);
        c[j] = cache[i];
    }
    instr_mem_free(cache);
    cache = c;
    cache_cap = cap;
    return 0;
}

const instr_spc *instr_sampling_resolve(uintptr_t pc)
{
    if ((cache_n + 1) * 4 > cache_cap * 3 && cache_grow() != 0)
        return NULL;
    size_t j = instr_hash_mix(pc) & (cache_cap - 1);
    while (cache[j].v) {
        if (cache[j].pc == pc)
            return cache[j].v;
        j = (j + 1) & (cache_cap - 1);
    }
    instr_spc *v = resolve_now(pc);
    if (!v)
        return NULL;
    cache[j].pc = pc;
    cache[j].v = v;
    cache_n++;
    return v;
}

size_t instr_sampling_resolved(void) { return cache_n; }

void instr_sampling_resolve_end(void)
{
    /* The resolved names stay: the registry copied them, but the cache is small. */
    if (dwfl)
        dwfl_end(dwfl);
    dwfl = NULL;
    debuginfo_all = -1;
}
