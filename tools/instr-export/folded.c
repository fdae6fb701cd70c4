/* folded.c — instr-export --folded [--metric NAME]: one line per call path, "a;b;c value",
 * the value being any per-node number of profile.json (exclusive by default, in ns; visits;
 * a metric column), for flamegraph.pl, inferno and speedscope. Lines whose value is 0 are
 * left out: the viewers would drop them anyway. */
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

static void known_fields(const profile *p)
{
    fputs("the numeric fields of the call paths are:", stderr);
    const json *n = p->tree->n ? &p->tree->items[0] : NULL;
    for (size_t k = 0; n && k < n->n; k++)
        if (n->items[k].type == JSON_NUMBER && strcmp(n->keys[k], "id") && strcmp(n->keys[k], "parent")
            && strcmp(n->keys[k], "depth") && strcmp(n->keys[k], "region"))
            fprintf(stderr, " %s", n->keys[k]);
    fputc('\n', stderr);
}

int instr_export_folded(const char *path, const char *metric, FILE *out)
{
    profile p;
    if (profile_read(&p, path) != 0)
        return 1;
    if (!metric)
        metric = "exclusive";
    int found = 0;
    for (size_t i = 0; i < p.tree->n && !found; i++)
        found = json_get(&p.tree->items[i], metric) != NULL;
    if (!found || !strcmp(metric, "id") || !strcmp(metric, "parent") ||
        !strcmp(metric, "depth") || !strcmp(metric, "region")) {
        fprintf(stderr, "instr-export: %s: no call path has the metric '%s'; ", path, metric);
        known_fields(&p);
        profile_free(&p);
        return 1;
    }
    size_t cap = 1 << 16, *stack = malloc(cap * sizeof *stack);
    int rc = stack ? 0 : -1;
    for (size_t i = 0; i < p.tree->n && rc == 0; i++) {
        const json *v = json_get(&p.tree->items[i], metric);
        if (!v || v->type != JSON_NUMBER || v->num == 0)
            continue;
        size_t n;
        while ((n = profile_path(&p, i, stack, cap)) == 0) {
            size_t *s = realloc(stack, 2 * cap * sizeof *stack);
            if (!s) {
                rc = -1;
                break;
            }
            stack = s;
            cap *= 2;
        }
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
