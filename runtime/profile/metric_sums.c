/* metric_sums.c — the metric values of a call-path node (docs/metrics.md, "profile").
 *
 * A node's m holds rows of nm values (INSTR_PNODE_M_*): the inclusive sums over its visits,
 * the values at the open visit's enter, the least and greatest inclusive value of one visit,
 * and room for the values at its exit (the cursor path with metrics reads them there). The enter row is whole, so that a plugin's get_current_values can fill it in
 * one call on the cursor path with metrics (cct_metrics.c). Exclusive sums are derived when
 * the profile is written (inclusive less the children's inclusive), so an event adds nothing
 * for them. */
#include "profile.h"
#include "../metrics/metrics.h"

#include <string.h>

enum {
    INCL = INSTR_PNODE_M_INCL,
    ENTER = INSTR_PNODE_M_ENTER,
    MIN = INSTR_PNODE_M_MIN,
    MAX = INSTR_PNODE_M_MAX
};

static uint64_t *row(const instr_pnode *n, uint32_t nm, int which) { return n->m + which * nm; }

void instr_pnode_metrics_init(instr_pnode *n, uint64_t *m, uint32_t nm)
{
    n->m = m;
    for (uint32_t i = 0; i < nm; i++) {
        uint64_t zero = instr_metric_zero(instr_metrics_sync[i].value_type);
        m[INCL * nm + i] = m[ENTER * nm + i] = m[MIN * nm + i] = m[MAX * nm + i] = zero;
    }
}

void instr_pnode_metrics_enter(const instr_pstate *s, instr_pnode *n)
{
    if (n->m)
        memcpy(row(n, s->nm, ENTER), s->mvals, s->nm * sizeof *s->mvals);
}

void instr_pnode_metrics_exit(const instr_pstate *s, instr_pnode *n)
{
    instr_pnode_metrics_exit_at(n, s->nm, s->mvals);
}

void instr_pnode_metrics_exit_at(instr_pnode *n, uint32_t nm, const uint64_t *now)
{
    if (!n->m)
        return;
    uint64_t *incl = row(n, nm, INCL), *enter = row(n, nm, ENTER);
    uint64_t *lo = row(n, nm, MIN), *hi = row(n, nm, MAX);
    int first = n->s.visits == 0;
    for (uint32_t i = 0; i < nm; i++) {
        uint32_t type = instr_metrics_sync[i].value_type;
        uint64_t d = instr_metric_diff(type, now[i], enter[i]);
        incl[i] = instr_metric_sum(type, incl[i], d);
        if (first || instr_metric_less(type, d, lo[i]))
            lo[i] = d;
        if (first || instr_metric_less(type, hi[i], d))
            hi[i] = d;
    }
}

void instr_pnode_metrics_exclusive(const instr_pnode *n, uint32_t nm, uint64_t *out)
{
    for (uint32_t i = 0; i < nm; i++)
        out[i] = n->m ? n->m[INCL * nm + i] : 0;
    for (const instr_pnode *c = n->child; c; c = c->sibling)
        for (uint32_t i = 0; c->m && i < nm; i++)
            out[i] = instr_metric_diff(instr_metrics_sync[i].value_type, out[i],
                                       c->m[INCL * nm + i]);
}

void instr_pnode_metrics_rows(const instr_pnode *n, uint32_t nm, uint64_t *rows)
{
    memcpy(rows + INSTR_MROW_INCL * nm, row(n, nm, INCL), nm * sizeof *rows);
    memcpy(rows + INSTR_MROW_MIN * nm, row(n, nm, MIN), nm * sizeof *rows);
    memcpy(rows + INSTR_MROW_MAX * nm, row(n, nm, MAX), nm * sizeof *rows);
    instr_pnode_metrics_exclusive(n, nm, rows + INSTR_MROW_EXCL * nm);
}

int instr_profile_metric_shown(uint32_t i)
{
    return i < instr_metrics_nsync && instr_metrics_sync[i].mode == INSTR_METRIC_ACCUMULATED;
}
