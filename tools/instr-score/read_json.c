/* read_json.c — profile.json (docs/profile-format.md) into instr-score's model: visits and
 * times per region from `flat`, trace records per process and the COM type from `tree`. */
#define _GNU_SOURCE /* O_CLOEXEC */
#include "input_file.h"
#include "json.h"
#include "profile_check.h"
#include "score.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A profile.json larger than this is refused rather than read into memory. */
#define MAX_PROFILE_BYTES (4ull << 30)

static char *slurp(const char *path, size_t *len, char *err, size_t errsize)
{
    char why[160];
    uint64_t size;
    int fd = instr_input_open(path, &size, why, sizeof why);
    if (fd < 0) {
        snprintf(err, errsize, "%s: %s", path, why);
        return NULL;
    }
    if (size > MAX_PROFILE_BYTES) {
        snprintf(err, errsize, "%s: not a regular file of at most 4 GiB", path);
        close(fd);
        return NULL;
    }
    struct stat st = {.st_size = (off_t)size};
    char *buf = malloc((size_t)st.st_size + 1);
    size_t got = 0;
    while (buf && got < (size_t)st.st_size) {
        ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    if (!buf || got != (size_t)st.st_size) {
        snprintf(err, errsize, "%s: %s", path, buf ? "could not be read completely" : "out of memory");
        free(buf);
        return NULL;
    }
    buf[got] = '\0';
    *len = got;
    return buf;
}

static double number(const json_value *v)
{
    return v && v->kind == JSON_NUMBER ? (v->is_int ? (double)v->u : v->num) : 0.0;
}

/* What the synchronous metrics add to each event of each location (*out indexed by location
 * id; NULL: no metric): from the
 * `metrics` list's types and the location's totals, the sums over its outermost call
 * paths. */
static int metric_costs(const json_value *doc, const json_value *tree, uint64_t max_lid,
                        score_metric_cost **out, char *err, size_t errsize)
{
    const json_value *ml = json_get(doc, "metrics");
    *out = NULL;
    if (!ml || ml->kind != JSON_ARRAY || !ml->n)
        return 0;
    size_t nm = ml->n;
    uint32_t *types = calloc(nm, sizeof *types);
    double *totals = calloc((max_lid + 1) * nm, sizeof *totals);
    *out = calloc(max_lid + 1, sizeof **out);
    if (!types || !totals || !*out) {
        free(types);
        free(totals);
        free(*out);
        *out = NULL;
        snprintf(err, errsize, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < nm; i++) {
        const char *t = json_str(&ml->items[i], "type", "uint64");
        types[i] = strcmp(t, "double") == 0  ? SCORE_METRIC_DOUBLE
                   : strcmp(t, "int64") == 0 ? SCORE_METRIC_INT64
                                             : SCORE_METRIC_UINT64;
    }
    for (size_t i = 0; i < tree->n; i++) {
        const json_value *n = &tree->items[i], *parent = json_get(n, "parent");
        const json_value *nl = json_get(n, "locations");
        if (parent && parent->kind != JSON_NULL)
            continue;
        for (size_t k = 0; nl && nl->kind == JSON_ARRAY && k < nl->n; k++) {
            uint64_t lid = json_u64(&nl->items[k], "location", 0);
            const json_value *m = json_get(&nl->items[k], "metrics");
            const json_value *incl = m ? json_get(m, "inclusive") : NULL;
            for (size_t j = 0; lid <= max_lid && incl && incl->kind == JSON_ARRAY && j < incl->n && j < nm; j++)
                totals[lid * nm + j] += number(&incl->items[j]);
        }
    }
    for (uint64_t l = 0; l <= max_lid; l++)
        (*out)[l] = score_metric_cost_of(nm, types, &totals[l * nm]);
    free(types);
    free(totals);
    return 0;
}

static int build(score_profile *p, const json_value *doc, char *err, size_t errsize)
{
    const json_value *groups = json_get(doc, "location_groups"), *locs = json_get(doc, "locations");
    const json_value *regions = json_get(doc, "regions"), *tree = json_get(doc, "tree");
    const json_value *flat = json_get(doc, "flat");
    if (!groups || groups->kind != JSON_ARRAY || !locs || locs->kind != JSON_ARRAY || !regions ||
        regions->kind != JSON_ARRAY || !tree || tree->kind != JSON_ARRAY || !flat ||
        flat->kind != JSON_ARRAY) {
        snprintf(err, errsize, "location_groups, locations, regions, tree or flat is missing or "
                               "not a list");
        return -1;
    }
    p->ngroups = groups->n;
    p->nlocations = locs->n;
    p->ncallpaths = tree->n;
    p->nregions = regions->n;
    /* Region ids -> index; location ids -> group index. Ids are small (dense) in both. */
    uint64_t max_rid = 0, max_lid = 0;
    for (size_t i = 0; i < regions->n; i++)
        if (json_u64(&regions->items[i], "id", 0) > max_rid)
            max_rid = json_u64(&regions->items[i], "id", 0);
    for (size_t i = 0; i < locs->n; i++)
        if (json_u64(&locs->items[i], "id", 0) > max_lid)
            max_lid = json_u64(&locs->items[i], "id", 0);
    if (max_rid > 16 * (regions->n + 16) || max_lid > 16 * (locs->n + 16)) {
        snprintf(err, errsize, "region or location ids far beyond their count: not instr's profile.json");
        return -1;
    }
    size_t *ridx = malloc((max_rid + 1) * sizeof *ridx), *lgroup = malloc((max_lid + 1) * sizeof *lgroup);
    int64_t *parents = malloc((tree->n + 1) * sizeof *parents);
    size_t *nregion = malloc((tree->n + 1) * sizeof *nregion);
    score_metric_cost *lcost = NULL;
    p->regions = calloc(p->nregions + 1, sizeof *p->regions);
    p->group_callpaths = calloc(p->ngroups + 1, sizeof *p->group_callpaths);
    int rc = -1;
    if (!ridx || !lgroup || !parents || !nregion || !p->regions || !p->group_callpaths) {
        snprintf(err, errsize, "out of memory");
        goto out;
    }
    for (uint64_t i = 0; i <= max_rid; i++)
        ridx[i] = SIZE_MAX;
    for (uint64_t i = 0; i <= max_lid; i++)
        lgroup[i] = 0;
    for (size_t i = 0; i < locs->n; i++) {
        uint64_t gid = json_u64(&locs->items[i], "group", 0);
        size_t g = 0;
        while (g < groups->n && json_u64(&groups->items[g], "id", UINT64_MAX) != gid)
            g++;
        lgroup[json_u64(&locs->items[i], "id", 0)] = g < groups->n ? g : 0;
    }
    for (size_t i = 0; i < regions->n; i++) {
        const json_value *r = &regions->items[i];
        score_region *sr = &p->regions[i];
        ridx[json_u64(r, "id", 0)] = i;
        if (score_region_init(sr, json_str(r, "name", ""), json_str(r, "mangled", ""),
                              json_str(r, "file", ""), json_str(r, "source", ""), p->ngroups) != 0) {
            snprintf(err, errsize, "out of memory");
            goto out;
        }
        const json_value *th = json_get(r, "throttled");
        if (th && th->kind == JSON_OBJECT)
            sr->throttled_visit = json_u64(th, "visit", 0);
    }
    for (size_t i = 0; i < flat->n; i++) {
        uint64_t id = json_u64(&flat->items[i], "region", 0);
        if (id > max_rid || ridx[id] == SIZE_MAX)
            continue;
        score_region *sr = &p->regions[ridx[id]];
        sr->visits = json_u64(&flat->items[i], "visits", 0);
        sr->incl_ns = json_u64(&flat->items[i], "inclusive", 0);
        sr->excl_ns = json_u64(&flat->items[i], "exclusive", 0);
        p->total_excl_ns += sr->excl_ns;
    }
    if (metric_costs(doc, tree, max_lid, &lcost, err, errsize) != 0)
        goto out;
    /* Records per process. */
    for (size_t i = 0; i < tree->n; i++) {
        const json_value *n = &tree->items[i];
        uint64_t id = json_u64(n, "region", 0);
        if (id > max_rid || ridx[id] == SIZE_MAX || json_u64(n, "id", UINT64_MAX) != i) {
            snprintf(err, errsize, "tree node %zu: bad id or region", i);
            goto out;
        }
        const json_value *nl = json_get(n, "locations");
        for (size_t k = 0; nl && nl->kind == JSON_ARRAY && k < nl->n; k++) {
            uint64_t lid = json_u64(&nl->items[k], "location", 0);
            size_t g = lid <= max_lid ? lgroup[lid] : 0;
            const json_value *l = &nl->items[k];
            score_add_node(&p->regions[ridx[id]], g, json_u64(l, "visits", 0),
                           json_u64(l, "messages_sent", 0), json_u64(l, "messages_received", 0),
                           lcost && lid <= max_lid ? &lcost[lid] : NULL);
            p->group_callpaths[g]++;
        }
    }
    for (size_t i = 0; i < tree->n; i++) {
        const json_value *parent = json_get(&tree->items[i], "parent");
        parents[i] = parent && parent->kind == JSON_NUMBER && parent->is_int && parent->u < i
                         ? (int64_t)parent->u : -1;
        nregion[i] = ridx[json_u64(&tree->items[i], "region", 0)];
    }
    score_finish(p, parents, nregion, tree->n);
    rc = 0;
out:
    free(ridx);
    free(lgroup);
    free(parents);
    free(nregion);
    free(lcost);
    return rc;
}

int score_read_json(const char *dir, score_profile *p, char *err, size_t errsize)
{
    memset(p, 0, sizeof *p);
    char path[4096];
    snprintf(path, sizeof path, "%s/profile.json", dir);
    snprintf(p->source, sizeof p->source, "profile.json");
    size_t len = 0;
    char *text = slurp(path, &len, err, errsize);
    if (!text)
        return -1;
    json_value doc;
    json_error jerr;
    int rc = -1;
    if (json_parse(text, len, &doc, &jerr) != 0) {
        snprintf(err, errsize, "%s: not valid JSON (line %zu, column %zu: %s); the file is damaged "
                               "or was cut short", path, jerr.line, jerr.column, jerr.what);
    } else if (doc.kind != JSON_OBJECT || strcmp(json_str(&doc, "format", ""), "instr-profile") != 0 ||
               json_u64(&doc, "version", 0) < 1 || json_u64(&doc, "version", 0) > 2) {
        /* version 2 adds the metrics (docs/profile-format.md); what is read here is in both */
        snprintf(err, errsize, "%s: not an instr profile of version 1 or 2 (\"format\": "
                               "\"instr-profile\", \"version\": 2)", path);
        json_free(&doc);
    } else {
        char why[256];
        /* the same validation as instr-export's (profile_check.h), and its message */
        rc = instr_profile_check(&doc, why, sizeof why);
        if (rc == 0)
            rc = build(p, &doc, why, sizeof why);
        if (rc != 0) {
            snprintf(err, errsize, "%s: %s", path, why);
            score_free(p); /* what build had filled in */
        }
        json_free(&doc);
    }
    free(text);
    return rc;
}

void score_free(score_profile *p)
{
    for (size_t i = 0; p->regions && i < p->nregions; i++) {
        free(p->regions[i].name);
        free(p->regions[i].mangled);
        free(p->regions[i].file);
        free(p->regions[i].source);
        free(p->regions[i].group_bytes);
        free(p->regions[i].group_buffer);
    }
    free(p->regions);
    free(p->group_callpaths);
    memset(p, 0, sizeof *p);
}
