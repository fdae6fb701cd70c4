/* outputs.c — the job's profile files in the job directory, as INSTR_PROFILING_FORMAT asks
 * (outputs.h), the job's one line at the end and the hint of a job dominated by its
 * instrumentation (rank 0). */
#include "outputs.h"
#include "../core/config.h"
#include "../core/experiment.h"
#include "../core/log.h"
#include "../core/signals.h"
#include "../util/text.h"
#include "../profile/profile.h"
#include "../profile/write_html.h"
#include "../util/pages.h"
#include "../util/sort.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct job_args {
    instr_job *j;
    const char *dir;
    int nranks;
} job_args;

static void job_json_to(instr_writer *f, void *arg)
{
    job_args *a = arg;
    instr_job_json(f, a->j, a->dir, a->nranks);
}

static int by_rank(const void *a, const void *b)
{
    const jgroup *x = a, *y = b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* One file of the job profile (profile.txt, profile.json, profile.cubex or profile.html) in
 * the job directory. 0, or -1 (the failure is reported and says where the ranks' own profiles
 * are). */
static int job_file(const char *name, job_args *a)
{
    instr_outfile o;
    int rc = instr_out_open_job(&o, name);
    if (rc == 0) {
        if (strcmp(name, "profile.json") == 0)
            job_json_to(o.f, a);
        else if (strcmp(name, "profile.txt") == 0) {
            if (instr_job_txt(o.f, a->j, a->dir, a->nranks) != 0 && !o.err)
                o.err = ENOMEM; /* out of memory: the partial file is removed */
            instr_job_memory_text(o.f, a->j);
            instr_job_io_text(o.f, a->j);
        }
        else if (strcmp(name, "profile.html") == 0)
            instr_html_write(o.f, job_json_to, a);
        else if (a->j->summary ? instr_job_cube_jdb(o.f, a->j, a->dir) != 0
                               : instr_job_cube(o.f, a->j) != 0) {
            if (!o.err)
                o.err = ENOMEM; /* out of memory: the partial file is removed */
        }
        rc = instr_out_close(&o);
    }
    if (rc != 0) {
        instr_experiment_report_failures();
        instr_warn("job profile: %s/%s is not written; every rank's profile is in %s/profile.jdb "
                   "(instr-export --rank N)", a->dir, name, a->dir);
    }
    return rc;
}

/* The hint of a job dominated by its instrumentation, once, from the merged profile: per
 * region its visits over all call paths and its inclusive time over the outermost ones. */
static void job_hint(const instr_job *j, const char *dir)
{
    uint64_t *visits = instr_mem_calloc((size_t)j->nregions + 1, sizeof *visits);
    uint64_t *incl = instr_mem_calloc((size_t)j->nregions + 1, sizeof *incl);
    if (visits && incl) {
        for (uint32_t i = 0; i < j->n; i++) {
            const jnode *mn = &j->nodes[i];
            if (mn->region < 1 || mn->region > j->nregions)
                continue;
            visits[mn->region] += mn->s.t.visits;
            int outer = 1;
            for (int32_t p = mn->parent; p >= 0 && outer; p = j->nodes[p].parent)
                outer = j->nodes[p].region != mn->region;
            if (outer)
                incl[mn->region] += mn->s.t.incl;
        }
        uint32_t n = 0, top = 0;
        for (uint32_t r = 1; r <= j->nregions; r++) {
            if (!instr_profile_hint_region(visits[r], incl[r]))
                continue;
            n++;
            if (!top || visits[r] > visits[top])
                top = r;
        }
        if (n)
            instr_profile_hint("MPI job", dir, n, j->regions[top - 1].name, visits[top], incl[top]);
    }
    instr_mem_free(visits);
    instr_mem_free(incl);
}

/* The job's one line at the end (rank 0; the ranks' own lines only with INSTR_VERBOSE):
 * every file written at the job's top, where, how many ranks, which are missing, and where
 * the ranks' own files are when INSTR_RANK_FILES asked for them. */
static void job_summary(const instr_job *j, const char *dir, int nranks, const char *files)
{
    if (instr_verbose < 0)
        return;
    char where[PATH_MAX], missing[512], lost[640] = "";
    int nmissing;
    instr_escaped(where, sizeof where, dir);
    instr_job_missing_ranks(j, nranks, missing, sizeof missing, &nmissing);
    if (nmissing)
        snprintf(lost, sizeof lost, "; %s %s missing from it (%d of %d: ended early or sent "
                 "nothing)", nmissing == 1 ? "rank" : "ranks", missing, nmissing, nranks);
    char own[160];
    instr_job_rank_files_text(own, sizeof own, nranks);
    instr_warn("MPI job of %d rank%s: %s%s %s%s%s%s", nranks, nranks == 1 ? "" : "s",
               *files ? files : "no job profile file", *files ? " written to" : " in", where,
               lost, *own ? "; " : "", own);
}

INSTR_EXT_EXPORT int instr_ext_job_write(instr_job *j, const char *dir, int nranks)
{
    if (!j || !dir)
        return -1;
    instr_io_guard g;
    instr_io_guard_begin(&g);
    instr_sort(j->groups, j->ngroups, sizeof *j->groups, by_rank);
    job_args a = {j, dir, nranks};
    static const struct { const char *name; uint32_t format; } outs[] = {
        {"profile.txt", INSTR_FORMAT_TXT}, {"profile.json", INSTR_FORMAT_JSON},
        {"profile.cubex", INSTR_FORMAT_CUBEX}, {"profile.html", INSTR_FORMAT_HTML}};
    char files[160] = "";
    int rc = 0;
    for (size_t i = 0; i < sizeof outs / sizeof *outs; i++) {
        if (!(instr_cfg.profiling_formats & outs[i].format))
            continue;
        if (job_file(outs[i].name, &a) != 0) {
            rc = -1;
            continue;
        }
        size_t len = strlen(files);
        snprintf(files + len, sizeof files - len, "%s%s", len ? ", " : "", outs[i].name);
    }
    instr_io_guard_end(&g);
    /* written before the job profile: the database it is read from, rank 0's configuration */
    instr_files_add(files, sizeof files, "profile.jdb");
    instr_job_section_files(files, sizeof files);
    if (instr_experiment_job_config_written())
        instr_files_add(files, sizeof files, "instr.cfg");
    job_summary(j, dir, nranks, files);
    job_hint(j, dir);
    return rc;
}
