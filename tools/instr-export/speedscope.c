/* speedscope.c — instr-export --speedscope: a profile.json as speedscope's file format
 * (https://www.speedscope.app/file-format-schema.json): one "sampled" profile per location
 * (thread; "rank R thread T" in an MPI job), each call path a sample weighted by that
 * location's exclusive time in ns. Frames are the regions, with file and line. */
#include "export.h"
#include "json_str.h"
#include "profile_read.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef struct sample {
    size_t node;
    uint64_t weight;
} sample;

typedef struct per_loc {
    sample *s;
    size_t n, cap;
} per_loc;

int instr_export_speedscope(const char *path, FILE *out)
{
    profile p;
    if (profile_read(&p, path) != 0)
        return 1;
    const json_value *regions = json_get(&p.doc, "regions");
    size_t nloc = p.locations->n;
    per_loc *pl = calloc(nloc + 1, sizeof *pl);
    uint64_t *loc_id = calloc(nloc + 1, sizeof *loc_id);
    size_t *stack = malloc((p.tree->n + 1) * sizeof *stack);
    int rc = pl && loc_id && stack ? 0 : -1;
    for (size_t k = 0; k < nloc && rc == 0; k++)
        loc_id[k] = json_u64(&p.locations->items[k], "id", UINT64_MAX);
    /* Samples per location, in one pass over the tree. */
    for (size_t i = 0; i < p.tree->n && rc == 0; i++) {
        const json_value *ls = json_get(&p.tree->items[i], "locations");
        for (size_t k = 0; ls && ls->kind == JSON_ARRAY && k < ls->n && rc == 0; k++) {
            uint64_t id = json_u64(&ls->items[k], "location", UINT64_MAX);
            uint64_t w = json_u64(&ls->items[k], "exclusive", 0);
            size_t l = id < nloc && loc_id[id] == id ? (size_t)id : nloc;
            for (size_t m = 0; l == nloc && m < nloc; m++)
                if (loc_id[m] == id)
                    l = m;
            if (l == nloc || !w)
                continue;
            if (pl[l].n == pl[l].cap) {
                size_t c = pl[l].cap ? 2 * pl[l].cap : 64;
                sample *s = realloc(pl[l].s, c * sizeof *s);
                if (!s) {
                    rc = -1;
                    break;
                }
                pl[l].s = s;
                pl[l].cap = c;
            }
            pl[l].s[pl[l].n++] = (sample){i, w};
        }
    }
    if (rc == 0) {
        fputs("{\"$schema\": \"https://www.speedscope.app/file-format-schema.json\",\n"
              " \"exporter\": \"instr-export\", \"name\": ", out);
        const json_value *run = json_get(&p.doc, "run");
        instr_json_str(out, json_str(run, "program", path));
        fputs(",\n \"shared\": {\"frames\": [", out);
        /* frame k is region id k (frame 0 stands for unknown ids) */
        for (uint64_t r = 0; r < p.nregion_ids; r++) {
            fputs(r ? ",\n  {\"name\": " : "\n  {\"name\": ", out);
            instr_json_str(out, p.region_name[r] ? p.region_name[r] : "?");
            for (size_t k = 0; regions && k < regions->n; k++) {
                if (json_u64(&regions->items[k], "id", UINT64_MAX) != r)
                    continue;
                const char *file = json_str(&regions->items[k], "file", "");
                if (*file) {
                    fputs(", \"file\": ", out);
                    instr_json_str(out, file);
                    fprintf(out, ", \"line\": %" PRIu64, json_u64(&regions->items[k], "line_begin", 0));
                }
                break;
            }
            fputc('}', out);
        }
        fputs("]},\n \"profiles\": [", out);
        int first = 1;
        for (size_t l = 0; l < nloc && rc == 0; l++) {
            if (!pl[l].n)
                continue;
            uint64_t total = 0;
            for (size_t k = 0; k < pl[l].n; k++)
                total += pl[l].s[k].weight;
            fputs(first ? "\n  {\"type\": \"sampled\", \"name\": " : ",\n  {\"type\": \"sampled\", \"name\": ", out);
            first = 0;
            instr_json_str(out, json_str(&p.locations->items[l], "name", "thread"));
            fprintf(out, ", \"unit\": \"nanoseconds\", \"startValue\": 0, \"endValue\": %" PRIu64
                         ",\n   \"samples\": [", total);
            for (size_t k = 0; k < pl[l].n; k++) {
                size_t n = profile_path(&p, pl[l].s[k].node, stack);
                fputs(k ? ", [" : "[", out);
                for (size_t d = 0; d < n; d++) {
                    uint64_t r = json_u64(&p.tree->items[stack[d]], "region", 0);
                    fprintf(out, "%s%" PRIu64, d ? "," : "", r < p.nregion_ids ? r : 0);
                }
                fputc(']', out);
            }
            fputs("],\n   \"weights\": [", out);
            for (size_t k = 0; k < pl[l].n; k++)
                fprintf(out, "%s%" PRIu64, k ? ", " : "", pl[l].s[k].weight);
            fputs("]}", out);
        }
        fputs("\n ]}\n", out);
    }
    for (size_t l = 0; pl && l < nloc; l++)
        free(pl[l].s);
    free(pl);
    free(loc_id);
    free(stack);
    profile_free(&p);
    return rc == 0 && !ferror(out) ? 0 : -1;
}
