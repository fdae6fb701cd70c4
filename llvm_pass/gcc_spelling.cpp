// gcc_spelling.cpp — see gcc_spelling.h. Types are printed from DWARF metadata as GCC
// prints them: typedef names kept, "const char*", "char**", "int&".
#include "gcc_spelling.h"

#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Function.h"

using namespace llvm;

namespace instr {
namespace {

std::string scopePrefix(const DIScope *S) {
  std::string p;
  while (S && (isa<DINamespace>(S) || isa<DICompositeType>(S))) {
    std::string n = S->getName().str();
    if (n.empty() && isa<DINamespace>(S))
      n = "{anonymous}";
    p = n + "::" + p;
    S = S->getScope();
  }
  return p;
}

// "" when a type cannot be spelled (then no GCC spelling is offered at all).
std::string typeName(const DIType *T) {
  if (!T)
    return "void";
  if (const auto *B = dyn_cast<DIBasicType>(T))
    return B->getName().str();
  if (const auto *C = dyn_cast<DICompositeType>(T))
    return C->getName().empty() ? "" : scopePrefix(C->getScope()) + C->getName().str();
  const auto *D = dyn_cast<DIDerivedType>(T);
  if (!D)
    return "";
  std::string base = typeName(D->getBaseType());
  if (base.empty())
    return "";
  switch (D->getTag()) {
  case dwarf::DW_TAG_typedef:
    return scopePrefix(D->getScope()) + D->getName().str();
  case dwarf::DW_TAG_pointer_type:
    return base + "*";
  case dwarf::DW_TAG_reference_type:
    return base + "&";
  case dwarf::DW_TAG_rvalue_reference_type:
    return base + "&&";
  case dwarf::DW_TAG_const_type:
    return base.back() == '*' ? base + " const" : "const " + base;
  case dwarf::DW_TAG_volatile_type:
    return base.back() == '*' ? base + " volatile" : "volatile " + base;
  default:
    return "";
  }
}

bool isCxx(const DISubprogram *SP) {
  const DICompileUnit *CU = SP->getUnit();
  if (!CU)
    return false;
  unsigned L = CU->getSourceLanguage();
  return L == dwarf::DW_LANG_C_plus_plus || L == dwarf::DW_LANG_C_plus_plus_03 ||
         L == dwarf::DW_LANG_C_plus_plus_11 || L == dwarf::DW_LANG_C_plus_plus_14;
}

} // namespace

std::string gccSpelling(const Function &F, const std::string &signature) {
  const DISubprogram *SP = F.getSubprogram();
  if (!SP || !isCxx(SP) || !SP->getType())
    return "";
  DITypeRefArray types = SP->getType()->getTypeArray();
  std::string ret = typeName(types.size() > 0 ? types[0] : nullptr);
  if (ret.empty())
    return "";
  std::string out;
  if (signature.find('(') == std::string::npos) {
    // extern "C" and main inside C++: the demangled name has no parameters
    out = ret + " " + signature + "(";
    for (unsigned i = 1; i < types.size(); i++) {
      std::string t = typeName(types[i]);
      if (t.empty())
        return "";
      out += (i > 1 ? ", " : "") + t;
    }
    out += ")";
  } else if (SP->getTemplateParams().empty()) {
    out = ret + " " + signature;
  } else {
    // a template instance: the demangled signature already starts with its return type
    out = signature + " [with ";
    bool first = true;
    for (const DITemplateParameter *P : SP->getTemplateParams()) {
      const auto *TP = dyn_cast_or_null<DITemplateTypeParameter>(P);
      std::string t = TP ? typeName(TP->getType()) : "";
      if (t.empty())
        return "";
      out += (first ? "" : "; ") + TP->getName().str() + " = " + t;
      first = false;
    }
    out += "]";
  }
  return out;
}

} // namespace instr
