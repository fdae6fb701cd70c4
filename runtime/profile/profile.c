/* profile.c — the profile substrate's entry in the event core, and the end: merge the
 * per-thread trees, write the files INSTR_PROFILING_FORMAT asks for. */
#include "profile.h"
#include "graft.h"
#include "write_html.h"
#include "../core/config.h"
#include "../core/core.h"
#include "../core/experiment.h"
#include "../core/log.h"
#include "../core/registry.h"
#include "../util/text.h"

#include <errno.h>
#include <string.h>

static int wanted(void) { return instr_cfg.enable_profiling; }

typedef int (*writer)(instr_writer *f, const instr_run *run, const instr_mtree *t);

static int write_json(instr_writer *f, const instr_run *run, const instr_mtree *t)
{
    return instr_profile_write_json(f, run, t);
}
static int write_text(instr_writer *f, const instr_run *run, const instr_mtree *t)
{
    return instr_profile_write_text(f, run, t);
}
static int write_folded(instr_writer *f, const instr_run *run, const instr_mtree *t)
{
    (void)run;
    return instr_profile_write_folded(f, t, instr_cfg.folded_max_depth);
}

static int write_cube(instr_writer *f, const instr_run *run, const instr_mtree *t)
{
    return instr_profile_write_cube(f, run, t);
}

/* A run "dominated by its instrumentation" (docs/score.md): regions with more visits than
 * INSTR_DOMINATED_HINT's first number, each shorter than its second on average, callees
 * included. */
int instr_profile_hint_region(uint64_t visits, uint64_t incl_ns)
{
    if (!instr_cfg.hint_visits)
        return 0;
    return visits > instr_cfg.hint_visits && visits <= UINT64_MAX / instr_cfg.hint_ns &&
           incl_ns < instr_cfg.hint_ns * visits;
}

void instr_profile_hint(const char *what, const char *dir, uint32_t n, const char *top,
                        uint64_t visits, uint64_t incl_ns)
{
    if (instr_verbose < 0 || !dir || !n)
        return;
    char name[96], d[512];
    instr_escaped(name, sizeof name, top ? top : "?");
    instr_escaped(d, sizeof d, dir);
    instr_warn("instrumentation dominated this %s: %u region%s with more than %llu visits of "
               "under %llu ns each (%s: %llu visits, %.1f ns each); `instr-score -g %s` writes a "
               "spec that leaves them out at compile time (instr --filter=SPEC)",
               what, n, n == 1 ? "" : "s", (unsigned long long)instr_cfg.hint_visits,
               (unsigned long long)instr_cfg.hint_ns, name,
               (unsigned long long)visits, (double)incl_ns / (double)visits, d);
}

/* One line at the end of a dominated run naming the costliest such region and the command
 * that writes a spec leaving them out. Never more than one line; INSTR_VERBOSE=quiet: none.
 * A rank of an MPI job says nothing: rank 0 says it once for the job (runtime/job/outputs.c). */
static void dominated_hint(const instr_run *run, const instr_mtree *t)
{
    if (instr_job_hook)
        return;
    uint32_t n = 0, top = 0;
    for (uint32_t h = 1; h <= t->nregions; h++) {
        const instr_flat *fl = &t->flat[h];
        if (!instr_profile_hint_region(fl->visits, instr_profile_ns(fl->incl)))
            continue;
        n++;
        if (!top || fl->visits > t->flat[top].visits)
            top = h;
    }
    if (!n)
        return;
    const instr_region_info *r = instr_registry_get(top);
    instr_profile_hint("run", run->dir, n, r ? r->name : "?", t->flat[top].visits,
                       instr_profile_ns(t->flat[top].incl));
}

typedef struct html_args {
    const instr_run *run;
    const instr_mtree *t;
} html_args;

static void html_json(instr_writer *f, void *arg)
{
    const html_args *a = arg;
    instr_profile_write_json(f, a->run, a->t);
}
static int write_html(instr_writer *f, const instr_run *run, const instr_mtree *t)
{
    html_args a = {run, t};
    return instr_html_write(f, html_json, &a);
}

int instr_profile_write_files(const instr_run *run, char *files, size_t size, uint32_t formats)
{
    int slot = instr_substrate_slot(&instr_profile_substrate);
    instr_mtree t;
    if (instr_mtree_build(&t, run, slot) != 0) {
        instr_experiment_note_failure("profile (merging the threads' trees)", ENOMEM, 0);
        instr_mtree_free(&t);
        return -1;
    }
    static const struct { const char *name; writer fn; uint32_t format; } outs[] = {
        {"profile.txt", write_text, INSTR_FORMAT_TXT},
        {"profile.json", write_json, INSTR_FORMAT_JSON},
        {"profile.folded", write_folded, INSTR_FORMAT_FOLDED},
        {"profile.cubex", write_cube, INSTR_FORMAT_CUBEX},
        {"profile.html", write_html, INSTR_FORMAT_HTML},
    };
    int rc = 0;
    for (size_t i = 0; i < sizeof outs / sizeof *outs; i++) {
        if (!(formats & outs[i].format))
            continue; /* INSTR_PROFILING_FORMAT */
        /* A file that fails is noted (the end-of-run line says what and why) and never
         * left under its final name; the others are still written. */
        instr_outfile o;
        if (instr_out_open(&o, outs[i].name) != 0) {
            rc = -1;
            continue;
        }
        /* A writer that fails without a failed write ran out of memory. */
        if (outs[i].fn(o.f, run, &t) != 0 && !o.err)
            o.err = ENOMEM;
        if (instr_out_close(&o) != 0) {
            rc = -1;
            continue;
        }
        instr_files_add(files, size, outs[i].name);
    }
    dominated_hint(run, &t);
    instr_mtree_free(&t);
    return rc;
}

static int write(const instr_run *run, char *files, size_t size)
{
    instr_profile_resolve_grafts(run, instr_substrate_slot(&instr_profile_substrate));
    uint32_t formats = instr_cfg.profiling_formats;
    /* A rank of an MPI job without files of its own (INSTR_RANK_FILES, docs/mpi.md): at the
     * job's end the job database holds its profile; a rank that ends alone (early, aborted,
     * by a signal) keeps what it measured in the one file that holds all of it. */
    if (instr_experiment_own_deferred() && !run->fork_of) {
        if (instr_job_hook && !run->from_signal)
            return 0;
        formats = formats ? INSTR_FORMAT_JSON : 0;
    }
    return instr_profile_write_files(run, files, size, formats);
}

const instr_substrate instr_profile_substrate = {
    .name = "profile",
    .wanted = wanted,
    .init = NULL,
    .fast_paths = INSTR_SUBSTRATE_CURSOR,
    .location_begin = instr_profile_location_begin,
    .enter = instr_profile_enter,
    .exit = instr_profile_exit,
    .fork_child = instr_profile_fork_child,
    .write = write,
};
