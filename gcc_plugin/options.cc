// options.cc — the plugin's arguments (-fplugin-arg-instr-KEY[=VALUE]), checked and
// applied to the plugin state; every bad argument fails the compile with a message that
// names it (docs/gcc-plugin.md, "Use").

#include "gcc_headers.h"
#include "plugin_state.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

namespace instr_gcc {

bool load_spec(const char *path)
{
    instr_filter_error err;
    memset(&err, 0, sizeof err);
    size_t warnings_before = instr_filter_warning_count(state.filter);
    if (instr_filter_load_file(state.filter, path, INSTR_SPEC_AUTO, &err) == 0) {
        for (size_t i = warnings_before; i < instr_filter_warning_count(state.filter); i++)
            fprintf(stderr, "%s\n", instr_filter_warning(state.filter, i));
        return true;
    }
    // filter/ formats the whole message as "path:line:col: error: what; hint"; printed as
    // is, so every front end shows the same text, then the compile fails.
    fprintf(stderr, "%s\n", err.message);
    error("instr: the selection spec %qs could not be loaded (see above)", path);
    return false;
}

bool flag_value(const plugin_argument &arg, bool *out)
{
    if (!arg.value || !strcmp(arg.value, "1") || !strcmp(arg.value, "yes") ||
        !strcmp(arg.value, "true")) {
        *out = true;
        return true;
    }
    if (!strcmp(arg.value, "0") || !strcmp(arg.value, "no") || !strcmp(arg.value, "false")) {
        *out = false;
        return true;
    }
    return false;
}

bool parse_arguments(const plugin_name_args *info)
{
    bool ok = true;
    for (int i = 0; i < info->argc; ++i) {
        const plugin_argument &arg = info->argv[i];
        const char *key = arg.key;
        if (!strcmp(key, "filter")) {
            if (!arg.value || !*arg.value) {
                error("instr: %<-fplugin-arg-instr-filter%> needs a spec file: "
                      "%<-fplugin-arg-instr-filter=PATH%>");
                ok = false;
            } else if (!load_spec(arg.value)) {
                ok = false;
            }
        } else if (!strcmp(key, "verbose")) {
            if (!flag_value(arg, &state.verbose)) {
                error("instr: %<-fplugin-arg-instr-verbose=%s%>: expected no value, 1 or 0",
                      arg.value);
                ok = false;
            }
        } else if (!strcmp(key, "report")) {
            if (!arg.value || !*arg.value) {
                error("instr: %<-fplugin-arg-instr-report%> needs a file: "
                      "%<-fplugin-arg-instr-report=PATH%>");
                ok = false;
                continue;
            }
            if (state.report_fd >= 0)
                close(state.report_fd);
            state.report_path = arg.value;
            state.report_fd = open(arg.value, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
            if (state.report_fd < 0) {
                error("instr: cannot open the report %qs: %s", arg.value, xstrerror(errno));
                ok = false;
            }
        } else if (!strcmp(key, "mode")) {
            if (!arg.value || strcmp(arg.value, "hooks") != 0) {
                error("instr: %<-fplugin-arg-instr-mode=%s%>: the GCC plugin supports only "
                      "%<hooks%> (XRay mode needs clang)",
                      arg.value ? arg.value : "");
                ok = false;
            }
        } else if (!strcmp(key, "inline")) {
            if (arg.value && !strcmp(arg.value, "after")) {
                state.after_inlining = true;
            } else if (arg.value && !strcmp(arg.value, "before")) {
                state.after_inlining = false;
            } else {
                error("instr: %<-fplugin-arg-instr-inline=%s%>: expected %<after%> (the "
                      "default) or %<before%>",
                      arg.value ? arg.value : "");
                ok = false;
            }
        } else {
            error("instr: unknown argument %<-fplugin-arg-instr-%s%>; known: filter=PATH "
                  "(repeatable), verbose, report=PATH, mode=hooks, inline=after|before",
                  key);
            ok = false;
        }
    }
    return ok;
}

}  // namespace instr_gcc
