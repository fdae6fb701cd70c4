/* parse_yaml.c — the YAML spelling (libyaml):
 *
 *   rules:
 *     - exclude: {file: "*.h"}
 *     - include: {function: main}
 *     - exclude: {mangled: ["_ZN6detail*", "_ZN4impl*"]}
 *   min-instructions: 50
 *
 * Each rule is a mapping with one key, include or exclude, whose value maps file, function
 * or mangled to a pattern or a list of patterns; several targets in one rule apply in the
 * order written. */
#include "filter_internal.h"

#ifdef INSTR_HAVE_YAML

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* An anchor (&name) or an alias (*name), from the event stream: the loaded document shares
 * an aliased node and keeps only the anchor's position, so the alias's own is kept here. */
typedef struct yaml_mark_entry {
    char *name;
    size_t index; /* anchor: start of the anchored node in the input */
    unsigned line, column;
    int used;     /* alias: already matched to a visit */
} yaml_mark_entry;

typedef struct yaml_marks {
    yaml_mark_entry *anchors, *aliases;
    size_t anchor_count, alias_count, anchor_capacity, alias_capacity;
} yaml_marks;

/* While the value of an alias is read, errors are reported where the alias is used. */
typedef struct alias_scope {
    const yaml_mark_entry *alias; /* NULL outside an alias */
    unsigned anchor_line;
} alias_scope;

typedef struct yaml_ctx {
    instr_filter *f;
    const char *origin;
    yaml_document_t *doc;
    instr_filter_error *err;
    yaml_marks *marks;
    unsigned char *visited; /* per node id */
    size_t node_count;
    alias_scope scope;
} yaml_ctx;

static void yaml_error(yaml_ctx *c, unsigned line, unsigned column, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void yaml_error(yaml_ctx *c, unsigned line, unsigned column, const char *fmt, ...)
{
    char text[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (!c->scope.alias) {
        filter_error(c->err, c->origin, line, column, "%s", text);
        return;
    }
    filter_error(c->err, c->origin, c->scope.alias->line, c->scope.alias->column,
                 "%s (in the value of alias *%s, whose anchor is at line %u)", text,
                 c->scope.alias->name, c->scope.anchor_line);
}

/* The node with this id; a node met a second time is an alias's value, and the errors inside
 * it then name the alias. done() restores the scope. */
static yaml_node_t *child(yaml_ctx *c, int id, alias_scope *saved)
{
    *saved = c->scope;
    yaml_node_t *n = yaml_document_get_node(c->doc, id);
    size_t k = (size_t)id - 1;
    if (!n || k >= c->node_count || !c->visited)
        return n;
    if (c->visited[k] && !c->scope.alias && c->marks) {
        const char *name = NULL;
        for (size_t i = 0; i < c->marks->anchor_count && !name; i++)
            if (c->marks->anchors[i].index == n->start_mark.index)
                name = c->marks->anchors[i].name;
        for (size_t i = 0; name && i < c->marks->alias_count; i++) {
            yaml_mark_entry *a = &c->marks->aliases[i];
            if (!a->used && strcmp(a->name, name) == 0) {
                a->used = 1;
                c->scope.alias = a;
                c->scope.anchor_line = (unsigned)n->start_mark.line + 1;
                break;
            }
        }
    }
    c->visited[k] = 1;
    return n;
}

static void done(yaml_ctx *c, const alias_scope *saved)
{
    c->scope = *saved;
}

static const char *kind_name(yaml_node_type_t t)
{
    switch (t) {
    case YAML_SCALAR_NODE: return "a scalar";
    case YAML_SEQUENCE_NODE: return "a list";
    case YAML_MAPPING_NODE: return "a mapping";
    default: return "nothing";
    }
}

static int fail(yaml_ctx *c, const yaml_node_t *n, const char *what)
{
    yaml_error(c, (unsigned)n->start_mark.line + 1, (unsigned)n->start_mark.column + 1,
               "%s, found %s", what, kind_name(n->type));
    return -1;
}

static int scalar_is(const yaml_node_t *n, const char *s)
{
    return n->type == YAML_SCALAR_NODE && n->data.scalar.length == strlen(s) &&
           memcmp(n->data.scalar.value, s, n->data.scalar.length) == 0;
}

/* "~" and "null" (plain) are YAML's null, and an explicit tag such as !!binary or !!int
 * makes the value something other than text: neither is a pattern or a number. */
static int refuse_non_text(yaml_ctx *c, const yaml_node_t *n, const char *what)
{
    unsigned line = (unsigned)n->start_mark.line + 1, column = (unsigned)n->start_mark.column + 1;
    const char *tag = (const char *)n->tag;
    if (tag && strcmp(tag, YAML_STR_TAG) != 0) {
        static const char core[] = "tag:yaml.org,2002:";
        int short_form = strncmp(tag, core, sizeof core - 1) == 0;
        yaml_error(c, line, column,
                     "a value tagged %s%s is not %s; write it as plain text",
                     short_form ? "!!" : "", short_form ? tag + sizeof core - 1 : tag, what);
        return -1;
    }
    if (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
        ((n->data.scalar.length == 1 && n->data.scalar.value[0] == '~') ||
         (n->data.scalar.length == 4 && memcmp(n->data.scalar.value, "null", 4) == 0))) {
        yaml_error(c, line, column,
                     "'%s' is YAML's null, not %s; quote it (\"%s\") if you mean the text",
                     (const char *)n->data.scalar.value, what,
                     (const char *)n->data.scalar.value);
        return -1;
    }
    return 0;
}

static int add_pattern(yaml_ctx *c, int include, instr_rule_target target, yaml_node_t *n)
{
    if (n->type != YAML_SCALAR_NODE)
        return fail(c, n, "expected a pattern (a string)");
    if (refuse_non_text(c, n, "a pattern") != 0)
        return -1;
    unsigned line = (unsigned)n->start_mark.line + 1, column = (unsigned)n->start_mark.column + 1;
    if (n->data.scalar.length == 0) {
        yaml_error(c, line, column, "empty pattern; write a glob such as '*'");
        return -1;
    }
    if (memchr(n->data.scalar.value, '\0', n->data.scalar.length)) {
        yaml_error(c, line, column, "pattern contains a NUL character");
        return -1;
    }
    const char *p = filter_keep(c->f, (const char *)n->data.scalar.value, n->data.scalar.length);
    if (!p) {
        filter_error_oom(c->err, c->origin);
        return -1;
    }
    /* a quoted scalar starts one column later than its text */
    int quoted = n->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
                 n->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE;
    const char *what;
    long bad = instr_glob_check(p, &what);
    if (bad >= 0) {
        yaml_error(c, line, column + (quoted ? 1 : 0) + (unsigned)bad, "%s (in pattern '%s')",
                   what, p);
        return -1;
    }
    if (filter_add_rule(c->f, include, target, p, NULL, c->origin, line, column)) {
        filter_error_oom(c->err, c->origin);
        return -1;
    }
    return 0;
}

static int parse_rule_value(yaml_ctx *c, yaml_node_t *key, yaml_node_t *value);
static int parse_target(yaml_ctx *c, int include, yaml_node_t *tk, yaml_node_t *tv);

static int parse_rule(yaml_ctx *c, yaml_node_t *rule)
{
    if (rule->type != YAML_MAPPING_NODE)
        return fail(c, rule, "expected a rule such as '{exclude: {function: \"std::*\"}}'");
    yaml_node_pair_t *pair = rule->data.mapping.pairs.start;
    if (rule->data.mapping.pairs.top - pair != 1)
        return fail(c, rule, "expected exactly one key, include or exclude, in each rule");
    yaml_node_t *key = yaml_document_get_node(c->doc, pair->key);
    alias_scope saved;
    yaml_node_t *value = child(c, pair->value, &saved);
    int rc = parse_rule_value(c, key, value);
    done(c, &saved);
    return rc;
}

static int parse_rule_value(yaml_ctx *c, yaml_node_t *key, yaml_node_t *value)
{
    int include;
    if (scalar_is(key, "include"))
        include = 1;
    else if (scalar_is(key, "exclude"))
        include = 0;
    else
        return fail(c, key, "expected include or exclude");
    if (value->type != YAML_MAPPING_NODE)
        return fail(c, value, "expected a mapping of file, function or mangled to patterns");
    if (value->data.mapping.pairs.top == value->data.mapping.pairs.start)
        return fail(c, value, "missing pattern: the rule names no file, function or mangled");
    for (yaml_node_pair_t *p = value->data.mapping.pairs.start; p < value->data.mapping.pairs.top;
         p++) {
        yaml_node_t *tk = yaml_document_get_node(c->doc, p->key);
        alias_scope saved;
        yaml_node_t *tv = child(c, p->value, &saved);
        int rc = parse_target(c, include, tk, tv);
        done(c, &saved);
        if (rc != 0)
            return -1;
    }
    return 0;
}

static int parse_target(yaml_ctx *c, int include, yaml_node_t *tk, yaml_node_t *tv)
{
    instr_rule_target target;
    if (scalar_is(tk, "file"))
        target = INSTR_TARGET_FILE;
    else if (scalar_is(tk, "function"))
        target = INSTR_TARGET_FUNCTION;
    else if (scalar_is(tk, "mangled"))
        target = INSTR_TARGET_MANGLED;
    else
        return fail(c, tk, "expected file, function or mangled");
    if (tv->type != YAML_SEQUENCE_NODE)
        return add_pattern(c, include, target, tv);
    if (tv->data.sequence.items.top == tv->data.sequence.items.start)
        return fail(c, tv, "missing pattern: the list is empty");
    for (yaml_node_item_t *i = tv->data.sequence.items.start; i < tv->data.sequence.items.top;
         i++) {
        alias_scope saved;
        int rc = add_pattern(c, include, target, child(c, *i, &saved));
        done(c, &saved);
        if (rc)
            return -1;
    }
    return 0;
}

static int parse_min(yaml_ctx *c, yaml_node_t *n)
{
    if (n->type != YAML_SCALAR_NODE)
        return fail(c, n, "expected a whole number >= 0 for min-instructions");
    if (refuse_non_text(c, n, "a number") != 0)
        return -1;
    const char *s = (const char *)n->data.scalar.value;
    size_t len = n->data.scalar.length;
    long v = 0;
    int ok = len > 0 && len <= 18;
    for (size_t i = 0; ok && i < len; i++) {
        ok = s[i] >= '0' && s[i] <= '9';
        v = v * 10 + (s[i] - '0');
    }
    if (!ok) {
        yaml_error(c, (unsigned)n->start_mark.line + 1,
                     (unsigned)n->start_mark.column + 1,
                     "bad number '%.*s' for min-instructions; expected a whole number >= 0",
                     (int)(len > 40 ? 40 : len), s);
        return -1;
    }
    c->f->min_instructions = v;
    c->f->min_origin = c->origin;
    c->f->min_line = (unsigned)n->start_mark.line + 1;
    return 0;
}

static int parse_document(yaml_ctx *c)
{
    yaml_node_t *root = yaml_document_get_root_node(c->doc);
    if (!root)
        return 0; /* an empty spec selects everything */
    if (root->type != YAML_MAPPING_NODE)
        return fail(c, root, "expected a mapping with 'rules' and/or 'min-instructions'");
    int rc = 0;
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = yaml_document_get_node(c->doc, p->key);
        yaml_node_t *v = yaml_document_get_node(c->doc, p->value);
        if (scalar_is(k, "rules")) {
            if (v->type == YAML_SCALAR_NODE && v->data.scalar.length == 0)
                continue; /* "rules:" with nothing under it */
            if (v->type != YAML_SEQUENCE_NODE) {
                rc = fail(c, v, "expected a list of rules under 'rules'");
                continue;
            }
            /* a bad rule is reported and the next one read */
            for (yaml_node_item_t *i = v->data.sequence.items.start;
                 i < v->data.sequence.items.top && !filter_error_full(c->err); i++) {
                alias_scope saved;
                if (parse_rule(c, child(c, *i, &saved)))
                    rc = -1;
                done(c, &saved);
            }
        } else if (scalar_is(k, "min-instructions")) {
            if (parse_min(c, v))
                rc = -1;
        } else if (k->type == YAML_SCALAR_NODE) {
            yaml_error(c, (unsigned)k->start_mark.line + 1,
                         (unsigned)k->start_mark.column + 1,
                         "unknown key '%.*s'; expected 'rules' or 'min-instructions'",
                         (int)(k->data.scalar.length > 60 ? 60 : k->data.scalar.length),
                         (const char *)k->data.scalar.value);
            rc = -1;
        } else {
            rc = fail(c, k, "unknown key; expected 'rules' or 'min-instructions'");
        }
    }
    return rc;
}

/* A spec nests three levels deep; libyaml's loader takes time super-linear in the depth
 * (100,000 levels: half a minute). The events are read first and reading stops at the first
 * collection deeper than this. */
enum { MAX_DEPTH = 64 };

static int keep_mark(yaml_mark_entry **list, size_t *count, size_t *capacity,
                     const unsigned char *name, const yaml_mark_t *mark)
{
    if (!name)
        return 0;
    yaml_mark_entry *g = filter_grow(*list, *count, capacity, sizeof *g, 8);
    if (!g)
        return -1;
    *list = g;
    char *copy = malloc(strlen((const char *)name) + 1);
    if (!copy)
        return -1;
    strcpy(copy, (const char *)name);
    g[(*count)++] = (yaml_mark_entry){copy, mark->index, (unsigned)mark->line + 1,
                                      (unsigned)mark->column + 1, 0};
    return 0;
}

static void free_marks(yaml_marks *m)
{
    for (size_t i = 0; i < m->anchor_count; i++)
        free(m->anchors[i].name);
    for (size_t i = 0; i < m->alias_count; i++)
        free(m->aliases[i].name);
    free(m->anchors);
    free(m->aliases);
}

/* Reads the events once: refuses nesting past MAX_DEPTH at the first collection too deep,
 * and keeps where anchors and aliases are. */
static int prescan(const char *origin, const char *data, size_t size, yaml_marks *marks,
                   instr_filter_error *err)
{
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        filter_error_oom(err, origin);
        return -1;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)data, size);
    int depth = 0, rc = 0;
    for (;;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev))
            break; /* the loader reports syntax errors with their context */
        yaml_event_type_t type = ev.type;
        const unsigned char *anchor = type == YAML_SCALAR_EVENT ? ev.data.scalar.anchor
                                      : type == YAML_SEQUENCE_START_EVENT
                                          ? ev.data.sequence_start.anchor
                                      : type == YAML_MAPPING_START_EVENT
                                          ? ev.data.mapping_start.anchor
                                          : NULL;
        int oom = type == YAML_ALIAS_EVENT
                      ? keep_mark(&marks->aliases, &marks->alias_count, &marks->alias_capacity,
                                  ev.data.alias.anchor, &ev.start_mark)
                      : keep_mark(&marks->anchors, &marks->anchor_count,
                                  &marks->anchor_capacity, anchor, &ev.start_mark);
        if (oom) {
            filter_error_oom(err, origin);
            rc = -1;
        }
        if (type == YAML_SEQUENCE_START_EVENT || type == YAML_MAPPING_START_EVENT) {
            if (++depth > MAX_DEPTH) {
                filter_error(err, origin, (unsigned)ev.start_mark.line + 1,
                             (unsigned)ev.start_mark.column + 1,
                             "YAML nested more than %d levels deep; a spec needs three "
                             "(rules, a rule, its targets)", MAX_DEPTH);
                rc = -1;
            }
        } else if (type == YAML_SEQUENCE_END_EVENT || type == YAML_MAPPING_END_EVENT) {
            depth--;
        }
        yaml_event_delete(&ev);
        if (rc != 0 || type == YAML_STREAM_END_EVENT)
            break;
    }
    yaml_parser_delete(&parser);
    return rc;
}

int parse_yaml(instr_filter *f, const char *origin, const char *data, size_t size,
               instr_filter_error *err)
{
    yaml_parser_t parser;
    yaml_document_t doc;
    if (!yaml_parser_initialize(&parser)) {
        filter_error_oom(err, origin);
        return -1;
    }
    yaml_marks marks = {0};
    if (prescan(origin, data, size, &marks, err) != 0) {
        free_marks(&marks);
        yaml_parser_delete(&parser);
        return -1;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)data, size);
    int rc = 0;
    if (!yaml_parser_load(&parser, &doc)) {
        filter_error(err, origin, (unsigned)parser.problem_mark.line + 1,
                     (unsigned)parser.problem_mark.column + 1, "YAML syntax: %s%s%s",
                     parser.problem ? parser.problem : "malformed document",
                     parser.context ? " " : "", parser.context ? parser.context : "");
        free_marks(&marks);
        yaml_parser_delete(&parser);
        return -1;
    }
    yaml_ctx c = {f, origin, &doc, err, &marks, NULL, 0, {NULL, 0}};
    c.node_count = (size_t)(doc.nodes.top - doc.nodes.start);
    c.visited = calloc(c.node_count ? c.node_count : 1, 1);
    rc = parse_document(&c);
    free(c.visited);
    free_marks(&marks);
    /* a second document would be silently ignored otherwise */
    if (rc == 0) {
        yaml_document_t extra;
        if (!yaml_parser_load(&parser, &extra)) {
            filter_error(err, origin, (unsigned)parser.problem_mark.line + 1,
                         (unsigned)parser.problem_mark.column + 1, "YAML syntax: %s",
                         parser.problem ? parser.problem : "malformed document");
            rc = -1;
        } else {
            if (yaml_document_get_root_node(&extra)) {
                yaml_node_t *r = yaml_document_get_root_node(&extra);
                filter_error(err, origin, (unsigned)r->start_mark.line + 1,
                             (unsigned)r->start_mark.column + 1,
                             "a second YAML document; put all rules in one document");
                rc = -1;
            }
            yaml_document_delete(&extra);
        }
    }
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    return rc;
}

#else /* !INSTR_HAVE_YAML */

int parse_yaml(instr_filter *f, const char *origin, const char *data, size_t size,
               instr_filter_error *err)
{
    (void)f;
    (void)data;
    (void)size;
    filter_error(err, origin, 1, 1,
                 "this instr was built without libyaml, so YAML specs cannot be read; "
                 "install libyaml-dev and rebuild, or write the spec in the native spelling");
    return -1;
}

#endif
