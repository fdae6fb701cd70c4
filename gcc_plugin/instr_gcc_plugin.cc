// instr_gcc_plugin.cc — the GCC front end of instr (plugin name "instr", built as instr.so).
//
// A thin shim (DESIGN.md sections 2 and 3): for every function GCC lowers it collects the
// facts (libiberty-demangled assembler name, absolute defining file, GIMPLE statement
// count, built-in exclusion facts), asks filter/ via instr_filter_decide(), and for an
// included function emits an ABI v1 descriptor in section "instr_regions" and rewrites the
// body into
//
//     tmp = d.handle; if (tmp != UINT32_MAX) __instr_enter (&d);
//     try { <body> } finally { tmp = d.handle; if (tmp != UINT32_MAX) __instr_exit (&d); }
//
// The pass runs right after GCC's "lower" pass and before "eh": EH lowering turns the
// try/finally into exit calls on every return path and on every unwinding path (a cleanup
// landing pad that calls the exit hook and resumes unwinding), exactly as GCC does for its
// own -finstrument-functions.
//
// Placement (-fplugin-arg-instr-inline=after|before, default after): the hooks are always
// inserted at that early point, because only there does GCC build the exception cleanups
// for us. With "after", a second pass ("instr_inlined", after IPA inlining) deletes in
// every function the hook calls whose descriptor is not the function's own: what an inlined
// callee brought along. Every hook call of one descriptor in a function is deleted or none
// is, so a function's own enter/exit stay exactly as EH lowering balanced them. That holds
// only while a function's own hooks stay in one function body, so "after" also keeps GCC's
// function splitting (fnsplit: f.part.N, partial inlining) away from instrumented
// functions. See docs/gcc-plugin.md.

#include "gcc-plugin.h"
#include "plugin-version.h"

#include "tree.h"
#include "tree-pass.h"
#include "context.h"
#include "function.h"
#include "basic-block.h"
#include "gimple.h"
#include "gimple-iterator.h"
#include "gimple-walk.h"
#include "gimplify.h"
#include "stringpool.h"
#include "stor-layout.h"
#include "cgraph.h"
#include "ssa.h"  // unlink_stmt_vdef, release_defs (the late pass works on SSA form)
#include "attribs.h"
#include "diagnostic-core.h"
#include "toplev.h"
#include "ggc.h"
#include "intl.h"
#include "langhooks.h"  // instr filter facts: decl_printable_name

#include "instr_filter.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <string>
#include <vector>

// libiberty's demangler, linked into cc1 and cc1plus and exported to plugins (the plugin
// headers do not ship demangle.h). Values from include/demangle.h.
extern "C" char *cplus_demangle(const char *mangled, int options);
#define INSTR_DMGL_PARAMS (1 << 0)
#define INSTR_DMGL_ANSI (1 << 1)

__attribute__((visibility("default"))) int plugin_is_GPL_compatible;

namespace {

const char *const kPluginName = "instr";

// ---------------------------------------------------------------------------------------
// Plugin state (one compilation = one translation unit)

struct plugin_state {
    instr_filter *filter = nullptr;
    bool verbose = false;
    int report_fd = -1;
    std::string report_path;
    unsigned long seen = 0, instrumented = 0;
    unsigned long excluded_file = 0, excluded_name = 0, excluded_size = 0,
                  excluded_builtin = 0;
    unsigned next_region = 0;
    // -fplugin-arg-instr-inline=after (default): inlined callees' hooks are deleted after
    // IPA inlining; before: every inlined copy keeps its hooks.
    bool after_inlining = true;
};

plugin_state state;

// Trees kept across functions; registered as GC roots so ggc_collect between functions
// cannot free them.
tree region_type = NULL_TREE;   // struct instr_region
tree enter_decl = NULL_TREE;    // void __instr_enter (struct instr_region *)
tree exit_decl = NULL_TREE;     // void __instr_exit (struct instr_region *)

const struct ggc_root_tab instr_gc_roots[] = {
    {&region_type, 1, sizeof(region_type), gt_ggc_mx_tree_node, gt_pch_nx_tree_node},
    {&enter_decl, 1, sizeof(enter_decl), gt_ggc_mx_tree_node, gt_pch_nx_tree_node},
    {&exit_decl, 1, sizeof(exit_decl), gt_ggc_mx_tree_node, gt_pch_nx_tree_node},
    LAST_GGC_ROOT_TAB};

// ---------------------------------------------------------------------------------------
// Facts

// The assembler (linkage) name without GCC's '*' marker for user asm labels.
const char *linkage_name(tree fndecl)
{
    const char *name = IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(fndecl));
    return name[0] == '*' ? name + 1 : name;
}

// Demangled signature: libiberty's Itanium demangler on the assembler name; a name that is
// not an Itanium mangled name (C, extern "C", main) is its own signature.
std::string demangled_signature(const char *mangled)
{
    if (mangled[0] == '_' && mangled[1] == 'Z') {
        char *d = cplus_demangle(mangled, INSTR_DMGL_PARAMS | INSTR_DMGL_ANSI);
        if (d) {
            // libiberty's spelling is already the canonical one; normalising anyway keeps
            // both plugins on the same path
            std::string s(instr_demangled_normalize(d, nullptr, 0), '\0');
            instr_demangled_normalize(d, &s[0], s.size() + 1);
            free(d);
            return s;
        }
    }
    return mangled;
}

// Lexically normalised absolute path: relative names are joined to the compilation
// directory; "." components and repeated slashes are dropped; ".." removes the previous
// component. No symlinks are resolved (the path a user sees in the compile command).
std::string absolute_path(const char *file)
{
    if (!file || !*file || file[0] == '<')  // "<built-in>", "<command-line>"
        return "";
    std::string raw;
    if (file[0] != '/') {
        const char *pwd = get_src_pwd();
        if (!pwd || !*pwd)
            return file;
        raw = pwd;
        raw += '/';
    }
    raw += file;
    std::vector<std::string> parts;
    size_t i = 0;
    while (i < raw.size()) {
        size_t j = raw.find('/', i);
        if (j == std::string::npos)
            j = raw.size();
        std::string part = raw.substr(i, j - i);
        if (part == "..") {
            if (!parts.empty())
                parts.pop_back();
        } else if (!part.empty() && part != ".") {
            parts.push_back(part);
        }
        i = j + 1;
    }
    std::string out;
    for (const std::string &p : parts) {
        out += '/';
        out += p;
    }
    return out.empty() ? "/" : out;
}

// GIMPLE statements of the lowered body, nested ones included; labels, debug statements,
// nops and scope containers (GIMPLE_BIND) are not counted.
tree count_stmt(gimple_stmt_iterator *gsi, bool *handled, struct walk_stmt_info *wi)
{
    *handled = false;
    switch (gimple_code(gsi_stmt(*gsi))) {
    case GIMPLE_LABEL:
    case GIMPLE_DEBUG:
    case GIMPLE_NOP:
    case GIMPLE_BIND:
        break;
    default:
        ++*static_cast<long *>(wi->info);
    }
    return NULL_TREE;
}

long gimple_statement_count(gimple_seq body)
{
    long count = 0;
    struct walk_stmt_info wi;
    memset(&wi, 0, sizeof wi);
    wi.info = &count;
    walk_gimple_seq(body, count_stmt, NULL, &wi);
    return count;
}

// The body of a C++ lambda: the closure type's operator(). g++ marks it DECL_ARTIFICIAL
// (lambda.cc), yet it is the user's code and clang does not treat it as compiler-generated;
// the static invoker (_FUN) and the conversion to a function pointer stay artificial.
// Written with generic tree accessors (cp-tree.h's LAMBDA_TYPE_P: the closure type's
// identifier has IDENTIFIER_LAMBDA_P, i.e. protected_flag) so that the plugin loads into
// cc1 as well as cc1plus; in C a function's context is never a RECORD_TYPE.
bool lambda_body_p(tree fndecl)
{
    tree ctx = DECL_CONTEXT(fndecl);
    if (!ctx || TREE_CODE(ctx) != RECORD_TYPE || !DECL_NAME(fndecl))
        return false;
    tree id = TYPE_IDENTIFIER(TYPE_MAIN_VARIANT(ctx));
    if (!id || TREE_CODE(id) != IDENTIFIER_NODE || !id->base.protected_flag)
        return false;
    return !strcmp(IDENTIFIER_POINTER(DECL_NAME(fndecl)), "operator()");
}

unsigned builtin_flags(tree fndecl)
{
    unsigned flags = 0;
    // A body GCC will not emit here: gnu_inline "extern inline" and C99 inline definitions
    // (LLVM: available_externally).
    if (DECL_EXTERNAL(fndecl))
        flags |= INSTR_BUILTIN_FLAG(INSTR_BUILTIN_DECLARATION);
    // Compiler-generated: implicit special members, static initialisers, outlined bodies.
    if ((DECL_ARTIFICIAL(fndecl) && !lambda_body_p(fndecl)) ||
        DECL_SOURCE_LOCATION(fndecl) == BUILTINS_LOCATION)
        flags |= INSTR_BUILTIN_FLAG(INSTR_BUILTIN_ARTIFICIAL);
    if (lookup_attribute("naked", DECL_ATTRIBUTES(fndecl)))
        flags |= INSTR_BUILTIN_FLAG(INSTR_BUILTIN_NAKED);
    // __attribute__((no_instrument_function)): the way hook implementations (ours and other
    // tools') keep themselves out of instrumentation.
    // (The attribute, not DECL_NO_INSTRUMENT_FUNCTION_ENTRY_EXIT: gimplification sets that
    // flag on every function it has processed.)
    if (lookup_attribute("no_instrument_function", DECL_ATTRIBUTES(fndecl)))
        flags |= INSTR_BUILTIN_FLAG(INSTR_BUILTIN_RUNTIME);
    return flags;
}

// ---------------------------------------------------------------------------------------
// Report and verbose output (shared format with the LLVM plugin, docs/gcc-plugin.md)

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

// ---------------------------------------------------------------------------------------
// Rewriting

tree add_field(tree type, const char *name, tree field_type, tree chain)
{
    tree f = build_decl(BUILTINS_LOCATION, FIELD_DECL, get_identifier(name), field_type);
    DECL_CONTEXT(f) = type;
    DECL_CHAIN(f) = chain;
    return f;
}

tree field(const char *name)
{
    for (tree f = TYPE_FIELDS(region_type); f; f = DECL_CHAIN(f))
        if (!strcmp(IDENTIFIER_POINTER(DECL_NAME(f)), name))
            return f;
    gcc_unreachable();
}

void build_abi_trees()
{
    if (region_type)
        return;
    // struct instr_region of runtime/include/instr_abi.h (ABI v1), fields in order.
    tree type = make_node(RECORD_TYPE);
    tree cstr = build_pointer_type(build_qualified_type(char_type_node, TYPE_QUAL_CONST));
    tree fields = NULL_TREE;
    // Each add_field prepends; finish_builtin_struct reverses the chain into field order.
    fields = add_field(type, "handle", uint32_type_node, fields);
    fields = add_field(type, "flags", uint32_type_node, fields);
    fields = add_field(type, "name", cstr, fields);
    fields = add_field(type, "mangled", cstr, fields);
    fields = add_field(type, "file", cstr, fields);
    fields = add_field(type, "line_begin", uint32_type_node, fields);
    fields = add_field(type, "line_end", uint32_type_node, fields);
    fields = add_field(type, "addr", ptr_type_node, fields);
    finish_builtin_struct(type, "instr_region", fields, NULL_TREE);
    region_type = type;

    tree fntype = build_function_type_list(void_type_node, build_pointer_type(region_type),
                                           NULL_TREE);
    enter_decl = build_fn_decl("__instr_enter", fntype);
    exit_decl = build_fn_decl("__instr_exit", fntype);
    for (tree d : {enter_decl, exit_decl}) {
        // The runtime is C compiled without unwind tables for its hooks: they never throw,
        // so the calls need no EH edges (and the exit call is safe inside a cleanup).
        TREE_NOTHROW(d) = 1;
        DECL_VISIBILITY(d) = VISIBILITY_DEFAULT;
        DECL_VISIBILITY_SPECIFIED(d) = 1;
    }
}

tree string_cst(const std::string &s)
{
    return build_string_literal(s.size() + 1, s.c_str());
}

tree make_region(tree fndecl, const std::string &signature, const char *mangled,
                 const std::string &file)
{
    char name[64];
    snprintf(name, sizeof name, "__instr_region.%u", state.next_region++);
    tree var = build_decl(DECL_SOURCE_LOCATION(fndecl), VAR_DECL, get_identifier(name),
                          region_type);
    TREE_STATIC(var) = 1;
    TREE_PUBLIC(var) = 0;
    DECL_EXTERNAL(var) = 0;
    DECL_ARTIFICIAL(var) = 1;
    DECL_IGNORED_P(var) = 1;
    TREE_USED(var) = 1;
    TREE_ADDRESSABLE(var) = 1;
    DECL_PRESERVE_P(var) = 1;  // __attribute__((used)): the section is the list of regions
    DECL_CONTEXT(var) = NULL_TREE;
    // Always a local symbol, also for C++ inline functions: GCC keeps one set of flags per
    // named section in a translation unit, so COMDAT and non-COMDAT descriptors cannot share
    // "instr_regions" (a "section type conflict"). An inline function instrumented in
    // several objects therefore has one descriptor per object, all with the same name,
    // mangled name and address; docs/gcc-plugin.md.
    set_decl_section_name(var, "instr_regions");
    // The runtime walks the section as an array of struct instr_region: no padding between
    // descriptors. A user alignment stops x86-64 from raising large objects to 32 bytes.
    SET_DECL_ALIGN(var, TYPE_ALIGN(region_type));
    DECL_USER_ALIGN(var) = 1;

    expanded_location begin = expand_location(DECL_SOURCE_LOCATION(fndecl));
    expanded_location end = expand_location(DECL_STRUCT_FUNCTION(fndecl)
                                                ? DECL_STRUCT_FUNCTION(fndecl)->function_end_locus
                                                : UNKNOWN_LOCATION);
    unsigned line_end = end.line >= begin.line ? end.line : begin.line;

    vec<constructor_elt, va_gc> *elts = NULL;
    CONSTRUCTOR_APPEND_ELT(elts, field("handle"), build_int_cst(uint32_type_node, 0));
    CONSTRUCTOR_APPEND_ELT(elts, field("flags"), build_int_cst(uint32_type_node, 0));
    CONSTRUCTOR_APPEND_ELT(elts, field("name"), string_cst(signature));
    CONSTRUCTOR_APPEND_ELT(elts, field("mangled"), string_cst(mangled));
    CONSTRUCTOR_APPEND_ELT(elts, field("file"), string_cst(file));
    CONSTRUCTOR_APPEND_ELT(elts, field("line_begin"),
                           build_int_cst(uint32_type_node, begin.line));
    CONSTRUCTOR_APPEND_ELT(elts, field("line_end"), build_int_cst(uint32_type_node, line_end));
    CONSTRUCTOR_APPEND_ELT(elts, field("addr"),
                           fold_convert(ptr_type_node, build_fold_addr_expr(fndecl)));
    tree init = build_constructor(region_type, elts);
    TREE_CONSTANT(init) = 1;
    TREE_STATIC(init) = 1;
    DECL_INITIAL(var) = init;
    varpool_node::finalize_decl(var);
    return var;
}

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
    gimple *cond = gimple_build_cond(NE_EXPR, tmp, build_all_ones_cst(uint32_type_node),
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
        std::string signature = demangled_signature(mangled);
        std::string file = absolute_path(DECL_SOURCE_FILE(fndecl));
        long instructions = gimple_statement_count(gimple_body(fndecl));

        instr_function_facts facts;
        memset(&facts, 0, sizeof facts);
        facts.signature = signature.c_str();
        facts.name = NULL;  // filter/ derives the qualified name from the signature
        facts.mangled = mangled;
        facts.file = file.c_str();
        facts.instructions = instructions;
        facts.is_main = !strcmp(mangled, "main");
        facts.builtin_flags = builtin_flags(fndecl);

        // --- instr filter facts: Score-P's spelling and the resolved path (issue 16) -------
        // GCC's own printing of the declaration, as Score-P's GCC plugin records it
        // ("MMD_float Neighbor::bindist(int, int, int)"); the defining file with symbolic
        // links resolved, so file rules match either path.
        const char *tool_name = lang_hooks.decl_printable_name(fndecl, 2);
        facts.tool_name = tool_name;
        char *resolved = file.empty() ? NULL : realpath(file.c_str(), NULL);
        facts.resolved_file = resolved && file != resolved ? resolved : NULL;
        instr_decision d = instr_filter_decide(state.filter, &facts);
        free(resolved);
        // --- end of instr filter facts ----------------------------------------------------
        count_decision(d);
        report_line(d, signature, mangled, file, instructions);
        if (!d.include)
            return 0;

        build_abi_trees();
        tree region = make_region(fndecl, signature, mangled, file);
        instrument(fun, region);
        // The attribute's value names the function's own descriptor. IPA clones
        // (.constprop, .isra) are copies of the declaration and keep it, so the late pass
        // recognises a clone's hooks as its own.
        DECL_ATTRIBUTES(fndecl) = tree_cons(get_identifier(kInstrumentedAttr), region,
                                            DECL_ATTRIBUTES(fndecl));
        return 0;
    }
};

// ---------------------------------------------------------------------------------------
// After inlining (-fplugin-arg-instr-inline=after)

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

// ---------------------------------------------------------------------------------------
// Callbacks and arguments

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

}  // namespace

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
    static struct plugin_info plugin_info = {
        "0.1", "instr: compile-time selection and enter/exit hooks (ABI v1); arguments: "
               "filter=PATH (repeatable), verbose, report=PATH, mode=hooks, inline=after|before"};
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

    struct register_pass_info pass_info;
    pass_info.pass = new instr_pass(g);
    pass_info.reference_pass_name = "lower";
    pass_info.ref_pass_instance_number = 1;
    pass_info.pos_op = PASS_POS_INSERT_AFTER;
    register_callback(info->base_name, PLUGIN_PASS_MANAGER_SETUP, NULL, &pass_info);
    if (state.after_inlining) {
        struct register_pass_info late_info;
        late_info.pass = new instr_inlined_pass(g);
        late_info.reference_pass_name = "ehdisp";
        late_info.ref_pass_instance_number = 1;
        late_info.pos_op = PASS_POS_INSERT_BEFORE;
        register_callback(info->base_name, PLUGIN_PASS_MANAGER_SETUP, NULL, &late_info);
        register_callback(info->base_name, PLUGIN_OVERRIDE_GATE, on_override_gate, NULL);
    }
    register_callback(info->base_name, PLUGIN_FINISH, on_finish, NULL);
    return 0;
}
