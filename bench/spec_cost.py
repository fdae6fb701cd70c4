#!/usr/bin/env python3
"""Compile time against the number of rules in the selection spec (issue 27 item 5).

Generates a C file of 1,000 small functions and native specs of 1, 10, 1,000, 100,000 rules
(a mix of exact names, prefix globs, suffix globs and a few infix globs, none of which selects
a generated function, so every function is decided by looking through the rules), then
compiles the file with each compiler plugin of the build tree and each spec, and prints the
best of REPEATS CPU times (user + system of the compiler and its children, which a machine
shared with other work disturbs far less than wall time) and the ratio to the one-rule spec.

usage: bench/spec_cost.py [BUILD_DIR] [REPEATS]   (BUILD_DIR defaults to build/ beside bench/)"""
import glob
import os
import shutil
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "build"))
repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
FUNCTIONS = 1000
RULE_COUNTS = [1, 10, 1000, 100000]


def write_source(path):
    with open(path, "w") as f:
        for i in range(FUNCTIONS):
            f.write(f"int work_{i:04d}(int x) {{ return x * {i + 1} + {i % 7}; }}\n")
        f.write("int main(void) { int s = 0;\n")
        for i in range(0, FUNCTIONS, 50):
            f.write(f"  s += work_{i:04d}(s);\n")
        f.write("  return s & 1; }\n")


def write_spec(path, rules):
    kinds = [
        lambda i: f"exclude function never_{i}",
        lambda i: f"exclude function prefix_{i}_*",
        lambda i: f"exclude function *::suffix_{i}",
        lambda i: f"exclude mangled _ZN{i}other*",
        lambda i: f"exclude file */generated_{i}/*",
    ]
    with open(path, "w") as f:
        for i in range(rules):
            # one infix glob in a thousand: those must be tried for every function
            f.write((f"exclude function *infix_{i}*" if i % 1000 == 999 else
                     kinds[i % len(kinds)](i)) + "\n")


def cpu_seconds(cmd, cwd):
    """user + system time of cmd and everything it ran (cc1, the assembler)."""
    pid = os.fork()
    if pid == 0:
        try:
            os.chdir(cwd)
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.execvp(cmd[0], cmd)
        finally:
            os._exit(127)
    _, status, usage = os.wait4(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed")
    return usage.ru_utime + usage.ru_stime


def best_time(cmd, cwd):
    return min(cpu_seconds(cmd, cwd) for _ in range(repeats))


def compilers():
    for plugin in sorted(glob.glob(os.path.join(build, "lib", "instr", "gcc-*", "instr.so"))):
        gcc = shutil.which("gcc-" + plugin.split("gcc-")[1].split("/")[0]) or "gcc"
        yield ("gcc + plugin", lambda spec, p=plugin, g=gcc:
               [g, "-O2", "-c", "-fplugin=" + p, "-fplugin-arg-instr-filter=" + spec,
                "src.c", "-o", "out.o"])
    for plugin in sorted(glob.glob(os.path.join(build, "lib", "instr", "llvm-*", "libinstr.so"))):
        clang = shutil.which("clang-" + plugin.split("llvm-")[1].split("/")[0])
        if clang:
            yield (os.path.basename(clang) + " + plugin", lambda spec, p=plugin, c=clang:
                   [c, "-O2", "-c", "-fpass-plugin=" + p, "-Xclang", "-load", "-Xclang", p,
                    "-mllvm", "-instr-filter=" + spec, "src.c", "-o", "out.o"])


with tempfile.TemporaryDirectory() as tmp:
    write_source(os.path.join(tmp, "src.c"))
    for n in RULE_COUNTS:
        write_spec(os.path.join(tmp, f"r{n}.spec"), n)
    print(f"{FUNCTIONS} functions, best of {repeats}; CPU seconds (ratio to the one-rule spec)")
    print("compiler".ljust(22) + "".join(f"{n:>18,} rules" for n in RULE_COUNTS))
    for name, cmd in compilers():
        times = [best_time(cmd(f"r{n}.spec"), tmp) for n in RULE_COUNTS]
        print(name.ljust(22) + "".join(f"{t:>14.3f} s ({t / times[0]:.2f}x)" for t in times))
