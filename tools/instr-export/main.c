/* main.c — instr-export: turns what a run measured into the formats other viewers read
 * (docs/report.md). One mode per call:
 *   instr-export --html   PROFILE.json   [-o FILE]   profile.html (offline, self-contained)
 *   instr-export --chrome TRACE.otf2     [-o FILE]   Chrome trace-event JSON (Perfetto UI)
 *   instr-export --speedscope PROFILE.json [-o FILE] speedscope's JSON, a profile per thread
 *   instr-export --folded PROFILE.json [--metric M] [-o FILE]  folded stacks of any metric
 *   instr-export --svg    PROFILE.json   [-o FILE]   a flame graph as SVG
 *   instr-export --json   profile.jdb --rank N [-o FILE]   rank N's profile.json
 * The modes that read a profile.json read, with --rank N, rank N's profile from an MPI job's
 * profile.jdb instead (or from its experiment directory), made on demand (rank_json.c).
 * Exit status: 0 done, 1 bad input (the message says what and where), 2 usage error. A
 * regular output file is written under a partial name of its own (FILE.partial.XXXXXX) and
 * renamed when complete, so a failed export never leaves a truncated file under the name
 * asked for, and a killed one never blocks the next; SIGINT, SIGTERM and SIGHUP remove the
 * partial file. An existing device, FIFO or socket is written directly, never replaced. */
#include "export.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage[] =
    "usage: instr-export MODE INPUT [-o OUTPUT]\n"
    "modes:\n"
    "  --html PROFILE.json     profile.html: icicle graph, flat profile and the spread over\n"
    "                          threads and ranks, in one file that opens offline\n"
    "  --chrome TRACES.otf2    the OTF2 trace as Chrome trace-event JSON (Perfetto UI,\n"
    "                          chrome://tracing, speedscope): one track per thread, MPI\n"
    "                          messages as flows, metrics as counters\n"
    "  --speedscope PROFILE.json  speedscope's JSON: one profile per thread (and rank)\n"
    "  --folded PROFILE.json   folded stacks (flamegraph.pl, inferno, speedscope) of the\n"
    "                          exclusive time in ns, or of --metric NAME (visits, or any\n"
    "                          metric column of the call paths)\n"
    "  --svg PROFILE.json      a flame graph as one SVG file\n"
    "  --json profile.jdb --rank N  rank N's profile.json from an MPI job's database\n"
    "options:\n"
    "  -o, --output FILE       write there (default: standard output)\n"
    "  --rank N                the input is an MPI job's profile.jdb (or its directory):\n"
    "                          rank N's profile, made from the database, for --json, --html,\n"
    "                          --speedscope, --folded and --svg\n"
    "  --metric NAME           with --folded: the number per call path (default exclusive)\n"
    "  -h, --help              this text\n"
    "exit status: 0 done, 1 bad input, 2 usage error; docs/report.md says more.\n";

/* The partial file to remove when a signal ends the export (unlink is async-signal-safe). */
static char *volatile partial_path;

static void remove_partial(int sig)
{
    char *p = partial_path;
    if (p)
        unlink(p);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Opens OUTPUT for writing: a non-regular file that exists (a device, a FIFO, a socket)
 * directly; otherwise a fresh partial file beside it, its name in *partial, with the mode a
 * new file would get. NULL with the message printed when it cannot. */
static FILE *open_output(const char *output, char **partial)
{
    struct stat st;
    *partial = NULL;
    if (stat(output, &st) == 0 && S_ISDIR(st.st_mode)) {
        fprintf(stderr, "instr-export: %s: is a directory; give a file name after -o\n", output);
        return NULL;
    }
    if (stat(output, &st) == 0 && !S_ISREG(st.st_mode)) {
        FILE *out = fopen(output, "w");
        if (!out)
            fprintf(stderr, "instr-export: %s: cannot open the output: %s\n", output,
                    strerror(errno));
        return out;
    }
    size_t len = strlen(output) + sizeof ".partial.XXXXXX";
    char *name = malloc(len);
    if (!name) {
        fprintf(stderr, "instr-export: out of memory\n");
        return NULL;
    }
    snprintf(name, len, "%s.partial.XXXXXX", output);
    mode_t mask = umask(0);
    umask(mask);
    partial_path = name;
    int fd = mkstemp(name);
    if (fd < 0 || fchmod(fd, 0666 & ~mask) != 0) {
        fprintf(stderr, "instr-export: %s: cannot create the output: %s\n", name,
                strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(name);
        }
        partial_path = NULL;
        free(name);
        return NULL;
    }
    FILE *out = fdopen(fd, "w");
    if (!out) {
        fprintf(stderr, "instr-export: %s: %s\n", name, strerror(errno));
        close(fd);
        unlink(name);
        partial_path = NULL;
        free(name);
        return NULL;
    }
    *partial = name;
    return out;
}

static int usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "instr-export: %s%s%s\n%s", what, arg ? ": " : "", arg ? arg : "", usage);
    return 2;
}

int main(int argc, char **argv)
{
    const char *mode = NULL, *input = NULL, *output = NULL, *metric = NULL;
    long rank = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage, stdout);
            return 0;
        } else if (!strcmp(a, "--html") || !strcmp(a, "--chrome") || !strcmp(a, "--speedscope") ||
                   !strcmp(a, "--folded") || !strcmp(a, "--svg") || !strcmp(a, "--json")) {
            if (mode)
                return usage_error("give one mode only", a);
            mode = a + 2;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            if (++i == argc)
                return usage_error("missing file name after", a);
            output = argv[i];
        } else if (!strcmp(a, "--rank")) {
            char *end;
            if (++i == argc)
                return usage_error("missing rank number after", a);
            rank = strtol(argv[i], &end, 10);
            if (end == argv[i] || *end || rank < 0)
                return usage_error("not a rank number", argv[i]);
        } else if (!strcmp(a, "--metric")) {
            if (++i == argc)
                return usage_error("missing metric name after", a);
            metric = argv[i];
        } else if (a[0] == '-' && a[1]) {
            return usage_error("unknown option", a);
        } else if (input) {
            return usage_error("give one input only; extra argument", a);
        } else {
            input = a;
        }
    }
    if (!mode)
        return usage_error("give a mode (--html, --chrome, --speedscope, --folded, --svg or "
                           "--json)", NULL);
    if (!strcmp(mode, "json") && rank < 0)
        return usage_error("--json goes with --rank N (a rank of an MPI job's profile.jdb)", NULL);
    if (!strcmp(mode, "chrome") && rank >= 0)
        return usage_error("--rank goes with the modes that read a profile", NULL);
    if (metric && strcmp(mode, "folded") != 0)
        return usage_error("--metric goes with --folded only", NULL);
    if (!input)
        return usage_error("give the input file", NULL);

    FILE *out = stdout;
    char *partial = NULL;
    if (output) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = remove_partial;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGHUP, &sa, NULL);
        if (!(out = open_output(output, &partial)))
            return 1;
    }
    /* --rank: the rank's profile.json, made from the database into a temporary file that
     * the profile's modes then read like any profile.json. */
    char jdb[4096], tmp[] = "/tmp/instr-export-rank.XXXXXX";
    if (rank >= 0) {
        struct stat st;
        snprintf(jdb, sizeof jdb, "%s", input);
        if (stat(input, &st) == 0 && S_ISDIR(st.st_mode))
            snprintf(jdb, sizeof jdb, "%s/profile.jdb", input);
        input = jdb;
    }
    if (rank >= 0 && strcmp(mode, "json") != 0) {
        int fd = mkstemp(tmp);
        FILE *t = fd >= 0 ? fdopen(fd, "w") : NULL;
        if (!t) {
            fprintf(stderr, "instr-export: cannot create a temporary file: %s\n", strerror(errno));
            if (fd >= 0)
                close(fd), unlink(tmp);
            return 1;
        }
        int r = instr_export_rank_json(jdb, rank, t);
        if (fclose(t) != 0 || r != 0) {
            unlink(tmp);
            return 1;
        }
        input = tmp;
    }
    int rc = !strcmp(mode, "json")         ? instr_export_rank_json(input, rank, out)
             : !strcmp(mode, "html")       ? instr_export_html(input, out)
             : !strcmp(mode, "chrome")     ? instr_export_chrome(input, out)
             : !strcmp(mode, "speedscope") ? instr_export_speedscope(input, out)
             : !strcmp(mode, "folded")     ? instr_export_folded(input, metric, out)
                                           : instr_export_svg(input, out);
    if (input == tmp)
        unlink(tmp);
    if (output) {
        if (fclose(out) != 0 && rc == 0)
            rc = -1;
        if (rc == 0 && partial && rename(partial, output) != 0)
            rc = -1;
        if (rc == -1)
            fprintf(stderr, "instr-export: %s: writing failed: %s\n", output, strerror(errno));
        if (rc != 0 && partial)
            unlink(partial);
        partial_path = NULL;
        free(partial);
    } else if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "instr-export: writing to standard output failed: %s\n", strerror(errno));
        rc = -1;
    }
    return rc == 0 ? 0 : 1;
}
