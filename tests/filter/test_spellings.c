/* test_spellings.c — the same rule set in the four spellings decides a shared table of
 * functions identically, and as the table says.
 *   test_spellings DIR   (DIR holds rules.spec, rules.yaml, rules.scorep, rules.tau, cases.tsv) */
#include "check.h"
#include "instr_filter.h"

#include <stdlib.h>

static const char *const spellings[] = {"rules.spec", "rules.yaml", "rules.scorep", "rules.tau"};
#define SPELLINGS (sizeof spellings / sizeof spellings[0])

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_spellings FIXTURE_DIR\n");
        return 2;
    }
    instr_filter *filters[SPELLINGS];
    for (size_t i = 0; i < SPELLINGS; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", argv[1], spellings[i]);
        filters[i] = instr_filter_new();
        instr_filter_error err;
        if (instr_filter_load_file(filters[i], path, INSTR_SPEC_AUTO, &err) != 0) {
            fprintf(stderr, "%s\n", err.message);
            return 1;
        }
    }

    char path[4096];
    snprintf(path, sizeof path, "%s/cases.tsv", argv[1]);
    FILE *fp = fopen(path, "r");
    if (!fp) {
        perror(path);
        return 1;
    }
    char line[4096];
    int cases = 0, lineno = 0;
    while (fgets(line, sizeof line, fp)) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '#' || line[0] == '\0')
            continue;
        char *expected = line, *sig = strchr(line, '\t'), *file = NULL;
        if (!sig) {
            fprintf(stderr, "cases.tsv:%d: malformed line\n", lineno);
            return 1;
        }
        *sig++ = '\0';
        file = strchr(sig, '\t');
        if (file)
            *file++ = '\0';
        instr_function_facts facts = {.signature = sig, .file = file, .instructions = -1};
        cases++;
        for (size_t i = 0; i < SPELLINGS; i++) {
            instr_decision d = instr_filter_decide(filters[i], &facts);
            char why[1024];
            instr_decision_format(&d, why, sizeof why);
            check_count++;
            if (strcmp(d.include ? "include" : "exclude", expected) != 0) {
                check_failures++;
                fprintf(stderr, "cases.tsv:%d: %s: '%s' in '%s': want %s, got %s\n", lineno,
                        spellings[i], sig, file ? file : "", expected, why);
            }
        }
    }
    fclose(fp);
    for (size_t i = 0; i < SPELLINGS; i++)
        instr_filter_free(filters[i]);
    printf("%d cases x %zu spellings\n", cases, SPELLINGS);
    if (cases < 50) {
        fprintf(stderr, "the table must hold at least 50 cases, it holds %d\n", cases);
        return 1;
    }
    return check_report("test_spellings");
}
