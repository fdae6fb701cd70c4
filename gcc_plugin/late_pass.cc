// late_pass.cc — after IPA inlining (-fplugin-arg-instr-inline=after): the pass
// "instr_inlined" deletes in every function the hook calls whose descriptor is not the
// function's own (what an inlined callee brought along), and a gate keeps GCC's function
// splitting away from instrumented functions (docs/gcc-plugin.md, "Where the hooks end up").

#include "gcc_headers.h"
#include "plugin_state.h"

#include <string.h>

namespace instr_gcc {

// The function's own descriptor, or NULL_TREE (not instrumented, or a body GCC made from
// several functions' code, e.g. an OpenMP outlined body: then no hook call there is its own).
tree own_region(tree fndecl)
{
    tree attr = lookup_attribute(kInstrumentedAttr, DECL_ATTRIBUTES(fndecl));
    return attr ? TREE_VALUE(attr) : NULL_TREE;
}

// The descriptor a call to __instr_enter/__instr_exit refers to, or NULL_TREE if STMT is
// not such a call.
tree hook_call_region(gimple *stmt)
{
    if (!is_gimple_call(stmt))
        return NULL_TREE;
    tree callee = gimple_call_fndecl(stmt);
    if (!callee || (callee != enter_decl && callee != exit_decl) ||
        gimple_call_num_args(stmt) != 1)
        return NULL_TREE;
    tree arg = gimple_call_arg(stmt, 0);
    if (TREE_CODE(arg) != ADDR_EXPR || TREE_CODE(TREE_OPERAND(arg, 0)) != VAR_DECL)
        return NULL_TREE;
    return TREE_OPERAND(arg, 0);
}

const pass_data instr_inlined_pass_data = {
    GIMPLE_PASS,
    "instr_inlined",  // -fdump-tree-instr_inlined shows what is left
    OPTGROUP_NONE,
    TV_NONE,
    PROP_cfg,  // properties_required
    0,
    0,
    0,
    0,
};

// Runs once per function after IPA inlining (inserted before "ehdisp", right after the
// fixup_cfg that follows the inline transform), at every -O level. Deletes every hook call
// whose descriptor is not the function's own. The calls are nothrow (no EH edges); the
// guard around a deleted call (a load of d.handle and a branch around an empty block) is
// left to the CFG cleanup and dead code elimination that follow.
struct instr_inlined_pass : gimple_opt_pass {
    explicit instr_inlined_pass(gcc::context *ctx)
        : gimple_opt_pass(instr_inlined_pass_data, ctx)
    {
    }

    bool gate(function *fun) final override
    {
        return state.after_inlining && enter_decl != NULL_TREE && fun && !seen_error();
    }

    unsigned int execute(function *fun) final override
    {
        tree own = own_region(fun->decl);
        unsigned removed = 0;
        basic_block bb;
        FOR_EACH_BB_FN(bb, fun) {
            gimple_stmt_iterator gsi = gsi_start_bb(bb);
            while (!gsi_end_p(gsi)) {
                gimple *stmt = gsi_stmt(gsi);
                tree region = hook_call_region(stmt);
                if (!region || region == own) {
                    gsi_next(&gsi);
                    continue;
                }
                if (gimple_in_ssa_p(fun))
                    unlink_stmt_vdef(stmt);
                gsi_remove(&gsi, true);
                if (gimple_in_ssa_p(fun))
                    release_defs(stmt);
                ++removed;
            }
        }
        return removed ? TODO_cleanup_cfg : 0;
    }
};

// With "after", an instrumented function must not be split (ipa-split's fnsplit makes
// f.part.N of the tail of f and lets callers inline the head): f's enter would then sit in a
// caller, where it is deleted as an inlined callee's, while f.part.N keeps f's exits. Called
// for every pass and function before the pass's gate decides.
void on_override_gate(void *gcc_data, void *)
{
    bool *run = static_cast<bool *>(gcc_data);
    if (!*run || !state.after_inlining || !current_pass || !current_pass->name ||
        !current_function_decl)
        return;
    if (strcmp(current_pass->name, "fnsplit") != 0 &&
        strcmp(current_pass->name, "feedback_fnsplit") != 0)
        return;
    if (lookup_attribute(kInstrumentedAttr, DECL_ATTRIBUTES(current_function_decl)))
        *run = false;
}

opt_pass *make_instr_inlined_pass(gcc::context *ctx)
{
    return new instr_inlined_pass(ctx);
}

}  // namespace instr_gcc
