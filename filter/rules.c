/* rules.c — the rule store: ordered rules, the strings they own, the size threshold,
 * and the error record every loader fills. */
#define _GNU_SOURCE /* strdup */
#include "filter_internal.h"

#include <stdint.h>
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
    for (size_t i = 0; i < f->warning_count; i++)
        free(f->warnings[i]);
    free(f->warnings);
    rule_index_free(&f->files);
    rule_index_free(&f->functions);
    free(f);
}

void *filter_grow(void *items, size_t count, size_t *capacity, size_t size, size_t first)
{
    if (count < *capacity)
        return items;
    size_t cap = *capacity ? 2 * *capacity : first;
    void *grown = realloc(items, cap * size);
    if (grown)
        *capacity = cap;
    return grown;
}

const char *filter_keep(instr_filter *f, const char *s, size_t n)
{
    char **strings = filter_grow(f->strings, f->string_count, &f->string_capacity,
                                 sizeof *strings, 32);
    if (!strings)
        return NULL;
    f->strings = strings;
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
    instr_rule *rules = filter_grow(f->rules, f->rule_count, &f->rule_capacity, sizeof *rules,
                                    16);
    if (!rules)
        return -1;
    f->rules = rules;
    uint32_t number = (uint32_t)f->rule_count;
    rule_index *ix = target == INSTR_TARGET_FILE ? &f->files : &f->functions;
    if (rule_index_add(ix, pattern, number) != 0 ||
        (c_name_pattern && rule_index_add(ix, c_name_pattern, number) != 0)) {
        rule_index_truncate(ix, number);
        return -1;
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

instr_rule *filter_last_rule(instr_filter *f)
{
    return f->rule_count ? &f->rules[f->rule_count - 1] : NULL;
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

void filter_error_reset(instr_filter_error *err)
{
    err->origin = NULL;
    err->line = err->column = 0;
    err->count = 0;
    err->message[0] = '\0';
}

int filter_error_full(const instr_filter_error *err)
{
    return err && err->count >= INSTR_FILTER_MAX_ERRORS;
}

/* Appends to the message; what does not fit is cut, never what came before. */
static void vappend(instr_filter_error *err, const char *fmt, va_list ap)
{
    size_t used = strlen(err->message);
    if (used + 1 < sizeof err->message)
        vsnprintf(err->message + used, sizeof err->message - used, fmt, ap);
}

static void append(instr_filter_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void append(instr_filter_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vappend(err, fmt, ap);
    va_end(ap);
}

void filter_error(instr_filter_error *err, const char *origin, unsigned line, unsigned column,
                  const char *fmt, ...)
{
    if (!err)
        return;
    if (err->count++ == 0) {
        err->origin = origin;
        err->line = line;
        err->column = column;
    } else if (err->count > INSTR_FILTER_MAX_ERRORS) {
        return; /* counted; the loader adds a line saying how many more */
    } else {
        append(err, "\n");
    }
    /* line 0: the whole file is at fault (unreadable, out of memory) */
    if (line)
        append(err, "%s:%u:%u: error: ", origin, line, column);
    else
        append(err, "%s: error: ", origin);
    va_list ap;
    va_start(ap, fmt);
    vappend(err, fmt, ap);
    va_end(ap);
}

void filter_error_oom(instr_filter_error *err, const char *origin)
{
    filter_error(err, origin, 0, 0, "out of memory while reading the spec");
}

size_t instr_filter_error_plain(const instr_filter_error *err, char *buf, size_t size)
{
    static const char word[] = " error: ";
    size_t out = 0;
    const char *line = err->message;
    while (*line) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) + 1 : strlen(line);
        /* the first ": error: " of a line follows its location */
        const char *w = NULL;
        for (const char *p = line; p + sizeof word - 1 <= line + len; p++)
            if (p > line && p[-1] == ':' && memcmp(p, word, sizeof word - 1) == 0) {
                w = p;
                break;
            }
        for (const char *p = line; p < line + len; p++) {
            if (w && p == w + 1)
                p += sizeof word - 2; /* keep the blank after the ':' */
            if (out + 1 < size)
                buf[out] = *p;
            out++;
        }
        line += len;
    }
    if (size)
        buf[out < size ? out : size - 1] = '\0';
    return out;
}

int filter_warning(instr_filter *f, const char *origin, unsigned line, unsigned column,
                   const char *fmt, ...)
{
    char text[1024];
    int n = snprintf(text, sizeof text, "%s:%u:%u: warning: ", origin, line, column);
    if (n < 0 || (size_t)n >= sizeof text)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text + n, sizeof text - (size_t)n, fmt, ap);
    va_end(ap);
    char **warnings = filter_grow(f->warnings, f->warning_count, &f->warning_capacity,
                                  sizeof *warnings, 4);
    if (!warnings)
        return -1;
    f->warnings = warnings;
    char *copy = strdup(text);
    if (!copy)
        return -1;
    f->warnings[f->warning_count++] = copy;
    return 0;
}

size_t instr_filter_warning_count(const instr_filter *f)
{
    return f->warning_count;
}

const char *instr_filter_warning(const instr_filter *f, size_t index)
{
    return index < f->warning_count ? f->warnings[index] : NULL;
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
