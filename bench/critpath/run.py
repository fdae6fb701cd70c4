#!/usr/bin/env python3
"""run.py — the cost of the critical path's exchanges (docs/critical-path.md, "Cost").

Usage: bench/critpath/run.py --build BUILD [--np 2] [--n 20000] [--repeat 5]

Builds bench/critpath/exchange.c with BUILD/bin/instr mpicc, runs it under mpirun with the
default settings and with INSTR_CRITICAL_PATH=1, alternating, `repeat` times each, and
prints the median time per ping-pong round trip (two messages), per MPI_Barrier and per
MPI_Allreduce, and the difference.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--np", type=int, default=2)
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    work = tempfile.mkdtemp(prefix="instr-critpath-bench-")
    exe = os.path.join(work, "exchange")
    subprocess.run([os.path.join(a.build, "bin", "instr"), "mpicc", "-O2",
                    os.path.join(here, "exchange.c"), "-o", exe], check=True)
    base = {k: v for k, v in os.environ.items() if not k.startswith("INSTR_")}
    base.update(OMPI_MCA_btl="self,vader", INSTR_VERBOSE="quiet")
    results = {"off": [], "on": []}
    for i in range(a.repeat):
        for mode in ("off", "on"):
            env = dict(base, INSTR_EXPERIMENT_DIRECTORY=os.path.join(work, "%s-%d" % (mode, i)))
            if mode == "on":
                env["INSTR_CRITICAL_PATH"] = "1"
            p = subprocess.run(["mpirun", "--oversubscribe", "--allow-run-as-root", "--bind-to",
                                "none", "-np", str(a.np), exe, str(a.n)], env=env,
                               capture_output=True, text=True, check=True)
            line = [l for l in p.stdout.splitlines() if l.startswith("pingpong_us")][0].split()
            results[mode].append({line[k]: float(line[k + 1]) for k in range(0, len(line), 2)})
    print("%d ranks, %d operations each, median of %d runs (us)" % (a.np, a.n, a.repeat))
    print("%-14s %10s %10s %10s" % ("", "off", "on", "on - off"))
    for k in ("pingpong_us", "barrier_us", "allreduce_us"):
        off = statistics.median(r[k] for r in results["off"])
        on = statistics.median(r[k] for r in results["on"])
        print("%-14s %10.2f %10.2f %10.2f" % (k[:-3], off, on, on - off))
    return 0


if __name__ == "__main__":
    sys.exit(main())
