/* elf_symbols.c — see symbols.h.
 *
 * The object containing an address is found with dl_iterate_phdr (so libraries loaded with
 * dlopen after start-up are found too); its file is read once: .symtab when present (static
 * functions included), else .dynsym. Function symbols are kept sorted by address relative to
 * the object's load base, which works for PIE executables, DSOs and non-PIE executables (base
 * 0) alike. */
#include "symbols.h"
#include "../util/pages.h"
#include "../util/sort.h"

#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct sym {
    uintptr_t value, size;
    const char *name; /* into the object's copied string table */
    int global;
} sym;

typedef struct object {
    uintptr_t base;
    char *path;
    sym *syms;
    size_t nsyms;
    char *strtab;
    struct object *next;
} object;

static object *objects;

static int by_value(const void *a, const void *b)
{
    const sym *x = a, *y = b;
    if (x->value != y->value)
        return x->value < y->value ? -1 : 1;
    /* Among aliases prefer a global, sized symbol: it is the name people use. */
    if (x->global != y->global)
        return x->global ? -1 : 1;
    return (y->size != 0) - (x->size != 0);
}

/* Reads the function symbols of one section into o. */
static int read_table(object *o, const unsigned char *map, size_t mapsize, const Elf64_Ehdr *eh,
                      const Elf64_Shdr *sh, const Elf64_Shdr *strsh)
{
    if (sh->sh_offset + sh->sh_size > mapsize || strsh->sh_offset + strsh->sh_size > mapsize ||
        sh->sh_entsize != sizeof(Elf64_Sym))
        return -1;
    (void)eh;
    size_t n = sh->sh_size / sizeof(Elf64_Sym);
    o->strtab = instr_mem_alloc(strsh->sh_size + 1);
    o->syms = instr_mem_alloc((n ? n : 1) * sizeof *o->syms);
    if (!o->strtab || !o->syms)
        return -1;
    memcpy(o->strtab, map + strsh->sh_offset, strsh->sh_size);
    o->strtab[strsh->sh_size] = '\0';
    const Elf64_Sym *s = (const Elf64_Sym *)(const void *)(map + sh->sh_offset);
    for (size_t i = 0; i < n; i++) {
        int type = ELF64_ST_TYPE(s[i].st_info);
        if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s[i].st_shndx == SHN_UNDEF ||
            s[i].st_value == 0 || s[i].st_name >= strsh->sh_size)
            continue;
        sym *d = &o->syms[o->nsyms++];
        d->value = s[i].st_value;
        d->size = s[i].st_size;
        d->name = o->strtab + s[i].st_name;
        d->global = ELF64_ST_BIND(s[i].st_info) != STB_LOCAL;
    }
    instr_sort(o->syms, o->nsyms, sizeof *o->syms, by_value);
    /* Keep one symbol per address (the preferred alias sorts first). */
    size_t k = 0;
    for (size_t i = 0; i < o->nsyms; i++)
        if (k == 0 || o->syms[k - 1].value != o->syms[i].value)
            o->syms[k++] = o->syms[i];
    o->nsyms = k;
    return 0;
}

static void load_file(object *o)
{
    int fd = open(o->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    struct stat st;
    if (fstat(fd, &st) != 0 || (size_t)st.st_size < sizeof(Elf64_Ehdr)) {
        close(fd);
        return;
    }
    size_t size = (size_t)st.st_size;
    const unsigned char *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED)
        return;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)(const void *)map;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_shentsize != sizeof(Elf64_Shdr) ||
        eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf64_Shdr) > size) {
        munmap((void *)map, size);
        return;
    }
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(const void *)(map + eh->e_shoff);
    static const unsigned types[] = {SHT_SYMTAB, SHT_DYNSYM};
    for (int t = 0; t < 2 && o->nsyms == 0; t++) {
        for (unsigned i = 0; i < eh->e_shnum; i++) {
            if (sh[i].sh_type != types[t] || sh[i].sh_link >= eh->e_shnum)
                continue;
            instr_mem_free(o->syms);
            instr_mem_free(o->strtab);
            o->syms = NULL;
            o->strtab = NULL;
            o->nsyms = 0;
            if (read_table(o, map, size, eh, &sh[i], &sh[sh[i].sh_link]) != 0)
                o->nsyms = 0;
            break;
        }
    }
    munmap((void *)map, size);
}

typedef struct find {
    uintptr_t addr;
    uintptr_t base;
    char name[PATH_MAX];
    int found;
} find;

static int find_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    find *f = data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (f->addr >= lo && f->addr < lo + ph->p_memsz) {
            f->base = info->dlpi_addr;
            snprintf(f->name, sizeof f->name, "%s", info->dlpi_name ? info->dlpi_name : "");
            f->found = 1;
            return 1;
        }
    }
    return 0;
}

static object *object_for(const void *addr)
{
    find f;
    memset(&f, 0, sizeof f);
    f.addr = (uintptr_t)addr;
    dl_iterate_phdr(find_cb, &f);
    if (!f.found)
        return NULL;
    if (!f.name[0]) {
        /* The main program has an empty name in the link map. /proc/self is the main
         * thread's, gone once it ended with pthread_exit; the calling thread's own entry
         * names the same file. */
        ssize_t n = readlink("/proc/self/exe", f.name, sizeof f.name - 1);
        if (n <= 0)
            n = readlink("/proc/thread-self/exe", f.name, sizeof f.name - 1);
        f.name[n > 0 ? n : 0] = '\0';
    }
    for (object *o = objects; o; o = o->next)
        if (o->base == f.base && strcmp(o->path, f.name) == 0)
            return o;
    object *o = instr_mem_calloc(1, sizeof *o);
    if (!o || !(o->path = instr_mem_strdup(f.name))) {
        instr_mem_free(o);
        return NULL;
    }
    o->base = f.base;
    load_file(o);
    o->next = objects;
    objects = o;
    return o;
}

int instr_symbols_lookup(const void *addr, instr_symbol *out)
{
    object *o = object_for(addr);
    out->object = o ? o->path : "";
    if (o && o->nsyms) {
        uintptr_t rel = (uintptr_t)addr - o->base;
        size_t lo = 0, hi = o->nsyms;
        while (hi - lo > 1) {
            size_t mid = (lo + hi) / 2;
            if (o->syms[mid].value <= rel)
                lo = mid;
            else
                hi = mid;
        }
        const sym *s = &o->syms[lo];
        if (s->value <= rel && (s->size == 0 || rel < s->value + s->size)) {
            out->mangled = s->name;
            return 0;
        }
    }
    /* No symbol (stripped object): a stable name from the offset and the object. */
    static char buf[PATH_MAX + 32];
    const char *base = o ? strrchr(o->path, '/') : NULL;
    snprintf(buf, sizeof buf, "0x%lx@%s", (unsigned long)((uintptr_t)addr - (o ? o->base : 0)),
             base ? base + 1 : (o ? o->path : "?"));
    out->mangled = buf;
    return -1;
}
