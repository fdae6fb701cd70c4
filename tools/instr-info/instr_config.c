/* instr_config.c — see instr_config.h. The flags name the prefix this executable lives in,
 * so a moved install tree gives its own paths. */
#define _GNU_SOURCE
#include "instr_config.h"
#include "build_info.h"
#include "install_layout.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

static void usage(FILE *f)
{
    fputs("usage: instr-config [--cflags] [--libs] [--mpi] [--static] [--version] [--prefix]\n"
          "  --cflags   the include directory of <instr.h> (the manual API) and <instr_abi.h>\n"
          "  --libs     link the runtime: -L, -rpath, -linstr-rt and what it needs\n"
          "  --mpi      with --libs: the PMPI layer (libinstr-rt-mpi) before the runtime\n"
          "  --static   with --libs: the static runtime (libinstr-rt.a) and what it needs\n"
          "             (not with --mpi: the PMPI layer is a shared library only)\n"
          "  --version  instr's version\n"
          "  --prefix   where this instr is installed\n"
          "Flags print on one line, in the order given. To instrument code, compile it with\n"
          "`instr CC` or instr-cc instead (docs/build-systems.md).\n",
          f);
}

int instr_config_main(int argc, char **argv)
{
    int cflags = 0, libs = 0, mpi = 0, is_static = 0, version = 0, prefix_wanted = 0;
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--cflags") == 0) cflags = 1;
        else if (strcmp(argv[i], "--libs") == 0) libs = 1;
        else if (strcmp(argv[i], "--mpi") == 0) mpi = 1;
        else if (strcmp(argv[i], "--static") == 0) is_static = 1;
        else if (strcmp(argv[i], "--version") == 0) version = 1;
        else if (strcmp(argv[i], "--prefix") == 0) prefix_wanted = 1;
        else if (strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "instr-config: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (libs && mpi && is_static) {
        fprintf(stderr, "instr-config: --mpi and --static together: the PMPI layer "
                        "(libinstr-rt-mpi) is a shared library only; link MPI programs "
                        "with --libs --mpi, without --static\n");
        return 2;
    }
    if (version && !cflags && !libs && !prefix_wanted) {
        printf("%s\n", INSTR_INFO_VERSION);
        return 0;
    }
    instr_layout here;
    if (instr_layout_find(&here) != 0) {
        fprintf(stderr, "instr-config: cannot find my own executable (/proc/self/exe)\n");
        return 1;
    }
    const char *sep = "";
    if (version) {
        printf("%s%s", sep, INSTR_INFO_VERSION);
        sep = " ";
    }
    if (prefix_wanted) {
        printf("%s%s", sep, here.prefix);
        sep = " ";
    }
    if (cflags) {
        printf("%s-I%s", sep, here.include);
        sep = " ";
    }
    if (libs) {
        if (is_static)
            printf("%s%s/libinstr-rt.a %s", sep, here.lib, INSTR_INFO_STATIC_LIBS);
        else
            printf("%s-L%s -Wl,-rpath,%s%s -linstr-rt", sep, here.lib, here.lib,
                   mpi ? " -linstr-rt-mpi" : "");
        printf(" -lpthread -ldl");
    }
    printf("\n");
    return 0;
}
