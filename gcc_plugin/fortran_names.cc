// fortran_names.cc — the names of Fortran procedures as a Fortran user reads them, for the
// signature fact (docs/gcc-plugin.md, "Fortran"). gfortran's assembler names are not Itanium
// names, and the demangler leaves them alone:
//   module procedure      __heat_mod_MOD_update   ->  heat_mod::update
//   ... with BIND(C)      heat_update (binding)   ->  heat_mod::update
//   contained procedure   update.0 (local)        ->  heat_mod::update::smooth (host::name)
//   main program          MAIN__                  ->  heat (the program's name)
//   external procedure    update_                 ->  update
// Specs select these names (`include function heat_mod::*`); the mangled fact stays the
// assembler name.

#include "gcc_headers.h"
#include "plugin_state.h"

#include "langhooks.h"

#include <string.h>

namespace instr_gcc {

bool fortran_unit()
{
    return lang_GNU_Fortran();
}

std::string fortran_name(tree fndecl)
{
    const char *mangled = linkage_name(fndecl);
    std::string own = DECL_NAME(fndecl) ? IDENTIFIER_POINTER(DECL_NAME(fndecl)) : mangled;
    tree host = DECL_CONTEXT(fndecl);
    if (host && TREE_CODE(host) == FUNCTION_DECL)
        return fortran_name(host) + "::" + own;
    // gfortran gives module procedures the module as context (a NAMESPACE_DECL), also those
    // with BIND(C), whose assembler name is their binding name
    if (host && TREE_CODE(host) == NAMESPACE_DECL && DECL_NAME(host))
        return std::string(IDENTIFIER_POINTER(DECL_NAME(host))) + "::" + own;
    // the same from the assembler name, should the context not be there
    const char *mod = strstr(mangled, "_MOD_");
    if (mangled[0] == '_' && mangled[1] == '_' && mod && mod > mangled + 2)
        return std::string(mangled + 2, mod) + "::" + (mod + 5);
    return own;
}

// gfortran's C main(argc, argv): it records the arguments and calls MAIN__, the program.
bool fortran_generated_main(tree fndecl)
{
    return fortran_unit() && !strcmp(linkage_name(fndecl), "main");
}

bool fortran_program(tree fndecl)
{
    return fortran_unit() && !strcmp(linkage_name(fndecl), "MAIN__");
}

}  // namespace instr_gcc
