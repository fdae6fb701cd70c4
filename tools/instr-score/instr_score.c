/* instr-score — what a run's trace would cost and what to leave out next time (the
 * scorep-score of instr; docs/score.md).
 *
 *   instr-score [-r] [-f SPEC] [-g [-o FILE] [--scorep]] [thresholds] EXPERIMENT_DIR
 *
 * Exit status: 0 done, 1 bad input (a missing or damaged experiment, a bad spec), 2 usage. */
#define _GNU_SOURCE /* O_CLOEXEC, O_NOFOLLOW, open_memstream, strdup */
#include "score.h"
#include "instr_filter.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_MIN_VISITS 100000ull
#define DEFAULT_MAX_NS_PER_VISIT 1000.0

static void usage(FILE *f)
{
    fprintf(f,
            "usage: instr-score [options] EXPERIMENT_DIR\n"
            "\n"
            "Reads EXPERIMENT_DIR/profile.json (or profile.cubex where there is no\n"
            "profile.json) and estimates what tracing the same run costs:\n"
            "trace size, the busiest process's buffer, INSTR_TOTAL_MEMORY; per region type\n"
            "(ALL, USR, COM, MPI, OMP) and with -r per region (docs/score.md).\n"
            "\n"
            "  -r                     one row per region, the costliest first\n"
            "  -f SPEC                show the effect of a selection spec (any spelling): the\n"
            "                         regions it leaves out are marked '-', totals after it '*'\n"
            "  -g                     write a spec that leaves out the regions costing most per\n"
            "                         unit of information, for instr --filter= at compile time\n"
            "  -o FILE                where -g writes (default: instr-score.spec, or\n"
            "                         instr-score.filter with --scorep, in the current directory;\n"
            "                         an existing file is never overwritten)\n"
            "  --scorep               -g writes Score-P's filter-file spelling\n"
            "  --min-visits N         -g: only regions with at least N visits (default %llu)\n"
            "  --max-time-per-visit NS\n"
            "                         -g: only regions with at most NS ns per visit, callees\n"
            "                         included (default %.0f)\n"
            "  -h, --help             this text\n",
            DEFAULT_MIN_VISITS, DEFAULT_MAX_NS_PER_VISIT);
}

static int bad_usage(const char *fmt, const char *arg)
{
    fputs("instr-score: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\n(instr-score --help lists the options)\n", stderr);
    return 2;
}

/* Marks the regions spec excludes. 0, or -1 after the spec's own message. */
static int apply_spec(score_profile *p, const char *spec)
{
    instr_filter *flt = instr_filter_new();
    instr_filter_error err;
    if (!flt)
        return -1;
    if (instr_filter_load_file(flt, spec, INSTR_SPEC_AUTO, &err) != 0) {
        fprintf(stderr, "%s\ninstr-score: the spec %s is not used; mend it and run again\n",
                err.message, spec);
        instr_filter_free(flt);
        return -1;
    }
    for (size_t w = 0; w < instr_filter_warning_count(flt); w++)
        fprintf(stderr, "%s\n", instr_filter_warning(flt, w));
    for (size_t i = 0; i < p->nregions; i++) {
        score_region *r = &p->regions[i];
        instr_function_facts facts = {r->name, NULL, r->mangled, r->file, -1, r->is_main, 0,
                                      NULL, NULL};
        /* MPI and OpenMP regions are not compiled functions: a spec does not remove them. */
        r->filtered = r->type != SCORE_MPI && r->type != SCORE_OMP &&
                      !instr_filter_decide(flt, &facts).include;
    }
    instr_filter_free(flt);
    return 0;
}

/* The generated spec, read back through filter/: every rule parses and excludes exactly the
 * regions it names; main stays in. Guards the spelling against names the writer did not
 * foresee. */
static int check_generated(const score_profile *p, const char *text, size_t len, size_t nrules)
{
    instr_filter *flt = instr_filter_new();
    instr_filter_error err;
    if (!flt)
        return -1;
    int rc = instr_filter_load_buffer(flt, "generated spec", text, len, INSTR_SPEC_AUTO, &err);
    if (rc != 0) {
        fprintf(stderr, "instr-score: the generated spec does not parse back (%s); please report "
                        "this with the region names\n", err.message);
    } else if (instr_filter_rule_count(flt) != nrules) {
        fprintf(stderr, "instr-score: the generated spec reads back as %zu rules, not %zu\n",
                instr_filter_rule_count(flt), nrules);
        rc = -1;
    } else {
        for (size_t i = 0; i < p->nregions && rc == 0; i++) {
            const score_region *r = &p->regions[i];
            instr_function_facts facts = {r->name, NULL, r->mangled, r->file, -1, r->is_main, 0,
                                          NULL, NULL};
            if (r->is_main && !instr_filter_decide(flt, &facts).include) {
                fprintf(stderr, "instr-score: the generated spec would leave out main\n");
                rc = -1;
            }
        }
    }
    instr_filter_free(flt);
    return rc;
}

static int generate(const score_profile *p, const score_gen_options *o, const char *dir,
                    const char *out)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m) {
        fprintf(stderr, "instr-score: out of memory\n");
        return 1;
    }
    size_t n = score_generate(m, p, o, dir);
    if (fclose(m) != 0 || check_generated(p, text, len, n) != 0) {
        free(text);
        return 1;
    }
    int fd = open(out, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        fprintf(stderr, "instr-score: cannot create %s: %s%s\n", out, strerror(errno),
                errno == EEXIST ? " (an existing file is never overwritten; remove it or give "
                                  "another with -o)" : "");
        free(text);
        return 1;
    }
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, text + done, len - done);
        if (w <= 0)
            break;
        done += (size_t)w;
    }
    int failed = done != len;
    if (close(fd) != 0)
        failed = 1;
    free(text);
    if (failed) {
        fprintf(stderr, "instr-score: writing %s failed: %s; it is removed\n", out, strerror(errno));
        unlink(out);
        return 1;
    }
    printf("\ninstr-score: %s written: leaves out %zu region%s. Rebuild with\n"
           "  instr --filter=%s <compiler> ...\n",
           out, n, n == 1 ? "" : "s", out);
    return 0;
}

/* DIR/profile.json, or DIR/profile.cubex when there is no profile.json. */
static int read_profile(const char *dir, score_profile *p, char *err, size_t errsize)
{
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/profile.json", dir);
    if (lstat(path, &st) == 0 || errno != ENOENT)
        return score_read_json(dir, p, err, errsize);
    snprintf(path, sizeof path, "%s/profile.cubex", dir);
    if (lstat(path, &st) == 0 || errno != ENOENT)
        return score_read_cubex(dir, p, err, errsize);
    memset(p, 0, sizeof *p);
    snprintf(err, errsize, "%s has neither profile.json nor profile.cubex", dir);
    return -1;
}

static int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (!*s || *end || errno || *s == '-')
        return -1;
    *out = v;
    return 0;
}

int main(int argc, char **argv)
{
    enum { OPT_SCOREP = 256, OPT_MIN_VISITS, OPT_MAX_TIME };
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        {"scorep", no_argument, NULL, OPT_SCOREP},
        {"min-visits", required_argument, NULL, OPT_MIN_VISITS},
        {"max-time-per-visit", required_argument, NULL, OPT_MAX_TIME},
        {NULL, 0, NULL, 0},
    };
    int per_region = 0, gen = 0;
    const char *spec = NULL, *out = NULL;
    score_gen_options go = {DEFAULT_MIN_VISITS, DEFAULT_MAX_NS_PER_VISIT, 0};
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "hrf:go:", longopts, NULL)) != -1) {
        switch (c) {
        case 'h': usage(stdout); return 0;
        case 'r': per_region = 1; break;
        case 'f': spec = optarg; break;
        case 'g': gen = 1; break;
        case 'o': out = optarg; break;
        case OPT_SCOREP: go.scorep = 1; break;
        case OPT_MIN_VISITS:
            if (parse_u64(optarg, &go.min_visits) != 0)
                return bad_usage("--min-visits %s: not a count of visits", optarg);
            break;
        case OPT_MAX_TIME: {
            uint64_t ns;
            if (parse_u64(optarg, &ns) != 0)
                return bad_usage("--max-time-per-visit %s: not a whole number of ns", optarg);
            go.max_ns_per_visit = (double)ns;
            break;
        }
        case '?':
        default:
            if (optopt && optopt < 256)
                return bad_usage(strchr("fo", optopt) ? "-%s needs an argument" : "unknown option -%s",
                                 (char[]){(char)optopt, 0});
            return bad_usage("unknown option %s", argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return bad_usage("%s", optind >= argc ? "give one experiment directory"
                                              : "give exactly one experiment directory");
    if ((go.scorep || out) && !gen)
        return bad_usage("%s", "--scorep and -o go with -g");
    const char *dir = argv[optind];
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "instr-score: %s: %s; give the experiment directory a run left "
                        "(instr-<date>-<pid>, or INSTR_EXPERIMENT_DIRECTORY)\n",
                dir, stat(dir, &st) != 0 ? strerror(errno) : "not a directory");
        return 1;
    }
    score_profile p;
    char err[1024];
    if (read_profile(dir, &p, err, sizeof err) != 0) {
        fprintf(stderr, "instr-score: %s\n(instr-score reads profile.json, or profile.cubex where "
                        "there is no profile.json: run with INSTR_ENABLE_PROFILING=1 and json or "
                        "cubex in INSTR_PROFILING_FORMAT)\n", err);
        score_free(&p);
        return 1;
    }
    if (spec && apply_spec(&p, spec) != 0) {
        score_free(&p);
        return 1;
    }
    score_print(stdout, &p, per_region, spec != NULL);
    int rc = 0;
    if (gen)
        rc = generate(&p, &go, dir, out ? out : go.scorep ? "instr-score.filter" : "instr-score.spec");
    score_free(&p);
    return rc;
}
