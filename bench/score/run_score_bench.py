#!/usr/bin/env python3
"""The compile-time loop, measured: build a workload uninstrumented and with the instr
wrapper (profile mode), run it once, let `instr-score -g` write a spec, rebuild with
`--filter=` that spec, and time the three binaries in interleaved rounds (docs/performance.md,
"instr-score -g").

    bench/score/run_score_bench.py BUILD_DIR [--rounds 7] [--work DIR]

Each time is the best wall time of the whole process over the rounds (start-up and the
end-of-run writing included), in ms; calls = enter events recorded by the instrumented run.
Ir = instructions inside main counted by callgrind (--toggle-collect=main; one run with the
smaller arguments of the last column of WORKLOADS): deterministic, unlike the times on a
shared machine."""
import re
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WORKLOADS = [
    # name, compiler, sources, libs, arguments (enough work to dwarf start-up), callgrind's
    ("calls", "gcc", ["bench/workloads/calls.c", "bench/workloads/calls_ops.c"], [], ["10"], ["1"]),
    ("particles", "g++", ["bench/workloads/particles.cpp"], [], ["10"], ["1"]),
    ("accessors", "g++", ["tests/score/progs/domain.cpp", "tests/score/progs/main.cpp"], [],
     ["100"], ["10"]),
]


def sh(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit("%s failed:\n%s%s" % (" ".join(cmd), r.stdout, r.stderr))
    return r


def env_for(exp):
    env = {k: v for k, v in os.environ.items() if not k.startswith("INSTR_")}
    env.update(INSTR_EXPERIMENT_DIRECTORY=exp, INSTR_VERBOSE="quiet")
    return env


def calls_of(exp):
    with open(os.path.join(exp, "profile.json")) as f:
        return sum(x["visits"] for x in json.load(f)["flat"])


def instructions(exe, args, work):
    out = os.path.join(work, "callgrind.out")
    e = os.path.join(work, "callgrind-exp")
    shutil.rmtree(e, ignore_errors=True)
    r = sh(["valgrind", "--tool=callgrind", "--toggle-collect=main", "--callgrind-out-file=" + out,
            exe] + args, env=env_for(e), cwd=work)
    shutil.rmtree(e, ignore_errors=True)
    os.remove(out)
    return int(re.search(r"Collected : (\d+)", r.stderr).group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--work")
    a = ap.parse_args()
    instr = os.path.join(os.path.abspath(a.build), "bin", "instr")
    score = os.path.join(os.path.abspath(a.build), "bin", "instr-score")
    work = a.work or tempfile.mkdtemp(prefix="score-bench-")
    os.makedirs(work, exist_ok=True)
    rows = []
    for name, cc, srcs, libs, args, cg_args in WORKLOADS:
        inc = ["-Ibench/workloads"]
        plain, inst, flt = (os.path.join(work, name + s) for s in ("-plain", "-instr", "-filtered"))
        sh([cc, "-O2"] + inc + srcs + ["-o", plain] + libs, cwd=REPO)
        sh([instr, cc, "-O2"] + inc + srcs + ["-o", inst] + libs, cwd=REPO)
        exp = os.path.join(work, name + "-first")
        shutil.rmtree(exp, ignore_errors=True)
        sh([inst] + args, env=env_for(exp), cwd=work)
        spec = os.path.join(work, name + ".spec")
        if os.path.exists(spec):
            os.remove(spec)
        sh([score, "-g", "-o", spec, exp], cwd=work)
        nrules = sum(1 for l in open(spec) if l.startswith("exclude"))
        sh([instr, "--filter=" + spec, cc, "-O2"] + inc + srcs + ["-o", flt] + libs, cwd=REPO)
        best = {}
        counts = {}
        for r in range(a.rounds):
            for tag, exe in (("plain", plain), ("instr", inst), ("filtered", flt)):
                e = os.path.join(work, "%s-%s-%d" % (name, tag, r))
                shutil.rmtree(e, ignore_errors=True)
                t0 = time.perf_counter()
                sh([exe] + args, env=env_for(e), cwd=work)
                dt = (time.perf_counter() - t0) * 1e3
                best[tag] = min(best.get(tag, dt), dt)
                if tag != "plain" and tag not in counts:
                    counts[tag] = calls_of(e)
                shutil.rmtree(e, ignore_errors=True)
        ir = [instructions(x, cg_args, work) / 1e6 for x in (plain, inst, flt)]
        rows.append((name, nrules, counts["instr"], counts["filtered"], best["plain"],
                     best["instr"], best["filtered"], ir))
    print("%-10s %5s %10s %9s %8s %8s %8s %7s %6s %9s %9s %9s %7s %6s" % (
        "workload", "rules", "calls", "calls -g", "plain ms", "instr ms", "-g ms", "instr x",
        "-g x", "plain MIr", "instr MIr", "-g MIr", "instr x", "-g x"))
    for n, k, c1, c2, p, i, f, ir in rows:
        print("%-10s %5d %10d %9d %8.1f %8.1f %8.1f %7.2f %6.2f %9.1f %9.1f %9.1f %7.2f %6.2f" % (
            n, k, c1, c2, p, i, f, i / p, f / p, ir[0], ir[1], ir[2], ir[1] / ir[0], ir[2] / ir[0]))


if __name__ == "__main__":
    main()
