#!/usr/bin/env python3
"""run.py — the cost per Kokkos kernel launch (docs/performance.md, "Kokkos: cost per kernel
launch").

Usage: bench/kokkos/run.py --build BUILD [--n 200000] [--repeat 5]

Builds bench/kokkos/launch.cpp (n launches of an empty named kernel on Kokkos's Serial
backend, Debian's libtrilinos-kokkos-dev) plainly with g++ and through instr (with a spec
leaving Kokkos's templates out, so only the kernel's region is recorded); runs, alternating,
`repeat` times each: plain without a tool; plain with the runtime as Kokkos's tool alone
(preloaded, KOKKOS_TOOLS_LIBS), profile; instr-built (the runtime found by itself), profile;
and the same with the trace. Prints the median ns per launch and what instr adds.
"""
import argparse
import os
import statistics
import subprocess
import tempfile

INC = "/usr/include/trilinos"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--n", type=int, default=200000)
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "launch.cpp")
    build = os.path.abspath(a.build)
    instr = os.path.join(build, "bin", "instr")
    lib = os.path.join(build, "lib", "libinstr-rt.so")
    work = tempfile.mkdtemp(prefix="instr-kokkos-bench-")
    spec = os.path.join(work, "k.spec")
    with open(spec, "w") as f:
        f.write("exclude function Kokkos::*\nexclude function std::*\n")
    plain, inst = os.path.join(work, "plain"), os.path.join(work, "instr")
    flags = ["-O2", "-I" + INC, src, "-ltrilinos_kokkoscore"]
    subprocess.run(["g++"] + flags + ["-o", plain], check=True)
    subprocess.run([instr, "--filter=" + spec, "g++"] + flags + ["-o", inst], check=True)
    base = {k: v for k, v in os.environ.items()
            if not k.startswith(("INSTR_", "KOKKOS_")) and k != "LD_PRELOAD"}
    base["INSTR_VERBOSE"] = "quiet"
    runs = {
        "plain, no tool": (plain, {}),
        "plain, runtime as Kokkos tool, profile": (plain, {"LD_PRELOAD": lib,
                                                           "KOKKOS_TOOLS_LIBS": lib,
                                                           "KOKKOS_PROFILE_LIBRARY": lib}),
        "instr g++, profile": (inst, {}),
        "instr g++, profile + trace": (inst, {"INSTR_ENABLE_TRACING": "1"}),
    }
    res = {k: [] for k in runs}
    for i in range(a.repeat):
        for name, (exe, extra) in runs.items():
            env = dict(base, **extra)
            env["INSTR_EXPERIMENT_DIRECTORY"] = os.path.join(work, "exp-%d-%d" % (
                i, list(runs).index(name)))
            out = subprocess.run([exe, str(a.n)], env=env, capture_output=True, text=True,
                                 check=True).stdout
            res[name].append(float(out.split()[-1]))
    ref = statistics.median(res["plain, no tool"])
    print("| run | ns per launch (median of %d) | added |" % a.repeat)
    print("|---|---|---|")
    for name in runs:
        m = statistics.median(res[name])
        print("| %s | %.1f | %s |" % (name, m, "" if name == "plain, no tool"
                                        else "%+.1f" % (m - ref)))


if __name__ == "__main__":
    main()
