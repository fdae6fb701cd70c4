/* rule_index.c — see rule_index.h. */
#include "rule_index.h"

#include "filter_internal.h"

#include <stdlib.h>
#include <string.h>

enum { KIND_EXACT = 1, KIND_PREFIX = 2, KIND_SUFFIX = 3, KIND_INFIX = 4 };
enum { MAX_LITERAL = 64 }; /* longer literals are filed under their first/last 64 bytes */

#define NONE UINT32_MAX

static uint64_t fnv_step(uint64_t h, unsigned char c)
{
    return (h ^ c) * 1099511628211ULL;
}

static const uint64_t fnv_basis = 14695981039346656037ULL;

/* The key of kind and literal length, from the literal's FNV hash. */
static uint64_t key_of(uint64_t hash, int kind, size_t length)
{
    uint64_t k = hash ^ ((uint64_t)kind << 56) ^ ((uint64_t)length * 0x9E3779B97F4A7C15ULL);
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return k;
}

static int is_special(char c)
{
    return c == '*' || c == '?' || c == '[' || c == '\\';
}

static int grow_heads(rule_index *ix)
{
    size_t count = ix->bucket_count ? 2 * ix->bucket_count : 64;
    uint32_t *heads = malloc(count * sizeof *heads);
    if (!heads)
        return -1;
    for (size_t i = 0; i < count; i++)
        heads[i] = NONE;
    /* re-chain oldest first, so that each bucket lists the newest posting first */
    for (size_t p = 0; p < ix->posting_count; p++) {
        size_t b = (size_t)(ix->postings[p].key & (count - 1));
        ix->postings[p].next = heads[b];
        heads[b] = (uint32_t)p;
    }
    free(ix->heads);
    ix->heads = heads;
    ix->bucket_count = count;
    return 0;
}

static int add_posting(rule_index *ix, uint64_t key, uint32_t rule)
{
    rule_posting *postings = filter_grow(ix->postings, ix->posting_count,
                                         &ix->posting_capacity, sizeof *postings, 64);
    if (!postings)
        return -1;
    ix->postings = postings;
    if (ix->posting_count + 1 > ix->bucket_count / 2 && grow_heads(ix) != 0)
        return -1;
    size_t b = (size_t)(key & (ix->bucket_count - 1));
    ix->postings[ix->posting_count] = (rule_posting){key, rule, ix->heads[b]};
    ix->heads[b] = (uint32_t)ix->posting_count++;
    return 0;
}

int rule_index_add(rule_index *ix, const char *pattern, uint32_t rule)
{
    size_t len = strlen(pattern), prefix = 0, suffix_begin = len;
    while (prefix < len && !is_special(pattern[prefix]))
        prefix++;
    if (prefix == len) {
        uint64_t h = fnv_basis;
        for (size_t i = 0; i < len; i++)
            h = fnv_step(h, (unsigned char)pattern[i]);
        ix->has_exact = 1;
        return add_posting(ix, key_of(h, KIND_EXACT, len), rule);
    }
    if (prefix > 0) {
        size_t n = prefix < MAX_LITERAL ? prefix : MAX_LITERAL;
        uint64_t h = fnv_basis;
        for (size_t i = 0; i < n; i++)
            h = fnv_step(h, (unsigned char)pattern[i]);
        if (add_posting(ix, key_of(h, KIND_PREFIX, n), rule) != 0)
            return -1;
        ix->prefix_lengths |= 1ULL << (n - 1);
        return 0;
    }
    /* the suffix follows the last character that is not literal; a ']' may close a
     * bracket expression, so it counts as not literal too */
    while (suffix_begin > 0 && !is_special(pattern[suffix_begin - 1]) &&
           pattern[suffix_begin - 1] != ']')
        suffix_begin--;
    size_t suffix = len - suffix_begin;
    if (suffix > 0) {
        size_t n = suffix < MAX_LITERAL ? suffix : MAX_LITERAL;
        uint64_t h = fnv_basis;
        for (size_t i = 0; i < n; i++) /* hashed from the end backwards */
            h = fnv_step(h, (unsigned char)pattern[len - 1 - i]);
        if (add_posting(ix, key_of(h, KIND_SUFFIX, n), rule) != 0)
            return -1;
        ix->suffix_lengths |= 1ULL << (n - 1);
        return 0;
    }
    /* "*text*": the longest literal run before the first '[' or '\\' (after them, what is
     * literal needs the bracket grammar; leaving them out only costs candidates) */
    size_t run_begin = 0, run_len = 0;
    for (size_t i = 0; i < len && pattern[i] != '[' && pattern[i] != '\\';) {
        if (pattern[i] == '*' || pattern[i] == '?') {
            i++;
            continue;
        }
        size_t j = i;
        while (j < len && !is_special(pattern[j]))
            j++;
        if (j - i > run_len) {
            run_begin = i;
            run_len = j - i;
        }
        i = j;
    }
    if (run_len > 0) {
        size_t n = run_len < MAX_LITERAL ? run_len : MAX_LITERAL;
        uint64_t h = fnv_basis;
        for (size_t i = 0; i < n; i++)
            h = fnv_step(h, (unsigned char)pattern[run_begin + i]);
        if (add_posting(ix, key_of(h, KIND_INFIX, n), rule) != 0)
            return -1;
        ix->infix_lengths |= 1ULL << (n - 1);
        return 0;
    }
    uint32_t *always = filter_grow(ix->always, ix->always_count, &ix->always_capacity,
                                   sizeof *always, 16);
    if (!always)
        return -1;
    ix->always = always;
    ix->always[ix->always_count++] = rule;
    return 0;
}

void rule_index_truncate(rule_index *ix, size_t count)
{
    while (ix->always_count > 0 && ix->always[ix->always_count - 1] >= count)
        ix->always_count--;
    size_t kept = ix->posting_count;
    while (kept > 0 && ix->postings[kept - 1].rule >= count)
        kept--;
    if (kept == ix->posting_count)
        return;
    /* postings are added in rule order: the failed spec's are the last ones */
    ix->posting_count = kept;
    for (size_t b = 0; b < ix->bucket_count; b++)
        ix->heads[b] = NONE;
    for (size_t p = 0; p < ix->posting_count; p++) {
        size_t b = (size_t)(ix->postings[p].key & (ix->bucket_count - 1));
        ix->postings[p].next = ix->heads[b];
        ix->heads[b] = (uint32_t)p;
    }
}

void rule_index_free(rule_index *ix)
{
    free(ix->postings);
    free(ix->heads);
    free(ix->always);
    memset(ix, 0, sizeof *ix);
}

static long best_in_bucket(const rule_index *ix, uint64_t key, rule_index_test test,
                           const void *ctx, long best)
{
    for (uint32_t p = ix->heads[key & (ix->bucket_count - 1)]; p != NONE;
         p = ix->postings[p].next) {
        const rule_posting *q = &ix->postings[p];
        if (q->key == key && (long)q->rule > best && test(ctx, q->rule))
            best = (long)q->rule;
    }
    return best;
}

static long best_for_text(const rule_index *ix, const char *text, rule_index_test test,
                          const void *ctx, long best)
{
    size_t len = strlen(text);
    if (ix->has_exact) {
        uint64_t h = fnv_basis;
        for (size_t i = 0; i < len; i++)
            h = fnv_step(h, (unsigned char)text[i]);
        best = best_in_bucket(ix, key_of(h, KIND_EXACT, len), test, ctx, best);
    }
    size_t most = len < MAX_LITERAL ? len : MAX_LITERAL;
    if (ix->prefix_lengths) {
        uint64_t h = fnv_basis;
        for (size_t n = 1; n <= most; n++) {
            h = fnv_step(h, (unsigned char)text[n - 1]);
            if (ix->prefix_lengths & (1ULL << (n - 1)))
                best = best_in_bucket(ix, key_of(h, KIND_PREFIX, n), test, ctx, best);
        }
    }
    if (ix->suffix_lengths) {
        uint64_t h = fnv_basis;
        for (size_t n = 1; n <= most; n++) {
            h = fnv_step(h, (unsigned char)text[len - n]);
            if (ix->suffix_lengths & (1ULL << (n - 1)))
                best = best_in_bucket(ix, key_of(h, KIND_SUFFIX, n), test, ctx, best);
        }
    }
    if (ix->infix_lengths) {
        /* every run of the text up to MAX_LITERAL bytes, by the lengths in use */
        for (size_t start = 0; start < len; start++) {
            uint64_t h = fnv_basis;
            size_t room = len - start < MAX_LITERAL ? len - start : MAX_LITERAL;
            for (size_t n = 1; n <= room; n++) {
                h = fnv_step(h, (unsigned char)text[start + n - 1]);
                if (ix->infix_lengths & (1ULL << (n - 1)))
                    best = best_in_bucket(ix, key_of(h, KIND_INFIX, n), test, ctx, best);
                if (n >= MAX_LITERAL || !(ix->infix_lengths >> n))
                    break; /* no longer run is in use */
            }
        }
    }
    return best;
}

long rule_index_best(const rule_index *ix, const char *const *texts, size_t text_count,
                     rule_index_test test, const void *ctx, long best)
{
    /* newest first: the first that matches is the last in the spec's order */
    for (size_t i = ix->always_count; i-- > 0;) {
        if ((long)ix->always[i] <= best)
            break;
        if (test(ctx, ix->always[i])) {
            best = (long)ix->always[i];
            break;
        }
    }
    if (ix->bucket_count == 0)
        return best;
    for (size_t t = 0; t < text_count; t++)
        if (texts[t])
            best = best_for_text(ix, texts[t], test, ctx, best);
    return best;
}
