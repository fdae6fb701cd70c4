/* folded.c — instr-export --folded [--metric NAME]: one line per call path, "a;b;c value",
 * the value being any per-node number of profile.json (exclusive by default, in ns; visits;
 * a metric column) or the exclusive value of a metric of profile.json version 2 (named in
 * the top-level "metrics" list, kept in node.metrics.exclusive[]), for flamegraph.pl, inferno
 * and speedscope. Lines whose value is 0 are left out: the viewers would drop them anyway. */
#include "export.h"
#include "profile_read.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* A name as one frame: ';' would split it, a line break would end the line. */
static void frame(FILE *out, const char *s)
{
    for (; *s; s++)
        fputc(*s == ';' ? ':' : (*s == '\n' || *s == '\r') ? ' ' : *s, out);
}

static int node_field(const char *key)
{
    return strcmp(key, "id") && strcmp(key, "parent") && strcmp(key, "depth") && strcmp(key, "region");
}

static void known_fields(const profile *p)
{
    fputs("give one of the numbers of the call paths:", stderr);
    const json_value *n = p->tree->n ? &p->tree->items[0] : NULL;
    for (size_t k = 0; n && k < n->n; k++)
        if (n->items[k].kind == JSON_NUMBER && node_field(n->keys[k]))
            fprintf(stderr, " %s", n->keys[k]);
    const json_value *metrics = json_get(&p->doc, "metrics");
    if (metrics && metrics->kind == JSON_ARRAY && metrics->n) {
        fputs("; or a metric of the run (its exclusive values):", stderr);
        for (size_t k = 0; k < metrics->n; k++)
            fprintf(stderr, " %s", json_str(&metrics->items[k], "name", "?"));
    } else {
        fputs(" (the run recorded no metrics)", stderr);
    }
    fputc('\n', stderr);
}

/* Index of a metric of profile.json version 2 by name, or -1. */
static long metric_index(const profile *p, const char *name)
{
    const json_value *metrics = json_get(&p->doc, "metrics");
    for (size_t k = 0; metrics && metrics->kind == JSON_ARRAY && k < metrics->n; k++)
        if (!strcmp(json_str(&metrics->items[k], "name", ""), name))
            return (long)k;
    return -1;
}

/* The number of node i to write: a field of the node, or with m >= 0 the exclusive value of
 * metric m; NULL when the node has none. */
static const json_value *node_value(const profile *p, size_t i, const char *field, long m)
{
    if (m < 0)
        return json_get(&p->tree->items[i], field);
    const json_value *v = json_get(json_get(&p->tree->items[i], "metrics"), "exclusive");
    return v && v->kind == JSON_ARRAY && (size_t)m < v->n ? &v->items[m] : NULL;
}

int instr_export_folded(const char *path, const char *metric, FILE *out)
{
    profile p;
    if (profile_read(&p, path) != 0)
        return 1;
    if (!metric)
        metric = "exclusive";
    /* A number of the node itself first (time, visits, message counts), then a metric. */
    long m = -1;
    int found = 0;
    for (size_t i = 0; i < p.tree->n && !found; i++) {
        const json_value *v = json_get(&p.tree->items[i], metric);
        found = v && v->kind == JSON_NUMBER;
    }
    if (!found && (m = metric_index(&p, metric)) >= 0)
        found = 1;
    if (!found || !node_field(metric)) {
        fprintf(stderr, "instr-export: %s: no call path has the number '%s' (--metric); ", path, metric);
        known_fields(&p);
        profile_free(&p);
        return 1;
    }
    size_t *stack = malloc((p.tree->n + 1) * sizeof *stack);
    int rc = stack ? 0 : -1;
    for (size_t i = 0; i < p.tree->n && rc == 0; i++) {
        const json_value *v = node_value(&p, i, metric, m);
        if (!v || v->kind != JSON_NUMBER || v->num == 0)
            continue;
        size_t n = profile_path(&p, i, stack);
        for (size_t k = 0; k < n; k++) {
            if (k)
                fputc(';', out);
            frame(out, profile_node_name(&p, stack[k]));
        }
        if (v->num == (double)v->u)
            fprintf(out, " %" PRIu64 "\n", v->u);
        else
            fprintf(out, " %.17g\n", v->num);
    }
    free(stack);
    profile_free(&p);
    return rc == 0 && !ferror(out) ? 0 : -1;
}
