#!/usr/bin/env python3
"""XRay mode costs (docs/performance.md, "XRay mode"): on the workloads of bench/workloads/
(calls, stencil, particles), each built with clang -O2 as
  uninstrumented                      plain clang
  XRay sleds, unpatched               instr --mode=xray, INSTR_XRAY_PATCH=manual (budget: +2 %)
  XRay sleds, patched                 instr --mode=xray, everything patched at start-up
  hooks mode                          instr --mode=hooks (the LLVM plugin's enter/exit calls)
and the time instr_xray_patch_all/unpatch_all and instr_xray_patch("*")/unpatch("*") take for
programs of N generated functions. Runs rotate every round; medians are reported.
Usage: run_xray_bench.py --build BUILD [--clang clang-19] [--rounds 9]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
WL = os.path.join(HERE, "..", "workloads")


def sh(cmd, env=None, cwd=None):
    e = {k: v for k, v in os.environ.items() if not k.startswith("INSTR_")}
    e.update(env or {})
    p = subprocess.run(cmd, env=e, cwd=cwd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("failed: %s\n%s%s" % (" ".join(cmd), p.stdout, p.stderr))
    return p.stdout


def kernel_ns(out):
    for w in out.split():
        if w.startswith("kernel_ns="):
            return float(w.split("=")[1])
    sys.exit("no kernel_ns in %r" % out)


def visits(expdir):
    with open(os.path.join(expdir, "profile.json")) as f:
        return sum(n["visits"] for n in json.load(f)["tree"])


PATCH_MAIN = r'''
#include <instr.h>
#include <stdio.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);
                          return t.tv_sec * 1e9 + t.tv_nsec; }
int main(void) {
    double t0 = now(); int a = instr_xray_patch_all();
    double t1 = now(); int b = instr_xray_unpatch_all();
    double t2 = now(); int c = instr_xray_patch("*");
    double t3 = now(); int d = instr_xray_unpatch("*");
    double t4 = now();
    printf("%d %d %d %d %.0f %.0f %.0f %.0f\n", a, b, c, d, t1 - t0, t2 - t1, t3 - t2, t4 - t3);
    return 0;
}
'''


def patch_program(d, n, wrapper, clang):
    src = os.path.join(d, "gen%d.c" % n)
    with open(src, "w") as f:
        f.write("volatile int sink;\n")
        for i in range(n):
            f.write("__attribute__((noinline)) void f%d(void) { sink += %d; }\n" % (i, i))
    mainc = os.path.join(d, "pmain.c")
    with open(mainc, "w") as f:
        f.write(PATCH_MAIN)
    exe = os.path.join(d, "patch%d" % n)
    sh([wrapper, "--mode=xray", clang, "-O2", src, mainc, "-o", exe])
    return exe


def bench_workload(a, d, wrapper, wl, srcs, cc, reps):
    exe = {}
    flags = ["-O2", "-I", WL]
    exe["plain"] = os.path.join(d, wl + "-plain")
    sh([cc] + flags + srcs + ["-o", exe["plain"]])
    exe["xray"] = os.path.join(d, wl + "-xray")
    sh([wrapper, "--mode=xray", cc] + flags + srcs + ["-o", exe["xray"]])
    exe["hooks"] = os.path.join(d, wl + "-hooks")
    sh([wrapper, "--mode=hooks", cc] + flags + srcs + ["-o", exe["hooks"]])
    configs = [
        ("uninstrumented", "plain", {}),
        ("XRay sleds, unpatched", "xray", {"INSTR_XRAY_PATCH": "manual"}),
        ("XRay sleds, patched", "xray", {}),
        ("hooks mode", "hooks", {}),
    ]
    times = {c[0]: [] for c in configs}
    calls = {}
    for r in range(a.rounds):
        order = configs[r % len(configs):] + configs[:r % len(configs)]
        for name, e, env in order:
            expd = os.path.join(d, "exp-%s-%d-%s" % (wl, r, e + str(len(env))))
            env = dict(env, INSTR_EXPERIMENT_DIRECTORY=expd, INSTR_VERBOSE="-1")
            times[name].append(kernel_ns(sh([exe[e], reps], env=env)))
            if os.path.isdir(expd) and name not in calls:
                calls[name] = visits(expd)
    base = statistics.median(times["uninstrumented"])
    print("%s workload x%s, %s -O2, %d rounds (median kernel time)" % (wl, reps, cc, a.rounds))
    print("| configuration | kernel ms | x uninstrumented | recorded calls | ns/call |")
    print("|---|--:|--:|--:|--:|")
    for name, _, _ in configs:
        m = statistics.median(times[name])
        n = calls.get(name, 0)
        per = "%.1f" % ((m - base) / n) if n >= 100000 else "-"
        print("| %s | %.2f | %.3f | %s | %s |" % (name, m / 1e6, m / base, n or "-", per))
    print()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--clang", default="clang-19")
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--reps", default="5")
    a = ap.parse_args()
    wrapper = os.path.join(os.path.abspath(a.build), "bin", "instr")
    d = tempfile.mkdtemp(prefix="xray-bench-")
    workloads = [("calls", [os.path.join(WL, "calls.c"), os.path.join(WL, "calls_ops.c")],
                  a.clang, a.reps),
                 ("stencil", [os.path.join(WL, "stencil.c")], a.clang, "1"),
                 ("particles", [os.path.join(WL, "particles.cpp")],
                  a.clang.replace("clang", "clang++"), "1")]
    for wl, srcs, cc, reps in workloads:
        bench_workload(a, d, wrapper, wl, srcs, cc, reps)
    print()
    print("| functions | patch_all ms | unpatch_all ms | patch(\"*\") ms | unpatch(\"*\") ms |")
    print("|--:|--:|--:|--:|--:|")
    for n in (100, 1000, 10000):
        p = patch_program(d, n, wrapper, a.clang)
        runs = []
        for _ in range(5):
            out = sh([p], env={"INSTR_XRAY_PATCH": "manual", "INSTR_VERBOSE": "-1",
                               "INSTR_EXPERIMENT_DIRECTORY": os.path.join(d, "pexp%d-%d" % (n, len(runs)))})
            runs.append([float(x) for x in out.split()])
        counts = runs[0][:4]
        if counts != [n + 1] * 4:
            sys.exit("patch counts %r, expected %d (functions + main)" % (counts, n + 1))
        med = [statistics.median(r[4 + i] for r in runs) / 1e6 for i in range(4)]
        print("| %d | %.3f | %.3f | %.3f | %.3f |" % (n + 1, *med))


if __name__ == "__main__":
    main()
