// omp_constructs.cc — with -fopenmp, the pass "instr_omp" (right before "omplower") marks the
// OpenMP constructs that GCC compiles to no call of GNU libgomp, so that the runtime records
// them as the OMPT adapter records them on LLVM's libomp (docs/openmp.md, "gcc -fopenmp"):
//
//   #pragma omp for (static schedule, not ordered)  begin(LOOP); <for>; end(LOOP)
//   #pragma omp distribute                          begin(DISTRIBUTE); <distribute>; end(...)
//   #pragma omp scope                               begin(SCOPE); <scope>; end(SCOPE)
//   #pragma omp master / masked                     <masked> { begin(MASKED); body; end(MASKED) }
//   #pragma omp single (no copyprivate)             begin(SINGLE); <single> { body;
//                                                   end(SINGLE_BODY) }; end(SINGLE)
//
// (begin and end: __instr_gomp_construct_begin/_end, runtime/include/instr_abi.h.) The calls
// are ordinary statements of the enclosing body, before OpenMP lowering: GCC outlines and
// expands them with the construct, and the construct's implicit barrier (a GOMP_barrier
// call that lowering puts at the construct's end) runs between them. Which constructs these
// are is GCC's expansion (omp-expand.cc), not a selection: nothing of filter/ is involved,
// and a compilation without -fopenmp never runs the pass.

#include "gcc_headers.h"
#include "plugin_state.h"

#include "omp-general.h"  // omp_find_clause

namespace instr_gcc {

namespace {

tree begin_decl = NULL_TREE;  // void __instr_gomp_construct_begin (unsigned)
tree end_decl = NULL_TREE;    // void __instr_gomp_construct_end (unsigned)

const struct ggc_root_tab omp_gc_roots[] = {
    {&begin_decl, 1, sizeof(begin_decl), gt_ggc_mx_tree_node, gt_pch_nx_tree_node},
    {&end_decl, 1, sizeof(end_decl), gt_ggc_mx_tree_node, gt_pch_nx_tree_node},
    LAST_GGC_ROOT_TAB};

void build_decls()
{
    if (begin_decl)
        return;
    tree fntype = build_function_type_list(void_type_node, unsigned_type_node, NULL_TREE);
    begin_decl = build_fn_decl(INSTR_GOMP_CONSTRUCT_BEGIN, fntype);
    end_decl = build_fn_decl(INSTR_GOMP_CONSTRUCT_END, fntype);
    for (tree d : {begin_decl, end_decl}) {
        // Never throw (C, no unwind tables), and never call back into this translation unit.
        TREE_NOTHROW(d) = 1;
        DECL_ATTRIBUTES(d) = tree_cons(get_identifier("leaf"), NULL_TREE, NULL_TREE);
        DECL_VISIBILITY(d) = VISIBILITY_DEFAULT;
        DECL_VISIBILITY_SPECIFIED(d) = 1;
    }
}

gimple *marker(tree decl, unsigned kind, location_t loc)
{
    gimple *call = gimple_build_call(decl, 1, build_int_cst(unsigned_type_node, kind));
    gimple_set_location(call, loc);
    return call;
}

// A loop that omp-expand.cc computes inline: a static schedule (no schedule clause, static,
// or auto, which GCC runs as static) without ordered, and no clause that makes it register
// with libgomp (a task reduction or a conditional lastprivate: GOMP_loop_start).
bool inline_loop(gimple *stmt)
{
    tree clauses = gimple_omp_for_clauses(stmt);
    tree c = omp_find_clause(clauses, OMP_CLAUSE_SCHEDULE);
    if (c) {
        unsigned kind = OMP_CLAUSE_SCHEDULE_KIND(c) & OMP_CLAUSE_SCHEDULE_MASK;
        if (kind != OMP_CLAUSE_SCHEDULE_STATIC && kind != OMP_CLAUSE_SCHEDULE_AUTO)
            return false;
    }
    if (omp_find_clause(clauses, OMP_CLAUSE_ORDERED))
        return false;
    for (c = clauses; c; c = OMP_CLAUSE_CHAIN(c)) {
        if (OMP_CLAUSE_CODE(c) == OMP_CLAUSE_REDUCTION && OMP_CLAUSE_REDUCTION_TASK(c))
            return false;
        if (OMP_CLAUSE_CODE(c) == OMP_CLAUSE_LASTPRIVATE && OMP_CLAUSE_LASTPRIVATE_CONDITIONAL(c))
            return false;
    }
    return true;
}

// A scope that registers with libgomp (GOMP_scope_start: a task reduction) is left alone.
bool inline_scope(gimple *stmt)
{
    for (tree c = gimple_omp_scope_clauses(stmt); c; c = OMP_CLAUSE_CHAIN(c))
        if (OMP_CLAUSE_CODE(c) == OMP_CLAUSE_REDUCTION && OMP_CLAUSE_REDUCTION_TASK(c))
            return false;
    return true;
}

// The loop of the combined parallel construct (`parallel for`, `parallel do`) the walk entered
// last, and that construct's location: the loop is named after it, as the parallel region and
// the loop of a combined construct are on libomp (gcc gives the loop the location of its `for`
// statement, gfortran that of the loop's body).
const gimple *combined_loop = NULL;
location_t combined_loop_loc = UNKNOWN_LOCATION;

const gimple *first_loop(gimple_seq seq)
{
    for (gimple_stmt_iterator gsi = gsi_start(seq); !gsi_end_p(gsi); gsi_next(&gsi)) {
        gimple *stmt = gsi_stmt(gsi);
        if (gimple_code(stmt) == GIMPLE_OMP_FOR)
            return stmt;
        if (gimple_code(stmt) == GIMPLE_BIND)
            if (const gimple *loop = first_loop(gimple_bind_body(as_a<gbind *>(stmt))))
                return loop;
    }
    return NULL;
}

// begin before the statement at *GSI, end after it; the iterator stays on the statement.
void around(gimple_stmt_iterator *gsi, unsigned kind, location_t loc)
{
    gsi_insert_before(gsi, marker(begin_decl, kind, loc), GSI_SAME_STMT);
    gsi_insert_after(gsi, marker(end_decl, kind, loc), GSI_SAME_STMT);
}

// begin (if BEGIN) and end inside the construct's body.
void inside(gimple *stmt, bool begin, unsigned kind)
{
    location_t loc = gimple_location(stmt);
    gimple_seq body = NULL;
    if (begin)
        gimple_seq_add_stmt(&body, marker(begin_decl, kind, loc));
    gimple_seq_add_seq(&body, gimple_omp_body(stmt));
    gimple_seq_add_stmt(&body, marker(end_decl, begin ? kind : (unsigned)INSTR_GOMP_CONSTRUCT_SINGLE_BODY,
                                      loc));
    gimple_omp_set_body(stmt, body);
}

tree mark_construct(gimple_stmt_iterator *gsi, bool *handled, struct walk_stmt_info *)
{
    *handled = false;  // the walk goes on into the construct's body
    gimple *stmt = gsi_stmt(*gsi);
    switch (gimple_code(stmt)) {
    case GIMPLE_OMP_FOR:
        if (gimple_omp_for_kind(stmt) == GF_OMP_FOR_KIND_FOR && inline_loop(stmt))
            around(gsi, INSTR_GOMP_CONSTRUCT_LOOP,
                   stmt == combined_loop ? combined_loop_loc : gimple_location(stmt));
        if (stmt == combined_loop)
            combined_loop = NULL;  // never compared with a later statement at its address
        else if (gimple_omp_for_kind(stmt) == GF_OMP_FOR_KIND_DISTRIBUTE)
            around(gsi, INSTR_GOMP_CONSTRUCT_DISTRIBUTE, gimple_location(stmt));
        break;
    case GIMPLE_OMP_PARALLEL:
        if (gimple_omp_parallel_combined_p(stmt)) {
            combined_loop = first_loop(gimple_omp_body(stmt));
            combined_loop_loc = gimple_location(stmt);
        }
        break;
    case GIMPLE_OMP_TARGET:
        // Code in a target region may be compiled for an offload device too, where neither
        // the markers nor libinstr-rt exist: left alone (on the host fallback, too).
        *handled = true;
        break;
    case GIMPLE_OMP_MASTER:
    case GIMPLE_OMP_MASKED:
        inside(stmt, true, INSTR_GOMP_CONSTRUCT_MASKED);
        break;
    case GIMPLE_OMP_SCOPE:
        if (inline_scope(stmt))
            around(gsi, INSTR_GOMP_CONSTRUCT_SCOPE, gimple_location(stmt));
        break;
    case GIMPLE_OMP_SINGLE:
        // copyprivate: GOMP_single_copy_start/_end see the construct's end themselves
        if (!omp_find_clause(gimple_omp_single_clauses(stmt), OMP_CLAUSE_COPYPRIVATE)) {
            around(gsi, INSTR_GOMP_CONSTRUCT_SINGLE, gimple_location(stmt));
            inside(stmt, false, INSTR_GOMP_CONSTRUCT_SINGLE);
        }
        break;
    default:
        break;
    }
    return NULL_TREE;
}

const pass_data omp_pass_data = {
    GIMPLE_PASS,
    "instr_omp",  // -fdump-tree-instr_omp shows the marked constructs
    OPTGROUP_NONE,
    TV_NONE,
    PROP_gimple_any,  // properties_required: the gimplified body, before OpenMP lowering
    0,
    0,
    0,
    0,
};

struct omp_pass : gimple_opt_pass {
    explicit omp_pass(gcc::context *ctx) : gimple_opt_pass(omp_pass_data, ctx) {}

    bool gate(function *fun) final override
    {
        // Functions declared for offload devices (declare target) are compiled for them too.
        return flag_openmp && fun && gimple_body(fun->decl) != NULL && !seen_error() &&
               !lookup_attribute("omp declare target", DECL_ATTRIBUTES(fun->decl));
    }

    unsigned int execute(function *fun) final override
    {
        build_decls();
        combined_loop = NULL;
        gimple_seq body = gimple_body(fun->decl);
        struct walk_stmt_info wi;
        memset(&wi, 0, sizeof wi);
        walk_gimple_seq_mod(&body, mark_construct, NULL, &wi);
        gimple_set_body(fun->decl, body);
        return 0;
    }
};

}  // namespace

bool omp_construct_marker_p(const gimple *stmt)
{
    if (!begin_decl || !is_gimple_call(stmt))
        return false;
    tree fn = gimple_call_fndecl(stmt);
    return fn == begin_decl || fn == end_decl;
}

void register_omp_constructs(const char *plugin_name)
{
    register_callback(plugin_name, PLUGIN_REGISTER_GGC_ROOTS, NULL,
                      const_cast<ggc_root_tab *>(omp_gc_roots));
    struct register_pass_info info;
    info.pass = new omp_pass(g);
    info.reference_pass_name = "omplower";
    info.ref_pass_instance_number = 1;
    info.pos_op = PASS_POS_INSERT_BEFORE;
    register_callback(plugin_name, PLUGIN_PASS_MANAGER_SETUP, NULL, &info);
}

}  // namespace instr_gcc
