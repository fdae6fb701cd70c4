/* discover.c — Kokkos finds this library by itself in a program built through instr: at
 * start-up, when neither KOKKOS_TOOLS_LIBS (Kokkos 4) nor KOKKOS_PROFILE_LIBRARY (Kokkos 3,
 * which reads only that one) is set, both are set to this library's path, and Kokkos::
 * initialize loads it (dlopen of a library already loaded returns it). At
 * kokkosp_init_library the variables are taken back, so that programs this one starts do
 * not load the runtime through them. A variable the user set is never touched: another
 * Kokkos tool can be used instead. Nothing is set in a process without Kokkos (its children
 * would inherit the variables), nor by the static runtime, which is no library Kokkos could
 * load. */
#include "kokkos.h"
#include "../core/log.h"
#include "../core/registry.h"

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

static int set_by_us;

static int kokkos_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    return info->dlpi_name && strstr(info->dlpi_name, "kokkoscore") != NULL;
}

/* Kokkos's core library among the loaded objects (libkokkoscore.so, Debian's
 * libtrilinos_kokkoscore.so). Not dlsym of Kokkos::initialize: a lookup that fails keeps its
 * error in memory from the program's malloc, at start-up of every program (and a program
 * whose own malloc is instrumented would re-enter the runtime's initialisation). A Kokkos
 * linked statically into the executable is not found: name the runtime in KOKKOS_TOOLS_LIBS
 * there (docs/kokkos.md). */
static int have_kokkos(void)
{
    return dl_iterate_phdr(kokkos_object, NULL) != 0;
}

static void start(void)
{
    if (getenv("KOKKOS_TOOLS_LIBS") || getenv("KOKKOS_PROFILE_LIBRARY") || !have_kokkos())
        return;
    Dl_info dl;
    if (!dladdr((const void *)&instr_kokkos_source, &dl) || !dl.dli_fname)
        return;
    const char *base = strrchr(dl.dli_fname, '/');
    base = base ? base + 1 : dl.dli_fname;
    if (!strstr(base, ".so"))
        return; /* linked into the executable */
    char path[PATH_MAX];
    if (!realpath(dl.dli_fname, path))
        return;
    if (setenv("KOKKOS_TOOLS_LIBS", path, 0) != 0 ||
        setenv("KOKKOS_PROFILE_LIBRARY", path, 0) != 0)
        return;
    set_by_us = 1;
    instr_info(2, "kokkos: KOKKOS_TOOLS_LIBS and KOKKOS_PROFILE_LIBRARY set to %s", path);
}

void instr_kokkos_discovered(void)
{
    if (!set_by_us)
        return;
    set_by_us = 0;
    unsetenv("KOKKOS_TOOLS_LIBS");
    unsetenv("KOKKOS_PROFILE_LIBRARY");
}

const instr_source instr_kokkos_source = {
    .id = INSTR_SOURCE_KOKKOS,
    .name = "kokkos",
    .start = start,
};
