// decision_report.cc — what the plugin says about its decisions: one report line per
// function (-fplugin-arg-instr-report) and the per-translation-unit counts behind the
// verbose summary line (docs/gcc-plugin.md, "Verbose line and report").

#include "gcc_headers.h"
#include "plugin_state.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

namespace instr_gcc {

const char *tu_name()
{
    return main_input_filename ? main_input_filename : "";
}

void report_line(const instr_decision &d, const std::string &signature, const char *mangled,
                 const std::string &file, long instructions)
{
    if (state.report_fd < 0)
        return;
    char reason[1024];
    size_t n = instr_decision_format(&d, reason, sizeof reason);
    (void)n;
    const char *text = strchr(reason, ' ');
    text = text ? text + 1 : "";
    std::string line;
    line += d.include ? "include" : "exclude";
    line += '\t';
    line += instr_reason_category(&d);
    line += '\t';
    line += signature;
    line += '\t';
    line += mangled;
    line += '\t';
    line += file;
    line += '\t';
    line += std::to_string(instructions);
    line += '\t';
    line += text;
    line += '\t';
    line += tu_name();
    line += '\n';
    // One write per line on an O_APPEND descriptor: lines of parallel compiles never mix.
    const char *p = line.data();
    size_t left = line.size();
    while (left > 0) {
        ssize_t w = write(state.report_fd, p, left);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            error("instr: cannot write the report %qs: %s", state.report_path.c_str(),
                  xstrerror(errno));
            close(state.report_fd);
            state.report_fd = -1;
            return;
        }
        p += w;
        left -= (size_t)w;
    }
}

void count_decision(const instr_decision &d)
{
    ++state.seen;
    if (d.include) {
        ++state.instrumented;
        return;
    }
    const char *category = instr_reason_category(&d);
    if (!strcmp(category, "file"))
        ++state.excluded_file;
    else if (!strcmp(category, "size"))
        ++state.excluded_size;
    else if (!strcmp(category, "built-in"))
        ++state.excluded_builtin;
    else
        ++state.excluded_name;
}

}  // namespace instr_gcc
