# lit configuration of the LLVM plugin's tests (tests/llvm_pass/). Loaded through the
# lit.site.cfg.py that CMake writes for each LLVM version, which says where the plugin, that
# version's tools and the runtime are.
import os

import lit.formats

config.name = "llvm_pass (LLVM %s)" % config.instr_llvm_version
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".ll", ".c", ".cpp", ".test"]
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py.in", "CMakeLists.txt"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))

# That version's opt/FileCheck/not/clang/llvm-objdump come first on PATH. Nothing of the
# caller's INSTR_* environment reaches the tests (lit passes a fixed environment).
config.environment["PATH"] = os.pathsep.join(
    [config.llvm_tools_dir, config.environment.get("PATH", os.environ.get("PATH", ""))])
for var in ("HOME", "TMPDIR", "LANG"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

major = int(config.instr_llvm_version)
config.available_features.add("llvm-%d" % major)
# LLVM 14 reads `ptr` IR only with -opaque-pointers; LLVM 17+ has nothing else.
opt = "opt -opaque-pointers" if major < 15 else "opt"
plugin = config.instr_plugin
# cl::opt options of a plugin need it loaded before the command line is parsed: -load.
config.substitutions.append(("%instr_opt_cl",
                             "%s -load %s -load-pass-plugin %s -passes=instr"
                             % (opt, plugin, plugin)))
config.substitutions.append(("%instr_opt",
                             "%s -load-pass-plugin %s -passes=instr" % (opt, plugin)))
config.substitutions.append(("%opt_plugin", "%s -load-pass-plugin %s" % (opt, plugin)))
config.substitutions.append(("%opt ", opt + " "))
config.substitutions.append(("%verify", "%s -passes=verify -disable-output" % opt))
config.substitutions.append(("%plugin", plugin))
config.substitutions.append(("%clangxx", os.path.join(config.llvm_tools_dir, "clang++")))
config.substitutions.append(("%clang", os.path.join(config.llvm_tools_dir, "clang")))
config.substitutions.append(("%objdump", os.path.join(config.llvm_tools_dir, "llvm-objdump")))
config.substitutions.append(("%python", config.instr_python))
config.substitutions.append(("%instr_src", config.instr_source_dir))
config.substitutions.append(("%rtlib", config.instr_runtime_lib))
config.substitutions.append(("%rtinc", os.path.join(config.instr_source_dir, "runtime",
                                                    "include")))
# INSTR_REGION_ABI_BITS: the flags of a descriptor without flags (instr_abi.h)
config.substitutions.append(("%abi_flags", config.instr_abi_flags))
config.substitutions.append(("%rtdir", os.path.dirname(config.instr_runtime_lib)))

# End-to-end tests link the runtime (libinstr-rt.so) and run the program.
if os.path.exists(config.instr_runtime_lib):
    config.available_features.add("runtime")
else:
    lit_config.note("runtime %s not built: end-to-end tests are UNSUPPORTED"
                    % config.instr_runtime_lib)
