/* svg.c — instr-export --svg: a flame graph of a profile.json as one SVG file, without Perl
 * or a browser's script: roots at the bottom, width the inclusive time, a <title> per frame
 * that viewers show on hover. Frames narrower than MIN_PX are left out with their callees
 * (their time stays in the parent's width); the caption says how many. */
#include "export.h"
#include "profile_read.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define WIDTH 1200.0
#define ROW 16
#define MIN_PX 0.1
#define TOP 40

static void xml(FILE *out, const char *s, size_t max)
{
    size_t n = 0;
    for (; *s && n < max; s++, n++) {
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        default:
            if ((unsigned char)*s < 0x20)
                fputc(' ', out);
            else
                fputc(*s, out);
        }
    }
    if (*s && max > 2)
        fputs("..", out);
}

static unsigned hue(const char *s)
{
    unsigned h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h % 50; /* reds to yellows */
}

int instr_export_svg(const char *path, FILE *out)
{
    profile p;
    if (profile_read(&p, path) != 0)
        return 1;
    size_t n = p.tree->n;
    double *x = calloc(n + 1, sizeof *x), *next = calloc(n + 1, sizeof *next);
    char *shown = calloc(n + 1, 1);
    uint32_t *depth = calloc(n + 1, sizeof *depth);
    if (!x || !next || !shown || !depth) {
        free(x), free(next), free(shown), free(depth);
        profile_free(&p);
        return -1;
    }
    double scale = p.total ? WIDTH / (double)p.total : 0, roots_x = 0;
    uint32_t max_depth = 0;
    size_t hidden = 0;
    /* Pre-order: a node's parent is placed before it; siblings follow each other. */
    for (size_t i = 0; i < n; i++) {
        const json_value *nd = &p.tree->items[i];
        double w = (double)json_u64(nd, "inclusive", 0) * scale;
        int32_t par = p.parent[i];
        if (par >= 0 && !shown[par]) {
            hidden++;
            continue;
        }
        x[i] = par < 0 ? roots_x : next[par];
        if (par < 0)
            roots_x += w;
        else
            next[par] += w;
        next[i] = x[i];
        depth[i] = par < 0 ? 0 : depth[par] + 1;
        if (w < MIN_PX) {
            hidden++;
            continue;
        }
        shown[i] = 1;
        if (depth[i] > max_depth)
            max_depth = depth[i];
    }
    double height = TOP + (max_depth + 1.0) * ROW + 10;
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                 "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"11\">\n",
            WIDTH + 20, height, WIDTH + 20, height);
    fputs("<text x=\"10\" y=\"18\" font-size=\"15\">Flame graph: ", out);
    const json_value *run = json_get(&p.doc, "run");
    xml(out, json_str(run, "program", path), 200);
    fprintf(out, "</text>\n<text x=\"10\" y=\"33\" fill=\"#555\">width: inclusive time "
                 "(%.3f ms over all threads); %zu of %zu call paths too narrow to draw</text>\n",
            (double)p.total / 1e6, hidden, n);
    for (size_t i = 0; i < n; i++) {
        if (!shown[i])
            continue;
        const json_value *nd = &p.tree->items[i];
        const char *name = profile_node_name(&p, i);
        double w = (double)json_u64(nd, "inclusive", 0) * scale;
        double y = height - 10 - (depth[i] + 1.0) * ROW;
        fputs("<g class=\"frame\"><title>", out);
        xml(out, name, 4096);
        fprintf(out, "\ninclusive %" PRIu64 " ns, exclusive %" PRIu64 " ns, visits %" PRIu64
                     "</title><rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%d\" "
                     "fill=\"hsl(%u,85%%,60%%)\" stroke=\"#fff\" stroke-width=\"0.5\"/>",
                json_u64(nd, "inclusive", 0), json_u64(nd, "exclusive", 0),
                json_u64(nd, "visits", 0), 10 + x[i], y, w, ROW - 1, hue(name));
        if (w > 30) {
            fprintf(out, "<text x=\"%.2f\" y=\"%.0f\">", 13 + x[i], y + ROW - 4);
            xml(out, name, (size_t)(w / 7));
            fputs("</text>", out);
        }
        fputs("</g>\n", out);
    }
    fputs("</svg>\n", out);
    free(x), free(next), free(shown), free(depth);
    profile_free(&p);
    return ferror(out) ? -1 : 0;
}
