#!/usr/bin/env python3
"""Per-call cost (enter+exit) in trace mode next to profile mode, and trace bytes per event.

Builds bench/callheavy.c (one tiny function called N times) with the `instr` wrapper of an
instr build or install tree, in every mode available there (cyg; plugin hooks with gcc and
clang when the plugins are built), plus the uninstrumented and the empty
-finstrument-functions baselines, and runs each instrumented binary with
  profile          INSTR_ENABLE_PROFILING=1 INSTR_ENABLE_TRACING=0
  trace            INSTR_ENABLE_PROFILING=0 INSTR_ENABLE_TRACING=1
  profile+trace    both
in the same invocation, interleaved over ROUNDS rounds; each figure is the median over the
rounds of the best of REPS runs. Not a test: no thresholds (docs/architecture.md, "Budgets":
trace mode at most 2x profile mode per call).
Usage: bench/trace/run_trace_bench.py [PREFIX] [--calls N] [--reps R] [--rounds K]
"""
import argparse
import glob
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)
SUMMARY = re.compile(r"trace: .*traces\.otf2: (\d+) events from \d+ threads?, (\d+) bytes, "
                     r"(\d+) buffer flush")
MODES = [("profile", {"INSTR_ENABLE_PROFILING": "1", "INSTR_ENABLE_TRACING": "0"}),
         ("trace", {"INSTR_ENABLE_PROFILING": "0", "INSTR_ENABLE_TRACING": "1"}),
         ("profile+trace", {"INSTR_ENABLE_PROFILING": "1", "INSTR_ENABLE_TRACING": "1"})]


def build(work, name, cmd):
    p = subprocess.run(cmd, cwd=work, capture_output=True, text=True)
    if p.returncode != 0:
        print("bench: %s not built: %s" % (name, (p.stderr or p.stdout)[:300]), file=sys.stderr)
        return None
    return os.path.join(work, name)


def run(exe, n, env, work):
    e = {k: v for k, v in os.environ.items() if not k.startswith("INSTR_")}
    e.update(env)
    exp = os.path.join(work, "exp")
    e["INSTR_EXPERIMENT_DIRECTORY"] = exp
    p = subprocess.run([exe, str(n)], env=e, capture_output=True, text=True, check=True)
    ns = float(re.search(r"ns_per_call=([0-9.]+)", p.stdout).group(1))
    m = SUMMARY.search(p.stderr)
    shutil.rmtree(exp, ignore_errors=True)
    return ns, (tuple(int(x) for x in m.groups()) if m else None)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("prefix", nargs="?", default=os.path.join(BENCH, "..", "build"))
    ap.add_argument("--calls", type=int, default=2000000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    prefix = os.path.abspath(a.prefix)
    instr = os.path.join(prefix, "bin", "instr")
    src = os.path.join(BENCH, "callheavy.c")
    with tempfile.TemporaryDirectory(prefix="instr-trace-bench.") as work:
        base = {"plain": build(work, "plain", ["gcc", "-O2", src, "-o", "plain"])}
        if build(work, "empty_hooks.o", ["gcc", "-O2", "-c", os.path.join(BENCH, "empty_hooks.c"),
                                         "-o", "empty_hooks.o"]):
            base["empty hooks"] = build(work, "empty", ["gcc", "-O2", "-finstrument-functions",
                                                        src, "empty_hooks.o", "-o", "empty"])
        inst = {"cyg": build(work, "cyg", [instr, "--mode=cyg", "gcc", "-O2", src, "-o", "cyg"])}
        if glob.glob(os.path.join(prefix, "lib", "instr", "gcc-*", "instr.so")):
            inst["hooks gcc"] = build(work, "hooks_gcc", [instr, "--mode=hooks", "gcc", "-O2",
                                                          src, "-o", "hooks_gcc"])
        if shutil.which("clang") and glob.glob(os.path.join(prefix, "lib", "instr", "llvm-*",
                                                            "libinstr.so")):
            inst["hooks clang"] = build(work, "hooks_clang", [instr, "--mode=hooks", "clang",
                                                              "-O2", src, "-o", "hooks_clang"])
        runs = [(k, v, {}) for k, v in base.items() if v]
        runs += [("%s: %s" % (k, m), v, env) for k, v in inst.items() if v for m, env in MODES]
        res = {r[0]: [] for r in runs}
        extra = {}
        for _ in range(a.rounds):
            for name, exe, env in runs:
                best = None
                for _ in range(a.reps):
                    ns, x = run(exe, a.calls, env, work)
                    best = ns if best is None else min(best, ns)
                    if x:
                        extra[name] = x
                res[name].append(best)
    med = {k: statistics.median(v) for k, v in res.items()}
    plain = med.get("plain", 0.0)
    print("machine: %s, %d cores" % (open("/proc/cpuinfo").read().split("model name")[1]
                                     .split("\n")[0].strip(" \t:"), os.cpu_count()))
    print("calls per run %d; median over %d rounds of the best of %d runs"
          % (a.calls, a.rounds, a.reps))
    print("%-26s %9s %10s %11s %13s" % ("variant", "ns/call", "overhead", "vs profile",
                                        "bytes/event"))
    for name, _, _ in runs:
        o = med[name] - plain
        ratio = ""
        if ": " in name and not name.endswith(": profile"):
            p = med[name.split(": ")[0] + ": profile"] - plain
            ratio = "%.2fx" % (o / p) if p > 0 else ""
        bpe = ""
        if name in extra:
            ev, by, fl = extra[name]
            bpe = "%.1f" % (by / ev) + (" (%d fl.)" % fl if fl else "")
        print("%-26s %9.2f %10.2f %11s %13s" % (name, med[name], o, ratio, bpe))
    return 0


if __name__ == "__main__":
    sys.exit(main())
