/* test_index.c — the rule index decides exactly as trying every rule in order: on random
 * rule sets (exact names, prefix, suffix and infix globs, brackets, escapes, file and mangled
 * rules, TAU prototypes) and random functions, the decision and its reason (the deciding
 * rule, hence its line) are the same. Deterministic: a fixed seed. */
#include "check.h"
#include "filter_internal.h"

#include <stdlib.h>

static unsigned long long rng = 0x9E3779B97F4A7C15ULL;

static unsigned next(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

static const char *const words[] = {"a", "ab", "abc", "solver", "solve", "ns::", "f", "x_1",
                                    "(int)", "::run", "<int>", "b", "main", "/src/", ".c"};

/* A random glob over a small alphabet, so that rules and names often meet. */
static void random_pattern(char *out, size_t size)
{
    out[0] = '\0';
    unsigned parts = 1 + next(4);
    for (unsigned i = 0; i < parts; i++) {
        switch (next(8)) {
        case 0: strncat(out, "*", size - strlen(out) - 1); break;
        case 1: strncat(out, "?", size - strlen(out) - 1); break;
        case 2: strncat(out, "[ab]", size - strlen(out) - 1); break;
        case 3: strncat(out, "\\*", size - strlen(out) - 1); break;
        default:
            strncat(out, words[next(sizeof words / sizeof words[0])], size - strlen(out) - 1);
        }
    }
}

static void random_text(char *out, size_t size)
{
    out[0] = '\0';
    unsigned parts = 1 + next(4);
    for (unsigned i = 0; i < parts; i++)
        strncat(out, next(10) == 0 ? "*" : words[next(sizeof words / sizeof words[0])],
                size - strlen(out) - 1);
}

static void one_rule_set(void)
{
    static const char *const kinds[] = {"file", "function", "mangled"};
    char spec[1 << 16];
    spec[0] = '\0';
    unsigned rules = 1 + next(200);
    for (unsigned i = 0; i < rules; i++) {
        char p[128], line[256];
        random_pattern(p, sizeof p);
        snprintf(line, sizeof line, "%s %s \"%s\"\n", next(2) ? "include" : "exclude",
                 kinds[next(3)], p);
        strncat(spec, line, sizeof spec - strlen(spec) - 1);
    }
    instr_filter *f = instr_filter_new();
    instr_filter_error err;
    if (instr_filter_load_buffer(f, "r.spec", spec, strlen(spec), INSTR_SPEC_NATIVE, &err)) {
        fprintf(stderr, "random spec does not load: %s\n", err.message);
        check_failures++;
        instr_filter_free(f);
        return;
    }
    /* a TAU list and a Score-P block too: c_name patterns and the GCC spelling */
    static const char tau[] = "BEGIN_EXCLUDE_LIST\nvoid solve#(int)\nint ab?(int *)\n"
                              "END_EXCLUDE_LIST\n";
    static const char scorep[] = "SCOREP_REGION_NAMES_BEGIN\nINCLUDE int\\ main(int)\n"
                                 "EXCLUDE *\\[with\\ T\\ =\\ int\\]\nSCOREP_REGION_NAMES_END\n";
    CHECK(instr_filter_load_buffer(f, "r.tau", tau, sizeof tau - 1, INSTR_SPEC_AUTO, &err) == 0);
    CHECK(instr_filter_load_buffer(f, "r.filter", scorep, sizeof scorep - 1, INSTR_SPEC_AUTO,
                                   &err) == 0);
    for (int k = 0; k < 300; k++) {
        char sig[128], mangled[128], file[128];
        random_text(sig, sizeof sig);
        if (next(2))
            strncat(sig, "(int)", sizeof sig - strlen(sig) - 1);
        random_text(mangled, sizeof mangled);
        random_text(file, sizeof file);
        instr_function_facts x = {.signature = sig, .mangled = mangled, .file = file,
                                  .instructions = -1,
                                  .tool_name = next(3) == 0 ? "void g(T) [with T = int]" : NULL,
                                  .resolved_file = next(3) == 0 ? "/src/r.c" : NULL};
        instr_decision a = instr_filter_decide(f, &x), b = filter_decide_naive(f, &x);
        check_count++;
        if (a.include != b.include || a.reason != b.reason || a.rule != b.rule) {
            check_failures++;
            fprintf(stderr, "index and naive differ on '%s' / '%s' / '%s': rule %u vs %u\n",
                    sig, mangled, file, a.rule ? a.rule->line : 0, b.rule ? b.rule->line : 0);
        }
    }
    instr_filter_free(f);
}

int main(void)
{
    for (int i = 0; i < 200; i++)
        one_rule_set();
    return check_report("test_index");
}
