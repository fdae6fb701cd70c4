/* check.h — the assertions of the filter unit tests: each failure prints where and what,
 * and the test exits non-zero when any failed. */
#ifndef INSTR_TEST_CHECK_H
#define INSTR_TEST_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failures, check_count;

#define CHECK(cond)                                                                     \
    do {                                                                                \
        check_count++;                                                                  \
        if (!(cond)) {                                                                  \
            check_failures++;                                                           \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);    \
        }                                                                               \
    } while (0)

#define CHECK_STR(got, want)                                                            \
    do {                                                                                \
        const char *g_ = (got), *w_ = (want);                                           \
        check_count++;                                                                  \
        if (!g_ || strcmp(g_, w_) != 0) {                                               \
            check_failures++;                                                           \
            fprintf(stderr, "%s:%d: got \"%s\", want \"%s\"\n", __FILE__, __LINE__,     \
                    g_ ? g_ : "(null)", w_);                                            \
        }                                                                               \
    } while (0)

#define CHECK_PREFIX(got, want)                                                         \
    do {                                                                                \
        const char *g_ = (got), *w_ = (want);                                           \
        check_count++;                                                                  \
        if (!g_ || strncmp(g_, w_, strlen(w_)) != 0) {                                  \
            check_failures++;                                                           \
            fprintf(stderr, "%s:%d: got \"%s\", want a string starting \"%s\"\n",       \
                    __FILE__, __LINE__, g_ ? g_ : "(null)", w_);                        \
        }                                                                               \
    } while (0)

static int check_report(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
    return check_failures ? 1 : 0;
}

/* A test program of named groups: runs the group called `only` (every group when NULL) and
reports; 2 when no group has that name. */
typedef struct check_group {
    const char *name;
    void (*run)(void);
} check_group;

static inline int check_run_groups(const char *program, const check_group *groups,
                                   size_t count, const char *only)
{
    int ran = 0;
    for (size_t i = 0; i < count; i++)
        if (!only || strcmp(only, groups[i].name) == 0) {
            groups[i].run();
            ran++;
        }
    if (!ran) {
        fprintf(stderr, "%s: no group '%s'\n", program, only);
        return 2;
    }
    return check_report(only ? only : program);
}

#endif
