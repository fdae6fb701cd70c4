// instr_config.cpp — settings from the environment and from -mllvm -instr-* options.
//
// Precedence: an option given on the command line wins over the environment variable of the
// same meaning. Selection specs are the exception: they accumulate, the specs named by
// INSTR_FILTER first (in their order), then every -instr-filter option (in its order), as
// several Score-P filter files do.
#include "instr_config.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <mutex>

using namespace llvm;

namespace {

cl::list<std::string> OptFilter(
    "instr-filter", cl::value_desc("spec"),
    cl::desc("instr: selection spec (.spec, .yaml, Score-P or TAU file); repeatable, rules "
             "append in order after those of INSTR_FILTER"));
cl::opt<std::string> OptMode("instr-mode", cl::value_desc("hooks|xray"),
                             cl::desc("instr: insert enter/exit hooks (default) or mark "
                                      "functions for XRay sleds"));
cl::opt<std::string> OptVerbose("instr-verbose", cl::ValueOptional, cl::value_desc("bool"),
                                cl::desc("instr: one summary line per module on stderr"));
cl::opt<std::string> OptReport("instr-report", cl::value_desc("path"),
                               cl::desc("instr: append one TSV line per function with the "
                                        "decision and its reason"));
cl::opt<std::string> OptInline("instr-inline", cl::value_desc("after|before"),
                               cl::desc("instr: instrument after inlining (default) or "
                                        "before it"));

// A setting from the command line if given there, else from the environment; NULL if neither.
const char *setting(const cl::opt<std::string> &opt, const char *env, std::string &origin) {
  if (opt.getNumOccurrences() > 0) {
    origin = "-" + opt.ArgStr.str();
    return opt.getValue().c_str();
  }
  origin = env;
  return std::getenv(env);
}

void badValue(instr::Config &c, const std::string &origin, const char *value,
              const char *expected) {
  if (!c.error.empty())
    return;
  c.error = "instr: " + origin + "=" + value + ": unknown value; expected " + expected;
}

int parseBool(const char *v) {
  StringRef s(v);
  std::string l = s.trim().lower();
  // "quiet" and -1 are the runtime's levels below 0 (INSTR_VERBOSE is shared by both)
  if (l.empty() || l == "0" || l == "no" || l == "false" || l == "off" || l == "quiet")
    return 0;
  if (l == "yes" || l == "true" || l == "on")
    return 1;
  // Verbosity levels (the runtime reads INSTR_VERBOSE as a level too): any positive integer.
  long long n = 0;
  if (!StringRef(l).getAsInteger(10, n) && n >= -1)
    return n > 0 ? 1 : 0;
  return -1;
}

void loadSpec(instr::Config &c, const std::string &path) {
  if (!c.error.empty() || path.empty())
    return;
  instr_filter_error err;
  size_t warningsBefore = instr_filter_warning_count(c.filter);
  if (instr_filter_load_file(c.filter, path.c_str(), INSTR_SPEC_AUTO, &err) != 0) {
    // clang's diagnostics say "error: " themselves: the message without filter/'s own
    std::string plain(instr_filter_error_plain(&err, nullptr, 0), '\0');
    instr_filter_error_plain(&err, &plain[0], plain.size() + 1);
    c.error = plain;
    return;
  }
  for (size_t i = warningsBefore; i < instr_filter_warning_count(c.filter); i++)
    errs() << instr_filter_warning(c.filter, i) << "\n";
}

instr::Config load() {
  instr::Config c;
  c.filter = instr_filter_new();
  if (!c.filter) {
    c.error = "instr: out of memory";
    return c;
  }
  std::string origin;

  if (const char *v = setting(OptMode, "INSTR_MODE", origin)) {
    StringRef s = StringRef(v).trim();
    if (s == "hooks" || s.empty())
      c.mode = instr::Mode::Hooks;
    else if (s == "xray")
      c.mode = instr::Mode::XRay;
    else
      badValue(c, origin, v, "hooks or xray");
  }
  if (const char *v = setting(OptInline, "INSTR_INLINE", origin)) {
    StringRef s = StringRef(v).trim();
    if (s == "after" || s.empty())
      c.placement = instr::Placement::AfterInlining;
    else if (s == "before")
      c.placement = instr::Placement::BeforeInlining;
    else
      badValue(c, origin, v, "after or before");
  }
  if (OptVerbose.getNumOccurrences() > 0 && OptVerbose.getValue().empty()) {
    c.verbose = true; // plain -instr-verbose
  } else if (const char *v = setting(OptVerbose, "INSTR_VERBOSE", origin)) {
    int b = parseBool(v);
    if (b < 0)
      badValue(c, origin, v, "quiet, 0, 1, a level, yes/no, true/false or on/off");
    else
      c.verbose = b == 1;
  }
  if (const char *v = setting(OptReport, "INSTR_REPORT", origin))
    c.reportPath = v;

  // INSTR_FILTER: a colon-separated list of spec files, like PATH; empty elements are
  // skipped.
  if (const char *v = std::getenv("INSTR_FILTER")) {
    SmallVector<StringRef, 4> parts;
    StringRef(v).split(parts, ':', -1, false);
    for (StringRef p : parts)
      loadSpec(c, p.str());
  }
  for (const std::string &p : OptFilter)
    loadSpec(c, p);
  return c;
}

} // namespace

namespace instr {

const Config &config() {
  static std::once_flag once;
  static Config c;
  std::call_once(once, [] { c = load(); });
  return c;
}

const char *modeName(Mode m) { return m == Mode::XRay ? "xray" : "hooks"; }

} // namespace instr
