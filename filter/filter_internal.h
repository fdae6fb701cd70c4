/* filter_internal.h — what the loaders, the rule store and the decision share. */
#ifndef INSTR_FILTER_INTERNAL_H
#define INSTR_FILTER_INTERNAL_H

#include "instr_filter.h"

#include <stdarg.h>
#include <stddef.h>

#include "rule_index.h"

struct instr_filter {
    instr_rule *rules;
    size_t rule_count, rule_capacity;
    char **strings; /* every string a rule points to; freed with the filter */
    size_t string_count, string_capacity;
    long min_instructions; /* < 0: not set */
    const char *min_origin;
    unsigned min_line;
    char **warnings; /* complete lines; freed with the filter */
    size_t warning_count, warning_capacity;
    rule_index files, functions; /* candidates by name, see rule_index.h */
};

/* Room for one more element in a growable array of `count` elements of `size` bytes: the
 * array itself when it has room, else a larger copy (capacity doubled, `first` at first) with
 * *capacity updated; NULL when out of memory, the array then unchanged. */
void *filter_grow(void *items, size_t count, size_t *capacity, size_t size, size_t first);

/* A copy of s[0..n) owned by the filter; NULL when out of memory. */
const char *filter_keep(instr_filter *f, const char *s, size_t n);
/* 0, or -1 when out of memory. Strings must already be owned by the filter. */
int filter_add_rule(instr_filter *f, int include, instr_rule_target target,
                    const char *pattern, const char *c_name_pattern, const char *origin,
                    unsigned line, unsigned column);
/* The rule filter_add_rule added last (to set the fields it has no parameter for). */
instr_rule *filter_last_rule(instr_filter *f);

void filter_error(instr_filter_error *err, const char *origin, unsigned line, unsigned column,
                  const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void filter_error_oom(instr_filter_error *err, const char *origin);
/* Empties err before a spec is read. */
void filter_error_reset(instr_filter_error *err);
/* 1 when enough errors were listed that reading on is pointless. */
int filter_error_full(const instr_filter_error *err);
/* Appends a warning "origin:line:column: warning: ..." to the filter; 0, or -1 when out of
 * memory. */
int filter_warning(instr_filter *f, const char *origin, unsigned line, unsigned column,
                   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* The decision by trying every rule in order: the reference the index is tested against. */
instr_decision filter_decide_naive(const instr_filter *f, const instr_function_facts *facts);

/* Validates a pattern found at (line, column); fills err and returns -1 when malformed. */
int filter_check_pattern(const char *pattern, const char *origin, unsigned line,
                         unsigned column, instr_filter_error *err);

/* Where the parameter list of a demangled signature starts (its '('), or the length when it
 * has none; *name_begin is where the qualified name starts (after a return type). */
size_t signature_split(const char *sig, size_t len, size_t *name_begin);

/* Length of the operator symbol at s (just after "operator"): "()", "[]" or a run of
 * operator characters; 0 for named operators (new, delete, conversions). */
size_t signature_operator_symbol(const char *s, size_t avail);
int signature_is_ident(char c);

/* One loader per spelling. origin is owned by the filter. On error they may leave rules
 * behind; the caller rolls back. */
int parse_native(instr_filter *f, const char *origin, const char *data, size_t size,
                 instr_filter_error *err);
int parse_scorep(instr_filter *f, const char *origin, const char *data, size_t size,
                 instr_filter_error *err);
int parse_tau(instr_filter *f, const char *origin, const char *data, size_t size,
              instr_filter_error *err);
int parse_yaml(instr_filter *f, const char *origin, const char *data, size_t size,
               instr_filter_error *err);

#endif
