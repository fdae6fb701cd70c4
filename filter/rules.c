/* rules.c — the rule store: ordered rules, the strings they own, the size threshold,
 * and the error record every loader fills. */
#include "filter_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

instr_filter *instr_filter_new(void)
{
    instr_filter *f = calloc(1, sizeof *f);
    if (f)
        f->min_instructions = -1;
    return f;
}

void instr_filter_free(instr_filter *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->string_count; i++)
        free(f->strings[i]);
    free(f->strings);
    free(f->rules);
    free(f);
}

const char *filter_keep(instr_filter *f, const char *s, size_t n)
{
    if (f->string_count == f->string_capacity) {
        size_t cap = f->string_capacity ? 2 * f->string_capacity : 32;
        char **grown = realloc(f->strings, cap * sizeof *grown);
        if (!grown)
            return NULL;
        f->strings = grown;
        f->string_capacity = cap;
    }
    char *copy = malloc(n + 1);
    if (!copy)
        return NULL;
    memcpy(copy, s, n);
    copy[n] = '\0';
    f->strings[f->string_count++] = copy;
    return copy;
}

int filter_add_rule(instr_filter *f, int include, instr_rule_target target,
                    const char *pattern, const char *c_name_pattern, const char *origin,
                    unsigned line, unsigned column)
{
    if (f->rule_count == f->rule_capacity) {
        size_t cap = f->rule_capacity ? 2 * f->rule_capacity : 16;
        instr_rule *grown = realloc(f->rules, cap * sizeof *grown);
        if (!grown)
            return -1;
        f->rules = grown;
        f->rule_capacity = cap;
    }
    f->rules[f->rule_count++] = (instr_rule){
        .include = include ? 1 : 0,
        .target = target,
        .pattern = pattern,
        .c_name_pattern = c_name_pattern,
        .origin = origin,
        .line = line,
        .column = column,
    };
    return 0;
}

size_t instr_filter_rule_count(const instr_filter *f)
{
    return f->rule_count;
}

const instr_rule *instr_filter_rule(const instr_filter *f, size_t index)
{
    return index < f->rule_count ? &f->rules[index] : NULL;
}

long instr_filter_min_instructions(const instr_filter *f, const char **origin, unsigned *line)
{
    if (origin)
        *origin = f->min_origin;
    if (line)
        *line = f->min_line;
    return f->min_instructions;
}

int instr_filter_is_empty(const instr_filter *f)
{
    return f->rule_count == 0 && f->min_instructions < 0;
}

void filter_error(instr_filter_error *err, const char *origin, unsigned line, unsigned column,
                  const char *fmt, ...)
{
    if (!err)
        return;
    err->origin = origin;
    err->line = line;
    err->column = column;
    /* line 0: the whole file is at fault (unreadable, out of memory) */
    int n = line ? snprintf(err->message, sizeof err->message, "%s:%u:%u: error: ", origin,
                            line, column)
                 : snprintf(err->message, sizeof err->message, "%s: error: ", origin);
    if (n < 0 || (size_t)n >= sizeof err->message)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message + n, sizeof err->message - (size_t)n, fmt, ap);
    va_end(ap);
}

void filter_error_oom(instr_filter_error *err, const char *origin)
{
    filter_error(err, origin, 0, 0, "out of memory while reading the spec");
}

int filter_check_pattern(const char *pattern, const char *origin, unsigned line,
                         unsigned column, instr_filter_error *err)
{
    const char *what = NULL;
    long at = instr_glob_check(pattern, &what);
    if (at < 0)
        return 0;
    filter_error(err, origin, line, column + (unsigned)at, "%s (in pattern '%s')", what,
                 pattern);
    return -1;
}

static const char *target_word(instr_rule_target t)
{
    switch (t) {
    case INSTR_TARGET_FILE: return "file";
    case INSTR_TARGET_FUNCTION: return "function";
    case INSTR_TARGET_MANGLED: return "mangled";
    }
    return "?";
}

/* A pattern with blanks or '#' is written in quotes, so that it reads back unchanged. One
 * that also holds a '"' cannot be quoted: its specials get '\' escapes instead, which read
 * back as a different string that fnmatch treats the same. */
static const char *special(const char *p)
{
    for (; *p; p++)
        if (*p == ' ' || *p == '\t' || *p == '#' || *p == '"')
            return p;
    return NULL;
}

size_t instr_rule_format(const instr_rule *rule, char *buf, size_t size)
{
    const char *verdict = rule->include ? "include" : "exclude";
    const char *target = target_word(rule->target);
    int n;
    if (!special(rule->pattern))
        n = snprintf(buf, size, "%s %s %s", verdict, target, rule->pattern);
    else if (!strchr(rule->pattern, '"'))
        n = snprintf(buf, size, "%s %s \"%s\"", verdict, target, rule->pattern);
    else {
        n = snprintf(buf, size, "%s %s ", verdict, target);
        int escaped = 0; /* the pattern's own escapes are kept as they are */
        for (const char *p = rule->pattern; n >= 0 && *p; p++) {
            int escape = !escaped && (*p == ' ' || *p == '\t' || *p == '#' || *p == '"');
            escaped = !escaped && *p == '\\';
            if (escape && (size_t)n + 1 < size)
                buf[n] = '\\';
            n += escape;
            if ((size_t)n + 1 < size) {
                buf[n] = *p;
                buf[n + 1] = '\0';
            }
            n++;
        }
    }
    return n < 0 ? 0 : (size_t)n;
}
