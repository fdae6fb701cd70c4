/* write_folded.c — profile.folded: "main;solve;kernel <exclusive microseconds>", one line
 * per call path (docs/profile-format.md). A path deeper than the limit
 * (INSTR_FOLDED_MAX_DEPTH) is written as its outermost and innermost frames with one
 * "[N frames folded]" frame between them: written in full, a 20,000-deep recursion would
 * give a file quadratic in the depth. */
#include "profile.h"
#include "../core/registry.h"
#include "../util/array.h"
#include "../util/pages.h"

#include <stdlib.h>
#include <string.h>

/* Appends a region name with ';' and line breaks replaced, so one path stays one line. */
static size_t put_name(char **buf, size_t *cap, size_t len, const char *name)
{
    size_t n = strlen(name);
    if (instr_array_grow(buf, cap, len + n + 2, 1, 256) != 0)
        return (size_t)-1;
    for (size_t i = 0; i < n; i++) {
        char ch = name[i];
        (*buf)[len + i] = ch == ';' ? ':' : (ch == '\n' || ch == '\r') ? ' ' : ch;
    }
    return len + n;
}

uint64_t instr_profile_folded_shortened(const instr_mtree *t, uint32_t max_depth)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < t->n; i++)
        n += t->nodes[i].depth + 1 > max_depth;
    return n;
}

int instr_profile_write_folded(instr_writer *f, const instr_mtree *t, uint32_t max_depth)
{
    size_t cap = 256, *ends = instr_mem_alloc(((size_t)t->n + 1) * sizeof *ends);
    char *buf = instr_mem_alloc(cap);
    if (!buf || !ends) {
        instr_mem_free(buf);
        instr_mem_free(ends);
        return -1;
    }
    /* Frames kept of a shortened path: head outermost, tail innermost, the fold between. */
    uint32_t head = (max_depth - 1) / 2, tail = max_depth - 1 - head;
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
        uint32_t frames = mn->depth + 1;
        if (frames <= max_depth) {
            instr_wr_write(f, buf, len);
        } else {
            size_t from = ends[mn->depth - tail]; /* the ';' before the first tail frame */
            instr_wr_write(f, buf, ends[head - 1]);
            instr_wr_printf(f, ";[%u frames folded]", frames - head - tail);
            instr_wr_write(f, buf + from, len - from);
        }
        instr_wr_printf(f, " %llu\n", (unsigned long long)(instr_profile_ns(mn->s.excl) / 1000u));
    }
    instr_mem_free(buf);
    instr_mem_free(ends);
    return f->err ? -1 : 0;
}
