/* write_text.c — profile.txt of an MPI job: what a person wants at a glance about the whole
 * job. Like a process's profile.txt (../profile/write_text.c), with the rank dimension
 * summarised: values are sums over all ranks' threads, and per call path (and per region in
 * the flat profile) the spread over the ranks, a rank that never took the path counting 0:
 * the least, the mean over the ranks in the profile and the greatest rank's value, with that
 * rank.
 * Not a stable format (profile.json is). Names are escaped (text.h). */
#include "write_text.h"
#include "../profile/profile.h"
#include "../util/text.h"
#include "../util/pages.h"
#include "../util/sort.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define FLAT_TOP 25
#define TREE_MAX_DEPTH 30
#define TREE_MAX_LINES 60
#define TREE_MIN_SHARE 0.005

#define dur instr_profile_dur

/* The spread over the ranks of one value: per rank the sum of its threads' values. */
typedef struct spread {
    uint64_t *per_rank;   /* nmerged, zero between uses */
    unsigned char *taken; /* nmerged: the rank has a value (took the path), clear between uses */
    uint32_t *touched;    /* those ranks, ntouched of them */
    uint32_t ntouched;
} spread;

typedef struct rank_summary {
    uint32_t ranks;  /* ranks that took the path (or region) */
    uint64_t min, max, mean;
    int max_rank;    /* the rank with the greatest value (the lowest one of equals) */
} rank_summary;

static void spread_add(spread *sp, uint32_t rank, uint64_t v)
{
    if (!sp->taken[rank]) {
        sp->taken[rank] = 1;
        sp->touched[sp->ntouched++] = rank;
    }
    sp->per_rank[rank] += v;
}

/* Summarises and clears the spread. Ranks that never took the path count 0 in min and mean. */
static rank_summary spread_take(spread *sp, const instr_job_text *t)
{
    rank_summary r = {sp->ntouched, UINT64_MAX, 0, 0, -1};
    uint64_t sum = 0;
    for (uint32_t i = 0; i < sp->ntouched; i++) {
        uint32_t k = sp->touched[i];
        uint64_t v = sp->per_rank[k];
        sum += v;
        if (v < r.min)
            r.min = v;
        if (r.max_rank < 0 || v > r.max || (v == r.max && t->ranks[k] < r.max_rank)) {
            r.max = v;
            r.max_rank = t->ranks[k];
        }
        sp->per_rank[k] = 0;
        sp->taken[k] = 0;
    }
    if (sp->ntouched < t->nmerged || r.min == UINT64_MAX)
        r.min = 0;
    r.mean = t->nmerged ? sum / t->nmerged : 0;
    sp->ntouched = 0;
    return r;
}

static void put_name(instr_writer *f, const instr_job_text *t, uint32_t region)
{
    instr_wr_escaped(f, region < t->nregions ? t->names[region] : "?");
}

typedef struct work {
    const instr_job_text *t;
    spread sp;
} work;

/* ---- flat profile: per region over all its call paths ---- */

typedef struct flat {
    uint32_t region;
    uint64_t visits, incl, excl;
} flat;

static int by_excl(const void *a, const void *b)
{
    const flat *x = a, *y = b;
    if (x->excl != y->excl)
        return x->excl < y->excl ? 1 : -1;
    return (x->region > y->region) - (x->region < y->region);
}

static int flat_profile(instr_writer *f, work *w)
{
    const instr_job_text *t = w->t;
    flat *fl = instr_mem_calloc(t->nregions ? t->nregions : 1, sizeof *fl);
    if (!fl)
        return -1;
    uint64_t total_excl = 0, total_visits = 0;
    for (uint32_t r = 0; r < t->nregions; r++)
        fl[r].region = r;
    for (uint32_t i = 0; i < t->npaths; i++) {
        const instr_job_text_path *p = &t->paths[i];
        if (p->region >= t->nregions)
            continue;
        flat *x = &fl[p->region];
        x->visits += p->visits;
        x->excl += p->excl;
        int outer = 1; /* inclusive time over the outermost paths of the region only */
        for (int32_t q = p->parent; q >= 0 && outer; q = t->paths[q].parent)
            outer = t->paths[q].region != p->region;
        if (outer)
            x->incl += p->incl;
        total_excl += p->excl;
        total_visits += p->visits;
    }
    uint32_t n = 0;
    for (uint32_t r = 0; r < t->nregions; r++)
        if (fl[r].visits)
            fl[n++] = fl[r];
    instr_sort(fl, n, sizeof *fl, by_excl);
    char b1[24], b2[24], b3[24], b4[24], b5[24], b6[24];
    instr_wr_printf(f, "Flat profile (top %u of %u regions by exclusive time, summed over the ranks; "
               "per rank: its exclusive time)\n\n",
            n < FLAT_TOP ? n : FLAT_TOP, n);
    instr_wr_printf(f, "  %%excl  exclusive  inclusive        visits   per visit |   ranks  min excl  "
               "mean excl   max excl (rank) | region\n");
    for (uint32_t i = 0; i < n && i < FLAT_TOP; i++) {
        const flat *x = &fl[i];
        for (uint32_t k = 0; k < t->npaths; k++) {
            const instr_job_text_path *p = &t->paths[k];
            if (p->region != x->region)
                continue;
            for (uint32_t c = 0; c < p->ncells; c++)
                spread_add(&w->sp, p->cells[c].rank, p->cells[c].excl);
        }
        rank_summary s = spread_take(&w->sp, t);
        instr_wr_printf(f, " %5.1f%% %s %s %13" PRIu64 " %s | %7u %s %s %s %6d | ",
                total_excl ? 100.0 * (double)x->excl / (double)total_excl : 0.0,
                dur(b1, sizeof b1, x->excl), dur(b2, sizeof b2, x->incl), x->visits,
                dur(b3, sizeof b3, x->excl / (x->visits ? x->visits : 1)), s.ranks,
                dur(b4, sizeof b4, s.min), dur(b5, sizeof b5, s.mean), dur(b6, sizeof b6, s.max),
                s.max_rank);
        put_name(f, t, x->region);
        instr_wr_putc(f, '\n');
    }
    instr_wr_printf(f, " ------ ---------\n 100.0%% %s            %13" PRIu64 " visits in total\n\n",
            dur(b1, sizeof b1, total_excl), total_visits);
    instr_mem_free(fl);
    return 0;
}

/* ---- call tree: pre-order, children by inclusive time (descending) ---- */

static const instr_job_text_path *sort_paths;
static int by_incl(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    uint64_t ix = sort_paths[x].incl, iy = sort_paths[y].incl;
    if (ix != iy)
        return ix < iy ? 1 : -1;
    return (x > y) - (x < y);
}

/* The paths in display order into order[], their depths into depth[]. 0, or -1. */
static int display_order(const instr_job_text *t, uint32_t *order, uint32_t *depth)
{
    uint32_t n = t->npaths;
    uint32_t *first = instr_mem_calloc((size_t)n + 1, sizeof *first); /* children of i: kids[first[i]..] */
    uint32_t *kids = instr_mem_alloc(((size_t)n + 1) * sizeof *kids);
    uint32_t *stack = instr_mem_alloc(((size_t)n + 1) * sizeof *stack);
    if (!first || !kids || !stack) {
        instr_mem_free(first);
        instr_mem_free(kids);
        instr_mem_free(stack);
        return -1;
    }
    /* Slot n collects the roots. Counting sort by parent. */
    uint32_t *count = first;
    for (uint32_t i = 0; i < n; i++) {
        int32_t p = t->paths[i].parent;
        count[p < 0 ? n : (uint32_t)p]++;
    }
    uint32_t *start = instr_mem_alloc(((size_t)n + 2) * sizeof *start);
    if (!start) {
        instr_mem_free(first);
        instr_mem_free(kids);
        instr_mem_free(stack);
        return -1;
    }
    start[0] = 0;
    for (uint32_t i = 0; i <= n; i++)
        start[i + 1] = start[i] + count[i];
    memset(count, 0, ((size_t)n + 1) * sizeof *count);
    for (uint32_t i = 0; i < n; i++) {
        int32_t p = t->paths[i].parent;
        uint32_t slot = p < 0 ? n : (uint32_t)p;
        kids[start[slot] + count[slot]++] = i;
    }
    sort_paths = t->paths;
    for (uint32_t i = 0; i <= n; i++)
        instr_sort(kids + start[i], start[i + 1] - start[i], sizeof *kids, by_incl);
    /* Depth-first: push children in reverse so the largest comes out first. */
    uint32_t sp = 0, out = 0;
    for (uint32_t k = start[n + 1]; k > start[n]; k--)
        stack[sp++] = kids[k - 1];
    while (sp) {
        uint32_t i = stack[--sp];
        int32_t p = t->paths[i].parent;
        depth[i] = p < 0 ? 0 : depth[p] + 1;
        order[out++] = i;
        for (uint32_t k = start[i + 1]; k > start[i]; k--)
            stack[sp++] = kids[k - 1];
    }
    instr_mem_free(first);
    instr_mem_free(kids);
    instr_mem_free(stack);
    instr_mem_free(start);
    return 0;
}

static void call_tree(instr_writer *f, work *w, const uint32_t *order, const uint32_t *depth)
{
    const instr_job_text *t = w->t;
    char b1[24], b2[24], b3[24], b4[24], b5[24];
    uint64_t total = 0;
    for (uint32_t i = 0; i < t->npaths; i++)
        if (t->paths[i].parent < 0)
            total += t->paths[i].incl;
    instr_wr_printf(f, "Call tree (inclusive time summed over the ranks; per rank: its inclusive time; "
               "paths below %.1f%% of the total or deeper than %d are folded away)\n\n",
            TREE_MIN_SHARE * 100, TREE_MAX_DEPTH);
    instr_wr_printf(f, "  %%incl  inclusive  exclusive        visits |   ranks  min incl  mean incl   "
               "max incl (rank) | call path\n");
    uint32_t lines = 0, hidden = 0;
    for (uint32_t k = 0; k < t->npaths; k++) {
        const instr_job_text_path *p = &t->paths[order[k]];
        int small = total && (double)p->incl < TREE_MIN_SHARE * (double)total;
        if (small || depth[order[k]] >= TREE_MAX_DEPTH || lines >= TREE_MAX_LINES) {
            hidden++;
            continue;
        }
        lines++;
        for (uint32_t c = 0; c < p->ncells; c++)
            spread_add(&w->sp, p->cells[c].rank, p->cells[c].incl);
        rank_summary s = spread_take(&w->sp, t);
        instr_wr_printf(f, " %5.1f%% %s %s %13" PRIu64 " | %7u %s %s %s %6d | %*s",
                total ? 100.0 * (double)p->incl / (double)total : 0.0,
                dur(b1, sizeof b1, p->incl), dur(b2, sizeof b2, p->excl), p->visits, s.ranks,
                dur(b3, sizeof b3, s.min), dur(b4, sizeof b4, s.mean), dur(b5, sizeof b5, s.max),
                s.max_rank, (int)(2 * depth[order[k]]), "");
        put_name(f, t, p->region);
        instr_wr_putc(f, '\n');
    }
    instr_wr_printf(f, " ------ ---------\n 100.0%% %s  (%u call paths, %u not shown)\n",
            dur(b1, sizeof b1, total), t->npaths, hidden);
}

/* Every call path with messages or collectives, whatever its time: these add up over the
 * job (sent = received), so none is left out. */
static void messages(instr_writer *f, const instr_job_text *t, const uint32_t *order, const uint32_t *depth)
{
    int any = 0;
    for (uint32_t k = 0; k < t->npaths; k++) {
        const instr_job_text_path *p = &t->paths[order[k]];
        if (!(p->messages_sent || p->bytes_sent || p->messages_received || p->bytes_received ||
              p->collectives))
            continue;
        if (!any)
            instr_wr_printf(f, "\nMessages per call path (summed over the ranks: point-to-point "
                       "messages and their bytes, collective operations and theirs; "
                       "docs/mpi.md)\n\n"
                       "   msgs sent    bytes sent   msgs recvd   bytes recvd  collectives | "
                       "call path\n");
        any = 1;
        instr_wr_printf(f, " %11" PRIu64 " %13" PRIu64 " %12" PRIu64 " %13" PRIu64 " %12" PRIu64 " | ",
                p->messages_sent, p->bytes_sent, p->messages_received, p->bytes_received,
                p->collectives);
        /* The whole path, outermost first: a line per path, whatever is folded above. */
        uint32_t d = depth[order[k]];
        for (uint32_t up = d + 1; up-- > 0;) {
            int32_t q = order[k];
            for (uint32_t s = 0; s < up; s++)
                q = t->paths[q].parent;
            put_name(f, t, t->paths[q].region);
            instr_wr_puts(f, up ? " > " : "\n");
        }
    }
}

int instr_job_text_write(instr_writer *f, const instr_job_text *t)
{
    char b1[24];
    work w = {t, {0}};
    uint32_t nr = t->nmerged ? t->nmerged : 1;
    w.sp.per_rank = instr_mem_calloc(nr, sizeof *w.sp.per_rank);
    w.sp.taken = instr_mem_calloc(nr, 1);
    w.sp.touched = instr_mem_calloc(nr, sizeof *w.sp.touched);
    uint32_t *order = instr_mem_alloc(((size_t)t->npaths + 1) * sizeof *order);
    uint32_t *depth = instr_mem_alloc(((size_t)t->npaths + 1) * sizeof *depth);
    int rc = -1;
    if (!w.sp.per_rank || !w.sp.taken || !w.sp.touched || !order || !depth ||
        display_order(t, order, depth) != 0)
        goto out;
    instr_wr_printf(f, "instr profile of an MPI job\n\n");
    instr_wr_puts(f, "  experiment   ");
    instr_wr_escaped(f, t->dir);
    instr_wr_printf(f, "\n  ranks        %d in the job, %u in this profile", t->nranks, t->nmerged);
    if (t->missing && *t->missing)
        instr_wr_printf(f, "; missing: %s (their own files, if any, are in rank-N/)", t->missing);
    instr_wr_printf(f, "\n  threads      %u over the ranks\n", t->threads);
    instr_wr_printf(f, "  regions      %u\n", t->nregions);
    instr_wr_printf(f, "  duration     %s (the longest rank)\n", dur(b1, sizeof b1, t->duration));
    instr_wr_printf(f, "  timer        %s (%.0f Hz)\n", t->timer, t->hz);
    if (t->dropped)
        instr_wr_printf(f, "  WARNING      %" PRIu64 " call paths dropped: INSTR_TOTAL_MEMORY too small\n",
                t->dropped);
    instr_wr_printf(f, "  per rank     instr-export --json profile.jdb --rank N (rank-N/ with "
                       "INSTR_RANK_FILES=1)\n\n");
    if (flat_profile(f, &w) != 0)
        goto out;
    call_tree(f, &w, order, depth);
    messages(f, t, order, depth);
    rc = f->err ? -1 : 0;
out:
    instr_mem_free(w.sp.per_rank);
    instr_mem_free(w.sp.taken);
    instr_mem_free(w.sp.touched);
    instr_mem_free(order);
    instr_mem_free(depth);
    return rc;
}
