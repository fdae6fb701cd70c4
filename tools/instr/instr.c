/* instr — the compiler wrapper: `instr [OPTIONS] CC ARGS...`.
 *
 * Adds what instrumentation needs to one compiler command and runs it (exec: the compiler's
 * output and exit status are the wrapper's): the plugin and its options when compiling, the
 * runtime when linking; every other argument is passed through unchanged. Everything is found
 * relative to this executable (<prefix>/bin/instr -> <prefix>/lib: tools/layout), so the build
 * tree, the install tree and a moved install tree work alike. Works as CC="instr gcc" in make
 * and CMake builds: commands without input files (--version, -dumpversion, ...) are passed
 * through untouched. */
#define _GNU_SOURCE
#include "find_program.h"
#include "install_layout.h"
#include "instr_filter.h"
#include "response_file.h"
#include "static_libs.h"
#include "wrapper.h"

#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

enum mode { MODE_HOOKS, MODE_XRAY, MODE_CYG };
enum family { FAMILY_UNKNOWN, FAMILY_GCC, FAMILY_CLANG };

static const char *mode_names[] = {"hooks", "xray", "cyg"};

static void usage(FILE *f)
{
    fputs("usage: instr [--mode=hooks|xray|cyg] [--filter=SPEC] [--verbose] CC ARGS...\n"
          "  CC is gcc, g++, clang, clang++ (any version suffix), cc, c++, mpicc or mpicxx.\n"
          "  --mode=hooks  compiler plugin inserts enter/exit hooks (default)\n"
          "  --mode=xray   LLVM plugin marks functions for XRay (clang only)\n"
          "  --mode=cyg    plain -finstrument-functions, no plugin\n"
          "  --filter=SPEC selection spec applied at compile time (hooks, xray)\n"
          "  --verbose     print the compiler command before running it\n"
          "Without a plugin for the compiler, hooks mode falls back to cyg mode (one line on\n"
          "stderr says so). @file arguments (response files) are read, as the compiler\n"
          "reads them, to see what is compiled, and passed on unchanged. The run is\n"
          "configured with INSTR_* variables (docs/runtime.md).\n",
          f);
}

static int file_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Runs argv, returns its stdout (first `size` bytes) or -1. */
static int capture(char *const argv[], char *out, size_t size)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", 0, 0);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        return -1;
    }
    size_t len = 0;
    ssize_t n;
    while ((n = read(fds[0], out + len, size - 1 - len)) > 0 && len + (size_t)n < size - 1)
        len += (size_t)n;
    if (n > 0)
        len += (size_t)n;
    out[len] = '\0';
    char drain[256];
    while (read(fds[0], drain, sizeof drain) > 0)
        ;
    close(fds[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static int is_mpi(const char *cc)
{
    const char *b = base_name(cc);
    return strncmp(b, "mpic", 4) == 0 || strncmp(b, "mpiC", 4) == 0;
}

/* The compiler that really compiles: for an MPI wrapper, the one it calls. */
static void underlying(const char *cc, char *out, size_t size)
{
    snprintf(out, size, "%s", cc);
    if (!is_mpi(cc))
        return;
    char buf[4096];
    char *a1[] = {(char *)cc, "-showme:command", NULL}; /* Open MPI */
    char *a2[] = {(char *)cc, "-show", NULL};           /* MPICH */
    if (capture(a1, buf, sizeof buf) == 0 || capture(a2, buf, sizeof buf) == 0) {
        char *w = strtok(buf, " \t\n");
        if (w)
            snprintf(out, size, "%s", w);
    }
}

static enum family detect_family(const char *cc, int *major)
{
    char buf[4096];
    char *av[] = {(char *)cc, "--version", NULL};
    enum family fam = FAMILY_UNKNOWN;
    if (capture(av, buf, sizeof buf) == 0) {
        if (strstr(buf, "clang"))
            fam = FAMILY_CLANG;
        else if (strstr(buf, "Free Software Foundation") || strstr(buf, "gcc") ||
                 strstr(buf, "GCC"))
            fam = FAMILY_GCC;
    }
    char *dv[] = {(char *)cc, "-dumpversion", NULL};
    *major = 0;
    if (capture(dv, buf, sizeof buf) == 0)
        *major = atoi(buf);
    /* coreutils also print "Free Software Foundation"; a compiler also knows its version */
    if (*major <= 0)
        fam = FAMILY_UNKNOWN;
    return fam;
}

/* Options whose value is the next argument. */
static int takes_value(const char *a)
{
    static const char *const opts[] = {
        "-o", "-I", "-L", "-D", "-U", "-include", "-imacros", "-isystem", "-idirafter",
        "-iquote", "-iprefix", "-iwithprefix", "-isysroot", "-x", "-MF", "-MT", "-MQ",
        "-Xlinker", "-Xpreprocessor", "-Xassembler", "-Xclang", "-mllvm", "-T", "-u", "-z",
        "-e", "-aux-info", "--param", "-target", "--target", "-arch", "-l", "-F", NULL};
    for (int i = 0; opts[i]; i++)
        if (strcmp(a, opts[i]) == 0)
            return 1;
    return 0;
}

static int is_source(const char *path)
{
    static const char *const exts[] = {".c", ".cc", ".cp", ".cxx", ".cpp", ".CPP", ".c++",
                                       ".C", ".i", ".ii", ".m", ".mm", ".f", ".for", ".f90",
                                       ".F", ".F90", ".f95", ".F95", ".f03", ".f08", NULL};
    const char *dot = strrchr(path, '.');
    if (!dot)
        return 0;
    for (int i = 0; exts[i]; i++)
        if (strcmp(dot, exts[i]) == 0)
            return 1;
    return 0;
}

typedef struct args {
    char **v;
    int n, cap;
} args;

static void push(args *a, const char *s)
{
    if (a->n + 2 > a->cap) {
        a->cap = a->cap ? 2 * a->cap : 64;
        a->v = realloc(a->v, (size_t)a->cap * sizeof *a->v);
        if (!a->v) {
            perror("instr");
            exit(1);
        }
    }
    a->v[a->n++] = strdup(s);
    a->v[a->n] = NULL;
}

/* OpenMP constructs are named after their source lines (docs/openmp.md, "Names"), which need
 * a line table. For -fopenmp without any -g option, ask for line tables only: they change
 * no generated code (clang -gline-tables-only, gcc -g1). NULL: nothing to add. */
static const char *openmp_line_tables(char **cargs, int ncargs, enum family fam)
{
    int openmp = 0;
    for (int k = 0; k < ncargs; k++) {
        const char *a = cargs[k];
        if (strncmp(a, "-g", 2) == 0)
            return NULL; /* the user chose the debug information, -g0 included */
        if (strcmp(a, "-fopenmp") == 0 || strncmp(a, "-fopenmp=", 9) == 0)
            openmp = 1;
        else if (takes_value(a))
            k++;
    }
    if (!openmp)
        return NULL;
    return fam == FAMILY_CLANG ? "-gline-tables-only" : fam == FAMILY_GCC ? "-g1" : NULL;
}

/* gcc -fopenmp links GNU libgomp. libinstr-rt defines its GOMP_* entry points (it records
 * their constructs and forwards them, runtime/gomp/), so a program that calls nothing else of
 * libgomp would lose it under --as-needed: keep it, after libinstr-rt, so that the wrappers
 * come first in the search order (docs/openmp.md, "gcc -fopenmp"). Not when the link names
 * another OpenMP runtime (-lomp: LLVM's libomp, recorded through OMPT). */
static int keep_libgomp(char **cargs, int ncargs, enum family fam)
{
    int openmp = 0;
    for (int k = 0; k < ncargs; k++) {
        const char *a = cargs[k];
        if (strcmp(a, "-fopenmp") == 0 || strcmp(a, "-fopenmp=libgomp") == 0)
            openmp = 1;
        else if (strcmp(a, "-lomp") == 0 || strcmp(a, "-liomp5") == 0 || strstr(a, "libomp.") ||
                 strstr(a, "libiomp5."))
            return 0;
    }
    return openmp && fam == FAMILY_GCC;
}

static int check_spec(const char *spec)
{
    instr_filter *f = instr_filter_new();
    instr_filter_error err;
    memset(&err, 0, sizeof err);
    int rc = f ? instr_filter_load_file(f, spec, INSTR_SPEC_AUTO, &err) : -1;
    if (rc != 0)
        fprintf(stderr, "%s\n", f ? err.message : "instr: out of memory");
    instr_filter_free(f);
    return rc;
}

static int instr_main(int argc, char **argv)
{
    enum mode mode = MODE_HOOKS;
    int mode_given = 0, verbose = 0;
    const char *filter = NULL;
    int i = 1;
    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
        if (strncmp(argv[i], "--mode=", 7) == 0) {
            const char *m = argv[i] + 7;
            if (strcmp(m, "hooks") == 0) mode = MODE_HOOKS;
            else if (strcmp(m, "xray") == 0) mode = MODE_XRAY;
            else if (strcmp(m, "cyg") == 0) mode = MODE_CYG;
            else {
                fprintf(stderr, "instr: unknown mode '%s' (use hooks, xray or cyg)\n", m);
                return 2;
            }
            mode_given = 1;
        } else if (strncmp(argv[i], "--filter=", 9) == 0) {
            filter = argv[i] + 9;
        } else if (strcmp(argv[i], "--verbose") == 0) {
            verbose = 1;
        } else if (strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        } else {
            fprintf(stderr, "instr: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (i >= argc) {
        usage(stderr);
        return 2;
    }
    (void)mode_given;
    const char *cc = argv[i];
    char **cargs = argv + i + 1;
    int ncargs = argc - i - 1;

    switch (wrapper_plain("instr", ncargs + 1, argv + i)) {
    case -1:
        return 2;
    case 1:
        /* INSTR_WRAPPER=off or a configure probe: exactly the plain compiler */
        execvp(cc, cargs - 1);
        fprintf(stderr, "instr: cannot run '%s': %s\n", cc, strerror(errno));
        return 127;
    default:
        break;
    }
    /* A compiler that is not there is the one thing to say. */
    char why[1024];
    if (find_program(cc, why, sizeof why) != 0) {
        fprintf(stderr, "instr: cannot run '%s': %s; name an installed gcc, g++, clang, "
                        "clang++, mpicc or mpicxx\n", cc, why);
        return 127;
    }
    /* @file arguments are looked into to see what the command compiles; the compiler gets
     * the arguments as they were given. */
    response_args seen;
    if (response_expand(ncargs, cargs, &seen, why, sizeof why) != 0) {
        fprintf(stderr, "instr: %s\n", why);
        return 1;
    }

    /* What this command does (from the arguments with response files expanded). */
    int compile_only = 0, preprocess_only = 0, inputs = 0, sources = 0, is_static = 0;
    int lang_source = 0; /* after -x LANG (not "none"): every input is a source */
    for (int k = 0; k < seen.n; k++) {
        const char *a = seen.v[k];
        if (strcmp(a, "-c") == 0 || strcmp(a, "-S") == 0 || strcmp(a, "-fsyntax-only") == 0)
            compile_only = 1;
        else if (strcmp(a, "-E") == 0 || strcmp(a, "-M") == 0 || strcmp(a, "-MM") == 0)
            compile_only = preprocess_only = 1;
        else if (strcmp(a, "-static") == 0)
            is_static = 1;
        else if (strcmp(a, "-x") == 0 && k + 1 < seen.n)
            lang_source = strcmp(seen.v[k + 1], "none") != 0;
        else if (strncmp(a, "-x", 2) == 0 && a[2])
            lang_source = strcmp(a + 2, "none") != 0;
        if (a[0] == '-' && a[1] != '\0') {
            if (takes_value(a))
                k++;
            continue;
        }
        inputs++;
        if (lang_source || is_source(a) || strcmp(a, "-") == 0)
            sources++;
    }
    response_args_free(&seen);
    int linking = inputs > 0 && !compile_only;
    int instrumenting = sources > 0 && !preprocess_only;

    /* Where we are: <prefix>/bin/instr; the runtime, plugins and headers beside it. */
    instr_layout here;
    char opt[3 * PATH_MAX];
    if (instr_layout_find(&here) != 0) {
        fprintf(stderr, "instr: cannot find my own executable (/proc/self/exe) and so not the "
                        "runtime beside it; is /proc mounted?\n");
        return 1;
    }
    const char *lib = here.lib, *inc = here.include;

    char spec[PATH_MAX] = "";
    if (filter && instrumenting) {
        if (!realpath(filter, spec)) {
            fprintf(stderr, "instr: --filter=%s: %s\n", filter, strerror(errno));
            return 1;
        }
        if (check_spec(spec) != 0)
            return 1;
    }

    args out = {0};
    push(&out, cc);
    if (instrumenting) {
        char real[PATH_MAX];
        underlying(cc, real, sizeof real);
        int major;
        enum family fam = detect_family(real, &major);
        const char *lines = openmp_line_tables(cargs, ncargs, fam);
        if (lines)
            push(&out, lines);
        if (mode != MODE_CYG) {
            char plugin[2 * PATH_MAX] = "";
            if (fam == FAMILY_CLANG)
                snprintf(plugin, sizeof plugin, "%s/instr/llvm-%d/libinstr.so", lib, major);
            else if (fam == FAMILY_GCC)
                snprintf(plugin, sizeof plugin, "%s/instr/gcc-%d/instr.so", lib, major);
            if (mode == MODE_XRAY && fam != FAMILY_CLANG) {
                fprintf(stderr, "instr: --mode=xray needs clang (%s is not); using hooks mode\n",
                        cc);
                mode = MODE_HOOKS;
            }
            if (fam == FAMILY_UNKNOWN) {
                fprintf(stderr, "instr: '%s' does not say it is gcc or clang (%s --version "
                                "names neither); using -finstrument-functions (cyg mode)\n",
                        base_name(real), real);
                mode = MODE_CYG;
            } else if (!plugin[0] || !file_exists(plugin)) {
                fprintf(stderr, "instr: no %s plugin for %s %d (%s); using -finstrument-functions "
                                "(cyg mode)\n",
                        fam == FAMILY_CLANG ? "LLVM" : "GCC", base_name(real), major,
                        plugin[0] ? plugin : "unknown compiler");
                mode = MODE_CYG;
            } else if (fam == FAMILY_CLANG) {
                snprintf(opt, sizeof opt, "-fpass-plugin=%s", plugin);
                push(&out, opt);
                push(&out, "-Xclang"); push(&out, "-load");
                push(&out, "-Xclang"); push(&out, plugin);
                push(&out, "-mllvm");
                push(&out, mode == MODE_XRAY ? "-instr-mode=xray" : "-instr-mode=hooks");
                if (spec[0]) {
                    snprintf(opt, sizeof opt, "-instr-filter=%s", spec);
                    push(&out, "-mllvm");
                    push(&out, opt);
                }
                if (mode == MODE_XRAY)
                    push(&out, "-fxray-instrument");
            } else {
                snprintf(opt, sizeof opt, "-fplugin=%s", plugin);
                push(&out, opt);
                if (spec[0]) {
                    snprintf(opt, sizeof opt, "-fplugin-arg-instr-filter=%s", spec);
                    push(&out, opt);
                }
            }
        }
        if (mode == MODE_CYG) {
            push(&out, "-finstrument-functions");
            if (spec[0])
                fprintf(stderr, "instr: cyg mode selects nothing at compile time; apply the spec "
                                "at run time with INSTR_FILTERING_FILE=%s\n", spec);
        }
    }
    if (instrumenting || linking) {
        snprintf(opt, sizeof opt, "-I%s", inc);
        push(&out, opt);
    }
    for (int k = 0; k < ncargs; k++)
        push(&out, cargs[k]);
    if (linking) {
        if (mode == MODE_XRAY && !instrumenting)
            push(&out, "-fxray-instrument");
        if (mode == MODE_HOOKS && !instrumenting) {
            /* GCC with -flto compiles at link time (lto1): the GCC plugin inserts the hooks
             * there, after whole-program inlining, into the functions the compile step
             * selected (docs/gcc-plugin.md, "LTO"). lto1 loads it only if the link has it. */
            char real[PATH_MAX];
            underlying(cc, real, sizeof real);
            int major;
            if (detect_family(real, &major) == FAMILY_GCC) {
                char plugin[2 * PATH_MAX];
                snprintf(plugin, sizeof plugin, "%s/instr/gcc-%d/instr.so", lib, major);
                if (file_exists(plugin)) {
                    snprintf(opt, sizeof opt, "-fplugin=%s", plugin);
                    push(&out, opt);
                }
            }
        }
        if (mode == MODE_XRAY) {
            /* The XRay glue goes into the executable itself (xray_adapter/xray_glue.h says
             * why); nothing references it, so it is linked whole. */
            snprintf(opt, sizeof opt, "-Wl,--whole-archive,%s/libinstr-xray.a,--no-whole-archive",
                     lib);
            push(&out, opt);
        }
        if (is_static) {
            if (is_mpi(cc))
                fprintf(stderr, "instr: -static: MPI calls are not recorded (libinstr-rt-mpi "
                                "is a shared library only; link without -static for them)\n");
            snprintf(opt, sizeof opt, "%s/libinstr-rt.a", lib);
            push(&out, opt);
            static const char *const static_libs[] = {INSTR_STATIC_LIBS};
            for (int k = 0; static_libs[k]; k++)
                push(&out, static_libs[k]);
        } else {
            snprintf(opt, sizeof opt, "-L%s", lib);
            push(&out, opt);
            snprintf(opt, sizeof opt, "-Wl,-rpath,%s", lib);
            push(&out, opt);
            /* An MPI compiler wrapper: the PMPI layer first, so that its MPI_* come before
             * the MPI library's, which the wrapper adds last (docs/mpi.md). */
            snprintf(opt, sizeof opt, "%s/libinstr-rt-mpi.so", lib);
            if (is_mpi(cc) && access(opt, R_OK) == 0)
                push(&out, "-linstr-rt-mpi");
            push(&out, "-linstr-rt");
            char real[PATH_MAX];
            underlying(cc, real, sizeof real);
            int major;
            if (keep_libgomp(cargs, ncargs, detect_family(real, &major)))
                push(&out, "-Wl,--push-state,--no-as-needed,-lgomp,--pop-state");
        }
        push(&out, "-lpthread");
        push(&out, "-ldl");
    }
    if (verbose) {
        fprintf(stderr, "instr: [%s]", mode_names[mode]);
        for (int k = 0; k < out.n; k++)
            fprintf(stderr, " %s", out.v[k]);
        fputc('\n', stderr);
    }
    execvp(cc, out.v);
    fprintf(stderr, "instr: cannot run '%s': %s\n", cc, strerror(errno));
    return 127;
}

int main(int argc, char **argv)
{
    wrapper_command w;
    switch (wrapper_command_for(argc, argv, &w)) {
    case -1:
        return 2;
    case 0:
        return instr_main(argc, argv);
    default:
        break;
    }
    if (!w.plain)
        return instr_main(w.argc, w.argv);
    /* INSTR_WRAPPER=off or a configure probe: exactly the plain compiler */
    char why[1024];
    if (find_program(w.argv[0], why, sizeof why) != 0) {
        fprintf(stderr, "%s: cannot run '%s': %s; set INSTR_WRAPPER_COMPILER to the compiler "
                        "to use\n", base_name(argv[0]), w.argv[0], why);
        return 127;
    }
    execvp(w.argv[0], w.argv);
    fprintf(stderr, "%s: cannot run '%s': %s\n", base_name(argv[0]), w.argv[0], strerror(errno));
    return 127;
}
