#!/usr/bin/env python3
"""The facts only the compiler plugins know, through real compiles (issue 16 items 4 and 5):

  a Score-P rule in the spelling Score-P's GCC plugin records (return type, typedef names,
  "[with T = double]") selects the same functions under gcc and clang (-g);
  a file rule naming the real directory selects a file compiled through a symbolic link.

Decisions are read from the plugins' reports (-fplugin-arg-instr-report=,
-mllvm -instr-report=): one TSV line per function, the verdict first.

usage: test_plugin_facts.py INSTR   (the wrapper; the plugins are found beside it in ../lib)"""
import glob
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from tally import Tally  # noqa: E402

WRAPPER = sys.argv[1]
LIB = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(WRAPPER))), "lib")
tally = Tally()
check = tally.check

SOURCE = """typedef float MMD_float;
struct Neighbor { MMD_float bindist(int, int, int); MMD_float other(int); };
MMD_float Neighbor::bindist(int a, int b, int c) { return a + b + c; }
MMD_float Neighbor::other(int a) { return a; }
template <class T> void foo(T x) { (void)x; }
template void foo<double>(double);
template void foo<int>(int);
int main(int argc, char **argv) { (void)argv; Neighbor n; return (int)n.bindist(argc, 1, 2); }
"""

# written as scorep-score -g shows the names, blanks and brackets escaped
SCOREP_FILTER = r"""SCOREP_REGION_NAMES_BEGIN
  EXCLUDE MMD_float\ Neighbor::bindist(int,\ int,\ int)
  EXCLUDE void\ foo<double>(double)\ \[with\ T\ =\ double\]
  EXCLUDE int\ main(int,\ char**)
SCOREP_REGION_NAMES_END
"""

SYMLINK_FILTER = """SCOREP_FILE_NAMES_BEGIN
  EXCLUDE */realdir/*
SCOREP_FILE_NAMES_END
"""


def compilers():
    for plugin in sorted(glob.glob(os.path.join(LIB, "instr", "gcc-*", "instr.so"))):
        yield "g++", lambda spec, report, src: [
            "g++", "-g", "-O0", "-c", "-fplugin=" + plugin, "-fplugin-arg-instr-filter=" + spec,
            "-fplugin-arg-instr-report=" + report, src, "-o", "out.o"]
    for plugin in sorted(glob.glob(os.path.join(LIB, "instr", "llvm-*", "libinstr.so"))):
        clang = shutil.which("clang++-" + plugin.split("llvm-")[1].split("/")[0])
        if clang:
            yield os.path.basename(clang), lambda spec, report, src, c=clang, p=plugin: [
                c, "-g", "-O0", "-c", "-fpass-plugin=" + p, "-Xclang", "-load", "-Xclang", p,
                "-mllvm", "-instr-filter=" + spec, "-mllvm", "-instr-report=" + report, src,
                "-o", "out.o"]


def decisions(cmd, cwd, report):
    if os.path.exists(report):
        os.unlink(report)
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        check(False, f"{' '.join(cmd)}: {p.stderr}")
        return {}
    with open(report) as f:
        rows = [line.rstrip("\n").split("\t") for line in f]
    return {r[2]: r[0] for r in rows}  # signature -> include|exclude


with tempfile.TemporaryDirectory() as tmp:
    os.mkdir(os.path.join(tmp, "realdir"))
    os.symlink("realdir", os.path.join(tmp, "link"))
    with open(os.path.join(tmp, "realdir", "t.cpp"), "w") as f:
        f.write(SOURCE)
    with open(os.path.join(tmp, "scorep.filter"), "w") as f:
        f.write(SCOREP_FILTER)
    with open(os.path.join(tmp, "symlink.filter"), "w") as f:
        f.write(SYMLINK_FILTER)
    report = os.path.join(tmp, "report.tsv")
    ran = 0
    for name, cmd in compilers():
        ran += 1
        got = decisions(cmd("scorep.filter", report, "realdir/t.cpp"), tmp, report)
        want = {"Neighbor::bindist(int, int, int)": "exclude",
                "Neighbor::other(int)": "include",
                "void foo<double>(double)": "exclude",
                "void foo<int>(int)": "include",
                "main": "exclude"}
        for sig, verdict in want.items():
            check(got.get(sig) == verdict, f"{name}: {sig}: want {verdict}, got {got.get(sig)}")
        # through the link: the lexical path has no realdir in it, the resolved one has
        got = decisions(cmd("symlink.filter", report, "link/t.cpp"), tmp, report)
        check(got and all(v == "exclude" for v in got.values()),
              f"{name}: link/t.cpp excluded by */realdir/*: {got}")
    check(ran > 0, "no compiler plugin built")

sys.exit(tally.report("test_plugin_facts"))
