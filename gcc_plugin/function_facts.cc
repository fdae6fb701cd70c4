// function_facts.cc — the facts about a function that the plugin passes to filter/
// (docs/gcc-plugin.md, "Facts"): linkage name, demangled signature, absolute defining file,
// GIMPLE statement count and the built-in exclusion flags.

#include "gcc_headers.h"
#include "plugin_state.h"

#include <string.h>

#include <string>
#include <vector>

// libiberty's demangler, linked into cc1 and cc1plus and exported to plugins (the plugin
// headers do not ship demangle.h). Values from include/demangle.h.
extern "C" char *cplus_demangle(const char *mangled, int options);
#define INSTR_DMGL_PARAMS (1 << 0)
#define INSTR_DMGL_ANSI (1 << 1)

namespace instr_gcc {

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

// The signature fact: the demangled name, or for Fortran the name a Fortran user reads.
std::string function_signature(tree fndecl, const char *mangled)
{
    return fortran_unit() ? fortran_name(fndecl) : demangled_signature(mangled);
}

// main in C and C++; a Fortran program's MAIN__ (its main() is gfortran's, built-in below).
bool is_program_main(tree fndecl, const char *mangled)
{
    return fortran_unit() ? fortran_program(fndecl) : !strcmp(mangled, "main");
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
// nops, scope containers (GIMPLE_BIND) and the plugin's own OpenMP construct markers
// (omp_constructs.cc) are not counted.
tree count_stmt(gimple_stmt_iterator *gsi, bool *handled, struct walk_stmt_info *wi)
{
    *handled = false;
    switch (gimple_code(gsi_stmt(*gsi))) {
    case GIMPLE_LABEL:
    case GIMPLE_DEBUG:
    case GIMPLE_NOP:
    case GIMPLE_BIND:
        break;
    case GIMPLE_CALL:
        if (omp_construct_marker_p(gsi_stmt(*gsi)))
            break;
        /* FALLTHRU */
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
    // gfortran's C main() around the program (MAIN__) is its own, not the user's.
    if ((DECL_ARTIFICIAL(fndecl) && !lambda_body_p(fndecl)) ||
        DECL_SOURCE_LOCATION(fndecl) == BUILTINS_LOCATION || fortran_generated_main(fndecl))
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

}  // namespace instr_gcc
