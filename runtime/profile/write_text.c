/* write_text.c — profile.txt: what a person wants at a glance. A header, the flat profile
 * sorted by exclusive time with the spread over threads, and the top of the call tree.
 * Not a stable format (profile.json is). Names and paths are escaped (text.h): a region name
 * never reaches the terminal as a control sequence. */
#include "profile.h"
#include "../core/clock.h"
#include "../core/config.h"
#include "../util/text.h"
#include "../core/registry.h"
#include "../core/log.h"
#include "../metrics/metrics.h"
#include "../throttle/throttle.h"
#include "../util/pages.h"
#include "../util/sort.h"

#include <stdlib.h>
#include <string.h>

#define FLAT_TOP 25
#define TREE_MAX_DEPTH 30
#define TREE_MAX_LINES 60
#define TREE_MIN_SHARE 0.005

#define dur instr_profile_dur

const char *instr_profile_dur(char *buf, size_t size, uint64_t ns)
{
    if (ns >= 1000000000u)
        snprintf(buf, size, "%7.3f s", (double)ns / 1e9);
    else if (ns >= 1000000u)
        snprintf(buf, size, "%6.2f ms", (double)ns / 1e6);
    else if (ns >= 1000u)
        snprintf(buf, size, "%6.2f us", (double)ns / 1e3);
    else
        snprintf(buf, size, "%6llu ns", (unsigned long long)ns);
    return buf;
}

/* The region's name, escaped, and the end of the line. */
static void put_rname(instr_writer *f, uint32_t region)
{
    const instr_region_info *r = instr_registry_get(region);
    instr_wr_escaped(f, r ? r->name : "?");
    instr_throttle_mark mark;
    if (instr_throttle_mark_of(region, &mark))
        instr_wr_printf(f, "  [throttled at visit %llu]", (unsigned long long)mark.visit);
    instr_wr_putc(f, '\n');
}

static const instr_mtree *sort_tree;
static int by_excl(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    uint64_t ex = sort_tree->flat[x].excl, ey = sort_tree->flat[y].excl;
    if (ex != ey)
        return ex < ey ? 1 : -1;
    return x < y ? -1 : x > y;
}

static void flat_profile(instr_writer *f, const instr_run *run, const instr_mtree *t)
{
    uint32_t n = 0;
    uint32_t *order = instr_mem_alloc(((size_t)t->nregions + 1) * sizeof *order);
    uint64_t *perloc = instr_mem_calloc(run->nlocations ? run->nlocations : 1, sizeof *perloc);
    unsigned char *ran = instr_mem_calloc(run->nlocations ? run->nlocations : 1, 1);
    if (!order || !perloc || !ran) {
        instr_mem_free(order);
        instr_mem_free(perloc);
        instr_mem_free(ran);
        return;
    }
    uint64_t total_excl = 0, total_visits = 0;
    for (uint32_t h = 1; h <= t->nregions; h++)
        if (t->flat[h].visits) {
            order[n++] = h;
            total_excl += t->flat[h].excl;
            total_visits += t->flat[h].visits;
        }
    sort_tree = t;
    instr_sort(order, n, sizeof *order, by_excl);
    char b1[24], b2[24], b3[24], b4[24], b5[24], b6[24];
    instr_wr_printf(f, "Flat profile (top %u of %u regions by exclusive time)\n\n", n < FLAT_TOP ? n : FLAT_TOP, n);
    instr_wr_printf(f, "  %%excl  exclusive  inclusive        visits   per visit | threads  "
               "min excl  mean excl   max excl | region\n");
    for (uint32_t i = 0; i < n && i < FLAT_TOP; i++) {
        uint32_t h = order[i];
        const instr_flat *fl = &t->flat[h];
        /* Spread over threads: exclusive time of this region per location that ran it. */
        memset(perloc, 0, run->nlocations * sizeof *perloc);
        memset(ran, 0, run->nlocations);
        for (uint32_t k = 0; k < t->n; k++) {
            if (t->nodes[k].region != h)
                continue;
            for (uint32_t l = 0; l < t->nodes[k].nlocs; l++) {
                uint32_t loc = t->nodes[k].locs[l].location;
                if (loc < run->nlocations) {
                    perloc[loc] += t->nodes[k].locs[l].s.excl;
                    ran[loc] = 1;
                }
            }
        }
        uint64_t mn = UINT64_MAX, mx = 0, sum = 0;
        uint32_t threads = 0;
        for (uint32_t l = 0; l < run->nlocations; l++) {
            if (!ran[l])
                continue;
            threads++;
            sum += perloc[l];
            if (perloc[l] < mn) mn = perloc[l];
            if (perloc[l] > mx) mx = perloc[l];
        }
        if (!threads)
            mn = 0;
        uint64_t excl = instr_profile_ns(fl->excl);
        instr_wr_printf(f, " %5.1f%% %s %s %13llu %s | %7u %s %s %s | ",
                total_excl ? 100.0 * (double)fl->excl / (double)total_excl : 0.0,
                dur(b1, sizeof b1, excl), dur(b2, sizeof b2, instr_profile_ns(fl->incl)),
                (unsigned long long)fl->visits, dur(b3, sizeof b3, excl / (fl->visits ? fl->visits : 1)),
                threads, dur(b4, sizeof b4, instr_profile_ns(mn)),
                dur(b5, sizeof b5, instr_profile_ns(threads ? sum / threads : 0)),
                dur(b6, sizeof b6, instr_profile_ns(mx)));
        put_rname(f, h);
    }
    instr_wr_printf(f, " ------ ---------\n 100.0%% %s            %13llu visits in total\n\n",
            dur(b1, sizeof b1, instr_profile_ns(total_excl)), (unsigned long long)total_visits);
    instr_mem_free(order);
    instr_mem_free(perloc);
    instr_mem_free(ran);
}

static void call_tree(instr_writer *f, const instr_mtree *t)
{
    char b1[24], b2[24];
    uint64_t total = t->total_incl;
    instr_wr_printf(f, "Call tree (inclusive time; paths below %.1f%% of the total or deeper than %d "
               "are folded away)\n\n", TREE_MIN_SHARE * 100, TREE_MAX_DEPTH);
    instr_wr_printf(f, "  %%incl  inclusive  exclusive        visits | call path\n");
    uint32_t lines = 0, hidden = 0;
    for (uint32_t i = 0; i < t->n; i++) {
        const instr_mnode *mn = &t->nodes[i];
        int small = total && (double)mn->s.incl < TREE_MIN_SHARE * (double)total;
        if (small || mn->depth >= TREE_MAX_DEPTH || lines >= TREE_MAX_LINES) {
            hidden++;
            continue;
        }
        /* A shown node's parent is shown too: parents have at least the child's inclusive
         * time and a smaller depth, and nodes come in pre-order. */
        lines++;
        instr_wr_printf(f, " %5.1f%% %s %s %13llu | %*s",
                total ? 100.0 * (double)mn->s.incl / (double)total : 0.0,
                dur(b1, sizeof b1, instr_profile_ns(mn->s.incl)),
                dur(b2, sizeof b2, instr_profile_ns(mn->s.excl)),
                (unsigned long long)mn->s.visits, (int)(2 * mn->depth), "");
        put_rname(f, mn->region);
    }
    instr_wr_printf(f, " ------ ---------\n 100.0%% %s  (%u call paths, %u not shown)\n",
            dur(b1, sizeof b1, instr_profile_ns(total)), t->n, hidden);
}

static void pick_column(void *arg, const char *name)
{
    unsigned char *shown = arg;
    for (uint32_t i = 0; i < instr_metrics_nsync; i++)
        if (instr_profile_metric_shown(i) && strcmp(instr_metrics_sync[i].name, name) == 0) {
            shown[i] = 1;
            return;
        }
    char q[INSTR_QUOTE_SIZE];
    instr_warn("INSTR_PROFILE_METRIC_COLUMNS: %s is not a metric of this run's profile "
               "(profile.json lists them under \"metrics\"): no column for it",
               instr_quote(q, name));
}

/* The call tree's shown paths again, with inclusive and exclusive values of the metrics that
 * INSTR_PROFILE_METRIC_COLUMNS selects (all by default). */
static void metric_tree(instr_writer *f, const instr_mtree *t)
{
    unsigned char *shown = instr_mem_calloc(t->nm, 1);
    if (!shown)
        return;
    const char *cols = instr_env("INSTR_PROFILE_METRIC_COLUMNS");
    if (cols && *cols)
        instr_metrics_each_item(cols, pick_column, shown);
    else
        for (uint32_t i = 0; i < t->nm; i++)
            shown[i] = (unsigned char)instr_profile_metric_shown(i);
    instr_wr_puts(f, "\nMetrics per call path (the paths shown above; per metric inclusive, then "
          "exclusive; units in profile.json)\n\n ");
    for (uint32_t i = 0; i < t->nm; i++) {
        if (!shown[i])
            continue;
        instr_wr_printf(f, " %14.14s %14s", instr_metrics_sync[i].name, "excl");
    }
    instr_wr_puts(f, " | call path\n");
    uint64_t total = t->total_incl;
    uint32_t lines = 0;
    for (uint32_t i = 0; i < t->n; i++) {
        const instr_mnode *mn = &t->nodes[i];
        int small = total && (double)mn->s.incl < TREE_MIN_SHARE * (double)total;
        if (small || mn->depth >= TREE_MAX_DEPTH || lines >= TREE_MAX_LINES)
            continue;
        lines++;
        instr_wr_putc(f, ' ');
        for (uint32_t k = 0; k < t->nm; k++) {
            if (!shown[k])
                continue;
            uint32_t type = instr_metrics_sync[k].value_type;
            instr_wr_putc(f, ' ');
            instr_metric_fprint(f, type, mn->m ? mn->m[INSTR_MROW_INCL * t->nm + k] : 0, 14);
            instr_wr_putc(f, ' ');
            instr_metric_fprint(f, type, mn->m ? mn->m[INSTR_MROW_EXCL * t->nm + k] : 0, 14);
        }
        instr_wr_printf(f, " | %*s", (int)(2 * mn->depth), "");
        put_rname(f, mn->region);
    }
    instr_mem_free(shown);
}

int instr_profile_write_text(instr_writer *f, const instr_run *run, const instr_mtree *t)
{
    char b1[24];
    instr_wr_printf(f, "instr profile\n\n");
    instr_wr_puts(f, "  experiment   ");
    instr_wr_escaped(f, run->dir);
    instr_wr_putc(f, '\n');
    instr_wr_printf(f, "  process      %d%s", run->pid, run->fork_of ? "" : "\n");
    if (run->fork_of)
        instr_wr_printf(f, " (forked from %d)\n", run->fork_of);
    instr_wr_printf(f, "  duration     %s\n",
            dur(b1, sizeof b1, instr_clock_to_ns(run->t_end - run->t_start)));
    instr_wr_printf(f, "  threads      %u\n", run->nlocations);
    instr_wr_printf(f, "  regions      %u\n", instr_registry_count());
    instr_wr_printf(f, "  timer        %s (%.0f Hz)\n", instr_clock_name(), instr_clock_hz());
    if (t->dropped)
        instr_wr_printf(f, "  WARNING      %llu call paths dropped: INSTR_TOTAL_MEMORY too small\n",
                (unsigned long long)t->dropped);
    if (run->closed_at_end)
        instr_wr_printf(f, "  note         %llu regions were still open at the end and closed then\n",
                (unsigned long long)run->closed_at_end);
    uint64_t shortened = instr_profile_folded_shortened(t, instr_cfg.folded_max_depth);
    if (shortened)
        instr_wr_printf(f, "  note         %llu call paths deeper than %u frames are shortened in "
                   "profile.folded (INSTR_FOLDED_MAX_DEPTH)\n",
                (unsigned long long)shortened, instr_cfg.folded_max_depth);
    instr_wr_putc(f, '\n');
    flat_profile(f, run, t);
    call_tree(f, t);
    if (t->nm)
        metric_tree(f, t);
    const instr_profile_memory *m = instr_profile_memory_of();
    if (m)
        m->text(f, run, t);
    const instr_profile_io *io = instr_profile_io_of();
    if (io)
        io->text(f, run, t);
    return f->err ? -1 : 0;
}
