/* read_json.c — profile.json (docs/profile-format.md) into instr-score's model: visits and
 * times per region from `flat`, trace records per process and the COM type from `tree`. */
#define _GNU_SOURCE /* O_CLOEXEC, strdup */
#include "json.h"
#include "score.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* A profile.json larger than this is refused rather than read into memory. */
#define MAX_PROFILE_BYTES (4ull << 30)

static char *slurp(const char *path, size_t *len, char *err, size_t errsize)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd < 0) {
        snprintf(err, errsize, "%s: %s", path, strerror(errno));
        return NULL;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > MAX_PROFILE_BYTES) {
        snprintf(err, errsize, "%s: not a regular file of at most 4 GiB", path);
        close(fd);
        return NULL;
    }
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

static char *dup_or_empty(const char *s) { return strdup(s ? s : ""); }

/* MPI records besides enter and exit, per visit and per message (see score.h). */
static int mpi_collective(const char *name)
{
    static const char *const names[] = {
        "Barrier", "Bcast", "Reduce", "Allreduce", "Gather", "Gatherv", "Allgather",
        "Allgatherv", "Scatter", "Scatterv", "Alltoall", "Alltoallv", "Alltoallw", "Scan",
        "Exscan", "Reduce_scatter", "Reduce_scatter_block"};
    if (strncmp(name, "MPI_", 4) != 0)
        return 0;
    name += 4;
    if (name[0] == 'I' && name[1] >= 'a' && name[1] <= 'z') /* MPI_Ibcast, MPI_Iallreduce */
        name++;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcasecmp(name, names[i]) == 0)
            return 1;
    return 0;
}

static uint64_t node_bytes(const score_region *r, const json_value *loc)
{
    uint64_t visits = json_u64(loc, "visits", 0);
    uint64_t bytes = 2 * visits * SCORE_BYTES_PER_EVENT;
    if (r->type != SCORE_MPI)
        return bytes;
    uint64_t sent = json_u64(loc, "messages_sent", 0), recv = json_u64(loc, "messages_received", 0);
    int nonblocking_send = strncmp(r->name, "MPI_I", 5) == 0;
    int completion = strncmp(r->name, "MPI_Wait", 8) == 0 || strncmp(r->name, "MPI_Test", 8) == 0;
    uint64_t records = (nonblocking_send ? 2 : 1) * sent + (completion ? 2 : 1) * recv;
    if (mpi_collective(r->name))
        records += 2 * visits;
    return bytes + records * SCORE_BYTES_PER_MPI_RECORD;
}

static int is_parallel(const score_region *r) { return r->type == SCORE_MPI || r->type == SCORE_OMP; }

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
    uint8_t *leads = calloc(tree->n + 1, 1);
    p->regions = calloc(p->nregions + 1, sizeof *p->regions);
    p->group_callpaths = calloc(p->ngroups + 1, sizeof *p->group_callpaths);
    int rc = -1;
    if (!ridx || !lgroup || !leads || !p->regions || !p->group_callpaths) {
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
        sr->name = dup_or_empty(json_str(r, "name", ""));
        sr->mangled = dup_or_empty(json_str(r, "mangled", ""));
        sr->file = dup_or_empty(json_str(r, "file", ""));
        sr->source = dup_or_empty(json_str(r, "source", ""));
        sr->group_bytes = calloc(p->ngroups + 1, sizeof *sr->group_bytes);
        if (!sr->name || !sr->mangled || !sr->file || !sr->source || !sr->group_bytes) {
            snprintf(err, errsize, "out of memory");
            goto out;
        }
        sr->type = strcmp(sr->source, "mpi") == 0      ? SCORE_MPI
                   : strcmp(sr->source, "openmp") == 0 ? SCORE_OMP
                                                       : SCORE_USR;
        sr->is_main = strcmp(sr->name, "main") == 0;
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
    /* Records per process, and which call paths lead to MPI or OpenMP: children come after
     * their parents, so a walk backwards sees a node's whole subtree before the node. */
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
            p->regions[ridx[id]].group_bytes[g] += node_bytes(&p->regions[ridx[id]], &nl->items[k]);
            p->group_callpaths[g]++;
        }
    }
    for (size_t i = 0; i < p->nregions; i++)
        for (size_t g = 0; g < p->ngroups; g++)
            if (p->regions[i].group_bytes[g] > p->regions[i].max_buf)
                p->regions[i].max_buf = p->regions[i].group_bytes[g];
    for (size_t i = tree->n; i-- > 0;) {
        const json_value *n = &tree->items[i];
        score_region *sr = &p->regions[ridx[json_u64(n, "region", 0)]];
        const json_value *parent = json_get(n, "parent");
        if (is_parallel(sr))
            leads[i] = 1;
        else if (leads[i])
            sr->type = SCORE_COM;
        if (leads[i] && parent && parent->kind == JSON_NUMBER && parent->u < i)
            leads[parent->u] = 1;
    }
    rc = 0;
out:
    free(ridx);
    free(lgroup);
    free(leads);
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
    char jerr[256];
    int rc = -1;
    if (json_parse(text, len, &doc, jerr, sizeof jerr) != 0) {
        snprintf(err, errsize, "%s: not valid JSON (%s); the file is damaged or was cut short",
                 path, jerr);
    } else if (doc.kind != JSON_OBJECT || strcmp(json_str(&doc, "format", ""), "instr-profile") != 0 ||
               json_u64(&doc, "version", 0) < 1 || json_u64(&doc, "version", 0) > 2) {
        /* version 2 adds the metrics (docs/profile-format.md); what is read here is in both */
        snprintf(err, errsize, "%s: not an instr profile of version 1 or 2 (\"format\": "
                               "\"instr-profile\", \"version\": 2)", path);
        json_free(&doc);
    } else {
        char why[256];
        rc = build(p, &doc, why, sizeof why);
        if (rc != 0)
            snprintf(err, errsize, "%s: %s", path, why);
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
    }
    free(p->regions);
    free(p->group_callpaths);
    memset(p, 0, sizeof *p);
}
