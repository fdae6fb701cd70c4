/* profile_read.c — profile.json for the exporters (profile_read.h). */
#include "profile_read.h"
#include "input_file.h"
#include "profile_check.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_PROFILE_BYTES (8ull << 30) /* larger is not a profile.json instr writes */

static int bad(const char *path, const char *what)
{
    fprintf(stderr, "instr-export: %s: %s; give the profile.json of an experiment directory "
                    "(docs/profile-format.md)\n", path, what);
    return 1;
}

int profile_read(profile *p, const char *path)
{
    memset(p, 0, sizeof *p);
    char why[160];
    uint64_t size;
    int fd = instr_input_open(path, &size, why, sizeof why);
    if (fd < 0) {
        fprintf(stderr, "instr-export: %s: %s; give the profile.json of an experiment "
                        "directory\n", path, why);
        return 1;
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        return bad(path, "cannot be read");
    }
    if (size > MAX_PROFILE_BYTES) {
        fclose(f);
        return bad(path, "not a regular file of at most 8 GiB");
    }
    size_t len = (size_t)size;
    char *text = malloc(len + 1);
    if (!text || fread(text, 1, len, f) != len) {
        free(text);
        fclose(f);
        return bad(path, "cannot be read into memory");
    }
    fclose(f);
    json_error err;
    int rc = json_parse(text, len, &p->doc, &err);
    free(text);
    if (rc != 0) {
        fprintf(stderr, "instr-export: %s:%zu:%zu: %s (not valid JSON); give the profile.json of "
                        "an experiment directory, complete\n", path, err.line, err.column, err.what);
        return 1;
    }
    const json_value *regions = json_get(&p->doc, "regions");
    p->tree = json_get(&p->doc, "tree");
    p->locations = json_get(&p->doc, "locations");
    if (strcmp(json_str(&p->doc, "format", ""), "instr-profile") != 0 || !regions ||
        regions->kind != JSON_ARRAY || !p->tree || p->tree->kind != JSON_ARRAY ||
        !p->locations || p->locations->kind != JSON_ARRAY) {
        profile_free(p);
        return bad(path, "not an instr profile (\"format\": \"instr-profile\" with regions, "
                         "tree and locations expected)");
    }
    /* the same validation as instr-score's (profile_check.h), and its message */
    char invalid[256];
    if (instr_profile_check(&p->doc, invalid, sizeof invalid) != 0) {
        fprintf(stderr, "instr-export: %s: %s\n", path, invalid);
        profile_free(p);
        return 1;
    }
    for (size_t i = 0; i < regions->n; i++) {
        uint64_t id = json_u64(&regions->items[i], "id", 0);
        if (id >= p->nregion_ids && id < (1u << 28))
            p->nregion_ids = id + 1;
    }
    p->region_name = calloc(p->nregion_ids + 1, sizeof *p->region_name);
    p->parent = malloc((p->tree->n + 1) * sizeof *p->parent);
    if (!p->region_name || !p->parent) {
        profile_free(p);
        return bad(path, "out of memory");
    }
    for (size_t i = 0; i < regions->n; i++) {
        uint64_t id = json_u64(&regions->items[i], "id", UINT64_MAX);
        if (id < p->nregion_ids)
            p->region_name[id] = json_str(&regions->items[i], "name", "?");
    }
    for (size_t i = 0; i < p->tree->n; i++) {
        const json_value *n = &p->tree->items[i], *par = json_get(n, "parent");
        if (!par || par->kind == JSON_NULL) {
            p->parent[i] = -1;
            p->total += json_u64(n, "inclusive", 0);
        } else if (par->kind == JSON_NUMBER && par->is_int && par->u < i) {
            p->parent[i] = (int32_t)par->u;
        } else {
            char what[160];
            snprintf(what, sizeof what, "tree[%zu].parent is not an earlier node (the tree "
                                        "must be in pre-order)", i);
            profile_free(p);
            return bad(path, what);
        }
    }
    return 0;
}

void profile_free(profile *p)
{
    json_free(&p->doc);
    free(p->region_name);
    free(p->parent);
    memset(p, 0, sizeof *p);
}

const char *profile_node_name(const profile *p, size_t i)
{
    uint64_t r = json_u64(&p->tree->items[i], "region", UINT64_MAX);
    return r < p->nregion_ids && p->region_name[r] ? p->region_name[r] : "?";
}

size_t profile_path(const profile *p, size_t i, size_t *out)
{
    size_t n = 0;
    for (int64_t k = (int64_t)i; k >= 0; k = p->parent[k])
        out[n++] = (size_t)k;
    for (size_t a = 0, b = n - 1; a < b; a++, b--) {
        size_t t = out[a];
        out[a] = out[b];
        out[b] = t;
    }
    return n;
}
