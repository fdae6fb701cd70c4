/* io_report.c — I/O recording's sections of profile.txt and profile.json (docs/io.md,
 * docs/profile-format.md): the recorder's figures per thread's node summed over the merged
 * tree's call paths, per paradigm; per file; per function. Written after the end of
 * measurement, when nothing is recorded any more. */
#include "io.h"
#include "report_path.h"
#include "../core/clock.h"
#include "../core/registry.h"
#include "../profile/profile.h"
#include "../util/json_str.h"
#include "../util/pages.h"
#include "../util/sort.h"
#include "../util/text.h"

#include <string.h>

#define TEXT_TOP 25
#define NONE UINT32_MAX
#define NP INSTR_IO_NPARADIGMS

static const char *const paradigm_name[NP] = {"posix", "stdio", "mpiio"};

/* A row: a call path (merged node or NONE) or a file, with one paradigm's figures. */
typedef struct row {
    uint32_t id;
    int paradigm;
    instr_iorec_counts c;
} row;

typedef struct report {
    const instr_mtree *t;
    instr_iorec_counts *paths; /* per merged node and paradigm: [i * NP + p] */
    instr_iorec_counts outside[NP];
    instr_iorec_counts total[NP];
} report;

static void add(instr_iorec_counts *to, const instr_iorec_counts *c)
{
    to->ops += c->ops;
    to->failed += c->failed;
    to->bytes_read += c->bytes_read;
    to->bytes_written += c->bytes_written;
    to->ticks += c->ticks;
}

static instr_iorec_thread *thread_of(uint32_t location)
{
    for (instr_iorec_thread *th = instr_iorec_threads(); th; th = th->next)
        if (th->loc && th->loc->id == location)
            return th;
    return NULL;
}

static void report_free(report *r)
{
    instr_mem_free(r->paths);
}

static int report_build(report *r, const instr_mtree *t)
{
    memset(r, 0, sizeof *r);
    r->t = t;
    r->paths = instr_mem_calloc((size_t)(t->n + 1) * NP, sizeof *r->paths);
    if (!r->paths)
        return -1;
    for (uint32_t i = 0; i < t->n; i++) {
        const instr_mnode *mn = &t->nodes[i];
        for (uint32_t k = 0; k < mn->nlocs; k++) {
            const instr_iorec_thread *th = thread_of(mn->locs[k].location);
            for (int p = 0; th && p < NP; p++) {
                instr_iorec_counts c = instr_iorec_counts_of(th, mn->locs[k].node, p);
                add(&r->paths[(size_t)i * NP + p], &c);
            }
        }
    }
    /* Every thread's figures, also those of nodes the merged tree does not have (a thread
     * without a location): the totals are the threads' sums. */
    for (const instr_iorec_thread *th = instr_iorec_threads(); th; th = th->next) {
        for (int p = 0; p < NP; p++) {
            instr_iorec_counts c = instr_iorec_counts_of(th, NULL, p);
            add(&r->outside[p], &c);
            add(&r->total[p], &c);
        }
        const instr_iorec_slot *s = th->slots;
        for (uint32_t i = 0; s && i < th->cap; i++)
            for (int p = 0; s[i].node && p < NP; p++)
                add(&r->total[p], &s[i].c[p]);
    }
    return 0;
}

static const instr_iorec_counts *path_counts(const report *r, uint32_t i, int p)
{
    return i == NONE ? &r->outside[p] : &r->paths[(size_t)i * NP + p];
}

static int by_ticks(const void *a, const void *b)
{
    const row *x = a, *y = b;
    if (x->c.ticks != y->c.ticks)
        return x->c.ticks < y->c.ticks ? 1 : -1;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->paradigm - y->paradigm;
}

static int by_bytes(const void *a, const void *b)
{
    const row *x = a, *y = b;
    uint64_t bx = x->c.bytes_read + x->c.bytes_written, by = y->c.bytes_read + y->c.bytes_written;
    if (bx != by)
        return bx < by ? 1 : -1;
    if (x->c.ops != y->c.ops)
        return x->c.ops < y->c.ops ? 1 : -1;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->paradigm - y->paradigm;
}

/* The call paths with I/O, by time. */
static row *path_rows(const report *r, uint32_t *n_out)
{
    size_t cap = ((size_t)r->t->n + 1) * NP;
    row *rows = instr_mem_alloc(cap * sizeof *rows);
    uint32_t n = 0;
    if (!rows)
        return NULL;
    for (uint32_t i = 0; i <= r->t->n; i++) {
        uint32_t id = i == r->t->n ? NONE : i;
        for (int p = 0; p < NP; p++) {
            const instr_iorec_counts *c = path_counts(r, id, p);
            if (c->ops)
                rows[n++] = (row){id, p, *c};
        }
    }
    instr_sort(rows, n, sizeof *rows, by_ticks);
    *n_out = n;
    return rows;
}

/* The files with I/O, by bytes. */
static row *file_rows(uint32_t *n_out)
{
    uint32_t nf = instr_iorec_nfiles(), n = 0;
    row *rows = instr_mem_alloc(((size_t)nf + 1) * NP * sizeof *rows);
    if (!rows)
        return NULL;
    for (uint32_t i = 0; i < nf; i++)
        for (int p = 0; p < NP; p++) {
            const instr_iorec_counts *c = &instr_iorec_file_at(i)->c[p];
            if (c->ops)
                rows[n++] = (row){i, p, *c};
        }
    instr_sort(rows, n, sizeof *rows, by_bytes);
    *n_out = n;
    return rows;
}

/* ---- profile.txt ---- */


static void put_counts(instr_writer *f, int p, const instr_iorec_counts *c)
{
    char d[32];
    instr_wr_printf(f, "  %-6s %11llu %8llu %15llu %15llu %s", paradigm_name[p],
            (unsigned long long)c->ops, (unsigned long long)c->failed,
            (unsigned long long)c->bytes_read, (unsigned long long)c->bytes_written,
            instr_profile_dur(d, sizeof d, instr_clock_to_ns(c->ticks)));
}

#define HEAD "  paradigm   operations   failed      bytes read   bytes written      time"

static void write_text(instr_writer *f, const instr_run *run, const instr_mtree *t)
{
    (void)run;
    report r;
    if (report_build(&r, t) != 0)
        return;
    instr_wr_printf(f, "\nI/O (INSTR_IO: the program's I/O per paradigm, call path and file; "
               "docs/io.md)\n\n" HEAD "\n");
    for (int p = 0; p < NP; p++)
        if (r.total[p].ops) {
            put_counts(f, p, &r.total[p]);
            instr_wr_putc(f, '\n');
        }
    uint64_t dropped = instr_iorec_dropped();
    if (dropped)
        instr_wr_printf(f, "  note     %llu calls from signal handlers not recorded\n",
                (unsigned long long)dropped);
    uint32_t n;
    row *rows = path_rows(&r, &n);
    if (rows) {
        instr_wr_printf(f, "\n  (top %u of %u call paths by time in I/O)\n" HEAD " | call path\n",
                n < TEXT_TOP ? n : TEXT_TOP, n);
        for (uint32_t k = 0; k < n && k < TEXT_TOP; k++) {
            put_counts(f, rows[k].paradigm, &rows[k].c);
            instr_wr_puts(f, " | ");
            instr_interpose_put_path(f, t, rows[k].id);
        }
        instr_mem_free(rows);
    }
    rows = file_rows(&n);
    if (rows) {
        instr_wr_printf(f, "\nI/O per file (top %u of %u by bytes; all in profile.json)\n\n" HEAD
                   " | file\n", n < TEXT_TOP ? n : TEXT_TOP, n);
        for (uint32_t k = 0; k < n && k < TEXT_TOP; k++) {
            put_counts(f, rows[k].paradigm, &rows[k].c);
            instr_wr_puts(f, " | ");
            instr_wr_escaped(f, instr_iorec_file_at(rows[k].id)->name);
            instr_wr_putc(f, '\n');
        }
        instr_mem_free(rows);
    }
    instr_wr_printf(f, "\nI/O per function\n\n  paradigm   function            calls   failed           bytes\n");
    for (int fn = 0; fn < INSTR_IOF_N; fn++) {
        uint64_t calls, failed, bytes;
        instr_iorec_fn_totals(fn, &calls, &failed, &bytes);
        if (calls)
            instr_wr_printf(f, "  %-8s   %-15s %9llu %8llu %15llu\n",
                    paradigm_name[instr_io_fns[fn].paradigm], instr_io_fns[fn].name,
                    (unsigned long long)calls, (unsigned long long)failed,
                    (unsigned long long)bytes);
    }
    report_free(&r);
}

/* ---- profile.json ---- */

static void json_counts(instr_writer *f, int p, const instr_iorec_counts *c)
{
    instr_wr_printf(f, "\"paradigm\": \"%s\", \"operations\": %llu, \"failed\": %llu, "
               "\"bytes_read\": %llu, \"bytes_written\": %llu, \"time_ns\": %llu",
            paradigm_name[p], (unsigned long long)c->ops, (unsigned long long)c->failed,
            (unsigned long long)c->bytes_read, (unsigned long long)c->bytes_written,
            (unsigned long long)instr_clock_to_ns(c->ticks));
}

static void write_json(instr_writer *f, const instr_run *run, const instr_mtree *t)
{
    (void)run;
    report r;
    if (report_build(&r, t) != 0)
        return;
    instr_wr_printf(f, ",\n  \"io\": {\"dropped_in_handlers\": %llu,\n    \"paradigms\": [",
            (unsigned long long)instr_iorec_dropped());
    int first = 1;
    for (int p = 0; p < NP; p++)
        if (r.total[p].ops) {
            instr_wr_puts(f, first ? "\n      {" : ",\n      {");
            json_counts(f, p, &r.total[p]);
            instr_wr_putc(f, '}');
            first = 0;
        }
    instr_wr_puts(f, "],\n    \"call_paths\": [");
    uint32_t n;
    row *rows = path_rows(&r, &n);
    for (uint32_t k = 0; rows && k < n; k++) {
        if (rows[k].id == NONE)
            instr_wr_puts(f, k ? ",\n      {\"node\": null, " : "\n      {\"node\": null, ");
        else
            instr_wr_printf(f, "%s{\"node\": %u, ", k ? ",\n      " : "\n      ", rows[k].id);
        json_counts(f, rows[k].paradigm, &rows[k].c);
        instr_wr_putc(f, '}');
    }
    instr_mem_free(rows);
    instr_wr_puts(f, "],\n    \"files\": [");
    rows = file_rows(&n);
    for (uint32_t k = 0; rows && k < n; k++) {
        instr_wr_puts(f, k ? ",\n      {\"name\": " : "\n      {\"name\": ");
        instr_wr_json_str(f, instr_iorec_file_at(rows[k].id)->name);
        instr_wr_puts(f, ", ");
        json_counts(f, rows[k].paradigm, &rows[k].c);
        instr_wr_putc(f, '}');
    }
    instr_mem_free(rows);
    instr_wr_puts(f, "],\n    \"functions\": [");
    first = 1;
    for (int fn = 0; fn < INSTR_IOF_N; fn++) {
        uint64_t calls, failed, bytes;
        instr_iorec_fn_totals(fn, &calls, &failed, &bytes);
        if (!calls)
            continue;
        instr_wr_printf(f, "%s{\"function\": \"%s\", \"paradigm\": \"%s\", \"calls\": %llu, "
                   "\"failed\": %llu, \"bytes\": %llu}",
                first ? "\n      " : ",\n      ", instr_io_fns[fn].name,
                paradigm_name[instr_io_fns[fn].paradigm], (unsigned long long)calls,
                (unsigned long long)failed, (unsigned long long)bytes);
        first = 0;
    }
    instr_wr_puts(f, "]\n  }");
    report_free(&r);
}

static void totals(instr_profile_io_totals out[INSTR_PROFILE_IO_PARADIGMS])
{
    memset(out, 0, sizeof *out * INSTR_PROFILE_IO_PARADIGMS);
    for (const instr_iorec_thread *th = instr_iorec_threads(); th; th = th->next) {
        instr_iorec_counts c[NP];
        for (int p = 0; p < NP; p++)
            c[p] = instr_iorec_counts_of(th, NULL, p);
        const instr_iorec_slot *s = th->slots;
        for (uint32_t i = 0; s && i < th->cap; i++)
            for (int p = 0; s[i].node && p < NP; p++)
                add(&c[p], &s[i].c[p]);
        for (int p = 0; p < NP; p++) {
            out[p].ops += c[p].ops;
            out[p].failed += c[p].failed;
            out[p].bytes_read += c[p].bytes_read;
            out[p].bytes_written += c[p].bytes_written;
            out[p].ns += instr_clock_to_ns(c[p].ticks);
        }
    }
}

static const void *cube_thread(uint32_t location_id) { return thread_of(location_id); }

static void cube_cell(const void *thread, const instr_pnode *node,
                      instr_profile_io_totals out[INSTR_PROFILE_IO_PARADIGMS])
{
    for (int p = 0; p < NP; p++) {
        instr_iorec_counts c = instr_iorec_counts_of(thread, node, p);
        out[p] = (instr_profile_io_totals){c.ops, c.failed, c.bytes_read, c.bytes_written,
                                           instr_clock_to_ns(c.ticks)};
    }
}

const instr_profile_io instr_iorec_profile_writers = {
    .text = write_text,
    .json = write_json,
    .totals = totals,
    .thread_of = cube_thread,
    .cell = cube_cell,
};
