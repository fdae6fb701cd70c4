/* main.c — instr-export: turns what a run measured into the formats other viewers read
 * (docs/report.md). One mode per call:
 *   instr-export --html   PROFILE.json   [-o FILE]   profile.html (offline, self-contained)
 *   instr-export --chrome TRACE.otf2     [-o FILE]   Chrome trace-event JSON (Perfetto UI)
 *   instr-export --speedscope PROFILE.json [-o FILE] speedscope's JSON, a profile per thread
 *   instr-export --folded PROFILE.json [--metric M] [-o FILE]  folded stacks of any metric
 *   instr-export --svg    PROFILE.json   [-o FILE]   a flame graph as SVG
 * Exit status: 0 done, 1 bad input (the message says what and where), 2 usage error. The
 * output is written under FILE.partial and renamed when complete, so a failed export never
 * leaves a truncated file under the name asked for. */
#include "export.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    "options:\n"
    "  -o, --output FILE       write there (default: standard output)\n"
    "  --metric NAME           with --folded: the number per call path (default exclusive)\n"
    "  -h, --help              this text\n"
    "exit status: 0 done, 1 bad input, 2 usage error; docs/report.md says more.\n";

static int usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "instr-export: %s%s%s\n%s", what, arg ? ": " : "", arg ? arg : "", usage);
    return 2;
}

int main(int argc, char **argv)
{
    const char *mode = NULL, *input = NULL, *output = NULL, *metric = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage, stdout);
            return 0;
        } else if (!strcmp(a, "--html") || !strcmp(a, "--chrome") || !strcmp(a, "--speedscope") ||
                   !strcmp(a, "--folded") || !strcmp(a, "--svg")) {
            if (mode)
                return usage_error("give one mode only", a);
            mode = a + 2;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            if (++i == argc)
                return usage_error("missing file name after", a);
            output = argv[i];
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
        return usage_error("give a mode (--html, --chrome, --speedscope, --folded or --svg)", NULL);
    if (metric && strcmp(mode, "folded") != 0)
        return usage_error("--metric goes with --folded only", NULL);
    if (!input)
        return usage_error("give the input file", NULL);

    FILE *out = stdout;
    char *partial = NULL;
    if (output) {
        size_t len = strlen(output) + sizeof ".partial";
        partial = malloc(len);
        if (!partial)
            return 1;
        snprintf(partial, len, "%s.partial", output);
        out = fopen(partial, "wx");
        if (!out) {
            fprintf(stderr, "instr-export: %s: cannot create the output: %s%s\n", partial,
                    strerror(errno), errno == EEXIST ? " (left by an earlier export? remove it)" : "");
            free(partial);
            return 1;
        }
    }
    int rc = !strcmp(mode, "html")         ? instr_export_html(input, out)
             : !strcmp(mode, "chrome")     ? instr_export_chrome(input, out)
             : !strcmp(mode, "speedscope") ? instr_export_speedscope(input, out)
             : !strcmp(mode, "folded")     ? instr_export_folded(input, metric, out)
                                           : instr_export_svg(input, out);
    if (output) {
        if (fclose(out) != 0 && rc == 0)
            rc = -1;
        if (rc == 0 && rename(partial, output) != 0)
            rc = -1;
        if (rc == -1)
            fprintf(stderr, "instr-export: %s: writing failed: %s\n", output, strerror(errno));
        if (rc != 0)
            unlink(partial);
        free(partial);
    } else if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "instr-export: writing to standard output failed: %s\n", strerror(errno));
        rc = -1;
    }
    return rc == 0 ? 0 : 1;
}
