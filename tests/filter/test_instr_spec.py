#!/usr/bin/env python3
"""instr-spec as users and scripts run it: the bundled specs check, every kind of malformed
input fails with file:line:column and exit 1, and `match` answers in one line.

usage: test_instr_spec.py INSTR_SPEC SOURCE_DIR"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from tally import Tally  # noqa: E402

TOOL, SRC = sys.argv[1], sys.argv[2]


def run(*args):
    p = subprocess.run([TOOL, *args], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


tally = Tally()
check = tally.check


specs = os.path.join(SRC, "selection_specs")
bundled = sorted(os.path.join(specs, f) for f in os.listdir(specs) if not f.endswith(".txt")
                 and f != "CMakeLists.txt")
check(len(bundled) >= 5, "default.spec and one example per spelling are bundled")
for path in bundled:
    rc, out, err = run("check", path)
    check(rc == 0 and err == "", f"check {path}: rc={rc} stderr={err!r}")
    check("# from " + path in out, f"check {path} names the origin of its rules")

# The four example spellings decide alike.
examples = [os.path.join(specs, "example." + e) for e in ("spec", "yaml", "filter", "tau")]
probes = [
    ("main", "/w/src/main.c", "include"),
    ("solver::run(int)", "/w/src/s.cpp", "include"),
    ("solver::debug::dump()", "/w/src/s.cpp", "exclude"),
    ("kernel_axpy", "/w/src/k.c", "include"),
    ("kernel_axpy", "/w/src/generated/k.c", "exclude"),
    ("helper(int)", "/w/src/s.cpp", "exclude"),
    ("solver::run(int)", "/w/lib/s.cpp", "exclude"),
]
for sig, file, want in probes:
    for spec in examples:
        rc, out, err = run("match", spec, "--function", sig, "--file", file)
        check(rc == 0 and out.split()[0] == want,
              f"match {os.path.basename(spec)} {sig} {file}: want {want}, got {out!r} {err!r}")

# match: the first word, then the deciding rule with its spec file:line:column.
rc, out, _ = run("match", os.path.join(specs, "default.spec"), "--function",
                 "std::vector<int, std::allocator<int> >::size() const", "--file", "/w/a.cpp")
check(rc == 0 and re.fullmatch(r"exclude function std::\* \(.*default\.spec:\d+:\d+\)\n", out),
      f"match std:: names the rule: {out!r}")
rc, out, _ = run("match", os.path.join(specs, "default.spec"), "--function", "tiny(int)",
                 "--instructions", "3")
check(rc == 0 and re.fullmatch(r"exclude min-instructions 10 \(.*default\.spec:\d+\): 3 "
                               r"instructions\n", out), f"match tiny: {out!r}")
rc, out, _ = run("match", os.path.join(specs, "default.spec"), "--function", "tiny(int)",
                 "--instructions", "3", "--main")
check(rc == 0 and out.startswith("include "), f"--main is exempt from min-instructions: {out!r}")
rc, out, _ = run("match", os.path.join(specs, "default.spec"), "--function", "__instr_enter")
check(rc == 0 and out.startswith("exclude built-in runtime"), f"built-in: {out!r}")
rc, out, _ = run("builtins")
check(rc == 0 and "artificial" in out and "runtime" in out, "builtins lists them")

with tempfile.TemporaryDirectory() as tmp:
    def write(name, data):
        path = os.path.join(tmp, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    # Several specs append in order: the later one wins.
    a = write("a.spec", b"exclude function foo*\n")
    b = write("b.spec", b"include function foobar\n")
    rc, out, _ = run("match", a, b, "--function", "foobar")
    check(rc == 0 and out == f"include function foobar ({b}:1:18)\n", f"append: {out!r}")
    rc, out, _ = run("check", a, b)
    check(rc == 0 and out.index(a) < out.index(b), "check lists the specs in order")

    bad = {
        "keyword.spec": (b"exclude function ok\nexlude function x\n", 2, 1, "unknown keyword"),
        "pattern.spec": (b"include function\n", 1, 18, "missing pattern"),
        "bracket.spec": (b"include function a[bc\n", 1, 19, "unterminated '['"),
        "number.spec": (b"min-instructions 1O\n", 1, 18, "bad number"),
        "block.filter": (b"SCOREP_REGION_NAMES_BEGIN\n foo\n", 2, 2,
                         "pattern 'foo' before INCLUDE or EXCLUDE"),
        "list.tau": (b"BEGIN_INCLUDE_LIST\nmain\n", 1, 1, "unterminated list"),
        "type.yaml": (b"rules:\n  - include: {function: {name: main}}\n", 2, 25,
                      "expected a pattern"),
        "garbage.spec": (bytes(range(256)) * 4, 1, 1, "binary data"),
    }
    for name, (data, line, col, what) in bad.items():
        path = write(name, data)
        rc, out, err = run("check", path)
        check(rc == 1, f"check {name}: exit 1, got {rc}")
        check(err.startswith(f"{path}:{line}:{col}: error: ") and what in err,
              f"check {name}: want {path}:{line}:{col}: ... {what}, got {err!r}")
        rc, out, err = run("match", path, "--function", "main")
        check(rc == 1 and out == "", f"match with a bad spec {name}: exit 1, no verdict")
    missing = os.path.join(tmp, "missing.spec")
    rc, out, err = run("check", missing)
    check(rc == 1 and err.startswith(f"{missing}: error: cannot read the spec"),
          f"missing file: {err!r}")
    rc, out, err = run("check", tmp)
    check(rc == 1 and "not a regular file (a directory)" in err, f"directory: {err!r}")

    # One bad file among good ones: every error reported, exit 1.
    rc, out, err = run("check", a, os.path.join(tmp, "pattern.spec"),
                       os.path.join(tmp, "number.spec"))
    check(rc == 1 and err.count(": error: ") == 2, f"all errors reported: {err!r}")

# Usage errors exit 2 and say what is wrong.
for args, what in [((), "usage"), (("frobnicate",), "unknown command"),
                   (("check",), "no spec file"), (("match", a if False else "x.spec"),
                                                  "--function"),
                   (("check", "--format=xml", "x"), "unknown format"),
                   (("match", "x", "--function", "f", "--instructions", "many"), "whole number"),
                   (("check", "--bogus", "x"), "unknown option")]:
    rc, out, err = run(*args)
    check(rc == 2 and what in err, f"usage error {args}: rc={rc} {err!r}")

sys.exit(tally.report("test_instr_spec"))
