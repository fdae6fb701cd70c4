#!/usr/bin/env python3
"""The end of the run leaves the program's heap alone (docs/runtime.md, "The runtime's
memory"): end.c, whose own malloc family (a test double) reports every call made after main
returned, is built with one front end through the `instr` wrapper and run in one mode; the
runtime writes its files then, and no call may reach the program's malloc. The double is
checked first: with "self-test" the program's own call after main must be reported.

Usage: check_end.py FRONT MODE --wrapper W --cc CC --src end.c --work DIR
  FRONT: gcc (GCC plugin hooks), clang (LLVM plugin hooks), xray, cyg
  MODE:  profile or trace (INSTR_ENABLE_TRACING=1, INSTR_ENABLE_PROFILING=0)
"""
import argparse
import os
import shutil
import subprocess
import sys

MARK = "instr-heap-test:"


def fail(why):
    print("FAIL:", why)
    sys.exit(1)


def run(cmd, env):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    if p.returncode != 0:
        fail("%s: exit %d\n%s%s" % (" ".join(cmd), p.returncode, p.stdout, p.stderr))
    return p


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("front", choices=["gcc", "clang", "xray", "cyg"])
    ap.add_argument("mode", choices=["profile", "trace"])
    ap.add_argument("--wrapper", required=True)
    ap.add_argument("--cc", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    work = os.path.join(a.work, "end-%s-%s" % (a.front, a.mode))
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    env = {k: v for k, v in os.environ.items() if not k.startswith("INSTR_")}
    exe = os.path.join(work, "end")
    wmode = {"gcc": [], "clang": [], "xray": ["--mode=xray"], "cyg": ["--mode=cyg"]}[a.front]
    run([a.wrapper] + wmode + [a.cc, "-O1", a.src, "-o", exe], env)
    exp = os.path.join(work, "exp")
    ienv = dict(env, INSTR_EXPERIMENT_DIRECTORY=exp, INSTR_VERBOSE="quiet")
    if a.mode == "trace":
        ienv.update(INSTR_ENABLE_TRACING="1", INSTR_ENABLE_PROFILING="0")

    p = run([exe, "self-test"], dict(ienv, INSTR_EXPERIMENT_DIRECTORY=exp + "-self"))
    own = [l for l in p.stderr.splitlines() if l.startswith(MARK)]
    if "%s malloc after main" % MARK not in own or "%s free after main" % MARK not in own:
        fail("the test double did not report the program's own call after main:\n" + p.stderr)

    p = run([exe], ienv)
    calls = [l for l in p.stderr.splitlines() if l.startswith(MARK)]
    want = "traces.otf2" if a.mode == "trace" else "profile.json"
    if not os.path.exists(os.path.join(exp, want)):
        fail("%s not written into %s:\n%s" % (want, exp, p.stderr))
    if calls:
        counts = {}
        for l in calls:
            counts[l] = counts.get(l, 0) + 1
        fail("the runtime's end of run called the program's malloc family %d times:\n  %s"
             % (len(calls), "\n  ".join("%s  x%d" % (k, v) for k, v in sorted(counts.items()))))
    print("ok: %s %s: no call of the malloc family after main (%s written)" % (a.front, a.mode, want))


main()
