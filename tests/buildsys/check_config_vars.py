#!/usr/bin/env python3
"""The one table of INSTR_* variables (runtime/core/config_vars.c), as `instr-info
config-vars --full` prints it, against what reads and documents them:
  sources   every INSTR_* name written as a string literal in runtime/, tools/,
            xray_adapter/, llvm_pass/ and gcc_plugin/ (how a variable's name is written where
            it is read) has a row (a literal ending in "_" is a prefix: a family row covers
            it); INSTR_TEST_* are the test suite's doubles
  docs      docs/runtime.md's variable table lists exactly the rows the runtime and the XRay
            adapter read, each with the table's type and default; every other row is named
            in some docs/ page
  defaults  a program run without INSTR_* settings records in instr.cfg exactly the table's
            defaults
Usage: check_config_vars.py CASE --info BIN --wrapper BIN --source DIR --work DIR
"""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from cases import Fail, expect, fresh_dir, run_case, clean_env  # noqa: E402  tests/lib/cases.py

A = None
SOURCE_DIRS = ("runtime", "tools", "xray_adapter", "llvm_pass", "gcc_plugin")
LITERAL = re.compile(r'"(INSTR_[A-Z0-9_]+)"')


def table():
    """name -> {type, default, read by, description} from instr-info config-vars --full."""
    p = subprocess.run([A.info, "config-vars", "--full"], capture_output=True, text=True)
    expect(p.returncode == 0, "instr-info config-vars --full: exit %d %s" % (p.returncode,
                                                                               p.stderr))
    rows, cur = {}, None
    for line in p.stdout.splitlines():
        if line.startswith("INSTR_"):
            cur = rows.setdefault(line.strip(), {})
        elif cur is not None and ":" in line:
            k, v = line.strip().split(":", 1)
            cur[k] = v.strip()
    expect(len(rows) > 10, "instr-info printed only %d variables" % len(rows))
    for name, r in rows.items():
        for k in ("type", "default", "read by", "description"):
            expect(r.get(k), "%s has no %s in instr-info config-vars --full" % (name, k))
    return rows


def covered(name, rows):
    if name in rows:
        return True
    return any(r.endswith("*") and name.startswith(r[:-1]) for r in rows)


def case_sources():
    rows = table()
    missing = []
    for top in SOURCE_DIRS:
        for root, _, files in os.walk(os.path.join(A.source, top)):
            for f in files:
                if not f.endswith((".c", ".h", ".cc", ".cpp", ".py")):
                    continue
                path = os.path.join(root, f)
                with open(path, encoding="utf-8", errors="replace") as fh:
                    for n, line in enumerate(fh, 1):
                        for name in LITERAL.findall(line):
                            if name.startswith("INSTR_TEST_"):
                                continue
                            if name.endswith("_"):
                                ok = any(r.endswith("*") and r[:-1].startswith(name)
                                         for r in rows) or covered(name, rows)
                            else:
                                ok = covered(name, rows)
                            if not ok:
                                missing.append("%s:%d: %s" % (os.path.relpath(path, A.source),
                                                              n, name))
    expect(not missing, "INSTR_* names read in the sources but missing from the table in "
           "runtime/core/config_vars.c (add one row each):\n  " + "\n  ".join(missing))


def case_docs():
    rows = table()
    with open(os.path.join(A.source, "docs", "runtime.md")) as f:
        runtime_md = f.read()
    cells = {m.group(1): (m.group(2).strip(), m.group(3).strip()) for m in re.finditer(
        r"^\| `(INSTR_[A-Z0-9_*]+)` \|([^|]*)\|([^|]*)\|", runtime_md, re.M)}
    documented = set(cells)
    runtime_rows = {n for n, r in rows.items()
                    if "runtime" in r["read by"] or "XRay" in r["read by"]}
    expect(runtime_rows - documented <= set(),
           "read at run time but not in docs/runtime.md's table: %s"
           % sorted(runtime_rows - documented))
    expect(documented - runtime_rows <= set(),
           "in docs/runtime.md's table but not a run-time row of the table: %s"
           % sorted(documented - runtime_rows))
    # each row's type and default as the table has them: a set default is the cell `value`,
    # an unset one "none" (optionally ": what happens then")
    wrong = []
    for name, (typ, default) in sorted(cells.items()):
        r = rows.get(name)
        if not r:
            continue
        if typ != r["type"]:
            wrong.append("%s: type %r in docs/runtime.md, %r in the table" % (name, typ, r["type"]))
        want = r["default"]
        if want == "(unset)":
            if not (default == "none" or default.startswith("none:")):
                wrong.append("%s: default %r in docs/runtime.md, but the table has none (write "
                             "'none' or 'none: what happens')" % (name, default))
        elif default != "`%s`" % want:
            wrong.append("%s: default %r in docs/runtime.md, `%s` in the table"
                         % (name, default, want))
    expect(not wrong, "docs/runtime.md's table disagrees with runtime/core/config_vars.c:\n  "
           + "\n  ".join(wrong))
    docs = ""
    for f in sorted(os.listdir(os.path.join(A.source, "docs"))):
        if f.endswith(".md"):
            with open(os.path.join(A.source, "docs", f)) as fh:
                docs += fh.read()
    undocumented = [n for n in rows if n.rstrip("*") not in docs]
    expect(not undocumented, "named in no docs/ page: %s" % undocumented)


def case_defaults():
    rows = table()
    wd = fresh_dir(os.path.join(A.work, "defaults"))
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "project")
    exe = os.path.join(wd, "app")
    p = subprocess.run([A.wrapper, "cc", os.path.join(src, "app.c"), os.path.join(src, "kernel.c"),
                        "-o", exe], cwd=wd, env=clean_env(), capture_output=True, text=True)
    expect(p.returncode == 0, "build failed: %s" % p.stderr)
    exp = os.path.join(wd, "exp")
    p = subprocess.run([exe], cwd=wd, env=clean_env({"INSTR_EXPERIMENT_DIRECTORY": exp}),
                       capture_output=True, text=True)
    expect(p.returncode == 0, "run failed: %s" % p.stderr)
    seen = 0
    with open(os.path.join(exp, "instr.cfg")) as f:
        for line in f:
            m = re.match(r"(INSTR_[A-Z0-9_]+)=(.*?)  # (.*)$", line.rstrip("\n"))
            if not m:
                continue
            name, value, origin = m.groups()
            if name == "INSTR_EXPERIMENT_DIRECTORY":
                continue  # set by this test
            seen += 1
            expect(name in rows, "instr.cfg records %s, which the table lacks" % name)
            expect(origin == "default", "%s: origin %r in a run without settings" % (name, origin))
            want = rows[name]["default"]
            want = "" if want == "(unset)" else want
            expect(value == want, "%s: instr.cfg says %r, the table's default is %r"
                   % (name, value, want))
    expect(seen >= 9, "instr.cfg held only %d variables" % seen)


def main():
    global A
    ap = argparse.ArgumentParser()
    ap.add_argument("case")
    ap.add_argument("--info", required=True)
    ap.add_argument("--wrapper", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--work", required=True)
    A = ap.parse_args()
    return run_case(globals(), A.case)


if __name__ == "__main__":
    sys.exit(main())
