/* sections.c — see sections.h.
 *
 * Section headers are not part of any loaded segment, so they are read from the object's
 * file: the ELF header, the section header table and the section name table, with pread and
 * bounded buffers. The section's address is trusted only when it lies inside a PT_LOAD
 * segment of the same object as the loader mapped it. */
#include "sections.h"
#include "../util/pages.h"

#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_SHSTRTAB (16u << 20)

typedef struct visit {
    const char *name;
    void (*fn)(void *begin, size_t size, void *arg);
    void *arg;
    int found;
    int main_seen;
} visit;

static int read_exact(int fd, void *buf, size_t size, uint64_t offset)
{
    return pread(fd, buf, size, (off_t)offset) == (ssize_t)size ? 0 : -1;
}

/* The section's [addr, addr+size) relative to the object's base, or -1. */
static int find_section(const char *path, const char *name, uint64_t *addr, uint64_t *size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = -1;
    Elf64_Shdr *sh = NULL;
    char *names = NULL;
    Elf64_Ehdr eh;
    if (read_exact(fd, &eh, sizeof eh, 0) != 0 || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) ||
        eh.e_shnum == 0 /* extended numbering: not for code objects */ || eh.e_shstrndx >= eh.e_shnum)
        goto out;
    sh = instr_mem_alloc((size_t)eh.e_shnum * sizeof *sh);
    if (!sh || read_exact(fd, sh, (size_t)eh.e_shnum * sizeof *sh, eh.e_shoff) != 0)
        goto out;
    const Elf64_Shdr *strs = &sh[eh.e_shstrndx];
    if (strs->sh_size == 0 || strs->sh_size > MAX_SHSTRTAB)
        goto out;
    names = instr_mem_alloc(strs->sh_size + 1);
    if (!names || read_exact(fd, names, strs->sh_size, strs->sh_offset) != 0)
        goto out;
    names[strs->sh_size] = '\0';
    for (unsigned i = 0; i < eh.e_shnum; i++) {
        if (sh[i].sh_name >= strs->sh_size || strcmp(names + sh[i].sh_name, name) != 0 ||
            !(sh[i].sh_flags & SHF_ALLOC) || sh[i].sh_type == SHT_NOBITS)
            continue;
        *addr = sh[i].sh_addr;
        *size = sh[i].sh_size;
        rc = 0;
        break;
    }
out:
    instr_mem_free(names);
    instr_mem_free(sh);
    close(fd);
    return rc;
}

static int inside_segment(const struct dl_phdr_info *info, uint64_t addr, uint64_t size)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && addr >= ph->p_vaddr && size <= ph->p_memsz &&
            addr - ph->p_vaddr <= ph->p_memsz - size)
            return 1;
    }
    return 0;
}

static int visit_object(struct dl_phdr_info *info, size_t info_size, void *data)
{
    (void)info_size;
    visit *v = data;
    char path[PATH_MAX];
    const char *file = info->dlpi_name;
    if (!file || !*file) {
        /* The main program (the first entry) has an empty name. */
        if (v->main_seen++)
            return 0;
        ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
        if (n <= 0)
            return 0;
        path[n] = '\0';
        file = path;
    }
    uint64_t addr, size;
    if (find_section(file, v->name, &addr, &size) != 0 || size == 0 ||
        !inside_segment(info, addr, size))
        return 0;
    v->fn((void *)(uintptr_t)(info->dlpi_addr + addr), (size_t)size, v->arg);
    v->found++;
    return 0;
}

int instr_sections_each(const char *name, void (*fn)(void *begin, size_t size, void *arg),
                        void *arg)
{
    visit v = {name, fn, arg, 0, 0};
    dl_iterate_phdr(visit_object, &v);
    return v.found;
}
