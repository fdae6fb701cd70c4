// late_pass.cc — inline=after (the default): the pass "instr_late" inserts the hooks into the
// final bodies, after IPA inlining and cloning, so that GCC decides its inlining, cloning and
// splitting on the same bodies as without the plugin (docs/gcc-plugin.md, "Where the hooks
// end up"). It runs once per function body GCC emits, in SSA form with lowered EH (inserted
// before "ehdisp", right after the fixup_cfg that applies the inline transform), at every -O
// level, in the compile and in LTO's link-time (LTRANS) compilations alike.
//
// A body gets hooks if its declaration carries the deciding pass's attribute: the function
// itself, or an IPA clone or split part of it (copies of the declaration). Per body:
//   - enter: on the edge out of the entry block (before any loop GCC made of a tail
//     recursion, so it runs once per call);
//   - exit before every return (and before a musttail call, which must stay in tail
//     position);
//   - exit on every unwinding path (unwind_exits.cc).
// Every hook call is guarded, as the ABI says: tmp = d.handle; if (tmp != UINT32_MAX) hook (&d).

#include "gcc_headers.h"
#include "plugin_state.h"

#include "asan.h"  // create_cond_insert_point
#include "tree-cfg.h"
#include "tree-into-ssa.h"
#include "cfgloop.h"

#include <vector>

namespace instr_gcc {

namespace {

const pass_data instr_late_pass_data = {
    GIMPLE_PASS,
    "instr_late",  // -fdump-tree-instr_late shows the bodies with their hooks
    OPTGROUP_NONE,
    TV_NONE,
    PROP_cfg,  // properties_required
    0,
    0,
    0,
    0,
};

struct instr_late_pass : gimple_opt_pass {
    explicit instr_late_pass(gcc::context *ctx) : gimple_opt_pass(instr_late_pass_data, ctx) {}

    bool gate(function *fun) final override
    {
        return state.after_inlining && fun && !seen_error();
    }

    unsigned int execute(function *fun) final override
    {
        tree attr = lookup_attribute(kInstrumentedAttr, DECL_ATTRIBUTES(fun->decl));
        if (!attr)
            return 0;
        // Never twice: GCC runs this pass once per body; the set keeps it so should the
        // pass ever be run again on a body (another instance of it).
        if (!state.late_instrumented.insert(DECL_UID(fun->decl)).second)
            return 0;
        region_facts rf;
        if (!region_facts_from_tree(TREE_VALUE(attr), &rf)) {
            error("instr: %qD carries a malformed instrumentation decision (was it compiled "
                  "by another version of the plugin?)",
                  fun->decl);
            return 0;
        }
        build_abi_trees();
        tree region = make_region(fun->decl, rf);
        insert_hooks(fun, region);
        return gimple_in_ssa_p(fun) ? TODO_update_ssa_only_virtuals : 0;
    }
};

}  // namespace

// Before the statement at *GSI (or into an empty block): tmp = d.handle; if (tmp !=
// UINT32_MAX) hook (&d); the block is split, the call gets a block of its own. Returns the
// call. Virtual operands are left for the SSA update the pass asks for.
gcall *insert_guarded_hook(function *fun, gimple_stmt_iterator *gsi, tree hook, tree region,
                           location_t loc)
{
    basic_block then_bb, join_bb;
    gimple_stmt_iterator cond_gsi =
        create_cond_insert_point(gsi, /*before_p=*/true, /*then_more_likely_p=*/true,
                                 /*create_then_fallthru_edge=*/true, &then_bb, &join_bb);
    tree tmp = gimple_in_ssa_p(fun) ? make_ssa_name(uint32_type_node)
                                    : create_tmp_var(uint32_type_node, "instr_handle");
    tree ref = build3(COMPONENT_REF, uint32_type_node, region, field("handle"), NULL_TREE);
    gassign *load = gimple_build_assign(tmp, ref);
    gimple_set_location(load, loc);
    gsi_insert_after(&cond_gsi, load, GSI_NEW_STMT);
    gcond *cond = gimple_build_cond(NE_EXPR, tmp, excluded_handle(),
                                    NULL_TREE, NULL_TREE);
    gimple_set_location(cond, loc);
    gsi_insert_after(&cond_gsi, cond, GSI_NEW_STMT);

    gcall *call = gimple_build_call(hook, 1, build_fold_addr_expr(region));
    gimple_set_location(call, loc);
    gimple_stmt_iterator call_gsi = gsi_start_bb(then_bb);
    gsi_insert_after(&call_gsi, call, GSI_NEW_STMT);
    // Keep the call graph in step with the body for the passes that still look at it.
    if (cgraph_node *node = cgraph_node::get(fun->decl))
        node->create_edge(cgraph_node::get_create(hook), call, then_bb->count);
    return call;
}

void insert_hooks(function *fun, tree region)
{
    location_t begin = DECL_SOURCE_LOCATION(fun->decl);
    location_t end = fun->function_end_locus != UNKNOWN_LOCATION ? fun->function_end_locus
                                                                  : begin;
    // Collected first: inserting splits blocks.
    std::vector<gimple *> returns;
    edge e;
    edge_iterator ei;
    FOR_EACH_EDGE(e, ei, EXIT_BLOCK_PTR_FOR_FN(fun)->preds) {
        gimple *last = last_stmt(e->src);
        if (last && gimple_code(last) == GIMPLE_RETURN)
            returns.push_back(last);
    }

    // Unwinding paths first: they add blocks that end in resx, never in a return.
    insert_unwind_exits(fun, region, end);

    for (gimple *ret : returns) {
        gimple_stmt_iterator gsi = gsi_for_stmt(ret);
        // A musttail call must stay in tail position: the exit goes before it.
        gimple_stmt_iterator prev = gsi;
        gsi_prev_nondebug(&prev);
        if (!gsi_end_p(prev) && is_gimple_call(gsi_stmt(prev)) &&
            gimple_call_must_tail_p(as_a<gcall *>(gsi_stmt(prev))))
            gsi = prev;
        location_t loc = gimple_location(ret) != UNKNOWN_LOCATION ? gimple_location(ret) : end;
        insert_guarded_hook(fun, &gsi, exit_decl, region, loc);
    }

    basic_block entry = split_edge(single_succ_edge(ENTRY_BLOCK_PTR_FOR_FN(fun)));
    gimple_stmt_iterator gsi = gsi_start_bb(entry);
    insert_guarded_hook(fun, &gsi, enter_decl, region, begin);

    free_dominance_info(CDI_DOMINATORS);
    free_dominance_info(CDI_POST_DOMINATORS);
    if (gimple_in_ssa_p(fun))
        mark_virtual_operands_for_renaming(fun);
}

opt_pass *make_instr_late_pass(gcc::context *ctx)
{
    return new instr_late_pass(ctx);
}

}  // namespace instr_gcc
