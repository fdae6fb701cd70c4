// hook_insertion.cc — the deciding pass ("instr", after "lower"): collects the facts, asks
// filter/ and records the decision on the declaration. With inline=after (the default) that
// is all: the hooks go in after IPA inlining (late_pass.cc). With inline=before it wraps an
// included function's body into
//
//     tmp = d.handle; if (tmp != UINT32_MAX) __instr_enter (&d);
//     try { <body> } finally { tmp = d.handle; if (tmp != UINT32_MAX) __instr_exit (&d); }
//
// EH lowering ("eh", the next pass but one) turns the try/finally into exit calls on every
// return path and on every unwinding path (a cleanup landing pad that calls the exit hook
// and resumes unwinding), exactly as GCC does for its own -finstrument-functions.

#include "gcc_headers.h"
#include "plugin_state.h"

#include <string.h>

namespace instr_gcc {

// tmp = d.handle; if (tmp != UINT32_MAX) hook (&d);
gimple_seq guarded_call(tree hook, tree region, location_t loc)
{
    gimple_seq seq = NULL;
    tree handle = field("handle");
    tree tmp = create_tmp_var(uint32_type_node, "instr_handle");
    tree ref = build3(COMPONENT_REF, uint32_type_node, region, handle, NULL_TREE);
    gimple *load = gimple_build_assign(tmp, ref);
    gimple_set_location(load, loc);
    gimple_seq_add_stmt(&seq, load);
    tree do_call = create_artificial_label(loc);
    tree skip = create_artificial_label(loc);
    gimple *cond = gimple_build_cond(NE_EXPR, tmp, excluded_handle(),
                                     do_call, skip);
    gimple_set_location(cond, loc);
    gimple_seq_add_stmt(&seq, cond);
    gimple_seq_add_stmt(&seq, gimple_build_label(do_call));
    gimple *call = gimple_build_call(hook, 1, build_fold_addr_expr(region));
    gimple_set_location(call, loc);
    gimple_seq_add_stmt(&seq, call);
    gimple_seq_add_stmt(&seq, gimple_build_label(skip));
    return seq;
}

void instrument(function *fun, tree region)
{
    tree fndecl = fun->decl;
    location_t begin = DECL_SOURCE_LOCATION(fndecl);
    location_t end = fun->function_end_locus != UNKNOWN_LOCATION ? fun->function_end_locus
                                                                  : begin;
    gimple_seq body = gimple_body(fndecl);
    gimple_seq cleanup = guarded_call(exit_decl, region, end);
    gtry *tf = gimple_build_try(body, cleanup, GIMPLE_TRY_FINALLY);
    gimple_set_location(tf, begin);
    gimple_seq out = guarded_call(enter_decl, region, begin);
    gimple_seq_add_stmt(&out, tf);
    gimple_set_body(fndecl, out);
}

// ---------------------------------------------------------------------------------------
// The pass

const pass_data instr_pass_data = {
    GIMPLE_PASS,
    "instr",         // name: -fdump-tree-instr shows the rewritten body
    OPTGROUP_NONE,
    TV_NONE,
    PROP_gimple_any | PROP_gimple_lcf,  // properties_required: after "lower"
    0,               // properties_provided
    0,               // properties_destroyed
    0,               // todo_flags_start
    0,               // todo_flags_finish
};

const char *const kInstrumentedAttr = "instr instrumented";

struct instr_pass : gimple_opt_pass {
    explicit instr_pass(gcc::context *ctx) : gimple_opt_pass(instr_pass_data, ctx) {}

    bool gate(function *fun) final override
    {
        return fun && gimple_body(fun->decl) != NULL && !seen_error();
    }

    unsigned int execute(function *fun) final override
    {
        tree fndecl = fun->decl;
        // Never twice (a second pass instance or a re-lowered body).
        if (lookup_attribute(kInstrumentedAttr, DECL_ATTRIBUTES(fndecl)))
            return 0;

        const char *mangled = linkage_name(fndecl);
        std::string signature = function_signature(fndecl, mangled);
        std::string file = absolute_path(DECL_SOURCE_FILE(fndecl));
        long instructions = gimple_statement_count(gimple_body(fndecl));

        instr_function_facts facts;
        memset(&facts, 0, sizeof facts);
        facts.signature = signature.c_str();
        facts.name = NULL;  // filter/ derives the qualified name from the signature
        facts.mangled = mangled;
        facts.file = file.c_str();
        facts.instructions = instructions;
        facts.is_main = is_program_main(fndecl, mangled);
        facts.builtin_flags = builtin_flags(fndecl);
        // GCC's own printing of the declaration, as Score-P's GCC plugin records it
        // ("MMD_float Neighbor::bindist(int, int, int)"); the defining file with symbolic
        // links resolved, so file rules match either path.
        facts.tool_name = lang_hooks.decl_printable_name(fndecl, 2);
        char *resolved = file.empty() ? NULL : realpath(file.c_str(), NULL);
        facts.resolved_file = resolved && file != resolved ? resolved : NULL;

        instr_decision d = instr_filter_decide(state.filter, &facts);
        free(resolved);
        count_decision(d);
        report_line(d, signature, mangled, file, instructions);
        if (!d.include)
            return 0;

        region_facts rf = region_facts_of(fndecl, signature, mangled, file);
        // The decision travels on the declaration (also into IPA clones, split parts and
        // LTO's link-time compilation), and marks the function as decided.
        DECL_ATTRIBUTES(fndecl) = tree_cons(get_identifier(kInstrumentedAttr),
                                            region_facts_tree(rf), DECL_ATTRIBUTES(fndecl));
        // inline=after: the body stays as it is, so that GCC's inliner sees what it sees
        // without the plugin; the pass after IPA inlining (late_pass.cc) inserts the hooks.
        if (state.after_inlining)
            return 0;
        build_abi_trees();
        instrument(fun, make_region(fndecl, rf));
        return 0;
    }
};

opt_pass *make_instr_pass(gcc::context *ctx)
{
    return new instr_pass(ctx);
}

}  // namespace instr_gcc
