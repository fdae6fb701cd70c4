// plugin_state.h — what the files of the GCC plugin share: the per-compilation state and the
// functions one file offers the others. One compilation is one translation unit.
#ifndef INSTR_GCC_PLUGIN_STATE_H
#define INSTR_GCC_PLUGIN_STATE_H

#include "instr_abi.h"
#include "instr_filter.h"

#include <string>
#include <unordered_set>

namespace instr_gcc {

struct plugin_state {
    instr_filter *filter = nullptr;
    bool verbose = false;
    int report_fd = -1;
    std::string report_path;
    unsigned long seen = 0, instrumented = 0;
    unsigned long excluded_file = 0, excluded_name = 0, excluded_size = 0,
                  excluded_builtin = 0;
    unsigned next_region = 0;
    bool link_check_emitted = false;  // descriptor.cc: one reference per translation unit
    // -fplugin-arg-instr-inline=after (default): the hooks go into the final bodies after
    // IPA inlining (late_pass.cc); before: into the lowered body, before any inlining.
    bool after_inlining = true;
    // DECL_UIDs of the bodies the pass after inlining has given hooks (late_pass.cc).
    std::unordered_set<unsigned> late_instrumented;
};

extern plugin_state state;

// The attribute an included function's declaration carries from the deciding pass on; its
// value is region_facts_tree() of the function (hook_insertion.cc sets it, late_pass.cc
// inserts the hooks of every body that carries it).
extern const char *const kInstrumentedAttr;

// options.cc
bool parse_arguments(const plugin_name_args *info);

// function_facts.cc
const char *linkage_name(tree fndecl);
std::string demangled_signature(const char *mangled);
std::string absolute_path(const char *file);
long gimple_statement_count(gimple_seq body);
unsigned builtin_flags(tree fndecl);
std::string function_signature(tree fndecl, const char *mangled);
bool is_program_main(tree fndecl, const char *mangled);

// fortran_names.cc
bool fortran_unit();
std::string fortran_name(tree fndecl);
bool fortran_generated_main(tree fndecl);
bool fortran_program(tree fndecl);

// decision_report.cc
const char *tu_name();
void report_line(const instr_decision &d, const std::string &signature, const char *mangled,
                 const std::string &file, long instructions);
void count_decision(const instr_decision &d);

// descriptor.cc: the ABI trees, built on first use and kept as GC roots.
extern tree region_type;  // struct instr_region
extern tree enter_decl;   // void __instr_enter (struct instr_region *)
extern tree exit_decl;    // void __instr_exit (struct instr_region *)
extern const struct ggc_root_tab instr_gc_roots[];
void build_abi_trees();
tree field(const char *name);
tree excluded_handle();  // INSTR_HANDLE_EXCLUDED as a uint32 constant: the hooks' guard
// What a descriptor says about the function the user wrote.
struct region_facts {
    std::string signature, mangled, file;
    unsigned line_begin = 0, line_end = 0;
};
region_facts region_facts_of(tree fndecl, const std::string &signature, const char *mangled,
                            const std::string &file);
tree region_facts_tree(const region_facts &rf);
bool region_facts_from_tree(tree list, region_facts *rf);
tree make_region(tree fndecl, const region_facts &rf);

// hook_insertion.cc: the deciding pass (and the hooks of inline=before)
opt_pass *make_instr_pass(gcc::context *ctx);

// omp_constructs.cc: with -fopenmp, the markers of the OpenMP constructs GCC compiles to no
// libgomp call (the pass before "omplower")
void register_omp_constructs(const char *plugin_name);
bool omp_construct_marker_p(const gimple *stmt);

// late_pass.cc, unwind_exits.cc: the hooks of inline=after, in the final bodies
opt_pass *make_instr_late_pass(gcc::context *ctx);
void insert_hooks(function *fun, tree region);
gcall *insert_guarded_hook(function *fun, gimple_stmt_iterator *gsi, tree hook, tree region,
                           location_t loc);
void insert_unwind_exits(function *fun, tree region, location_t loc);

}  // namespace instr_gcc

#endif
