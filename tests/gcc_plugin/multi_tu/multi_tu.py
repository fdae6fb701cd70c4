#!/usr/bin/env python3
"""An inline function instrumented in two objects is one region: the GCC plugin's
descriptors are local to each object, the runtime merges them by the function's address.

usage: multi_tu.py G++ PLUGIN RUNTIME_LIBRARY WORK_DIR"""
import os
import shutil
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "lib"))
import profile as P  # noqa: E402  tests/lib/profile.py

gxx, plugin, rt, work = sys.argv[1:5]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
exe = os.path.join(work, "multi")
rtdir = os.path.dirname(rt)
# inline=before: every inlined copy of twice(int) keeps its hooks with its own object's
# descriptor, so both descriptors are in use (with the default, after, the copies inlined at
# -O2 would keep no hooks at all).
subprocess.run([gxx, "-O2", "-fplugin=" + plugin, "-fplugin-arg-instr-inline=before",
                os.path.join(here, "first.cpp"), os.path.join(here, "second.cpp"),
                "-o", exe, "-L" + rtdir, "-linstr-rt", "-Wl,-rpath," + rtdir], check=True)
# two descriptors of twice(int), one per object
# (the GCC plugin emits one local descriptor of twice(int) per object; see docs/gcc-plugin.md)
env = {k: v for k, v in os.environ.items() if not k.startswith("INSTR_")}
env["INSTR_EXPERIMENT_DIRECTORY"] = os.path.join(work, "exp")
out = subprocess.run([exe], capture_output=True, text=True, env=env, check=True)
assert out.stdout == "9 25\n", out.stdout
prof = P.load(P.find_experiment(work))
problems = list(P.check_consistency(prof))
names = [r["name"] for r in P.regions(prof).values()]
if names.count("twice(int)") != 1:
    problems.append("twice(int) is %d regions, want 1: %s" % (names.count("twice(int)"), names))
visits = P.visits_by_region(prof)
want = {"main": 1, "first(int)": 1, "second(int)": 1, "twice(int)": 3 + 5}
for name, n in want.items():
    if visits.get(name) != n:
        problems.append("%s: %r visits, want %d" % (name, visits.get(name), n))
if problems:
    sys.exit("FAIL:\n  " + "\n  ".join(problems))
print("one region for an inline function instrumented in two objects; counts exact")
