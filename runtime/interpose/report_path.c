/* report_path.c — instr_interpose_put_path (report_path.h). */
#include "report_path.h"
#include "../core/registry.h"
#include "../util/text.h"

void instr_interpose_put_path(instr_writer *f, const instr_mtree *t, uint32_t i)
{
    if (i == UINT32_MAX) {
        instr_wr_puts(f, "(outside any region)\n");
        return;
    }
    uint32_t path[64], n = 0, depth = t->nodes[i].depth;
    for (int32_t k = (int32_t)i; k >= 0 && n < 64; k = t->nodes[k].parent)
        path[n++] = (uint32_t)k;
    if (depth + 1 > n)
        instr_wr_puts(f, "... > ");
    while (n-- > 0) {
        const instr_region_info *ri = instr_registry_get(t->nodes[path[n]].region);
        instr_wr_escaped(f, ri ? ri->name : "?");
        instr_wr_puts(f, n ? " > " : "\n");
    }
}
