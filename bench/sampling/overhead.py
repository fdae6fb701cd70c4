#!/usr/bin/env python3
"""overhead.py — what sampling at 1 kHz costs a program, and whose cost it is: in one
invocation, rounds that each run the same benchmark (tests/sampling/progs/hybrid.c, gcc -O2 -g
-finstrument-functions, one thread) once per variant, in turn:

  base    the program with instr's runtime, INSTR_SAMPLING=0;
  perf    the same under `perf record -e cpu-clock -F 1000` (the kernel samples into perf's
          ring buffer: a timer interrupt per sample, no signal);
  empty   the same with bench/sampling/empty_sampler.c preloaded: the timer instr arms (the
          thread's task clock signalling SIGPROF every 1 ms) with a handler that only counts,
          i.e. what any signal-based sampler pays the kernel before its handler runs;
  instr   INSTR_SAMPLING=1, INSTR_SAMPLING_PERIOD=1ms (with --timers, one variant per
          INSTR_SAMPLING_TIMER value: instr-perf, instr-posix, ...).

Each run's CPU time is the program's own (user + system from wait4, bench/sampling/cputime.c,
which runs inside `perf record`, so perf's own work is not counted). Per variant: the median of
its ratios to the round's base run, their range, and the median CPU time. instr's own share is
instr's ratio less empty's (the handler, the buffer, the resolution at the end).

    bench/sampling/overhead.py BUILD_DIR [--repeats 7] [--scale 8] [--timers perf,posix]
"""
import argparse
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "..", "..", "tests", "sampling", "progs", "hybrid.c")


def run(variant, exe, scale, work, tools):
    env = {k: v for k, v in os.environ.items() if not k.startswith("INSTR_")}
    exp = os.path.join(work, "exp")
    shutil.rmtree(exp, ignore_errors=True)
    env.update({"INSTR_EXPERIMENT_DIRECTORY": exp, "INSTR_SAMPLING": "0", "INSTR_VERBOSE": "1"})
    cmd = [tools["cputime"], exe, str(scale)]
    if variant == "perf":
        cmd = ["perf", "record", "-q", "-e", "cpu-clock", "-F", "1000", "-o",
               os.path.join(work, "perf.data"), "--"] + cmd
    elif variant == "empty":
        env.update({"LD_PRELOAD": tools["empty"], "EMPTY_SAMPLER_PERIOD_NS": "1000000"})
    elif variant.startswith("instr"):
        env.update({"INSTR_SAMPLING": "1", "INSTR_SAMPLING_PERIOD": "1ms"})
        if "-" in variant:
            env["INSTR_SAMPLING_TIMER"] = variant.split("-", 1)[1]
    p = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True, timeout=600)
    m = re.search(r"cputime_s ([\d.]+)", p.stderr)
    if p.returncode != 0 or not m:
        sys.exit("%s run failed (%d): %s" % (variant, p.returncode, p.stderr))
    s = re.search(r"sampling: (\d+) samples in (\d+) signals .*?, ([\d.]+) us per signal in the "
                  r"handler .*? resolved in ([\d.]+) s", p.stderr)
    if not s:
        return float(m.group(1)), None, None
    signals = int(s.group(2))
    # instr's own time as the runtime itself clocks it: the handler's time per signal (its
    # clock read at the handler's entry and exit) times the signals, and the resolution at the
    # end. A handler of a few microseconds is rarely preempted, so this part is far less
    # sensitive to the machine's load than the run's CPU time.
    inside = signals * float(s.group(3)) / 1e6 + float(s.group(4))
    return float(m.group(1)), signals, inside


def median_interval(xs):
    """A distribution-free 95 % confidence interval of the median: the order statistics
    whose ranks the binomial(n, 1/2) distribution puts 2.5 % beyond on each side. Rounds
    differ by more than the effect (the VM's timer interrupts, other tenants), so the
    median's interval, not one round's figure, is what can show a share below a goal."""
    xs = sorted(xs)
    n = len(xs)
    if n < 6:
        return xs[0], xs[-1]
    cdf, k = 0.0, 0
    while True:
        p = math.comb(n, k) / 2.0 ** n
        if cdf + p > 0.025:
            break
        cdf += p
        k += 1
    return xs[k], xs[n - 1 - k]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--scale", type=int, default=8)
    ap.add_argument("--timers", default="", help="INSTR_SAMPLING_TIMER values, comma-separated")
    a = ap.parse_args()
    lib = os.path.join(os.path.abspath(a.build), "lib")
    work = tempfile.mkdtemp(prefix="instr-overhead-bench.")
    try:
        exe = os.path.join(work, "hybrid")
        subprocess.run(["gcc", "-O2", "-g", "-finstrument-functions",
                        "-finstrument-functions-exclude-function-list=excluded_kernel,"
                        "inlined_kernel", SRC, "-o", exe, "-L" + lib, "-linstr-rt",
                        "-Wl,-rpath," + lib, "-lm", "-pthread"], check=True)
        tools = {"cputime": os.path.join(work, "cputime"),
                 "empty": os.path.join(work, "empty_sampler.so")}
        subprocess.run(["cc", "-O2", "-o", tools["cputime"], os.path.join(HERE, "cputime.c")],
                       check=True)
        subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", tools["empty"],
                        os.path.join(HERE, "empty_sampler.c")], check=True)
        instr = ["instr-" + t for t in a.timers.split(",") if t] or ["instr"]
        variants = ["base", "perf", "empty"] + instr
        cpu = {v: [] for v in variants}
        ratio = {v: [] for v in variants}
        signals = {v: [] for v in variants}
        inside = {v: [] for v in variants}
        for _ in range(a.repeats):
            base = None
            for v in variants:
                c, n, t = run(v, exe, a.scale, work, tools)
                cpu[v].append(c)
                if n is not None:
                    signals[v].append(n / c)
                    inside[v].append(t / c)
                if v == "base":
                    base = c
                ratio[v].append(c / base)
        med = statistics.median
        print("benchmark: tests/sampling/progs/hybrid.c scale %d, gcc -O2 -g "
              "-finstrument-functions, 1 thread; %d rounds, variants interleaved"
              % (a.scale, a.repeats))
        for v in variants:
            extra = ""
            if signals[v]:
                extra = "; %.0f signals per CPU second" % med(signals[v])
            print("%-12s CPU %.3f s (median), ratio to base %.3f (min %.3f, max %.3f)%s"
                  % (v, med(cpu[v]), med(ratio[v]), min(ratio[v]), max(ratio[v]), extra))
        for v in instr:
            own = [i - e for i, e in zip(ratio[v], ratio["empty"])]
            lo, hi = median_interval(own)
            print("%s less empty (instr's own part), per round: median %+.1f %% (min %+.1f, "
                  "max %+.1f; 95 %% interval of the median %+.1f to %+.1f)"
                  % (v, 100 * med(own), 100 * min(own), 100 * max(own), 100 * lo, 100 * hi))
            if inside[v]:
                print("%s inside the runtime (its handler's clocked time and the resolution), "
                      "share of the run's CPU time: median %.2f %% (min %.2f, max %.2f)"
                      % (v, 100 * med(inside[v]), 100 * min(inside[v]), 100 * max(inside[v])))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
