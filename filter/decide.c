/* decide.c — docs/architecture.md, "Selection rules", rules 2 to 6: built-ins, then file
 * rules (an excluded file stays excluded), then function and mangled rules (last match
 * wins), then the size threshold with its two exemptions. The decision names what decided it. */
#include "filter_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int nonempty(const char *s)
{
    return s != NULL && s[0] != '\0';
}

static int matches_any(const char *const *patterns, const char *text)
{
    for (; *patterns; patterns++)
        if (instr_glob_match(*patterns, text))
            return 1;
    return 0;
}

static int is_outlined(const instr_function_facts *facts)
{
    const char *texts[2] = {facts->mangled, facts->signature};
    for (size_t i = 0; i < 2; i++)
        if (nonempty(texts[i]) &&
            matches_any(instr_builtin_name_patterns(INSTR_BUILTIN_OUTLINED), texts[i]))
            return 1;
    return 0;
}

static instr_builtin builtin_of(const instr_function_facts *facts)
{
    /* gcc marks its outlined bodies artificial: they are `outlined` all the same. */
    unsigned artificial = INSTR_BUILTIN_FLAG(INSTR_BUILTIN_ARTIFICIAL);
    if ((facts->builtin_flags & ~artificial) == 0 && is_outlined(facts))
        return INSTR_BUILTIN_OUTLINED;
    for (int b = INSTR_BUILTIN_NONE + 1; b < INSTR_BUILTIN_COUNT; b++)
        if (facts->builtin_flags & INSTR_BUILTIN_FLAG(b))
            return (instr_builtin)b;
    /* name-based: the linkage name where there is one (thunks and initialisers are only
     * recognisable there), and the plain name for what the runtime exports */
    const char *texts[2] = {facts->mangled, facts->signature};
    static const instr_builtin by_name[] = {INSTR_BUILTIN_RUNTIME, INSTR_BUILTIN_ARTIFICIAL};
    for (size_t k = 0; k < sizeof by_name / sizeof by_name[0]; k++)
        for (size_t i = 0; i < 2; i++)
            if (nonempty(texts[i]) &&
                matches_any(instr_builtin_name_patterns(by_name[k]), texts[i]))
                return by_name[k];
    return INSTR_BUILTIN_NONE;
}

/* The text a function rule can match: the full signature, the signature without a
 * template function's return type, and the qualified name. */
typedef struct names {
    const char *signature, *unreturned, *name;
    const char *tool_alt; /* see tool_alternative; NULL when there is none */
    int has_params;
} names;

static int file_rule_matches(const instr_rule *r, const instr_function_facts *facts)
{
    /* an unknown file matches no file rule, not even "*"; a file reached through a
     * symbolic link matches by either path, as Score-P resolves links */
    return (nonempty(facts->file) && instr_glob_match(r->pattern, facts->file)) ||
           (nonempty(facts->resolved_file) && instr_glob_match(r->pattern, facts->resolved_file));
}

static int function_rule_matches(const instr_rule *r, const instr_function_facts *facts,
                                 const names *n)
{
    if (r->target == INSTR_TARGET_MANGLED)
        return nonempty(facts->mangled) && instr_glob_match(r->pattern, facts->mangled);
    if (r->tool_spelling && ((nonempty(facts->tool_name) &&
                              instr_glob_match(r->pattern, facts->tool_name)) ||
                             (n->tool_alt && instr_glob_match(r->pattern, n->tool_alt))))
        return 1;
    if (!n->has_params && r->c_name_pattern)
        return instr_glob_match(r->c_name_pattern, n->name);
    if (nonempty(n->signature) && (instr_glob_match(r->pattern, n->signature) ||
                                   (n->unreturned != n->signature &&
                                    instr_glob_match(r->pattern, n->unreturned))))
        return 1;
    return nonempty(n->name) && instr_glob_match(r->pattern, n->name);
}

typedef struct match_ctx {
    const instr_filter *f;
    const instr_function_facts *facts;
    const names *n;
} match_ctx;

static int test_file_rule(const void *ctx, uint32_t rule)
{
    const match_ctx *m = ctx;
    return file_rule_matches(&m->f->rules[rule], m->facts);
}

static int test_function_rule(const void *ctx, uint32_t rule)
{
    const match_ctx *m = ctx;
    return function_rule_matches(&m->f->rules[rule], m->facts, m->n);
}

/* The deciding file and function rules (last match in order), by every rule in turn. */
static void last_matches_naive(const instr_filter *f, const instr_function_facts *facts,
                               const names *n, const instr_rule **file_rule,
                               const instr_rule **function_rule)
{
    for (size_t i = 0; i < f->rule_count; i++) {
        const instr_rule *r = &f->rules[i];
        if (r->target == INSTR_TARGET_FILE) {
            if (file_rule_matches(r, facts))
                *file_rule = r;
        } else if (function_rule_matches(r, facts, n)) {
            *function_rule = r;
        }
    }
}

/* The same, trying only the index's candidates. */
static void last_matches_indexed(const instr_filter *f, const instr_function_facts *facts,
                                 const names *n, const instr_rule **file_rule,
                                 const instr_rule **function_rule)
{
    match_ctx m = {f, facts, n};
    const char *files[2] = {nonempty(facts->file) ? facts->file : NULL,
                            nonempty(facts->resolved_file) ? facts->resolved_file : NULL};
    long best = rule_index_best(&f->files, files, 2, test_file_rule, &m, -1);
    if (best >= 0)
        *file_rule = &f->rules[best];
    const char *texts[6] = {n->tool_alt, nonempty(n->signature) ? n->signature : NULL,
                            n->unreturned != n->signature ? n->unreturned : NULL,
                            nonempty(n->name) ? n->name : NULL,
                            nonempty(facts->mangled) ? facts->mangled : NULL,
                            nonempty(facts->tool_name) ? facts->tool_name : NULL};
    best = rule_index_best(&f->functions, texts, 6, test_function_rule, &m, -1);
    if (best >= 0)
        *function_rule = &f->rules[best];
}

static instr_decision decide_with_names(const instr_filter *f,
                                        const instr_function_facts *facts, const names *n,
                                        int naive)
{
    instr_decision d = {.include = 1, .reason = INSTR_REASON_DEFAULT};

    const instr_rule *file_rule = NULL, *function_rule = NULL;
    if (naive)
        last_matches_naive(f, facts, n, &file_rule, &function_rule);
    else
        last_matches_indexed(f, facts, n, &file_rule, &function_rule);

    /* An OpenMP outlined body is recorded only when the deciding function rule is an include
     * whose pattern names the outlining ("omp" in it, as in `include function
     * *.omp_outlined*`); `include function f` alone keeps meaning f's own body. */
    instr_builtin b = builtin_of(facts);
    int outlined_asked = b == INSTR_BUILTIN_OUTLINED && function_rule && function_rule->include &&
                         strstr(function_rule->pattern, "omp") != NULL;
    if (b != INSTR_BUILTIN_NONE && !outlined_asked) {
        d.include = 0;
        d.reason = INSTR_REASON_BUILTIN;
        d.builtin = b;
        return d;
    }

    if (file_rule && !file_rule->include) {
        d.include = 0;
        d.reason = INSTR_REASON_FILE_RULE;
        d.rule = file_rule;
        return d;
    }
    if (function_rule && !function_rule->include) {
        d.include = 0;
        d.reason = INSTR_REASON_FUNCTION_RULE;
        d.rule = function_rule;
        return d;
    }

    /* Naming a function in an include rule is a stronger statement than a size threshold;
     * "include function *" names nothing in particular. */
    int named = function_rule && strcmp(function_rule->pattern, "*") != 0;
    int is_main = facts->is_main || strcmp(n->name, "main") == 0;
    if (f->min_instructions >= 0 && facts->instructions >= 0 &&
        facts->instructions < f->min_instructions && !is_main && !named) {
        d.include = 0;
        d.reason = INSTR_REASON_MIN_INSTRUCTIONS;
        d.min_instructions = f->min_instructions;
        d.instructions = facts->instructions;
        d.min_origin = f->min_origin;
        d.min_line = f->min_line;
        return d;
    }

    if (function_rule) {
        d.reason = INSTR_REASON_FUNCTION_RULE;
        d.rule = function_rule;
    } else if (file_rule) {
        d.reason = INSTR_REASON_FILE_RULE;
        d.rule = file_rule;
    }
    return d;
}

/* GCC prints a template instance as "void foo(T) [with T = double]"; Score-P users also
 * write it with the arguments in place, "void foo<double>(double) [with T = double]": the
 * demangled signature with GCC's return type and its "[with ...]". malloc'ed, or NULL. */
static char *tool_alternative(const instr_function_facts *facts, const char *signature,
                              size_t signature_name_begin)
{
    if (!nonempty(facts->tool_name))
        return NULL;
    const char *with = strstr(facts->tool_name, " [with ");
    if (!with)
        return NULL;
    size_t ret_len = 0;
    if (signature_name_begin == 0) /* the signature has no return type: take GCC's */
        signature_split(facts->tool_name, (size_t)(with - facts->tool_name), &ret_len);
    size_t sig_len = strlen(signature), with_len = strlen(with);
    char *alt = malloc(ret_len + sig_len + with_len + 1);
    if (!alt)
        return NULL;
    memcpy(alt, facts->tool_name, ret_len);
    memcpy(alt + ret_len, signature, sig_len);
    memcpy(alt + ret_len + sig_len, with, with_len + 1);
    return alt;
}

static instr_decision decide(const instr_filter *f, const instr_function_facts *facts,
                             int naive)
{
    names n = {.signature = facts->signature ? facts->signature : "", .name = facts->name};
    size_t len = strlen(n.signature), begin;
    size_t params = signature_split(n.signature, len, &begin);
    n.unreturned = n.signature + begin;
    n.has_params = params < len;
    char *alt = tool_alternative(facts, n.signature, begin);
    n.tool_alt = alt;

    char local[512], *name = NULL;
    if (!n.name) {
        size_t name_len = params - begin;
        name = name_len < sizeof local ? local : malloc(name_len + 1);
        if (name) {
            memcpy(name, n.unreturned, name_len);
            name[name_len] = '\0';
            n.name = name;
        } else {
            n.name = n.signature; /* deciding by the signature alone beats failing */
        }
    }
    instr_decision d = decide_with_names(f, facts, &n, naive);
    if (name != local)
        free(name);
    free(alt);
    return d;
}

instr_decision instr_filter_decide(const instr_filter *f, const instr_function_facts *facts)
{
    return decide(f, facts, 0);
}

instr_decision filter_decide_naive(const instr_filter *f, const instr_function_facts *facts)
{
    return decide(f, facts, 1);
}

const char *instr_reason_category(const instr_decision *d)
{
    switch (d->reason) {
    case INSTR_REASON_DEFAULT: return "default";
    case INSTR_REASON_FILE_RULE: return "file";
    case INSTR_REASON_FUNCTION_RULE: return "name";
    case INSTR_REASON_MIN_INSTRUCTIONS: return "size";
    case INSTR_REASON_BUILTIN: return "built-in";
    }
    return "?";
}

size_t instr_decision_format(const instr_decision *d, char *buf, size_t size)
{
    const char *verdict = d->include ? "include" : "exclude";
    char rule[1024];
    int n;
    switch (d->reason) {
    case INSTR_REASON_FILE_RULE:
    case INSTR_REASON_FUNCTION_RULE:
        /* the deciding rule begins with the verdict itself */
        instr_rule_format(d->rule, rule, sizeof rule);
        n = snprintf(buf, size, "%s (%s:%u:%u)", rule, d->rule->origin, d->rule->line,
                     d->rule->column);
        break;
    case INSTR_REASON_MIN_INSTRUCTIONS:
        n = snprintf(buf, size, "%s min-instructions %ld (%s:%u): %ld instructions", verdict,
                     d->min_instructions, d->min_origin ? d->min_origin : "?", d->min_line,
                     d->instructions);
        break;
    case INSTR_REASON_BUILTIN:
        n = snprintf(buf, size, "%s built-in %s (%s)", verdict, instr_builtin_name(d->builtin),
                     instr_builtin_description(d->builtin));
        break;
    case INSTR_REASON_DEFAULT:
    default:
        n = snprintf(buf, size, "%s default (no rule matched)", verdict);
        break;
    }
    return n < 0 ? 0 : (size_t)n;
}
