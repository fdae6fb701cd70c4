/* parse_native.c — the native .spec spelling:
 *     include|exclude  file|function|mangled  PATTERN...
 *     min-instructions N
 * One statement per line, '#' comments, '\' escapes, "quoted" patterns. */
#include "filter_internal.h"
#include "spec_text.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Parses a non-negative decimal count; -1 on anything else. */
static long parse_count(const spec_token *tok)
{
    if (tok->len == 0 || tok->len > 18)
        return -1;
    long v = 0;
    for (size_t i = 0; i < tok->len; i++) {
        if (tok->text[i] < '0' || tok->text[i] > '9')
            return -1;
        v = v * 10 + (tok->text[i] - '0');
    }
    return v;
}

static int parse_min_instructions(instr_filter *f, const char *origin, const spec_line *line,
                                  size_t pos, const spec_token *keyword,
                                  instr_filter_error *err)
{
    spec_token num, extra;
    int got = spec_next_token(line, &pos, 0, &num, origin, err);
    if (got < 0)
        return -1;
    if (got == 0) {
        filter_error(err, origin, line->number, keyword->column + (unsigned)keyword->len + 1,
                     "min-instructions needs a number, e.g. 'min-instructions 50'");
        return -1;
    }
    long v = parse_count(&num);
    if (v < 0) {
        filter_error(err, origin, line->number, num.column,
                     "bad number '%.*s' for min-instructions; expected a whole number >= 0",
                     (int)num.len, num.text);
        return -1;
    }
    got = spec_next_token(line, &pos, 0, &extra, origin, err);
    if (got != 0) {
        if (got > 0)
            filter_error(err, origin, line->number, extra.column,
                         "unexpected '%.*s' after min-instructions %ld", (int)extra.len,
                         extra.text, v);
        return -1;
    }
    f->min_instructions = v;
    f->min_origin = origin;
    f->min_line = line->number;
    return 0;
}

static int parse_statement(instr_filter *f, const char *origin, const spec_line *line,
                           instr_filter_error *err)
{
    size_t pos = 0;
    spec_token kw, target_tok, pat;
    int got = spec_next_token(line, &pos, 0, &kw, origin, err);
    if (got <= 0)
        return got; /* blank or comment line, or a malformed token */

    if (spec_token_is(&kw, "min-instructions"))
        return parse_min_instructions(f, origin, line, pos, &kw, err);

    int include;
    if (spec_token_is(&kw, "include"))
        include = 1;
    else if (spec_token_is(&kw, "exclude"))
        include = 0;
    else {
        filter_error(err, origin, line->number, kw.column,
                     "unknown keyword '%.*s'; expected include, exclude or min-instructions",
                     (int)kw.len, kw.text);
        return -1;
    }

    got = spec_next_token(line, &pos, 0, &target_tok, origin, err);
    if (got < 0)
        return -1;
    if (got == 0) {
        filter_error(err, origin, line->number, kw.column + (unsigned)kw.len + 1,
                     "'%.*s' needs what to match: file, function or mangled, then a pattern",
                     (int)kw.len, kw.text);
        return -1;
    }
    instr_rule_target target;
    if (spec_token_is(&target_tok, "file"))
        target = INSTR_TARGET_FILE;
    else if (spec_token_is(&target_tok, "function"))
        target = INSTR_TARGET_FUNCTION;
    else if (spec_token_is(&target_tok, "mangled"))
        target = INSTR_TARGET_MANGLED;
    else {
        filter_error(err, origin, line->number, target_tok.column,
                     "unknown rule target '%.*s'; expected file, function or mangled",
                     (int)target_tok.len, target_tok.text);
        return -1;
    }

    int patterns = 0;
    while ((got = spec_next_token(line, &pos, 1, &pat, origin, err)) > 0) {
        const char *p = filter_keep(f, pat.text, pat.len);
        if (!p) {
            filter_error_oom(err, origin);
            return -1;
        }
        if (filter_check_pattern(p, origin, line->number, pat.column, err) != 0)
            return -1;
        if (filter_add_rule(f, include, target, p, NULL, origin, line->number, pat.column)) {
            filter_error_oom(err, origin);
            return -1;
        }
        patterns++;
    }
    if (got < 0)
        return -1;
    if (patterns == 0) {
        filter_error(err, origin, line->number,
                     target_tok.column + (unsigned)target_tok.len + 1,
                     "missing pattern after '%.*s %.*s'", (int)kw.len, kw.text,
                     (int)target_tok.len, target_tok.text);
        return -1;
    }
    return 0;
}

int parse_native(instr_filter *f, const char *origin, const char *data, size_t size,
                 instr_filter_error *err)
{
    spec_reader r;
    spec_line line;
    spec_reader_init(&r, data, size);
    int rc = 0;
    /* a bad line is reported and reading goes on, so that one run lists every mistake */
    while (!filter_error_full(err) && spec_next_line(&r, &line))
        if (parse_statement(f, origin, &line, err) < 0)
            rc = -1;
    return rc;
}
