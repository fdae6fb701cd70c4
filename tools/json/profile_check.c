/* profile_check.c — the one validation of profile.json for the tools (profile_check.h). */
#include "profile_check.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *why, size_t whysize, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, whysize, fmt, ap);
    va_end(ap);
    return -1;
}

static int is_count(const json_value *v) { return v && v->kind == JSON_NUMBER && v->is_int; }

/* The members that are counts where they are present (visits is always present on a node). */
static const char *bad_count(const json_value *obj, int visits_required)
{
    static const char *const keys[] = {"visits", "inclusive", "exclusive", "messages_sent",
                                       "messages_received", "bytes_sent", "bytes_received"};
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        const json_value *v = json_get(obj, keys[k]);
        if ((v || (k == 0 && visits_required)) && !is_count(v))
            return keys[k];
    }
    return NULL;
}

/* Where the parent chain of node i leads when its parent is a later node: back to i (a
 * cycle), or not. */
static int in_cycle(const json_value *tree, size_t i)
{
    size_t k = i;
    for (size_t steps = 0; steps <= tree->n; steps++) {
        const json_value *par = json_get(&tree->items[k], "parent");
        if (!par || !is_count(par) || par->u >= tree->n)
            return 0;
        k = (size_t)par->u;
        if (k == i)
            return 1;
    }
    return 1; /* a cycle further up that does not pass through i */
}

int instr_profile_check(const json_value *doc, char *why, size_t whysize)
{
    const json_value *regions = json_get(doc, "regions"), *tree = json_get(doc, "tree");
    const json_value *flat = json_get(doc, "flat");
    if (!regions || regions->kind != JSON_ARRAY || !tree || tree->kind != JSON_ARRAY)
        return fail(why, whysize, "\"regions\" or \"tree\" is missing or not a list");
    if (flat && flat->kind != JSON_ARRAY)
        return fail(why, whysize, "\"flat\" is not a list");
    /* Region ids are dense (docs/profile-format.md): far beyond their count is not instr's
     * file, and the lookup below stays small. */
    uint64_t limit = 16 * ((uint64_t)regions->n + 16);
    unsigned char *defined = calloc((size_t)limit, 1);
    if (!defined)
        return fail(why, whysize, "out of memory");
    int rc = -1;
    for (size_t i = 0; i < regions->n; i++) {
        const json_value *id = json_get(&regions->items[i], "id");
        if (!is_count(id)) {
            fail(why, whysize, "regions[%zu].id is not a non-negative integer", i);
            goto out;
        }
        if (id->u >= limit) {
            fail(why, whysize, "regions[%zu].id %llu is far beyond the number of regions (%zu)",
                 i, (unsigned long long)id->u, regions->n);
            goto out;
        }
        if (defined[id->u]) {
            fail(why, whysize, "regions[%zu].id %llu is the id of an earlier region too", i,
                 (unsigned long long)id->u);
            goto out;
        }
        defined[id->u] = 1;
    }
    for (size_t i = 0; i < tree->n; i++) {
        const json_value *n = &tree->items[i];
        if (n->kind != JSON_OBJECT) {
            fail(why, whysize, "tree[%zu] is not an object", i);
            goto out;
        }
        const json_value *id = json_get(n, "id"), *region = json_get(n, "region");
        const json_value *par = json_get(n, "parent"), *locs = json_get(n, "locations");
        if (!is_count(id) || id->u != i) {
            fail(why, whysize, "tree[%zu].id is not %zu (a node's id is its index)", i, i);
            goto out;
        }
        if (!is_count(region) || region->u >= limit || !defined[region->u]) {
            if (is_count(region))
                fail(why, whysize, "tree[%zu].region %llu is not the id of a region in "
                                   "\"regions\"", i, (unsigned long long)region->u);
            else
                fail(why, whysize, "tree[%zu].region is not a region id", i);
            goto out;
        }
        if (par && par->kind != JSON_NULL) {
            if (!is_count(par))
                fail(why, whysize, "tree[%zu].parent is neither null nor a node id", i);
            else if (par->u == i)
                fail(why, whysize, "tree[%zu].parent is %zu: the node is its own parent", i, i);
            else if (par->u >= tree->n)
                fail(why, whysize, "tree[%zu].parent %llu is not a node of the tree (%zu nodes)",
                     i, (unsigned long long)par->u, tree->n);
            else if (par->u > i && in_cycle(tree, i))
                fail(why, whysize, "tree[%zu].parent is %llu: the parents form a cycle", i,
                     (unsigned long long)par->u);
            else if (par->u > i)
                fail(why, whysize, "tree[%zu].parent %llu is not an earlier node (the tree must "
                                   "be in pre-order)", i, (unsigned long long)par->u);
            if (par->u >= i || !is_count(par))
                goto out;
        }
        const char *key = bad_count(n, 1);
        if (key) {
            fail(why, whysize, "tree[%zu].%s is not a count (a non-negative integer)", i, key);
            goto out;
        }
        if (locs && locs->kind != JSON_ARRAY) {
            fail(why, whysize, "tree[%zu].locations is not a list", i);
            goto out;
        }
        for (size_t k = 0; locs && k < locs->n; k++) {
            const json_value *l = &locs->items[k];
            if (l->kind != JSON_OBJECT || !is_count(json_get(l, "location"))) {
                fail(why, whysize, "tree[%zu].locations[%zu].location is not a location id", i,
                     k);
                goto out;
            }
            if ((key = bad_count(l, 0)) != NULL) {
                fail(why, whysize, "tree[%zu].locations[%zu].%s is not a count (a non-negative "
                                   "integer)", i, k, key);
                goto out;
            }
        }
    }
    for (size_t i = 0; flat && i < flat->n; i++) {
        const json_value *f = &flat->items[i], *region = json_get(f, "region");
        if (!is_count(region) || region->u >= limit || !defined[region->u]) {
            fail(why, whysize, "flat[%zu].region is not the id of a region in \"regions\"", i);
            goto out;
        }
        const char *key = bad_count(f, 0);
        if (key) {
            fail(why, whysize, "flat[%zu].%s is not a count (a non-negative integer)", i, key);
            goto out;
        }
    }
    rc = 0;
out:
    free(defined);
    return rc;
}
