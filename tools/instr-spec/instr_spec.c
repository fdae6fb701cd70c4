/* instr-spec — check selection specs and ask what they decide.
 *
 *   instr-spec check FILE...                 validate; print the normalised rules
 *   instr-spec match FILE... --function SIG  one line: include|exclude and the reason
 *   instr-spec builtins                      the exclusions no spec can override
 */
#include "instr_filter.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_SPEC_ERROR 1
#define EXIT_USAGE 2

static const char usage[] =
    "usage: instr-spec check [--format=FMT] FILE...\n"
    "       instr-spec match [--format=FMT] FILE... --function SIG [--mangled NAME]\n"
    "                        [--file PATH] [--instructions N] [--main]\n"
    "       instr-spec builtins\n"
    "\n"
    "FMT is auto (default), native, yaml, scorep or tau. Several FILEs append their rules\n"
    "in order. 'match' prints one line starting with 'include' or 'exclude', then the rule\n"
    "or built-in that decided, with its spec file:line; it exits 0 either way, 1 when a\n"
    "spec has an error, 2 on a usage error.\n"
    "See docs/selection-specs.md.\n";

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "instr-spec: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n\n%s", usage);
    return EXIT_USAGE;
}

static int parse_format(const char *s, instr_spec_format *out)
{
    static const instr_spec_format all[] = {INSTR_SPEC_AUTO, INSTR_SPEC_NATIVE, INSTR_SPEC_YAML,
                                            INSTR_SPEC_SCOREP, INSTR_SPEC_TAU};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (strcmp(s, instr_spec_format_name(all[i])) == 0) {
            *out = all[i];
            return 0;
        }
    return -1;
}

typedef struct options {
    instr_spec_format format;
    const char **files;
    size_t file_count;
    const char *function, *mangled, *file;
    long instructions;
    int is_main;
} options;

/* The value of "--name=value" or "--name value"; NULL when arg is not --name. */
static const char *option_value(const char *name, int argc, char **argv, int *i, int *missing)
{
    size_t n = strlen(name);
    const char *arg = argv[*i];
    if (strncmp(arg, name, n) != 0)
        return NULL;
    if (arg[n] == '=')
        return arg + n + 1;
    if (arg[n] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        *missing = 1;
        return NULL;
    }
    return argv[++*i];
}

static int parse_args(int argc, char **argv, int for_match, options *o)
{
    memset(o, 0, sizeof *o);
    o->instructions = -1;
    o->files = calloc((size_t)argc, sizeof *o->files);
    if (!o->files)
        return usage_error("%s", "out of memory");
    for (int i = 2; i < argc; i++) {
        int missing = 0;
        const char *v;
        if ((v = option_value("--format", argc, argv, &i, &missing))) {
            if (parse_format(v, &o->format) != 0)
                return usage_error("unknown format '%s'; use auto, native, yaml, scorep or tau",
                                   v);
        } else if (for_match && (v = option_value("--function", argc, argv, &i, &missing))) {
            o->function = v;
        } else if (for_match && (v = option_value("--mangled", argc, argv, &i, &missing))) {
            o->mangled = v;
        } else if (for_match && (v = option_value("--file", argc, argv, &i, &missing))) {
            o->file = v;
        } else if (for_match &&
                   (v = option_value("--instructions", argc, argv, &i, &missing))) {
            char *end;
            errno = 0;
            long n = strtol(v, &end, 10);
            if (errno || *end || end == v || n < 0)
                return usage_error("--instructions needs a whole number >= 0, not '%s'", v);
            o->instructions = n;
        } else if (for_match && strcmp(argv[i], "--main") == 0) {
            o->is_main = 1;
        } else if (missing) {
            return usage_error("%s needs a value", argv[i]);
        } else if (strcmp(argv[i], "--") == 0) {
            while (++i < argc)
                o->files[o->file_count++] = argv[i];
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return usage_error("unknown option '%s'", argv[i]);
        } else {
            o->files[o->file_count++] = argv[i];
        }
    }
    if (o->file_count == 0)
        return usage_error("%s", "no spec file given");
    return 0;
}

/* Loads every file, reporting each error; returns the number of files that failed. */
static int load_all(instr_filter *f, const options *o)
{
    int failed = 0;
    for (size_t i = 0; i < o->file_count; i++) {
        instr_filter_error err;
        size_t warnings_before = instr_filter_warning_count(f);
        if (instr_filter_load_file(f, o->files[i], o->format, &err) != 0) {
            fprintf(stderr, "%s\n", err.message);
            failed++;
        }
        for (size_t w = warnings_before; w < instr_filter_warning_count(f); w++)
            fprintf(stderr, "%s\n", instr_filter_warning(f, w));
    }
    return failed;
}

static void print_builtins(const char *indent)
{
    for (int b = INSTR_BUILTIN_NONE + 1; b < INSTR_BUILTIN_COUNT; b++) {
        printf("%s%-12s %s\n", indent, instr_builtin_name((instr_builtin)b),
               instr_builtin_description((instr_builtin)b));
        const char *const *p = instr_builtin_name_patterns((instr_builtin)b);
        if (*p) {
            printf("%s%-12s names:", indent, "");
            for (; *p; p++)
                printf(" %s", *p);
            printf("\n");
        }
    }
}

static int cmd_check(int argc, char **argv)
{
    options o;
    int rc = parse_args(argc, argv, 0, &o);
    if (rc) {
        free(o.files);
        return rc;
    }
    instr_filter *f = instr_filter_new();
    if (!f) {
        fprintf(stderr, "instr-spec: out of memory\n");
        return EXIT_SPEC_ERROR;
    }
    int failed = load_all(f, &o);
    if (failed == 0) {
        printf("# %zu spec file(s), %zu rule(s); file rules apply first, then function and "
               "mangled rules; the last match wins\n",
               o.file_count, instr_filter_rule_count(f));
        const char *last_origin = NULL;
        for (size_t i = 0; i < instr_filter_rule_count(f); i++) {
            const instr_rule *r = instr_filter_rule(f, i);
            char line[2048];
            instr_rule_format(r, line, sizeof line);
            if (r->origin != last_origin) {
                printf("# from %s\n", r->origin);
                last_origin = r->origin;
            }
            printf("%-50s # %s:%u:%u", line, r->origin, r->line, r->column);
            if (r->c_name_pattern)
                printf(" (C functions: %s)", r->c_name_pattern);
            if (r->tool_spelling)
                printf(" (Score-P rule: also GCC's spelling)");
            printf("\n");
        }
        const char *min_origin;
        unsigned min_line;
        long min = instr_filter_min_instructions(f, &min_origin, &min_line);
        if (min >= 0) {
            char line[64];
            snprintf(line, sizeof line, "min-instructions %ld", min);
            printf("%-50s # %s:%u\n", line, min_origin, min_line);
        }
        printf("# built-in exclusions, always applied first:\n");
        print_builtins("#   ");
    } else {
        fprintf(stderr, "instr-spec: %d of %zu spec file(s) have errors\n", failed, o.file_count);
    }
    instr_filter_free(f);
    free(o.files);
    return failed ? EXIT_SPEC_ERROR : 0;
}

static int cmd_match(int argc, char **argv)
{
    options o;
    int rc = parse_args(argc, argv, 1, &o);
    if (rc) {
        free(o.files);
        return rc;
    }
    if (!o.function) {
        free(o.files);
        return usage_error("%s", "match needs --function SIG (the demangled signature)");
    }
    instr_filter *f = instr_filter_new();
    if (!f) {
        free(o.files);
        fprintf(stderr, "instr-spec: out of memory\n");
        return EXIT_SPEC_ERROR;
    }
    rc = load_all(f, &o) ? EXIT_SPEC_ERROR : 0;
    if (rc == 0) {
        instr_function_facts facts = {
            .signature = o.function,
            .mangled = o.mangled,
            .file = o.file,
            .instructions = o.instructions,
            .is_main = o.is_main,
        };
        instr_decision d = instr_filter_decide(f, &facts);
        char line[2048];
        instr_decision_format(&d, line, sizeof line);
        printf("%s\n", line);
    }
    instr_filter_free(f);
    free(o.files);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage, stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "check") == 0)
        return cmd_check(argc, argv);
    if (strcmp(cmd, "match") == 0)
        return cmd_match(argc, argv);
    if (strcmp(cmd, "builtins") == 0) {
        print_builtins("");
        return 0;
    }
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        fputs(usage, stdout);
        return 0;
    }
    return usage_error("unknown command '%s'; use check, match or builtins", cmd);
}
