/* wrapper.c — see wrapper.h. Why configure probes are compiled plainly: autotools, CMake
 * and Meson compile and run small test programs while they configure; instrumented, each
 * would link the runtime and leave an experiment directory behind, and a probe's result
 * could differ from the plain compiler's. */
#define _GNU_SOURCE
#include "wrapper.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* wrapper name -> the compiler it calls by default */
static const char *const wrappers[][2] = {
    {"instr-cc", "cc"},         {"instr-c++", "c++"},       {"instr-mpicc", "mpicc"},
    {"instr-mpicxx", "mpicxx"}, {"instr-gfortran", "gfortran"},
    /* named after the compiler, for Makefiles that pick flags by finding "gcc" or "clang"
     * in $(CC) */
    {"instr-gcc", "gcc"},       {"instr-g++", "g++"},       {"instr-clang", "clang"},
    {"instr-clang++", "clang++"},
};
#define N_WRAPPERS (sizeof wrappers / sizeof *wrappers)

static const char *base_of(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* Where the build systems compile their probes: CMake's compiler identification and
 * try_compile directories, Meson's private directory, autoconf's conftest files. */
static int configure_probe(int argc, char **argv)
{
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof cwd)) {
        static const char *const dirs[] = {"/CMakeFiles/CMakeScratch", "/CMakeFiles/CMakeTmp",
                                           "/CompilerIdC", "/CompilerIdCXX",
                                           "/CompilerIdFortran", "/meson-private", NULL};
        for (int i = 0; dirs[i]; i++)
            if (strstr(cwd, dirs[i]))
                return 1;
    }
    for (int k = 1; k < argc; k++) {
        const char *b = base_of(argv[k]);
        if (strncmp(b, "conftest", 8) == 0 || strstr(argv[k], "meson-private/"))
            return 1;
    }
    return 0;
}

int wrapper_plain(const char *self, int argc, char **argv)
{
    const char *state = getenv("INSTR_WRAPPER");
    if (!state || !*state)
        return configure_probe(argc, argv);
    if (strcmp(state, "off") == 0 || strcmp(state, "0") == 0)
        return 1;
    if (strcmp(state, "on") == 0 || strcmp(state, "1") == 0)
        return 0;
    fprintf(stderr, "%s: INSTR_WRAPPER='%s' is not a wrapper state; use off (the plain "
                    "compiler, e.g. while a build system configures), on (always instrument) "
                    "or leave it unset (configure probes plain, the rest instrumented)\n",
            self, state);
    return -1;
}

static void push(wrapper_command *c, const char *s)
{
    c->argv[c->argc++] = (char *)s;
    c->argv[c->argc] = NULL;
}

int wrapper_command_for(int argc, char **argv, wrapper_command *out)
{
    const char *self = base_of(argv[0]);
    size_t w = 0;
    while (w < N_WRAPPERS && strcmp(self, wrappers[w][0]) != 0)
        w++;
    if (w == N_WRAPPERS)
        return 0;

    const char *compiler = getenv("INSTR_WRAPPER_COMPILER");
    if (!compiler || !*compiler)
        compiler = wrappers[w][1];
    int plain = wrapper_plain(self, argc, argv);
    if (plain < 0)
        return -1;

    /* instr's options, split at blanks (no quoting: a spec path with blanks does not fit);
     * a string of n bytes holds at most n/2+1 words */
    const char *given = getenv("INSTR_WRAPPER_ARGS");
    char *opts = !plain && given && *given ? strdup(given) : NULL;
    size_t max_words = opts ? strlen(opts) / 2 + 1 : 0;
    out->argv = calloc((size_t)argc + max_words + 4, sizeof *out->argv);
    if (!out->argv || (!plain && given && *given && !opts)) {
        perror(self);
        return -1;
    }
    out->argc = 0;
    out->plain = plain;
    if (!plain) {
        push(out, "instr");
        if (opts)
            for (char *save, *t = strtok_r(opts, " \t\n", &save); t;
                 t = strtok_r(NULL, " \t\n", &save)) {
                if (strncmp(t, "--", 2) != 0 || strcmp(t, "--") == 0) {
                    fprintf(stderr, "%s: INSTR_WRAPPER_ARGS='%s': '%s' is not an instr option; "
                                    "it holds instr's own options only (e.g. --mode=xray "
                                    "--filter=app.spec), the compiler's go on its command line\n",
                            self, given, t);
                    return -1;
                }
                push(out, t);
            }
        push(out, "--");
    }
    push(out, compiler);
    for (int k = 1; k < argc; k++)
        push(out, argv[k]);
    return 1;
}
