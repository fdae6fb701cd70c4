#!/usr/bin/env python3
"""run.py — the cost of the critical path's exchanges (docs/critical-path.md, "Cost").

Usage: bench/critpath/run.py --build BUILD [--np 2] [--n 20000] [--repeat 5]
                             [--threads 2] [--omp-cc clang]

Builds bench/critpath/exchange.c with BUILD/bin/instr mpicc, runs it under mpirun with the
default settings (off), with INSTR_CRITICAL_PATH=1 (on) and with a dependent metric as well
(metric: the count example plugin's `events`, INSTR_CRITICAL_PATH_METRICS=events, against
the same plugin without the path: metric-off), alternating, `repeat` times each, and prints
the median time per ping-pong round trip (two messages), per MPI_Barrier and per
MPI_Allreduce. bench/critpath/omp_barrier.c (clang -fopenmp under mpicc, LLVM's libomp)
gives the time per OpenMP barrier of a team of `threads` in one process, the same ways.
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
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--omp-cc", default="clang")
    a = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    work = tempfile.mkdtemp(prefix="instr-critpath-bench-")
    exe = os.path.join(work, "exchange")
    instr = os.path.join(a.build, "bin", "instr")
    subprocess.run([instr, "mpicc", "-O2", os.path.join(here, "exchange.c"), "-o", exe],
                   check=True)
    omp = os.path.join(work, "omp_barrier")
    subprocess.run([instr, "mpicc", "-O2", "-fopenmp", os.path.join(here, "omp_barrier.c"),
                    "-o", omp], check=True, env=dict(os.environ, OMPI_CC=a.omp_cc))
    base = {k: v for k, v in os.environ.items() if not k.startswith("INSTR_")}
    base.update(OMPI_MCA_btl="self,vader", INSTR_VERBOSE="quiet")
    metric = dict(INSTR_METRIC_PLUGINS="count", INSTR_METRIC_COUNT="events",
                  INSTR_PLUGIN_PATH=os.path.join(os.path.abspath(a.build), "lib",
                                                 "metric_plugins"))
    modes = {"off": {}, "on": {"INSTR_CRITICAL_PATH": "1"}, "metric-off": metric,
             "metric": dict(metric, INSTR_CRITICAL_PATH="1", INSTR_CRITICAL_PATH_METRICS="events")}
    results = {m: [] for m in modes}
    for i in range(a.repeat):
        for mode, extra in modes.items():
            env = dict(base, **extra)
            r = {}
            for prog, np, key in ((exe, a.np, "pingpong_us"), (omp, 1, "ompbarrier_us")):
                env.update(INSTR_EXPERIMENT_DIRECTORY=os.path.join(
                    work, "%s-%s-%d" % (os.path.basename(prog), mode, i)),
                    OMP_NUM_THREADS=str(a.threads))
                p = subprocess.run(["mpirun", "--oversubscribe", "--allow-run-as-root",
                                    "--bind-to", "none", "-np", str(np), prog, str(a.n)],
                                   env=env, capture_output=True, text=True, check=True)
                line = [l for l in p.stdout.splitlines() if l.startswith(key)][0].split()
                r.update({line[k]: float(line[k + 1]) for k in range(0, len(line), 2)})
            results[mode].append(r)
    print("%d ranks (OpenMP: 1 rank of %d threads), %d operations each, median of %d runs (us)"
          % (a.np, a.threads, a.n, a.repeat))
    print("%-12s %10s %10s %10s %12s %10s %12s" % ("", "off", "on", "on - off", "metric-off",
                                                   "metric", "difference"))
    for k in ("pingpong_us", "barrier_us", "allreduce_us", "ompbarrier_us"):
        med = {m: statistics.median(r[k] for r in results[m]) for m in modes}
        print("%-12s %10.2f %10.2f %10.2f %12.2f %10.2f %12.2f"
              % (k[:-3], med["off"], med["on"], med["on"] - med["off"], med["metric-off"],
                 med["metric"], med["metric"] - med["metric-off"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
