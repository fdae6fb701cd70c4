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

#include <string.h>
#include <yaml.h>

typedef struct yaml_ctx {
    instr_filter *f;
    const char *origin;
    yaml_document_t *doc;
    instr_filter_error *err;
} yaml_ctx;

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
    filter_error(c->err, c->origin, (unsigned)n->start_mark.line + 1,
                 (unsigned)n->start_mark.column + 1, "%s, found %s", what, kind_name(n->type));
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
        filter_error(c->err, c->origin, line, column,
                     "a value tagged %s%s is not %s; write it as plain text",
                     short_form ? "!!" : "", short_form ? tag + sizeof core - 1 : tag, what);
        return -1;
    }
    if (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
        ((n->data.scalar.length == 1 && n->data.scalar.value[0] == '~') ||
         (n->data.scalar.length == 4 && memcmp(n->data.scalar.value, "null", 4) == 0))) {
        filter_error(c->err, c->origin, line, column,
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
        filter_error(c->err, c->origin, line, column, "empty pattern; write a glob such as '*'");
        return -1;
    }
    if (memchr(n->data.scalar.value, '\0', n->data.scalar.length)) {
        filter_error(c->err, c->origin, line, column, "pattern contains a NUL character");
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
    if (filter_check_pattern(p, c->origin, line, column + (quoted ? 1 : 0), c->err) != 0)
        return -1;
    if (filter_add_rule(c->f, include, target, p, NULL, c->origin, line, column)) {
        filter_error_oom(c->err, c->origin);
        return -1;
    }
    return 0;
}

static int parse_rule(yaml_ctx *c, yaml_node_t *rule)
{
    if (rule->type != YAML_MAPPING_NODE)
        return fail(c, rule, "expected a rule such as '{exclude: {function: \"std::*\"}}'");
    yaml_node_pair_t *pair = rule->data.mapping.pairs.start;
    if (rule->data.mapping.pairs.top - pair != 1)
        return fail(c, rule, "expected exactly one key, include or exclude, in each rule");
    yaml_node_t *key = yaml_document_get_node(c->doc, pair->key);
    yaml_node_t *value = yaml_document_get_node(c->doc, pair->value);
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
        yaml_node_t *tv = yaml_document_get_node(c->doc, p->value);
        instr_rule_target target;
        if (scalar_is(tk, "file"))
            target = INSTR_TARGET_FILE;
        else if (scalar_is(tk, "function"))
            target = INSTR_TARGET_FUNCTION;
        else if (scalar_is(tk, "mangled"))
            target = INSTR_TARGET_MANGLED;
        else
            return fail(c, tk, "expected file, function or mangled");
        if (tv->type == YAML_SEQUENCE_NODE) {
            if (tv->data.sequence.items.top == tv->data.sequence.items.start)
                return fail(c, tv, "missing pattern: the list is empty");
            for (yaml_node_item_t *i = tv->data.sequence.items.start;
                 i < tv->data.sequence.items.top; i++)
                if (add_pattern(c, include, target, yaml_document_get_node(c->doc, *i)))
                    return -1;
        } else if (add_pattern(c, include, target, tv)) {
            return -1;
        }
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
        filter_error(c->err, c->origin, (unsigned)n->start_mark.line + 1,
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
                 i < v->data.sequence.items.top && !filter_error_full(c->err); i++)
                if (parse_rule(c, yaml_document_get_node(c->doc, *i)))
                    rc = -1;
        } else if (scalar_is(k, "min-instructions")) {
            if (parse_min(c, v))
                rc = -1;
        } else if (k->type == YAML_SCALAR_NODE) {
            filter_error(c->err, c->origin, (unsigned)k->start_mark.line + 1,
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

static int check_depth(const char *origin, const char *data, size_t size,
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
    if (check_depth(origin, data, size, err) != 0) {
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
        yaml_parser_delete(&parser);
        return -1;
    }
    yaml_ctx c = {f, origin, &doc, err};
    rc = parse_document(&c);
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
