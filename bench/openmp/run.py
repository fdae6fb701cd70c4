#!/usr/bin/env python3
"""run.py — the cost per OpenMP construct (docs/performance.md, "OpenMP: cost per construct").

Usage: bench/openmp/run.py --build BUILD [--n 20000] [--repeat 5] [--clang clang-19]

Builds bench/openmp/constructs.c four ways: plain gcc -fopenmp (GNU libgomp), instr gcc
-fopenmp (libgomp through the GOMP_* wrappers, runtime/gomp/), plain clang -fopenmp (LLVM's
libomp) and instr clang -fopenmp (libomp through OMPT, runtime/ompt/); runs each `repeat`
times, alternating, with 2 threads, and prints the median ns per empty 2-thread parallel
region (fork and join), per barrier and per critical section (each of 2 threads enters it n
times; the time is per entry of one thread), with the cost instr adds.
"""
import argparse
import os
import statistics
import subprocess
import tempfile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--clang", default="clang-19")
    a = ap.parse_args()
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "constructs.c")
    instr = os.path.join(os.path.abspath(a.build), "bin", "instr")
    work = tempfile.mkdtemp(prefix="instr-openmp-bench-")
    builds = {
        "gcc/libgomp plain": ["gcc"],
        "gcc/libgomp instr": [instr, "gcc"],
        "clang/libomp plain": [a.clang],
        "clang/libomp instr": [instr, a.clang],
    }
    exes = {}
    for name, cc in builds.items():
        exe = os.path.join(work, name.replace("/", "-").replace(" ", "-"))
        subprocess.run(cc + ["-O2", "-fopenmp", src, "-o", exe], check=True)
        exes[name] = exe
    env = {k: v for k, v in os.environ.items() if not k.startswith(("INSTR_", "OMP_"))}
    env.update(OMP_NUM_THREADS="2", INSTR_VERBOSE="quiet")
    results = {name: {} for name in builds}
    for i in range(a.repeat):
        for name, exe in exes.items():
            env["INSTR_EXPERIMENT_DIRECTORY"] = os.path.join(work, "exp-%d-%s" % (
                i, os.path.basename(exe)))
            out = subprocess.run([exe, str(a.n)], env=env, capture_output=True, text=True,
                                 check=True).stdout
            for line in out.splitlines():
                key, value = line.split()
                results[name].setdefault(key, []).append(float(value))
    keys = ["fork_join_ns", "barrier_ns", "critical_ns"]
    print("| build | " + " | ".join(keys) + " |")
    print("|---|" + "---|" * len(keys))
    for name in builds:
        print("| %s | %s |" % (name, " | ".join("%.0f" % statistics.median(results[name][k])
                                               for k in keys)))
    for rt in ("gcc/libgomp", "clang/libomp"):
        plain, inst = results[rt + " plain"], results[rt + " instr"]
        print("| %s: instr adds | %s |" % (rt, " | ".join(
            "%.0f" % (statistics.median(inst[k]) - statistics.median(plain[k])) for k in keys)))


if __name__ == "__main__":
    main()
