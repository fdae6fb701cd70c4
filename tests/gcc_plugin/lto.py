#!/usr/bin/env python3
"""-flto through the instr wrapper (docs/gcc-plugin.md, "LTO"): `instr g++ -O2 -flto -c`
records the decisions, `instr g++ -O2 -flto` links, and the GCC plugin, loaded into lto1,
inserts the hooks into the link-time (LTRANS) bodies after whole-program inlining.

Checks: the same output and exit code as a plain `g++ -O2 -flto` build; the visit counts in
profile.json exactly as SRC's VISITS lines for inline=after at -O2, overridden by its
"VISITS[lto] n name" lines (what whole-program inlining inlines besides); a consistent
profile; and the same set of functions in both executables (nm), descriptors aside.

usage: lto.py --gxx G++ --instr WRAPPER --src SRC --work DIR
"""
import argparse
import os
import re
import shutil
import sys
import types

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "lib"))
import profile as P  # noqa: E402  tests/lib/profile.py
from gcc_plugin_test import (Failure, check_counts, exit_status, expectations,  # noqa: E402
                             run)
from out_of_line import functions, shortlist  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gxx", required=True)
    ap.add_argument("--instr", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    w = lambda name: os.path.join(args.work, name)  # noqa: E731

    visits, absent = expectations(args.src, types.SimpleNamespace(inline="after", opt="-O2"))
    with open(args.src) as f:
        for line in f:
            m = re.search(r"VISITS\[lto\] (\d+) (.*?)\s*(\*/)?$", line)
            if m:
                visits[m.group(2)] = int(m.group(1))

    run([args.gxx, "-O2", "-flto", "-c", args.src, "-o", w("plain.o")])
    run([args.gxx, "-O2", "-flto", w("plain.o"), "-o", w("plain")])
    run([args.instr, args.gxx, "-O2", "-flto", "-c", args.src, "-o", w("instr.o")])
    run([args.instr, args.gxx, "-O2", "-flto", w("instr.o"), "-o", w("instr")])

    a = run([w("plain")], check=False)
    env = {k: v for k, v in os.environ.items() if not k.startswith("INSTR_")}
    env["INSTR_EXPERIMENT_DIRECTORY"] = w("exp")
    b = run([w("instr")], check=False, env=env)
    if (a.returncode, a.stdout) != (b.returncode, b.stdout):
        raise Failure("behaviour changed:\nplain rc=%d\n%s\ninstrumented rc=%d\n%s%s"
                      % (a.returncode, a.stdout, b.returncode, b.stdout, b.stderr))
    prof = P.load(os.path.join(w("exp"), "profile.json"))
    counts = P.visits_by_region(prof)
    problems = P.check_consistency(prof) + check_counts(visits, absent, counts, "profile.json")
    if not counts:
        problems.append("no region recorded: the link did not instrument")
    plain_fns, instr_fns = functions(w("plain")), functions(w("instr"))
    if plain_fns != instr_fns:
        problems.append("out of line only with the plugin: %s; only without: %s"
                        % (shortlist(instr_fns - plain_fns), shortlist(plain_fns - instr_fns)))
    if problems:
        raise Failure("\n".join(problems))
    print("-flto: same output, %d regions, %d expected counts exact, %d functions out of line "
          "in both executables" % (len(counts), len(visits), len(plain_fns)))


if __name__ == "__main__":
    sys.exit(exit_status(main))
