// plugin.cc — the GCC front end of instr (plugin name "instr", built as instr.so): version
// and name checks, argument parsing, and the passes and callbacks it registers. A thin shim
// (docs/architecture.md, "Selection rules" and "The compiler–runtime ABI"): the facts come
// from function_facts.cc, the decision from filter/, the rewriting from hook_insertion.cc
// and late_pass.cc, the descriptors from descriptor.cc; with -fopenmp, omp_constructs.cc
// marks the OpenMP constructs GCC compiles to no libgomp call. See docs/gcc-plugin.md.
//
// Placement (-fplugin-arg-instr-inline=after|before, default after): the deciding pass runs
// right after "lower" and records its decision on the declaration. With "after" the hooks
// go into the final bodies after IPA inlining (late_pass.cc, unwind_exits.cc), so GCC makes
// the same inlining, cloning and splitting decisions as without the plugin. With "before"
// the deciding pass wraps the body in try/finally and EH lowering does the rest; every
// inlined copy then keeps its hooks.

#include "gcc_headers.h"
#include "plugin_state.h"

#include <string.h>
#include <unistd.h>

__attribute__((visibility("default"))) int plugin_is_GPL_compatible;

namespace instr_gcc {

plugin_state state;

namespace {

const char *const kPluginName = "instr";

void on_finish(void *, void *)
{
    if (state.verbose && !seen_error())
        fprintf(stderr,
                "instr: %s: instrumented %lu of %lu functions (excluded: file %lu, name %lu, "
                "size %lu, built-in %lu)\n",
                tu_name(), state.instrumented, state.seen, state.excluded_file,
                state.excluded_name, state.excluded_size, state.excluded_builtin);
    if (state.report_fd >= 0) {
        close(state.report_fd);
        state.report_fd = -1;
    }
    instr_filter_free(state.filter);
    state.filter = nullptr;
}

// PASS next to the first instance of the pass named REFERENCE.
void register_pass(const char *plugin_name, opt_pass *pass, const char *reference,
                   pass_positioning_ops where)
{
    struct register_pass_info pass_info;
    pass_info.pass = pass;
    pass_info.reference_pass_name = reference;
    pass_info.ref_pass_instance_number = 1;
    pass_info.pos_op = where;
    register_callback(plugin_name, PLUGIN_PASS_MANAGER_SETUP, NULL, &pass_info);
}

}  // namespace

}  // namespace instr_gcc

using namespace instr_gcc;

__attribute__((visibility("default"))) int plugin_init(struct plugin_name_args *info,
                                                     struct plugin_gcc_version *version)
{
    if (!plugin_default_version_check(version, &gcc_version)) {
        error("instr: %qs was built for GCC %s and cannot run in GCC %s", info->full_name,
              gcc_version.basever, version->basever);
        return 1;
    }
    if (strcmp(info->base_name, kPluginName) != 0) {
        // The arguments are -fplugin-arg-<base name>-KEY: a renamed file would silently
        // ignore every -fplugin-arg-instr-* option.
        error("instr: the plugin file must be named %<instr.so%> (loaded as %qs)",
              info->full_name);
        return 1;
    }
#define INSTR_STR_(x) #x
#define INSTR_STR(x) INSTR_STR_(x)
    static struct plugin_info plugin_info = {
        "0.1", "instr: compile-time selection and enter/exit hooks (ABI v" INSTR_STR(
                   INSTR_ABI_VERSION) "); arguments: filter=PATH (repeatable), verbose, "
                                      "report=PATH, mode=hooks, inline=after|before"};
    register_callback(info->base_name, PLUGIN_INFO, NULL, &plugin_info);

    state.filter = instr_filter_new();
    if (!state.filter) {
        error("instr: out of memory");
        return 1;
    }
    if (!parse_arguments(info))
        return 0;  // errors reported: the compile fails, nothing is registered

    register_callback(info->base_name, PLUGIN_REGISTER_GGC_ROOTS, NULL,
                      const_cast<ggc_root_tab *>(instr_gc_roots));

    register_omp_constructs(info->base_name);
    register_pass(info->base_name, make_instr_pass(g), "lower", PASS_POS_INSERT_AFTER);
    if (state.after_inlining)
        register_pass(info->base_name, make_instr_late_pass(g), "ehdisp",
                      PASS_POS_INSERT_BEFORE);
    register_callback(info->base_name, PLUGIN_FINISH, on_finish, NULL);
    return 0;
}
