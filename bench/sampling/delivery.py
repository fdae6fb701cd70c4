#!/usr/bin/env python3
"""delivery.py — the kernel's part of a sample (delivery.c: the timer's interrupt and the
signal's delivery, with a handler that only counts), repeated and interleaved over periods:
per period the median extra CPU time per signal and the median ratio of the loop's CPU time
with the timer to without it (docs/sampling.md, "The period"; docs/performance.md).

    bench/sampling/delivery.py [--repeats 7] [--periods 1000000,250000,100000]
                               [--iterations 50000000] [--posix]
                               [--timers task_clock,timer_only,sigtrap,cpu_clock,posix]

With --timers, the timers (delivery.c's modes) are interleaved too, each at every period.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--periods", default="1000000,250000,100000")
    ap.add_argument("--iterations", type=int, default=50000000)
    ap.add_argument("--posix", action="store_true")
    ap.add_argument("--timers", default="")
    a = ap.parse_args()
    timers = [t for t in a.timers.split(",") if t] or (["posix"] if a.posix else ["task_clock"])
    periods = [(int(p), t) for p in a.periods.split(",") for t in timers]
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "delivery")
        subprocess.run(["cc", "-O2", "-o", exe, os.path.join(HERE, "delivery.c")], check=True)
        res = {p: [] for p in periods}
        for _ in range(a.repeats):
            for p in periods:  # interleaved: each round runs every period once
                cmd = [exe, str(p[0]), str(a.iterations), p[1]]
                out = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
                if out.returncode != 0:
                    sys.exit("delivery failed: %s" % out.stderr)
                f = out.stdout.split()
                kv = dict(zip(f[0::2], f[1::2]))
                res[p].append((float(kv["timed_s"]) / float(kv["plain_s"]),
                               float(kv["us_per_signal"]), int(kv["signals"])))
        for p in periods:
            r = res[p]
            print("%-10s period %7.1f us: loop with timer / without, median %.3f (min %.3f, max %.3f);"
                  " kernel per signal, median %.1f us; signals per run %d"
                  % (p[1], p[0] / 1e3, statistics.median(x[0] for x in r), min(x[0] for x in r),
                     max(x[0] for x in r), statistics.median(x[1] for x in r),
                     int(statistics.median(x[2] for x in r))))


if __name__ == "__main__":
    main()
