/* merged_metrics.c — metrics in a parallel job's profile (merged_metrics.h). */
#include "merged_metrics.h"
#include "../metrics/metrics.h"
#include "../util/pages.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void instr_job_blob_metric_defs(instr_writer *f)
{
    for (uint32_t i = 0; i < instr_metrics_nsync; i++) {
        if (!instr_profile_metric_shown(i))
            continue;
        const instr_metric *m = &instr_metrics_sync[i];
        instr_wr_printf(f, "M %u %u %d ", m->value_type, m->base, m->exponent);
        const char *fields[] = {m->name, m->unit, m->source, m->description};
        instr_job_clean_fields(f, fields, 4);
    }
}

void instr_job_blob_metric_values(instr_writer *f, const instr_pnode *n, uint32_t nm)
{
    if (!nm || !n->m)
        return;
    uint64_t *rows = instr_mem_alloc(INSTR_MROWS * (size_t)nm * sizeof *rows);
    if (!rows)
        return;
    instr_pnode_metrics_rows(n, nm, rows);
    instr_wr_putc(f, 'V');
    for (int r = 0; r < INSTR_MROWS; r++)
        for (uint32_t i = 0; i < nm; i++)
            if (instr_profile_metric_shown(i))
                instr_wr_printf(f, " %" PRIu64, rows[r * nm + i]);
    instr_wr_putc(f, '\n');
    instr_mem_free(rows);
}

void instr_job_metrics_blob_begin(instr_job_metrics *jm)
{
    jm->nmap = 0;
    if (jm->n)
        jm->fixed = 1;
}

int instr_job_metrics_def(instr_job_metrics *jm, const char *line)
{
    unsigned type, base;
    int exponent, used = 0;
    if (sscanf(line, "M %u %u %d %n", &type, &base, &exponent, &used) != 3 || !used ||
        type > INSTR_METRIC_DOUBLE)
        return -1;
    char *fields[4] = {0};
    const char *p = line + used;
    for (int k = 0; k < 4; k++) {
        const char *e = k < 3 ? strchr(p, '\t') : NULL;
        size_t l = e ? (size_t)(e - p) : strlen(p);
        fields[k] = instr_mem_strndup(p, l);
        p = e ? e + 1 : p + l;
    }
    int32_t idx = -1;
    for (uint32_t i = 0; i < jm->n && fields[0]; i++)
        if (strcmp(jm->name[i], fields[0]) == 0)
            idx = (int32_t)i;
    int rc = 0;
    if (idx < 0 && !jm->fixed && fields[0] && fields[1] && fields[2] && fields[3]) {
        uint32_t c = jm->cap;
        if (instr_job_grow(&jm->name, &c, jm->n + 1, sizeof *jm->name) ||
            (c = jm->cap, instr_job_grow(&jm->unit, &c, jm->n + 1, sizeof *jm->unit)) ||
            (c = jm->cap, instr_job_grow(&jm->source, &c, jm->n + 1, sizeof *jm->source)) ||
            (c = jm->cap, instr_job_grow(&jm->description, &c, jm->n + 1, sizeof(char *))) ||
            (c = jm->cap, instr_job_grow(&jm->type, &c, jm->n + 1, sizeof *jm->type)) ||
            (c = jm->cap, instr_job_grow(&jm->base, &c, jm->n + 1, sizeof *jm->base)) ||
            (c = jm->cap, instr_job_grow(&jm->exponent, &c, jm->n + 1, sizeof *jm->exponent))) {
            rc = -1;
        } else {
            jm->cap = c;
            idx = (int32_t)jm->n++;
            jm->name[idx] = fields[0];
            jm->unit[idx] = fields[1];
            jm->source[idx] = fields[2];
            jm->description[idx] = fields[3];
            jm->type[idx] = type;
            jm->base[idx] = base;
            jm->exponent[idx] = exponent;
            fields[0] = fields[1] = fields[2] = fields[3] = NULL;
        }
    }
    for (int k = 0; k < 4; k++)
        instr_mem_free(fields[k]);
    if (rc == 0 && instr_job_grow(&jm->map, &jm->capmap, jm->nmap + 1, sizeof *jm->map) == 0)
        jm->map[jm->nmap++] = idx;
    else
        rc = -1;
    return rc;
}

/* Adds rank rows `from` (job indices) into `to`; first: copy. */
static void combine(const instr_job_metrics *jm, uint64_t *to, const uint64_t *from, int first)
{
    uint32_t n = jm->n;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t t = jm->type[i];
        uint64_t *lo = &to[INSTR_MROW_MIN * n + i], *hi = &to[INSTR_MROW_MAX * n + i];
        for (int r = INSTR_MROW_INCL; r <= INSTR_MROW_EXCL; r++)
            to[r * n + i] = first ? from[r * n + i] : instr_metric_sum(t, to[r * n + i], from[r * n + i]);
        if (first || instr_metric_less(t, from[INSTR_MROW_MIN * n + i], *lo))
            *lo = from[INSTR_MROW_MIN * n + i];
        if (first || instr_metric_less(t, *hi, from[INSTR_MROW_MAX * n + i]))
            *hi = from[INSTR_MROW_MAX * n + i];
    }
}

int instr_job_metrics_values(instr_job_metrics *jm, const char *line, uint64_t **node_m,
                             int node_first, uint64_t **loc_m)
{
    uint32_t n = jm->n;
    if (!n)
        return 0;
    uint64_t *rows = instr_mem_calloc(INSTR_MROWS * (size_t)n, sizeof *rows);
    if (!rows)
        return -1;
    for (uint32_t i = 0; i < n; i++)
        for (int r = 0; r < INSTR_MROWS; r++)
            rows[r * n + i] = instr_metric_zero(jm->type[i]);
    const char *p = line + 1;
    for (int r = 0; r < INSTR_MROWS; r++)
        for (uint32_t k = 0; k < jm->nmap; k++) {
            char *end;
            uint64_t v = strtoull(p, &end, 10);
            if (end == p) {
                instr_mem_free(rows);
                return -1;
            }
            p = end;
            if (jm->map[k] >= 0)
                rows[r * n + (uint32_t)jm->map[k]] = v;
        }
    return instr_job_metrics_add(jm, rows, node_m, node_first, loc_m);
}

int instr_job_metrics_add(instr_job_metrics *jm, uint64_t *rows, uint64_t **node_m,
                          int node_first, uint64_t **loc_m)
{
    int first = !*node_m;
    if (first && !(*node_m = instr_mem_calloc(INSTR_MROWS * (size_t)jm->n, sizeof **node_m))) {
        instr_mem_free(rows);
        return -1;
    }
    combine(jm, *node_m, rows, first || node_first);
    instr_mem_free(*loc_m);
    *loc_m = rows;
    return 0;
}

void instr_job_metrics_json_defs(instr_writer *f, const instr_job_metrics *jm)
{
    static const char *const types[] = {"uint64", "int64", "double"};
    instr_wr_puts(f, "  \"metrics\": [");
    for (uint32_t i = 0; i < jm->n; i++) {
        instr_wr_printf(f, "%s\n    {\"name\": ", i ? "," : "");
        instr_wr_json_str(f, jm->name[i]);
        instr_wr_puts(f, ", \"source\": ");
        instr_wr_json_str(f, jm->source[i]);
        instr_wr_puts(f, ", \"unit\": ");
        instr_wr_json_str(f, jm->unit[i]);
        instr_wr_printf(f, ", \"base\": %u, \"exponent\": %d, \"type\": \"%s\", \"mode\": "
                   "\"accumulated\", \"description\": ",
                jm->base[i], jm->exponent[i], types[jm->type[i]]);
        instr_wr_json_str(f, jm->description[i]);
        instr_wr_putc(f, '}');
    }
    instr_wr_puts(f, jm->n ? "\n  ],\n" : "],\n");
}

void instr_job_metrics_json_rows(instr_writer *f, const instr_job_metrics *jm, const uint64_t *m)
{
    static const char *const rows[INSTR_MROWS] = {"inclusive", "exclusive", "min_inclusive",
                                                  "max_inclusive"};
    if (!jm->n)
        return;
    instr_wr_puts(f, ", \"metrics\": {");
    for (int r = 0; r < INSTR_MROWS; r++) {
        instr_wr_printf(f, "%s\"%s\": [", r ? ", " : "", rows[r]);
        for (uint32_t i = 0; i < jm->n; i++) {
            instr_wr_puts(f, i ? ", " : "");
            instr_metric_fprint(f, jm->type[i],
                                m ? m[r * jm->n + i] : instr_metric_zero(jm->type[i]), 0);
        }
        instr_wr_putc(f, ']');
    }
    instr_wr_putc(f, '}');
}

void instr_job_metrics_free(instr_job_metrics *jm)
{
    for (uint32_t i = 0; i < jm->n; i++) {
        instr_mem_free(jm->name[i]);
        instr_mem_free(jm->unit[i]);
        instr_mem_free(jm->source[i]);
        instr_mem_free(jm->description[i]);
    }
    instr_mem_free(jm->name);
    instr_mem_free(jm->unit);
    instr_mem_free(jm->source);
    instr_mem_free(jm->description);
    instr_mem_free(jm->type);
    instr_mem_free(jm->base);
    instr_mem_free(jm->exponent);
    instr_mem_free(jm->map);
    memset(jm, 0, sizeof *jm);
}
