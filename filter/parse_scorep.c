/* parse_scorep.c — Score-P filter files, read unchanged with Score-P's meaning:
 *
 *   SCOREP_FILE_NAMES_BEGIN             SCOREP_REGION_NAMES_BEGIN
 *     EXCLUDE *.h                         EXCLUDE *
 *     INCLUDE *main.c                     INCLUDE main MANGLED _Z3barv DEMANGLED baz
 *   SCOREP_FILE_NAMES_END               SCOREP_REGION_NAMES_END
 *
 * Tokens are free-form across lines: a rule is INCLUDE or EXCLUDE followed by patterns up to
 * the next keyword. MANGLED / DEMANGLED switch how the following patterns of the same rule
 * match; each INCLUDE / EXCLUDE starts demangled again. '#' starts a comment, '\' escapes
 * blanks and '#'. */
#include "filter_internal.h"
#include "spec_text.h"

#include <stdlib.h>
#include <string.h>

enum block { OUTSIDE, FILES, REGIONS };

typedef struct scorep_state {
    enum block block;
    unsigned block_line, block_column;
    int have_rule, include, mangled, patterns;
    spec_token rule_tok;
    unsigned rule_line;
} scorep_state;

/* An INCLUDE / EXCLUDE without patterns of its own is accepted, as Score-P accepts it
 * ("EXCLUDE" on one line, "EXCLUDE MANGLED" and the patterns on the next): it selects
 * nothing. */
static int close_rule(scorep_state *s)
{
    s->have_rule = 0;
    return 0;
}

/* Score-P's matcher is glibc's fnmatch, which reads a '[' that no ']' closes as a literal
 * bracket (GCC's "[with T = double]" cut at its blanks gives "[with"), and Score-P keeps a
 * '\' at the end of a line as a literal backslash. The pattern is written so that it means
 * exactly that in instr's glob language, where both would be errors. */
static char *literal_brackets(const char *t, size_t n)
{
    char *out = malloc(2 * n + 2), *o = out;
    if (!out)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (t[i] == '\\') {
            *o++ = '\\';
            *o++ = i + 1 < n ? t[++i] : '\\';
            continue;
        }
        if (t[i] == '[') {
            char *rest = malloc(n - i + 1);
            if (!rest) {
                free(out);
                return NULL;
            }
            memcpy(rest, t + i, n - i);
            rest[n - i] = '\0';
            const char *what;
            long bad = instr_glob_check(rest, &what);
            int unterminated = bad == 0;
            free(rest);
            if (unterminated)
                *o++ = '\\';
        }
        *o++ = t[i];
    }
    *o = '\0';
    return out;
}

static int handle_token(instr_filter *f, scorep_state *s, const char *origin,
                        const spec_line *line, const spec_token *tok, instr_filter_error *err)
{
    if (s->block == OUTSIDE) {
        if (spec_token_is(tok, "SCOREP_FILE_NAMES_BEGIN"))
            s->block = FILES;
        else if (spec_token_is(tok, "SCOREP_REGION_NAMES_BEGIN"))
            s->block = REGIONS;
        else {
            filter_error(err, origin, line->number, tok->column,
                         "unexpected '%.*s' outside a block; expected SCOREP_REGION_NAMES_BEGIN "
                         "or SCOREP_FILE_NAMES_BEGIN",
                         (int)tok->len, tok->text);
            return -1;
        }
        s->block_line = line->number;
        s->block_column = tok->column;
        s->have_rule = 0;
        return 0;
    }

    const char *end = s->block == FILES ? "SCOREP_FILE_NAMES_END" : "SCOREP_REGION_NAMES_END";
    if (spec_token_is(tok, end)) {
        close_rule(s);
        s->block = OUTSIDE;
        return 0;
    }
    if (spec_token_is(tok, "SCOREP_FILE_NAMES_END") ||
        spec_token_is(tok, "SCOREP_REGION_NAMES_END") ||
        spec_token_is(tok, "SCOREP_FILE_NAMES_BEGIN") ||
        spec_token_is(tok, "SCOREP_REGION_NAMES_BEGIN")) {
        filter_error(err, origin, line->number, tok->column,
                     "'%.*s' inside the block opened at line %u; close it with %s first",
                     (int)tok->len, tok->text, s->block_line, end);
        return -1;
    }
    if (spec_token_is(tok, "INCLUDE") || spec_token_is(tok, "EXCLUDE")) {
        close_rule(s);
        s->have_rule = 1;
        s->include = tok->text[0] == 'I';
        s->mangled = 0;
        s->patterns = 0;
        s->rule_tok = *tok;
        s->rule_line = line->number;
        return 0;
    }
    if (spec_token_is(tok, "MANGLED") || spec_token_is(tok, "DEMANGLED")) {
        if (s->block == FILES) {
            filter_error(err, origin, line->number, tok->column,
                         "%.*s applies to region names only, not in SCOREP_FILE_NAMES blocks",
                         (int)tok->len, tok->text);
            return -1;
        }
        if (!s->have_rule) {
            filter_error(err, origin, line->number, tok->column,
                         "%.*s before INCLUDE or EXCLUDE", (int)tok->len, tok->text);
            return -1;
        }
        s->mangled = tok->text[0] == 'M';
        return 0;
    }
    if (!s->have_rule) {
        filter_error(err, origin, line->number, tok->column,
                     "pattern '%.*s' before INCLUDE or EXCLUDE; start the rule with one of them",
                     (int)tok->len, tok->text);
        return -1;
    }
    char *literal = literal_brackets(tok->text, tok->len);
    const char *p = literal ? filter_keep(f, literal, strlen(literal)) : NULL;
    free(literal);
    if (!p) {
        filter_error_oom(err, origin);
        return -1;
    }
    if (filter_check_pattern(p, origin, line->number, tok->column, err) != 0)
        return -1;
    instr_rule_target target = s->block == FILES ? INSTR_TARGET_FILE
                               : s->mangled      ? INSTR_TARGET_MANGLED
                                                 : INSTR_TARGET_FUNCTION;
    if (filter_add_rule(f, s->include, target, p, NULL, origin, line->number, tok->column)) {
        filter_error_oom(err, origin);
        return -1;
    }
    /* region rules also match the name as Score-P's GCC plugin prints it */
    filter_last_rule(f)->tool_spelling = target == INSTR_TARGET_FUNCTION;
    s->patterns++;
    return 0;
}

int parse_scorep(instr_filter *f, const char *origin, const char *data, size_t size,
                 instr_filter_error *err)
{
    scorep_state s;
    memset(&s, 0, sizeof s);
    spec_reader r;
    spec_line line;
    spec_reader_init(&r, data, size);
    int rc = 0;
    /* a bad token is reported and reading goes on with the next one */
    while (!filter_error_full(err) && spec_next_line(&r, &line)) {
        size_t pos = 0;
        spec_token tok;
        int got;
        while ((got = spec_next_scorep_token(&line, &pos, &tok)) > 0)
            if (handle_token(f, &s, origin, &line, &tok, err) != 0)
                rc = -1;
    }
    /* a block still open at the end of the file ends there, as in Score-P */
    return rc;
}
