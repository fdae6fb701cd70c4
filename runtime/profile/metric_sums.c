/* metric_sums.c — the metric values of a call-path node (docs/metrics.md, "profile").
 *
 * A node's m holds, per metric, four words side by side (INSTR_PNODE_M_*): the inclusive sum
 * over its visits, the value at the open visit's enter, and the least and greatest inclusive
 * value of one visit. Side by side, so that the cursor path with metrics (cct_metrics.c)
 * reaches all four of a metric from one address. Exclusive sums are derived when the
 * profile is written (inclusive less the children's inclusive), so an event adds nothing for
 * them. */
#include "profile.h"
#include "../metrics/metrics.h"

#include <string.h>

enum {
    INCL = INSTR_PNODE_M_INCL,
    ENTER = INSTR_PNODE_M_ENTER,
    MIN = INSTR_PNODE_M_MIN,
    MAX = INSTR_PNODE_M_MAX,
    F = INSTR_PNODE_M_FIELDS
};

void instr_pnode_metrics_init(instr_pnode *n, uint64_t *m, uint32_t nm)
{
    n->m = m;
    for (uint32_t i = 0; i < nm; i++) {
        uint64_t zero = instr_metric_zero(instr_metrics_sync[i].value_type);
        m[i * F + INCL] = m[i * F + ENTER] = m[i * F + MIN] = m[i * F + MAX] = zero;
    }
}

void instr_pnode_metrics_enter(const instr_pstate *s, instr_pnode *n)
{
    if (!n->m)
        return;
    for (uint32_t i = 0; i < s->nm; i++)
        n->m[i * F + ENTER] = s->mvals[i];
}

void instr_pnode_metrics_exit(const instr_pstate *s, instr_pnode *n)
{
    if (!n->m)
        return;
    int first = n->s.visits == 0;
    for (uint32_t i = 0; i < s->nm; i++) {
        uint64_t *v = n->m + i * F;
        uint32_t type = instr_metrics_sync[i].value_type;
        uint64_t d = instr_metric_diff(type, s->mvals[i], v[ENTER]);
        v[INCL] = instr_metric_sum(type, v[INCL], d);
        if (first || instr_metric_less(type, d, v[MIN]))
            v[MIN] = d;
        if (first || instr_metric_less(type, v[MAX], d))
            v[MAX] = d;
    }
}

void instr_pnode_metrics_exclusive(const instr_pnode *n, uint32_t nm, uint64_t *out)
{
    for (uint32_t i = 0; i < nm; i++)
        out[i] = n->m ? n->m[i * F + INCL] : 0;
    for (const instr_pnode *c = n->child; c; c = c->sibling)
        for (uint32_t i = 0; c->m && i < nm; i++)
            out[i] = instr_metric_diff(instr_metrics_sync[i].value_type, out[i],
                                       c->m[i * F + INCL]);
}

void instr_pnode_metrics_rows(const instr_pnode *n, uint32_t nm, uint64_t *rows)
{
    for (uint32_t i = 0; i < nm; i++) {
        rows[INSTR_MROW_INCL * nm + i] = n->m[i * F + INCL];
        rows[INSTR_MROW_MIN * nm + i] = n->m[i * F + MIN];
        rows[INSTR_MROW_MAX * nm + i] = n->m[i * F + MAX];
    }
    instr_pnode_metrics_exclusive(n, nm, rows + INSTR_MROW_EXCL * nm);
}

int instr_profile_metric_shown(uint32_t i)
{
    return i < instr_metrics_nsync && instr_metrics_sync[i].mode == INSTR_METRIC_ACCUMULATED;
}
