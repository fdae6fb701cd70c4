/* instr-info — what this instr knows and how it was built:
 *   instr-info config-vars [--full]   every INSTR_* variable (the runtime's own table)
 *   instr-info config-summary         compilers, plugins, OTF2, MPI, OMPT; what was skipped
 * Called by the name instr-config, it is instr-config (instr_config.h).
 * Like scorep-info. Exit 0, or 2 on a usage error. */
#define _GNU_SOURCE
#include "build_info.h"
#include "config_vars.h"
#include "instr_config.h"
#include "install_layout.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fputs("usage: instr-info config-vars [--full]\n"
          "       instr-info config-summary\n"
          "  config-vars     every INSTR_* environment variable instr reads, one a line with\n"
          "                  its meaning; --full adds its type, default and which part reads\n"
          "                  it (docs/runtime.md, docs/build-systems.md say more)\n"
          "  config-summary  how this instr was built: version, compilers, the plugins and\n"
          "                  optional parts present, and why a missing part is missing\n",
          f);
}

static int config_vars(int full)
{
    for (size_t i = 0; i < instr_config_var_count; i++) {
        const instr_config_var *v = &instr_config_vars[i];
        if (!full) {
            printf("%-28s %s\n", v->name, v->description);
            continue;
        }
        printf("%s\n    type:        %s\n    default:     %s\n    read by:     %s\n"
               "    description: %s\n",
               v->name, v->type, v->default_value[0] ? v->default_value : "(unset)",
               v->read_by, v->description);
    }
    return 0;
}

/* The plugins beside this executable (<prefix>/bin/instr-info -> <prefix>/lib/instr/): what
 * the `instr` wrapper will find, also in a moved install tree. */
static void plugins_here(void)
{
    instr_layout here;
    char dir[PATH_MAX + 8];
    if (instr_layout_find(&here) != 0) {
        printf("  plugins here:      unknown (/proc/self/exe unreadable)\n");
        return;
    }
    printf("  prefix:            %s\n", here.prefix);
    snprintf(dir, sizeof dir, "%s/instr", here.lib);
    struct dirent **list;
    int count = scandir(dir, &list, NULL, alphasort);
    printf("  plugins here:     ");
    int shown = 0;
    for (int i = 0; i < count; i++) {
        if (list[i]->d_name[0] != '.') {
            printf(" %s", list[i]->d_name);
            shown++;
        }
        free(list[i]);
    }
    if (count >= 0)
        free(list);
    printf("%s\n", shown ? "" : " none");
}

static int config_summary(void)
{
    printf("instr %s (%s build)\n", INSTR_INFO_VERSION, INSTR_INFO_BUILD_TYPE);
    printf("  built with:        C %s, C++ %s%s%s\n", INSTR_INFO_C_COMPILER,
           INSTR_INFO_CXX_COMPILER, INSTR_INFO_SANITIZE[0] ? ", sanitizers " : "",
           INSTR_INFO_SANITIZE);
    printf("  LLVM plugin:       %s\n", INSTR_INFO_LLVM_PLUGINS);
    printf("  GCC plugin:        %s\n", INSTR_INFO_GCC_PLUGIN);
    printf("  XRay adapter:      %s\n", INSTR_INFO_XRAY);
    printf("  trace (OTF2):      %s\n", INSTR_INFO_OTF2);
    printf("  MPI:               %s\n", INSTR_INFO_MPI);
    printf("  OpenMP (OMPT):     %s\n", INSTR_INFO_OMPT);
    plugins_here();
    return 0;
}

int main(int argc, char **argv)
{
    const char *name = strrchr(argv[0], '/');
    if (strcmp(name ? name + 1 : argv[0], "instr-config") == 0)
        return instr_config_main(argc, argv);
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "config-vars") == 0)
        return config_vars(0);
    if (argc == 3 && strcmp(argv[1], "config-vars") == 0 && strcmp(argv[2], "--full") == 0)
        return config_vars(1);
    if (argc == 2 && strcmp(argv[1], "config-summary") == 0)
        return config_summary();
    if (argc < 2)
        fprintf(stderr, "instr-info: which information? (config-vars or config-summary)\n");
    else
        fprintf(stderr, "instr-info: unknown command '%s%s%s'\n", argv[1], argc > 2 ? " " : "",
                argc > 2 ? argv[2] : "");
    usage(stderr);
    return 2;
}
