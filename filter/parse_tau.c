/* parse_tau.c — TAU selective instrumentation files, read with TAU's documented meaning:
 *
 *   BEGIN_EXCLUDE_LIST / END_EXCLUDE_LIST            functions to leave out
 *   BEGIN_INCLUDE_LIST / END_INCLUDE_LIST            only these functions
 *   BEGIN_FILE_EXCLUDE_LIST / END_FILE_EXCLUDE_LIST  files to leave out
 *   BEGIN_FILE_INCLUDE_LIST / END_FILE_INCLUDE_LIST  only these files
 *
 * One entry per line, optionally in double quotes (TAU strips them; its documentation
 * quotes an entry that starts with the '#' wildcard). In function lists '#' matches any run
 * of characters and '?' one character ('*' is a pointer there, not a wildcard); entries are
 * TAU prototypes such as "void quicksort(int *, int, int)" or "int main(int, char **) C". In
 * file lists '*' and '?' are the wildcards. A line whose first character is '#' is a comment
 * everywhere, as in TAU's parser.
 *
 * Mapping onto the rule model, per file in this order: an include list with entries becomes
 * "exclude *" followed by one include per entry (an empty one restricts nothing, as in TAU);
 * then one exclude per exclude-list entry. Files first, as everywhere. TAU's loop lists and
 * instrument sections are skipped with a warning: instr selects whole functions only. */
#include "filter_internal.h"
#include "spec_text.h"

#include <stdlib.h>
#include <string.h>

enum list { NONE = -1, EXCLUDE_LIST, INCLUDE_LIST, FILE_EXCLUDE_LIST, FILE_INCLUDE_LIST, LISTS };

static const char *const list_names[LISTS] = {"EXCLUDE_LIST", "INCLUDE_LIST",
                                             "FILE_EXCLUDE_LIST", "FILE_INCLUDE_LIST"};

typedef struct tau_entry {
    spec_line text; /* trimmed */
    unsigned column;
} tau_entry;

typedef struct tau_list {
    tau_entry *entries;
    size_t count, capacity;
    int seen;
    unsigned line, column; /* of its BEGIN_ */
} tau_list;

/* growable character buffer for building patterns */
typedef struct buf {
    char *p;
    size_t len, cap;
    int oom;
} buf;

static void put(buf *b, char c)
{
    if (b->oom)
        return;
    if (b->len + 1 >= b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 64;
        char *g = realloc(b->p, cap);
        if (!g) {
            b->oom = 1;
            return;
        }
        b->p = g;
        b->cap = cap;
    }
    b->p[b->len++] = c;
    b->p[b->len] = '\0';
}

static enum list list_named(const char *s, size_t n, const char *prefix)
{
    size_t pl = strlen(prefix);
    if (n <= pl || memcmp(s, prefix, pl) != 0)
        return NONE;
    for (int i = 0; i < LISTS; i++)
        if (n - pl == strlen(list_names[i]) && memcmp(s + pl, list_names[i], n - pl) == 0)
            return (enum list)i;
    return NONE;
}

/* TAU writes "int *" and "f( int, double * )", demanglers write "int*" and
 * "f(int, double*)": a run of blanks is dropped after '(' and before '(' ')' ',' '*' '&',
 * else kept as one blank; a ',' is followed by one blank; TAU's trailing " C" language
 * marker is dropped. */
static void normalise_prototype(const spec_line *e, buf *out)
{
    size_t n = e->len;
    if (n >= 2 && e->text[n - 1] == 'C' && (e->text[n - 2] == ' ' || e->text[n - 2] == '\t')) {
        n -= 2;
        while (n > 0 && (e->text[n - 1] == ' ' || e->text[n - 1] == '\t'))
            n--;
    }
    for (size_t i = 0; i < n; i++) {
        char c = e->text[i];
        if (c == ' ' || c == '\t') {
            size_t j = i;
            while (j < n && (e->text[j] == ' ' || e->text[j] == '\t'))
                j++;
            char prev = out->len > 0 ? out->p[out->len - 1] : '(';
            char next = j < n ? e->text[j] : ')';
            if (prev != '(' && prev != ' ' && !strchr("()*&,", next))
                put(out, ' ');
            i = j - 1;
            continue;
        }
        put(out, c);
        if (c == ',')
            put(out, ' ');
    }
}

/* The entry without the double quotes around it. */
static spec_line unquoted(spec_line l, unsigned *column)
{
    if (l.len >= 2 && l.text[0] == '"' && l.text[l.len - 1] == '"') {
        l.text++;
        l.len -= 2;
        (*column)++;
    }
    return l;
}

/* TAU function-list text to an fnmatch pattern: '#' is the wildcard, '?' stays one,
 * everything fnmatch would read specially is escaped. */
static void function_glob(const char *s, size_t n, buf *out)
{
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '#')
            put(out, '*');
        else {
            if (c == '*' || c == '[' || c == ']' || c == '\\')
                put(out, '\\');
            put(out, c);
        }
    }
}

/* TAU file-list text to an fnmatch pattern. TAU names files as the compiler was given them,
 * we match absolute paths: a relative entry matches the end of the path, at a directory
 * boundary ("Main.cpp" and "./src/Main.cpp" -> "* /src/Main.cpp" without the blank; leading
 * "./" and "../" are dropped, since they say where the compiler ran, not where the file is). */
static void file_glob(const char *s, size_t n, buf *out)
{
    for (;;) {
        if (n >= 2 && s[0] == '.' && s[1] == '/') {
            s += 2;
            n -= 2;
        } else if (n >= 3 && s[0] == '.' && s[1] == '.' && s[2] == '/') {
            s += 3;
            n -= 3;
        } else {
            break;
        }
    }
    if (n > 0 && s[0] != '/' && s[0] != '*') {
        put(out, '*');
        put(out, '/');
    }
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '[' || s[i] == ']' || s[i] == '\\')
            put(out, '\\');
        put(out, s[i]);
    }
}

static int add(instr_filter *f, int include, instr_rule_target target, buf *pattern,
               buf *c_name, const char *origin, unsigned line, unsigned column,
               instr_filter_error *err)
{
    if (pattern->oom || (c_name && c_name->oom)) {
        filter_error_oom(err, origin);
        return -1;
    }
    const char *p = filter_keep(f, pattern->p, pattern->len);
    const char *c = c_name && c_name->len ? filter_keep(f, c_name->p, c_name->len) : NULL;
    if (!p || (c_name && c_name->len && !c) ||
        filter_add_rule(f, include, target, p, c, origin, line, column)) {
        filter_error_oom(err, origin);
        return -1;
    }
    return 0;
}

static int add_entry(instr_filter *f, enum list which, const tau_entry *e, const char *origin,
                     instr_filter_error *err)
{
    int include = which == INCLUDE_LIST || which == FILE_INCLUDE_LIST;
    buf pattern = {0}, c_name = {0}, proto = {0};
    int rc;
    if (which == FILE_INCLUDE_LIST || which == FILE_EXCLUDE_LIST) {
        file_glob(e->text.text, e->text.len, &pattern);
        rc = add(f, include, INSTR_TARGET_FILE, &pattern, NULL, origin, e->text.number,
                 e->column, err);
    } else {
        normalise_prototype(&e->text, &proto);
        rc = -1;
        if (!proto.oom && proto.p) {
            size_t name_begin, params = signature_split(proto.p, proto.len, &name_begin);
            /* the pattern drops TAU's return type: demangled signatures carry one only
             * for template functions, and the decision also matches the signature
             * without it */
            function_glob(proto.p + name_begin, proto.len - name_begin, &pattern);
            if (params < proto.len)
                function_glob(proto.p + name_begin, params - name_begin, &c_name);
            rc = add(f, include, INSTR_TARGET_FUNCTION, &pattern, &c_name, origin,
                     e->text.number, e->column, err);
        } else {
            filter_error_oom(err, origin);
        }
    }
    free(pattern.p);
    free(c_name.p);
    free(proto.p);
    return rc;
}

static int emit(instr_filter *f, tau_list lists[LISTS], const char *origin,
                instr_filter_error *err)
{
    static const enum list order[2][2] = {
        {FILE_INCLUDE_LIST, FILE_EXCLUDE_LIST}, {INCLUDE_LIST, EXCLUDE_LIST}};
    for (int k = 0; k < 2; k++) {
        enum list inc = order[k][0], exc = order[k][1];
        instr_rule_target target = k == 0 ? INSTR_TARGET_FILE : INSTR_TARGET_FUNCTION;
        if (lists[inc].count > 0) {
            /* an include list means: only what it lists; an empty one (or one with only
             * comments) restricts nothing, as in TAU */
            const char *star = filter_keep(f, "*", 1);
            if (!star || filter_add_rule(f, 0, target, star, NULL, origin, lists[inc].line,
                                         lists[inc].column)) {
                filter_error_oom(err, origin);
                return -1;
            }
            for (size_t i = 0; i < lists[inc].count; i++)
                if (add_entry(f, inc, &lists[inc].entries[i], origin, err))
                    return -1;
        }
        for (size_t i = 0; i < lists[exc].count; i++)
            if (add_entry(f, exc, &lists[exc].entries[i], origin, err))
                return -1;
    }
    return 0;
}

static int push(tau_list *l, spec_line text, unsigned column)
{
    tau_entry *entries = filter_grow(l->entries, l->count, &l->capacity, sizeof *entries, 16);
    if (!entries)
        return -1;
    l->entries = entries;
    l->entries[l->count++] = (tau_entry){text, column};
    return 0;
}

/* TAU sections instr reads past: their BEGIN_ line, END_ line and what instr does instead. */
static const struct {
    const char *begin, *end, *meaning;
} skipped_sections[] = {
    {"BEGIN_LOOPS_LIST", "END_LOOPS_LIST", "loop timers (TAU's LLVM plugin)"},
    {"BEGIN_INSTRUMENT_SECTION", "END_INSTRUMENT_SECTION",
     "loop, I/O, memory and static/dynamic timer instrumentation"},
};

static int line_is(const spec_line *l, const char *word)
{
    size_t n = strlen(word);
    return l->len == n && memcmp(l->text, word, n) == 0;
}

static int read_lists(instr_filter *f, tau_list lists[LISTS], const char *origin,
                      const char *data, size_t size, instr_filter_error *err)
{
    enum list open = NONE;
    int skipping = -1; /* index into skipped_sections while inside one */
    unsigned skip_line = 0, skip_column = 0;
    int rc = 0;
    spec_reader r;
    spec_line raw;
    spec_reader_init(&r, data, size);
    while (!filter_error_full(err) && spec_next_line(&r, &raw)) {
        unsigned col;
        spec_line l = spec_line_trim(&raw, &col);
        if (l.len == 0 || l.text[0] == '#')
            continue;
        if (skipping >= 0) {
            if (line_is(&l, skipped_sections[skipping].end))
                skipping = -1;
            continue;
        }
        enum list begin = list_named(l.text, l.len, "BEGIN_");
        enum list end = list_named(l.text, l.len, "END_");
        int section = -1;
        for (int k = 0; k < (int)(sizeof skipped_sections / sizeof skipped_sections[0]); k++)
            if (line_is(&l, skipped_sections[k].begin))
                section = k;
        if (open == NONE) {
            if (begin != NONE) {
                open = begin;
                lists[open].seen = 1;
                lists[open].line = l.number;
                lists[open].column = col;
                continue;
            }
            if (section >= 0) {
                if (filter_warning(f, origin, l.number, col,
                                   "%s: instr cannot add %s; the section is ignored up to %s "
                                   "and the function and file lists apply",
                                   skipped_sections[section].begin,
                                   skipped_sections[section].meaning,
                                   skipped_sections[section].end) != 0) {
                    filter_error_oom(err, origin);
                    return -1;
                }
                skipping = section;
                skip_line = l.number;
                skip_column = col;
                continue;
            }
            filter_error(err, origin, l.number, col,
                         "unexpected '%.*s' outside a list; expected BEGIN_EXCLUDE_LIST, "
                         "BEGIN_INCLUDE_LIST, BEGIN_FILE_EXCLUDE_LIST or "
                         "BEGIN_FILE_INCLUDE_LIST",
                         (int)(l.len > 60 ? 60 : l.len), l.text);
            rc = -1;
            continue;
        }
        if (end == open) {
            open = NONE;
            continue;
        }
        if (begin != NONE || end != NONE || section >= 0) {
            filter_error(err, origin, l.number, col,
                         "'%.*s' inside BEGIN_%s (line %u); close that list with END_%s first",
                         (int)(l.len > 60 ? 60 : l.len), l.text, list_names[open],
                         lists[open].line, list_names[open]);
            rc = -1;
            continue;
        }
        l = unquoted(l, &col);
        if (l.len == 0)
            continue;
        if (push(&lists[open], l, col)) {
            filter_error_oom(err, origin);
            return -1;
        }
    }
    if (open != NONE) {
        filter_error(err, origin, lists[open].line, lists[open].column,
                     "unterminated list: BEGIN_%s is never closed with END_%s",
                     list_names[open], list_names[open]);
        rc = -1;
    }
    if (skipping >= 0) {
        filter_error(err, origin, skip_line, skip_column, "unterminated section: %s is never "
                     "closed with %s", skipped_sections[skipping].begin,
                     skipped_sections[skipping].end);
        rc = -1;
    }
    return rc;
}

int parse_tau(instr_filter *f, const char *origin, const char *data, size_t size,
              instr_filter_error *err)
{
    tau_list lists[LISTS];
    memset(lists, 0, sizeof lists);
    int rc = read_lists(f, lists, origin, data, size, err);
    if (rc == 0)
        rc = emit(f, lists, origin, err);
    for (int i = 0; i < LISTS; i++)
        free(lists[i].entries);
    return rc;
}
