/* write_folded.c — profile.folded: "main;solve;kernel <exclusive microseconds>", one line
 * per call path (docs/profile-format.md). */
#include "profile.h"
#include "../core/registry.h"

#include <stdlib.h>
#include <string.h>

/* Appends a region name with ';' and line breaks replaced, so one path stays one line. */
static size_t put_name(char **buf, size_t *cap, size_t len, const char *name)
{
    size_t n = strlen(name);
    if (len + n + 2 > *cap) {
        size_t c = 2 * (len + n + 2);
        char *b = realloc(*buf, c);
        if (!b)
            return (size_t)-1;
        *buf = b;
        *cap = c;
    }
    for (size_t i = 0; i < n; i++) {
        char ch = name[i];
        (*buf)[len + i] = ch == ';' ? ':' : (ch == '\n' || ch == '\r') ? ' ' : ch;
    }
    return len + n;
}

int instr_profile_write_folded(FILE *f, const instr_mtree *t)
{
    size_t cap = 256, *ends = malloc(((size_t)t->n + 1) * sizeof *ends);
    char *buf = malloc(cap);
    if (!buf || !ends) {
        free(buf);
        free(ends);
        return -1;
    }
    /* ends[d]: length of the path string up to and including depth d. Pre-order means a
     * node's parent path is ends[depth - 1]. */
    for (uint32_t i = 0; i < t->n; i++) {
        const instr_mnode *mn = &t->nodes[i];
        size_t len = mn->depth ? ends[mn->depth - 1] : 0;
        if (mn->depth)
            buf[len++] = ';';
        const instr_region_info *r = instr_registry_get(mn->region);
        len = put_name(&buf, &cap, len, r ? r->name : "?");
        if (len == (size_t)-1)
            break;
        ends[mn->depth] = len;
        fwrite(buf, 1, len, f);
        fprintf(f, " %llu\n", (unsigned long long)(instr_profile_ns(mn->s.excl) / 1000u));
    }
    free(buf);
    free(ends);
    return ferror(f) ? -1 : 0;
}
