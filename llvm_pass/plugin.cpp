// plugin.cpp — registration with the new pass manager.
//
//   clang -fpass-plugin=libinstr.so ...            runs the pass where INSTR_INLINE says
//   opt -load-pass-plugin=libinstr.so -passes=instr   runs it exactly there (tests)
//
// Placement: after inlining (OptimizerLastEP, the default) or before it (PipelineStartEP).
// Both extension points are registered; each callback reads the setting when the pipeline
// is built, which is after the command line (and any -mllvm -instr-* option) was parsed.
// Both run at -O0 as well.
#include "instr_config.h"
#include "instr_pass.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"

using namespace llvm;

#ifndef INSTR_VERSION_STRING
#define INSTR_VERSION_STRING "0"
#endif

namespace {

void registerCallbacks(PassBuilder &PB) {
  PB.registerPipelineParsingCallback(
      [](StringRef name, ModulePassManager &MPM, ArrayRef<PassBuilder::PipelineElement>) {
        if (name != "instr")
          return false;
        MPM.addPass(instr::InstrPass());
        return true;
      });
  PB.registerPipelineStartEPCallback([](ModulePassManager &MPM, OptimizationLevel) {
    const instr::Config &cfg = instr::config();
    if (cfg.error.empty() && cfg.placement == instr::Placement::BeforeInlining)
      MPM.addPass(instr::InstrPass());
  });
  PB.registerOptimizerLastEPCallback([](ModulePassManager &MPM, OptimizationLevel) {
    const instr::Config &cfg = instr::config();
    // A configuration error is reported from here (the pass needs a module's context).
    if (!cfg.error.empty() || cfg.placement == instr::Placement::AfterInlining)
      MPM.addPass(instr::InstrPass());
  });
}

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK __attribute__((visibility("default"))) PassPluginLibraryInfo
llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "instr", INSTR_VERSION_STRING, registerCallbacks};
}
