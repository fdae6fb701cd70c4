/* fuzz_spec.c — libFuzzer target for every spec parser and the decision.
 * The first byte picks the spelling (values past the last one mean: detect); the rest is
 * the spec. Whatever loads is then asked about a few functions and printed back. */
#include "instr_filter.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    static const instr_spec_format formats[] = {INSTR_SPEC_AUTO, INSTR_SPEC_NATIVE,
                                                INSTR_SPEC_YAML, INSTR_SPEC_SCOREP,
                                                INSTR_SPEC_TAU};
    unsigned pick = data[0] & 7u;
    instr_spec_format format = pick < 5 ? formats[pick] : INSTR_SPEC_AUTO;
    const char *text = (const char *)data + 1;
    size_t len = size - 1;

    instr_filter *f = instr_filter_new();
    instr_filter_error err;
    if (instr_filter_load_buffer(f, "fuzz.spec", text, len, format, &err) == 0) {
        static const instr_function_facts probes[] = {
            {"main", NULL, "main", "/a/src/main.c", 3, 1, 0, "int main(int, char**)",
             "/b/src/main.c"},
            {"void ns::f<int>(int) const", NULL, "_ZNK2ns1fIiEEvi", "/a/b.h", 100, 0, 0,
             "void ns::f(T) const [with T = int]", NULL},
            {"(anonymous namespace)::g()", NULL, NULL, NULL, -1, 0, 0, NULL, NULL},
            {"", NULL, "", "", 0, 0, 0, "", ""},
        };
        char line[4096];
        for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
            instr_decision d = instr_filter_decide(f, &probes[i]);
            instr_decision_format(&d, line, sizeof line);
        }
        for (size_t i = 0; i < instr_filter_rule_count(f); i++)
            instr_rule_format(instr_filter_rule(f, i), line, sizeof line);
    } else if (strlen(err.message) == 0) {
        abort(); /* an error must always say something */
    }
    instr_filter_free(f);

    /* the text as a signature and as a pattern */
    char *s = malloc(len + 1);
    if (!s)
        return 0;
    memcpy(s, text, len);
    s[len] = '\0';
    char name[256];
    instr_signature_name(s, name, sizeof name);
    const char *what;
    if (instr_glob_check(s, &what) < 0)
        instr_glob_match(s, "ns::A::f(int, double) const");
    free(s);
    return 0;
}
