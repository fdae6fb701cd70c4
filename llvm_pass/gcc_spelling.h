// gcc_spelling.h — a function's name as GCC prints its declaration, from debug info.
#ifndef INSTR_GCC_SPELLING_H
#define INSTR_GCC_SPELLING_H

#include <string>

namespace llvm {
class Function;
}

namespace instr {

// "MMD_float Neighbor::bindist(int, int, int)", "int main(int, char**)",
// "void foo<double>(double) [with T = double]": what Score-P's GCC plugin records and its
// users copy into filter files (filter/ matches Score-P rules against it). signature is the
// demangled one. "" for C functions (GCC's C front end prints the plain name) and when the
// function has no debug info.
std::string gccSpelling(const llvm::Function &F, const std::string &signature);

} // namespace instr

#endif
