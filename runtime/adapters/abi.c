/* abi.c — see abi.h.
 *
 * An object compiled for another ABI version may lay its descriptors out differently, so
 * nothing of such a descriptor but its version is read; its functions are not recorded. The
 * line names the object (the one whose data holds the descriptor) and is
 * printed once per object: every descriptor of it is refused on its own, at start-up or on
 * its first enter. */
#include "abi.h"
#include "../core/log.h"
#include "../include/instr_abi.h"
#include "../util/pages.h"

#include <dlfcn.h>
#include <link.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The objects already named, by path (few: one per refused object). */
static char **refused;
static size_t n_refused;

static int already_named(const char *path)
{
    for (size_t i = 0; i < n_refused; i++)
        if (strcmp(refused[i], path) == 0)
            return 1;
    char *copy = instr_mem_strdup(path);
    char **grown = copy ? instr_mem_realloc(refused, (n_refused + 1) * sizeof *grown) : NULL;
    if (!grown) {
        instr_mem_free(copy);
        return 0; /* without memory the line may come again; never lost */
    }
    refused = grown;
    refused[n_refused++] = copy;
    return 0;
}

int instr_abi_accepts(const struct instr_region *d)
{
    uint32_t version = INSTR_REGION_ABI_OF(__atomic_load_n(&d->flags, __ATOMIC_RELAXED));
    if (version == INSTR_ABI_VERSION)
        return 1;
    char exe[PATH_MAX];
    Dl_info info;
    struct link_map *map = NULL;
    const char *path = "";
    if (dladdr1(d, &info, (void **)&map, RTLD_DL_LINKMAP) && map && map->l_name)
        path = map->l_name;
    if (!*path) {
        /* The main program has no name in the loader's list (dladdr would say argv[0]). */
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        exe[n > 0 ? n : 0] = '\0';
        path = n > 0 ? exe : "the program";
    }
    if (!already_named(path))
        instr_notice("%s: compiled for instrumentation ABI %u, this runtime speaks %u: its "
                     "functions are not recorded; rebuild it with this instr",
                     path, (unsigned)version, (unsigned)INSTR_ABI_VERSION);
    return 0;
}
