// instr_config.h — the plugin's settings: environment (INSTR_*) and -mllvm -instr-* options.
#ifndef INSTR_LLVM_CONFIG_H
#define INSTR_LLVM_CONFIG_H

#include "instr_filter.h"

#include <string>

namespace instr {

enum class Mode { Hooks, XRay };
enum class Placement { AfterInlining, BeforeInlining };

struct Config {
  Mode mode = Mode::Hooks;
  Placement placement = Placement::AfterInlining;
  bool verbose = false;
  std::string reportPath;          // "" = no report
  instr_filter *filter = nullptr;  // never NULL once loaded (may be empty)
  // Non-empty when a setting or a spec was bad: a complete, printable message (for a spec,
  // the filter's "path:line:col: error: ..." text). Every module then fails with it.
  std::string error;
};

// Loaded once per process, on first use (after the command line was parsed), thread-safe.
const Config &config();

const char *modeName(Mode m);

} // namespace instr

#endif
