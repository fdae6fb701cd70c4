/* rule_index.h — which rules can match a name, without trying every rule.
 *
 * A glob can only match a text that starts with the glob's literal prefix (what comes before
 * its first '*', '?', '[' or '\') and ends with its literal suffix. Each rule is filed under
 * its whole pattern when it has no wildcard, else under its literal prefix, else under its
 * literal suffix, else under the longest literal run inside it ("* /generated/ *" without
 * the blanks: the text must contain "/generated/"), else in a short list of rules that must
 * always be tried ("*", "*[ab]*"). A lookup hashes
 * the text once per prefix/suffix length in use and tries only the rules filed there, newest
 * first, so the cost follows the number of rules that could match, not the number loaded.
 * Keys are hashes: a collision only adds a candidate, which the exact match then refuses. */
#ifndef INSTR_RULE_INDEX_H
#define INSTR_RULE_INDEX_H

#include "instr_filter.h"

#include <stddef.h>
#include <stdint.h>

typedef struct rule_posting {
    uint64_t key;
    uint32_t rule; /* index into the filter's rules */
    uint32_t next; /* next posting in the same bucket; UINT32_MAX ends */
} rule_posting;

typedef struct rule_index {
    rule_posting *postings;
    size_t posting_count, posting_capacity;
    uint32_t *heads; /* bucket -> newest posting; UINT32_MAX empty */
    size_t bucket_count; /* a power of two, 0 before the first posting */
    uint32_t *always;    /* rules with neither literal prefix nor suffix, oldest first */
    size_t always_count, always_capacity;
    /* bit L-1: some key has a literal of L bytes */
    uint64_t prefix_lengths, suffix_lengths, infix_lengths;
    int has_exact;
} rule_index;

void rule_index_free(rule_index *ix);
/* Files rule number `rule` under pattern (a rule may be filed under several patterns).
 * 0, or -1 when out of memory (the index then still holds what it held). */
int rule_index_add(rule_index *ix, const char *pattern, uint32_t rule);
/* Forgets every rule numbered >= count (a spec that failed to load). */
void rule_index_truncate(rule_index *ix, size_t count);

/* Asked for each candidate: 1 if rule number `rule` matches. */
typedef int (*rule_index_test)(const void *ctx, uint32_t rule);

/* The highest-numbered rule that is a candidate for one of the texts and passes test, if it
 * is higher than best; else best. texts[i] may be NULL. */
long rule_index_best(const rule_index *ix, const char *const *texts, size_t text_count,
                     rule_index_test test, const void *ctx, long best);

#endif
