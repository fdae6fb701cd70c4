// instr_pass.cpp — compile-time selection and IR rewriting (the ABI of runtime/include/instr_abi.h).
//
// Per module: for every defined function, collect the facts of docs/architecture.md,
// "Selection rules" (demangled signature, linkage name, defining file, IR instruction count,
// built-in facts), ask instr_filter_decide, then for each selected function emit one
// `struct instr_region` descriptor in section "instr_regions" and either the guarded
// enter/exit calls (hooks mode) or the XRay attribute (xray mode). No selection logic lives here.
#include "instr_pass.h"

#include "gcc_spelling.h"
#include "instr_abi.h"
#include "instr_config.h"
#include "instr_filter.h"
#include "llvm_compat.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DebugLoc.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <unistd.h>
#include <vector>

using namespace llvm;

namespace instr {
namespace {

// Every function the pass has decided on carries this attribute ("include" / "exclude"): a
// second run, in the same pipeline or on the same IR later (also after LTO merged modules),
// leaves such functions alone. The module also gets the named metadata !instr.instrumented.
constexpr const char *kDecisionAttr = "instr-decision";
constexpr const char *kModuleMarker = "instr.instrumented";
constexpr const char *kLinkCheck = INSTR_LINK_CHECK_SYMBOL;
constexpr const char *kSection = INSTR_REGIONS_SECTION;
constexpr uint32_t kHandleExcluded = INSTR_HANDLE_EXCLUDED;
constexpr uint32_t kRegionXRay = INSTR_REGION_XRAY;
// Every descriptor's flags carry the ABI version it is compiled for (instr_abi.h).
constexpr uint32_t kRegionAbi = INSTR_REGION_ABI_BITS;

// regionType() builds struct instr_region as IR; the header's layout must be that one (on
// LP64, the hosts and targets the runtime supports).
static_assert(INSTR_REGION_LAYOUT_AS_EMITTED,
              "struct instr_region of instr_abi.h changed: update regionType() and "
              "makeDescriptor(), and bump INSTR_ABI_VERSION");

struct FunctionRecord {
  Function *F = nullptr;
  std::string mangled;   // linkage name, without LLVM's \1 escape
  std::string signature; // demangled; the plain name for C
  std::string file;      // absolute path, or ""
  long instructions = 0;
  unsigned builtinFlags = 0;
  unsigned lineBegin = 0, lineEnd = 0;
  instr_decision decision{};
};

std::string absolutePath(StringRef dir, StringRef name) {
  if (name.empty())
    return std::string();
  SmallString<256> p;
  if (sys::path::is_absolute(name)) {
    p = name;
  } else {
    p = dir;
    sys::path::append(p, name);
    if (!sys::path::is_absolute(p))
      sys::fs::make_absolute(p);
  }
  sys::path::remove_dots(p, /*remove_dot_dot=*/true);
  return std::string(p.str());
}

bool startsWith(StringRef s, StringRef prefix) { return s.substr(0, prefix.size()) == prefix; }

// Code for a device, not for the host: the whole module is left alone.
bool isNonHostTriple(StringRef triple) {
  return startsWith(triple, "nvptx") || startsWith(triple, "amdgcn") ||
         startsWith(triple, "r600") || startsWith(triple, "spir");
}

// Functions that LLVM's own passes create (module constructors of sanitizers and coverage,
// profile runtime helpers). The names clang gives to compiler-generated C/C++ functions
// (static initialisers, thunks, TLS wrappers) are recognised by filter/ itself.
bool isLLVMGenerated(StringRef name) {
  static const char *const prefixes[] = {"__llvm_", "asan.", "hwasan.", "msan.", "tsan.",
                                         "sancov.", "nsan.", "dfsan."};
  for (const char *p : prefixes)
    if (startsWith(name, p))
      return true;
  return false;
}

long countInstructions(const Function &F) {
  long n = 0;
  for (const BasicBlock &BB : F)
    for (const Instruction &I : BB)
      if (!I.isDebugOrPseudoInst())
        ++n;
  return n;
}

std::string tsvField(std::string s) {
  for (char &c : s)
    if (c == '\t' || c == '\n' || c == '\r')
      c = ' ';
  return s;
}

class ModuleInstrumenter {
public:
  ModuleInstrumenter(Module &M, const Config &cfg)
      : M(M), C(M.getContext()), cfg(cfg), I32(Type::getInt32Ty(C)),
        Ptr(instr_compat::dataPtrTy(C)) {}

  bool run();

private:
  Module &M;
  LLVMContext &C;
  const Config &cfg;
  Type *I32;
  PointerType *Ptr;
  StructType *RegionTy = nullptr;
  FunctionCallee EnterFn, ExitFn;
  StringMap<Constant *> strings;
  std::vector<GlobalValue *> used;
  std::string sourceFile; // as the module names it
  std::string sourceAbs;  // made absolute

  void collectFacts(Function &F, FunctionRecord &r);
  StructType *regionType();
  Constant *stringConstant(StringRef s);
  GlobalVariable *makeDescriptor(const FunctionRecord &r, uint32_t flags);
  void instrumentHooks(Function &F, GlobalVariable *D);
  void emitGuardedCall(FunctionCallee Hook, GlobalVariable *D, Instruction *Before,
                       DebugLoc DL);
  Constant *personalityFor(Function &F);
  bool writeReport(const std::vector<FunctionRecord> &records);
  void printVerbose(const std::vector<FunctionRecord> &records);
};

void ModuleInstrumenter::collectFacts(Function &F, FunctionRecord &r) {
  r.F = &F;
  r.mangled = GlobalValue::dropLLVMManglingEscape(F.getName()).str();
  std::string demangled = instr_compat::itaniumDemangle(r.mangled);
  if (demangled.empty()) {
    r.signature = r.mangled;
  } else {
    // LLVM's demangler spells lambdas, unnamed types and closing '>>' unlike GCC's; filter/
    // rewrites them so that one spec selects the same names under both compilers
    r.signature.assign(instr_demangled_normalize(demangled.c_str(), nullptr, 0), '\0');
    instr_demangled_normalize(demangled.c_str(), &r.signature[0], r.signature.size() + 1);
  }
  r.instructions = countInstructions(F);

  DISubprogram *SP = F.getSubprogram();
  if (SP && !SP->getFilename().empty())
    r.file = absolutePath(SP->getDirectory(), SP->getFilename());
  else
    r.file = sourceAbs;
  if (SP) {
    r.lineBegin = r.lineEnd = SP->getLine();
    for (const BasicBlock &BB : F)
      for (const Instruction &I : BB)
        if (const DebugLoc &DL = I.getDebugLoc())
          if (!DL.getInlinedAt() && DL.getLine() > r.lineEnd)
            r.lineEnd = DL.getLine();
  }

  unsigned flags = 0;
  if (F.isDeclaration() || F.hasAvailableExternallyLinkage())
    flags |= INSTR_BUILTIN_FLAG(INSTR_BUILTIN_DECLARATION);
  if (F.hasFnAttribute(Attribute::Naked))
    flags |= INSTR_BUILTIN_FLAG(INSTR_BUILTIN_NAKED);
  if ((SP && SP->isArtificial()) || F.hasFnAttribute("thunk") || isLLVMGenerated(r.mangled))
    flags |= INSTR_BUILTIN_FLAG(INSTR_BUILTIN_ARTIFICIAL);
  if (isNonHostTriple(M.getTargetTriple()))
    flags |= INSTR_BUILTIN_FLAG(INSTR_BUILTIN_NON_HOST);
  r.builtinFlags = flags;

  instr_function_facts facts{};
  facts.signature = r.signature.c_str();
  facts.name = nullptr; // the filter derives it from the signature (instr_signature_name)
  facts.mangled = r.mangled.c_str();
  facts.file = r.file.c_str();
  facts.instructions = r.instructions;
  facts.is_main = r.mangled == "main";
  facts.builtin_flags = flags;
  // Score-P's spelling and the resolved path (docs/selection-specs.md, compatibility)
  std::string toolName = gccSpelling(F, r.signature);
  facts.tool_name = toolName.c_str();
  SmallString<256> resolved;
  if (!r.file.empty() && !sys::fs::real_path(r.file, resolved) && resolved != r.file)
    facts.resolved_file = resolved.c_str();
  r.decision = instr_filter_decide(cfg.filter, &facts);
}

StructType *ModuleInstrumenter::regionType() {
  if (RegionTy)
    return RegionTy;
  // struct instr_region { u32 handle, flags; ptr name, mangled, file; u32 line_begin,
  // line_end; ptr addr; } — 48 bytes on LP64, no padding.
  Type *fields[] = {I32, I32, Ptr, Ptr, Ptr, I32, I32, Ptr};
  StructType *T = StructType::getTypeByName(C, "instr.region");
  if (!T || T->isOpaque() || T->elements() != ArrayRef<Type *>(fields))
    T = StructType::create(C, fields, "instr.region");
  RegionTy = T;
  return T;
}

Constant *ModuleInstrumenter::stringConstant(StringRef s) {
  auto it = strings.find(s);
  if (it != strings.end())
    return it->second;
  Constant *init = ConstantDataArray::getString(C, s, /*AddNull=*/true);
  auto *GV = new GlobalVariable(M, init->getType(), /*isConstant=*/true,
                                GlobalValue::PrivateLinkage, init, ".str.instr");
  GV->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
  GV->setAlignment(Align(1));
  Constant *p = ConstantExpr::getPointerCast(GV, Ptr);
  strings[s] = p;
  return p;
}

GlobalVariable *ModuleInstrumenter::makeDescriptor(const FunctionRecord &r, uint32_t flags) {
  StructType *T = regionType();
  Constant *fields[] = {
      ConstantInt::get(I32, 0),                  // handle: not registered yet
      ConstantInt::get(I32, kRegionAbi | flags), // flags: the ABI version and flags
      stringConstant(r.signature),               // name (demangled display name)
      stringConstant(r.mangled),                 // mangled
      stringConstant(r.file),                    // file
      ConstantInt::get(I32, r.lineBegin),        // line_begin
      ConstantInt::get(I32, r.lineEnd),          // line_end
      ConstantExpr::getPointerCast(r.F, Ptr),    // addr
  };
  auto *GV = new GlobalVariable(M, T, /*isConstant=*/false, GlobalValue::PrivateLinkage,
                                ConstantStruct::get(T, fields), "__instr_region." + r.mangled);
  GV->setSection(kSection);
  GV->setAlignment(Align(8));
  // An inline function's copy that the linker discards takes its descriptor with it.
  if (Comdat *CD = r.F->getComdat())
    GV->setComdat(CD);
  used.push_back(GV);
  return GV;
}

// if (d.handle != UINT32_MAX) hook(&d);   inserted before `Before`.
void ModuleInstrumenter::emitGuardedCall(FunctionCallee Hook, GlobalVariable *D,
                                         Instruction *Before, DebugLoc DL) {
  IRBuilder<> B(Before);
  B.SetCurrentDebugLocation(DL);
  Value *handlePtr = B.CreateStructGEP(RegionTy, D, 0);
  LoadInst *handle = B.CreateAlignedLoad(I32, handlePtr, Align(8), "instr.handle");
  // The runtime writes the handle on first entry (from any thread): a relaxed atomic load,
  // a plain load on every target that matters.
  handle->setAtomic(AtomicOrdering::Monotonic);
  Value *active = B.CreateICmpNE(handle, ConstantInt::get(I32, kHandleExcluded), "instr.on");
  MDNode *likely = MDBuilder(C).createBranchWeights(2000, 1);
  Instruction *thenTerm = SplitBlockAndInsertIfThen(active, Before, false, likely);
  IRBuilder<> TB(thenTerm);
  TB.SetCurrentDebugLocation(DL);
  CallInst *call = TB.CreateCall(Hook, {ConstantExpr::getPointerCast(D, Ptr)});
  call->setDoesNotThrow();
}

// Personality for a function that gets its first landing pad. A function that has one keeps
// it. Otherwise: the C++ personality when the module is C++ (it names __gxx_personality_v0,
// its compile unit says C++, or it defines mangled C++ functions), else libgcc's C
// personality __gcc_personality_v0, which runs cleanups for any language and is what clang
// itself uses for C with -fexceptions. C compiled without -fexceptions is nounwind and never
// gets here.
Constant *ModuleInstrumenter::personalityFor(Function &F) {
  if (F.hasPersonalityFn())
    return F.getPersonalityFn();
  bool cxx = M.getFunction("__gxx_personality_v0") != nullptr;
  for (DICompileUnit *CU : M.debug_compile_units()) {
    unsigned lang = CU->getSourceLanguage();
    if (lang == dwarf::DW_LANG_C_plus_plus || lang == dwarf::DW_LANG_C_plus_plus_03 ||
        lang == dwarf::DW_LANG_C_plus_plus_11 || lang == dwarf::DW_LANG_C_plus_plus_14)
      cxx = true;
  }
  if (!cxx)
    for (const Function &G : M)
      if (!G.isDeclaration() && startsWith(G.getName(), "_Z")) {
        cxx = true;
        break;
      }
  const char *name = cxx ? "__gxx_personality_v0" : "__gcc_personality_v0";
  FunctionCallee P = M.getOrInsertFunction(name, FunctionType::get(I32, {}, true));
  Constant *pers = ConstantExpr::getPointerCast(cast<Constant>(P.getCallee()), Ptr);
  F.setPersonalityFn(pers);
  return pers;
}

void ModuleInstrumenter::instrumentHooks(Function &F, GlobalVariable *D) {
  DISubprogram *SP = F.getSubprogram();
  auto locOr = [&](const Instruction *I, unsigned line) -> DebugLoc {
    if (I && I->getDebugLoc())
      return I->getDebugLoc();
    if (SP)
      return DILocation::get(C, line, 0, SP);
    return DebugLoc();
  };

  // 1. Collect every way out of the frame, and the calls that may unwind out of it.
  SmallVector<Instruction *, 8> exits; // an exit hook goes right before each
  SmallVector<LandingPadInst *, 4> pads;
  SmallVector<CallInst *, 16> mayUnwind;
  const bool eh = !F.doesNotThrow() && !instr_compat::isFuncletPersonality(F);
  for (BasicBlock &BB : F) {
    Instruction *T = BB.getTerminator();
    if (isa<ReturnInst>(T)) {
      // A musttail call must stay directly before its ret: the exit goes before the call.
      if (CallInst *MT = BB.getTerminatingMustTailCall())
        exits.push_back(MT);
      else
        exits.push_back(T);
    } else if (isa<ResumeInst>(T)) {
      exits.push_back(T);
    }
    if (!eh)
      continue;
    for (Instruction &I : BB) {
      if (auto *LP = dyn_cast<LandingPadInst>(&I)) {
        pads.push_back(LP);
      } else if (auto *CI = dyn_cast<CallInst>(&I)) {
        Function *callee = CI->getCalledFunction();
        if (CI->doesNotThrow() || CI->isMustTailCall() || CI->isInlineAsm() ||
            (callee && callee->isIntrinsic()))
          continue;
        mayUnwind.push_back(CI);
      }
    }
  }

  // 2. Unwinding paths. Existing landing pads become cleanups too, so that the unwinder
  // stops in this frame for every exception, not only for those it catches; an exception
  // that is not caught here then reaches the pad's resume, which gets an exit hook. Calls
  // that may unwind and have no landing pad are turned into invokes of one new cleanup pad
  // that calls the exit hook and resumes.
  if (eh) {
    for (LandingPadInst *LP : pads)
      if (!LP->isCleanup())
        LP->setCleanup(true);
    if (!mayUnwind.empty()) {
      personalityFor(F);
      Type *lpTy = pads.empty() ? StructType::get(C, {Ptr, I32}) : pads.front()->getType();
      BasicBlock *pad = BasicBlock::Create(C, "instr.cleanup", &F);
      IRBuilder<> B(pad);
      if (SP)
        B.SetCurrentDebugLocation(DILocation::get(C, 0, 0, SP));
      LandingPadInst *LP = B.CreateLandingPad(lpTy, 0, "instr.lp");
      LP->setCleanup(true);
      ResumeInst *R = B.CreateResume(LP);
      exits.push_back(R);
      for (CallInst *CI : mayUnwind)
        changeToInvokeAndSplitBasicBlock(CI, pad);
    }
  }

  // 3. Entry: after the entry block's static allocas, so they stay where passes expect them.
  BasicBlock &entry = F.getEntryBlock();
  BasicBlock::iterator ip = entry.begin();
  while (isa<AllocaInst>(*ip) || ip->isDebugOrPseudoInst())
    ++ip;
  emitGuardedCall(EnterFn, D, &*ip, locOr(nullptr, SP ? SP->getScopeLine() : 0));

  // 4. Exits.
  for (Instruction *X : exits)
    emitGuardedCall(ExitFn, D, X, locOr(X, 0));
}

bool ModuleInstrumenter::writeReport(const std::vector<FunctionRecord> &records) {
  if (cfg.reportPath.empty() || records.empty())
    return true;
  int fd = ::open(cfg.reportPath.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    C.emitError("instr: cannot open report file '" + cfg.reportPath +
                "': " + std::strerror(errno));
    return false;
  }
  bool ok = true;
  for (const FunctionRecord &r : records) {
    char reason[1024];
    instr_decision_format(&r.decision, reason, sizeof reason);
    const char *text = std::strchr(reason, ' ');
    text = text ? text + 1 : "";
    // One write per line: with O_APPEND, lines from parallel compiles never interleave.
    std::string line;
    line += r.decision.include ? "include" : "exclude";
    line += '\t';
    line += instr_reason_category(&r.decision);
    line += '\t' + tsvField(r.signature);
    line += '\t' + tsvField(r.mangled);
    line += '\t' + tsvField(r.file);
    line += '\t' + std::to_string(r.instructions);
    line += '\t' + tsvField(text);
    line += '\t' + tsvField(sourceFile);
    line += '\n';
    ssize_t n = ::write(fd, line.data(), line.size());
    if (n != (ssize_t)line.size()) {
      ok = false;
      break;
    }
  }
  if (::close(fd) != 0)
    ok = false;
  if (!ok)
    C.emitError("instr: cannot write report file '" + cfg.reportPath +
                "': " + std::strerror(errno));
  return ok;
}

void ModuleInstrumenter::printVerbose(const std::vector<FunctionRecord> &records) {
  unsigned included = 0, byFile = 0, byName = 0, bySize = 0, byBuiltin = 0;
  for (const FunctionRecord &r : records) {
    if (r.decision.include) {
      ++included;
      continue;
    }
    switch (r.decision.reason) {
    case INSTR_REASON_FILE_RULE: ++byFile; break;
    case INSTR_REASON_FUNCTION_RULE: ++byName; break;
    case INSTR_REASON_MIN_INSTRUCTIONS: ++bySize; break;
    case INSTR_REASON_BUILTIN: ++byBuiltin; break;
    case INSTR_REASON_DEFAULT: break;
    }
  }
  std::string line = "instr: " + sourceFile + ": instrumented " + std::to_string(included) +
                     " of " + std::to_string(records.size()) + " functions (excluded: file " +
                     std::to_string(byFile) + ", name " + std::to_string(byName) + ", size " +
                     std::to_string(bySize) + ", built-in " + std::to_string(byBuiltin) +
                     ")\n";
  errs() << line;
  errs().flush();
}

bool ModuleInstrumenter::run() {
  sourceFile = M.getSourceFileName();
  sourceAbs = absolutePath(StringRef(), sourceFile);

  // Decide for every defined function first, on the IR as it is now.
  std::vector<FunctionRecord> records;
  unsigned alreadyDone = 0;
  for (Function &F : M) {
    if (F.isDeclaration())
      continue; // not a defined function: no line, no descriptor
    if (F.hasFnAttribute(kDecisionAttr)) {
      ++alreadyDone;
      continue;
    }
    records.emplace_back();
    collectFacts(F, records.back());
  }
  if (records.empty()) {
    if (cfg.verbose && alreadyDone > 0)
      errs() << "instr: " << sourceFile << ": already instrumented, left as it is\n";
    return false;
  }

  const bool xray = cfg.mode == Mode::XRay;
  FunctionType *hookTy = FunctionType::get(Type::getVoidTy(C), {Ptr}, false);
  for (FunctionRecord &r : records) {
    Function &F = *r.F;
    F.addFnAttr(kDecisionAttr, r.decision.include ? "include" : "exclude");
    if (!r.decision.include) {
      if (xray && !F.hasAvailableExternallyLinkage())
        F.addFnAttr("function-instrument", "xray-never");
      continue;
    }
    if (xray) {
      makeDescriptor(r, kRegionXRay);
      F.addFnAttr("function-instrument", "xray-always");
      continue;
    }
    if (!EnterFn) {
      EnterFn = M.getOrInsertFunction("__instr_enter", hookTy);
      ExitFn = M.getOrInsertFunction("__instr_exit", hookTy);
      for (FunctionCallee H : {EnterFn, ExitFn})
        if (auto *HF = dyn_cast<Function>(H.getCallee()))
          if (HF->isDeclaration())
            HF->setDoesNotThrow();
    }
    GlobalVariable *D = makeDescriptor(r, 0);
    instrumentHooks(F, D);
  }
  if (EnterFn) {
    // One reference to the runtime's link-check symbol per module with hooks, from a static
    // pointer (not code): linked without the runtime, the linker's error names what to do
    // (INSTR_LINK_CHECK_SYMBOL, runtime/include/instr_abi.h).
    Type *Byte = Type::getInt8Ty(C);
    GlobalVariable *Target = M.getGlobalVariable(kLinkCheck);
    if (!Target)
      Target = new GlobalVariable(M, Byte, /*isConstant=*/true, GlobalValue::ExternalLinkage,
                                  nullptr, kLinkCheck);
    if (!M.getGlobalVariable("__instr_link_check", /*AllowLocal=*/true))
      used.push_back(new GlobalVariable(M, Ptr, /*isConstant=*/true,
                                        GlobalValue::PrivateLinkage, Target,
                                        "__instr_link_check"));
  }

  if (!used.empty())
    appendToCompilerUsed(M, used);
  NamedMDNode *marker = M.getOrInsertNamedMetadata(kModuleMarker);
  if (marker->getNumOperands() == 0)
    marker->addOperand(MDNode::get(C, {MDString::get(C, modeName(cfg.mode))}));

  if (cfg.verbose)
    printVerbose(records);
  writeReport(records);
  return true;
}

} // namespace

PreservedAnalyses InstrPass::run(Module &M, ModuleAnalysisManager &) {
  const Config &cfg = config();
  if (!cfg.error.empty()) {
    // one diagnostic per line: a spec's errors are listed one per line
    StringRef rest(cfg.error);
    while (!rest.empty()) {
      auto [line, next] = rest.split('\n');
      M.getContext().emitError(line);
      rest = next;
    }
    return PreservedAnalyses::all();
  }
  ModuleInstrumenter MI(M, cfg);
  return MI.run() ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

} // namespace instr
