// instr_pass.h — the module pass: collect facts, ask filter/, rewrite IR.
#ifndef INSTR_LLVM_PASS_H
#define INSTR_LLVM_PASS_H

#include "llvm/IR/PassManager.h"

namespace instr {

class InstrPass : public llvm::PassInfoMixin<InstrPass> {
public:
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &AM);
  // Runs at -O0 and on optnone functions too.
  static bool isRequired() { return true; }
};

} // namespace instr

#endif
