// unwind_exits.cc — inline=after: the exit hook on every path by which an exception leaves
// a function body, built in GCC's lowered EH after IPA inlining (docs/gcc-plugin.md, "Exits
// on unwinding paths"). In that form an exception leaves a body in one of two ways:
//   - a "resx" (resume unwinding) that has no landing pad in this body: the end of a
//     cleanup, of an exception specification, or the "no handler matched" path of a
//     try/catch. The exit goes right before it; the cleanup is already a landing pad.
//   - any other statement that can throw and has no landing pad (a call outside every
//     try, cleanup and catch). These get one new outermost cleanup region whose landing pad
//     calls the exit and resumes unwinding: what EH lowering makes of the try/finally of
//     inline=before, but built only for the statements that need it.
// A statement in a must-not-throw region (noexcept, a destructor's cleanup) cannot leave
// the body by an exception: the runtime terminates the program, no exit is needed.

#include "gcc_headers.h"
#include "plugin_state.h"

#include "except.h"
#include "tree-eh.h"
#include "cfgloop.h"

#include <vector>

namespace instr_gcc {

void insert_unwind_exits(function *fun, tree region, location_t loc)
{
    std::vector<gimple *> resumes, throwers;
    basic_block bb;
    FOR_EACH_BB_FN(bb, fun) {
        for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi)) {
            gimple *stmt = gsi_stmt(gsi);
            if (!stmt_can_throw_external(fun, stmt))
                continue;
            (gimple_code(stmt) == GIMPLE_RESX ? resumes : throwers).push_back(stmt);
        }
    }

    for (gimple *resume : resumes) {
        gimple_stmt_iterator gsi = gsi_for_stmt(resume);
        insert_guarded_hook(fun, &gsi, exit_decl, region, loc);
    }
    if (throwers.empty())
        return;

    eh_region cleanup = gen_eh_region_cleanup(NULL);  // outermost
    eh_landing_pad lp = gen_eh_landing_pad(cleanup);
    basic_block pad = create_empty_bb(EXIT_BLOCK_PTR_FOR_FN(fun)->prev_bb);
    pad->count = profile_count::zero();
    if (current_loops)
        add_bb_to_loop(pad, current_loops->tree_root);
    tree label = create_artificial_label(loc);
    lp->post_landing_pad = label;
    EH_LANDING_PAD_NR(label) = lp->index;
    gimple_stmt_iterator gsi = gsi_start_bb(pad);
    gsi_insert_after(&gsi, gimple_build_label(label), GSI_NEW_STMT);
    gresx *resume = gimple_build_resx(cleanup->index);
    gimple_set_location(resume, loc);
    gsi_insert_after(&gsi, resume, GSI_NEW_STMT);

    for (gimple *stmt : throwers) {
        // A statement with an EH edge ends its block.
        basic_block from = gimple_bb(stmt);
        gimple_stmt_iterator next = gsi_for_stmt(stmt);
        gsi_next(&next);
        if (!gsi_end_p(next))
            split_block(from, stmt);
        add_stmt_to_eh_lp(stmt, lp->index);
        edge e = make_edge(from, pad, EDGE_EH);
        e->probability = profile_probability::never();
    }

    gsi = gsi_for_stmt(resume);
    insert_guarded_hook(fun, &gsi, exit_decl, region, loc);
}

}  // namespace instr_gcc
