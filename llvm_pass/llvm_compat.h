// llvm_compat.h — the only place where the plugin's source differs between LLVM versions.
//
// Built against LLVM 14 (typed pointers by default) and LLVM 19 (opaque pointers only).
// Everything else in llvm_pass/ is written against the API both versions share.
#ifndef INSTR_LLVM_COMPAT_H
#define INSTR_LLVM_COMPAT_H

#include "llvm/Config/llvm-config.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Type.h"

#include <cstdlib>
#include <string>

#if LLVM_VERSION_MAJOR >= 17
#include "llvm/IR/EHPersonalities.h"
#else
#include "llvm/Analysis/EHPersonalities.h"
#endif

#if LLVM_VERSION_MAJOR < 14
#error "instr: the LLVM plugin needs LLVM 14 or newer"
#endif

namespace instr_compat {

// The generic data pointer: i8* under typed pointers (LLVM 14), ptr under opaque pointers.
// Descriptor fields, hook parameters and landing-pad values use it; constants are cast to it
// with ConstantExpr::getPointerCast, which is a no-op under opaque pointers.
inline llvm::PointerType *dataPtrTy(llvm::LLVMContext &C) {
#if LLVM_VERSION_MAJOR >= 17
  return llvm::PointerType::getUnqual(C);
#else
  return llvm::Type::getInt8PtrTy(C);
#endif
}

// Itanium demangling of a linkage name; "" when the name is not a mangled C++ name. Only
// names that start with _Z are handed to the demangler: LLVM 14's demangler also accepts bare
// type encodings and would turn a C function called "f" into "float".
inline std::string itaniumDemangle(const std::string &mangled) {
  if (mangled.size() < 2 || mangled[0] != '_' || mangled[1] != 'Z')
    return std::string();
#if LLVM_VERSION_MAJOR >= 17
  char *d = llvm::itaniumDemangle(mangled);
#else
  int status = 0;
  char *d = llvm::itaniumDemangle(mangled.c_str(), nullptr, nullptr, &status);
  if (status != 0) {
    std::free(d);
    d = nullptr;
  }
#endif
  if (!d)
    return std::string();
  std::string out(d);
  std::free(d);
  return out;
}

// Funclet-based (Windows) personalities use cleanuppad/catchswitch instead of landingpad;
// the plugin does not rewrite those.
inline bool isFuncletPersonality(const llvm::Function &F) {
  if (!F.hasPersonalityFn())
    return false;
  return llvm::isFuncletEHPersonality(llvm::classifyEHPersonality(F.getPersonalityFn()));
}

} // namespace instr_compat

#endif
