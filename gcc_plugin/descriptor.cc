// descriptor.cc — the ABI trees (runtime/include/instr_abi.h): struct instr_region, the two
// hook declarations, and one static descriptor per instrumented function body in section
// INSTR_REGIONS_SECTION (docs/gcc-plugin.md, "Descriptor and hooks").

#include "gcc_headers.h"
#include "plugin_state.h"

#include <stddef.h>
#include <string.h>

// build_abi_trees() builds struct instr_region as trees; the header's layout must be that one
// (on LP64, the hosts and targets the runtime supports).
static_assert(INSTR_REGION_LAYOUT_AS_EMITTED,
              "struct instr_region of instr_abi.h changed: update build_abi_trees() and "
              "make_region(), and bump INSTR_ABI_VERSION");

namespace instr_gcc {

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
    // struct instr_region of runtime/include/instr_abi.h, fields in order.
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

tree excluded_handle()
{
    return build_int_cst(uint32_type_node, INSTR_HANDLE_EXCLUDED);
}

tree string_cst(const std::string &s)
{
    return build_string_literal(s.size() + 1, s.c_str());
}

region_facts region_facts_of(tree fndecl, const std::string &signature, const char *mangled,
                            const std::string &file)
{
    region_facts rf;
    rf.signature = signature;
    rf.mangled = mangled;
    rf.file = file;
    expanded_location begin = expand_location(DECL_SOURCE_LOCATION(fndecl));
    expanded_location end = expand_location(DECL_STRUCT_FUNCTION(fndecl)
                                                ? DECL_STRUCT_FUNCTION(fndecl)->function_end_locus
                                                : UNKNOWN_LOCATION);
    rf.line_begin = begin.line > 0 ? (unsigned)begin.line : 0;
    rf.line_end = end.line >= begin.line ? (unsigned)end.line : rf.line_begin;
    return rf;
}

// The facts as a tree list (signature, mangled, file, line_begin, line_end): the value of
// the declaration's kInstrumentedAttr. IPA clones and split parts copy the declaration's
// attributes, and LTO streams them into the link-time compilation, so the pass after
// inlining finds the facts of the function a body was made from wherever it runs.
tree region_facts_tree(const region_facts &rf)
{
    tree list = tree_cons(NULL_TREE, build_int_cst(integer_type_node, rf.line_end), NULL_TREE);
    list = tree_cons(NULL_TREE, build_int_cst(integer_type_node, rf.line_begin), list);
    for (const std::string *s : {&rf.file, &rf.mangled, &rf.signature})
        list = tree_cons(NULL_TREE, build_string(s->size(), s->c_str()), list);
    return list;
}

bool region_facts_from_tree(tree list, region_facts *rf)
{
    std::string *strings[] = {&rf->signature, &rf->mangled, &rf->file};
    for (std::string *s : strings) {
        if (!list || TREE_CODE(TREE_VALUE(list)) != STRING_CST)
            return false;
        s->assign(TREE_STRING_POINTER(TREE_VALUE(list)), TREE_STRING_LENGTH(TREE_VALUE(list)));
        list = TREE_CHAIN(list);
    }
    unsigned *lines[] = {&rf->line_begin, &rf->line_end};
    for (unsigned *line : lines) {
        if (!list || TREE_CODE(TREE_VALUE(list)) != INTEGER_CST)
            return false;
        *line = (unsigned)TREE_INT_CST_LOW(TREE_VALUE(list));
        list = TREE_CHAIN(list);
    }
    return true;
}

// A variable of the plugin's own in this translation unit: static, local, not in the debug
// info, and kept though nothing in the program names it (__attribute__((used))).
static tree local_artifact(location_t loc, const char *name, tree type)
{
    tree var = build_decl(loc, VAR_DECL, get_identifier(name), type);
    TREE_STATIC(var) = 1;
    TREE_PUBLIC(var) = 0;
    DECL_EXTERNAL(var) = 0;
    DECL_ARTIFICIAL(var) = 1;
    DECL_IGNORED_P(var) = 1;
    TREE_USED(var) = 1;
    DECL_PRESERVE_P(var) = 1;
    DECL_CONTEXT(var) = NULL_TREE;
    return var;
}

// One reference to the runtime's link-check symbol per translation unit with hooks, from a
// static pointer (not code): linked without the runtime, the linker's error names what to do
// (INSTR_LINK_CHECK_SYMBOL, runtime/include/instr_abi.h).
static void emit_link_check()
{
    if (state.link_check_emitted)
        return;
    state.link_check_emitted = true;
    tree byte = build_qualified_type(char_type_node, TYPE_QUAL_CONST);
    tree target = build_decl(BUILTINS_LOCATION, VAR_DECL,
                             get_identifier(INSTR_LINK_CHECK_SYMBOL), byte);
    TREE_PUBLIC(target) = 1;
    DECL_EXTERNAL(target) = 1;
    DECL_ARTIFICIAL(target) = 1;
    TREE_READONLY(target) = 1;
    DECL_VISIBILITY(target) = VISIBILITY_DEFAULT;
    DECL_VISIBILITY_SPECIFIED(target) = 1;
    TREE_ADDRESSABLE(target) = 1;
    tree ptr = build_pointer_type(byte);
    tree ref = local_artifact(BUILTINS_LOCATION, "__instr_link_check", ptr);
    TREE_READONLY(ref) = 1;
    DECL_INITIAL(ref) = build_fold_addr_expr(target);
    varpool_node::finalize_decl(ref);
}

// The descriptor of the function body FNDECL (addr = &FNDECL: for a clone or split part
// the body that runs), described by RF (the function the user wrote).
tree make_region(tree fndecl, const region_facts &rf)
{
    char name[64];
    snprintf(name, sizeof name, "__instr_region.%u", state.next_region++);
    // Kept though unnamed: the section is the list of regions.
    tree var = local_artifact(DECL_SOURCE_LOCATION(fndecl), name, region_type);
    TREE_ADDRESSABLE(var) = 1;
    // Always a local symbol, also for C++ inline functions: GCC keeps one set of flags per
    // named section in a translation unit, so COMDAT and non-COMDAT descriptors cannot share
    // "instr_regions" (a "section type conflict"). An inline function instrumented in
    // several objects therefore has one descriptor per object, all with the same name,
    // mangled name and address; docs/gcc-plugin.md.
    set_decl_section_name(var, INSTR_REGIONS_SECTION);
    // The runtime walks the section as an array of struct instr_region: no padding between
    // descriptors. A user alignment stops x86-64 from raising large objects to 32 bytes.
    SET_DECL_ALIGN(var, TYPE_ALIGN(region_type));
    DECL_USER_ALIGN(var) = 1;

    vec<constructor_elt, va_gc> *elts = NULL;
    CONSTRUCTOR_APPEND_ELT(elts, field("handle"), build_int_cst(uint32_type_node, 0));
    // The flags carry the ABI version the descriptor is compiled for (instr_abi.h).
    CONSTRUCTOR_APPEND_ELT(elts, field("flags"),
                           build_int_cst(uint32_type_node, INSTR_REGION_ABI_BITS));
    CONSTRUCTOR_APPEND_ELT(elts, field("name"), string_cst(rf.signature));
    CONSTRUCTOR_APPEND_ELT(elts, field("mangled"), string_cst(rf.mangled));
    CONSTRUCTOR_APPEND_ELT(elts, field("file"), string_cst(rf.file));
    CONSTRUCTOR_APPEND_ELT(elts, field("line_begin"),
                           build_int_cst(uint32_type_node, rf.line_begin));
    CONSTRUCTOR_APPEND_ELT(elts, field("line_end"), build_int_cst(uint32_type_node, rf.line_end));
    CONSTRUCTOR_APPEND_ELT(elts, field("addr"),
                           fold_convert(ptr_type_node, build_fold_addr_expr(fndecl)));
    tree init = build_constructor(region_type, elts);
    TREE_CONSTANT(init) = 1;
    TREE_STATIC(init) = 1;
    DECL_INITIAL(var) = init;
    varpool_node::finalize_decl(var);
    emit_link_check();
    return var;
}

}  // namespace instr_gcc
