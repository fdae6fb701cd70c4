#!/usr/bin/env python3
"""delivery.py — the kernel's part of a sample (delivery.c: the timer's interrupt and the
signal's delivery, with a handler that only counts), repeated and interleaved over periods:
per period the median extra CPU time per signal and the median ratio of the loop's CPU time
with the timer to without it (docs/sampling.md, "The period"; docs/performance.md).

    bench/sampling/delivery.py [--repeats 7] [--periods 1000000,250000,100000]
                               [--iterations 50000000] [--posix]
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
    a = ap.parse_args()
    periods = [int(p) for p in a.periods.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "delivery")
        subprocess.run(["cc", "-O2", "-o", exe, os.path.join(HERE, "delivery.c")], check=True)
        res = {p: [] for p in periods}
        for _ in range(a.repeats):
            for p in periods:  # interleaved: each round runs every period once
                cmd = [exe, str(p), str(a.iterations)] + (["posix"] if a.posix else [])
                out = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
                if out.returncode != 0:
                    sys.exit("delivery failed: %s" % out.stderr)
                f = out.stdout.split()
                kv = dict(zip(f[0::2], f[1::2]))
                res[p].append((float(kv["timed_s"]) / float(kv["plain_s"]),
                               float(kv["us_per_signal"]), int(kv["signals"])))
        for p in periods:
            r = res[p]
            print("period %7.1f us: loop with timer / without, median %.3f (min %.3f, max %.3f);"
                  " kernel per signal, median %.1f us; signals per run %d"
                  % (p / 1e3, statistics.median(x[0] for x in r), min(x[0] for x in r),
                     max(x[0] for x in r), statistics.median(x[1] for x in r),
                     int(statistics.median(x[2] for x in r))))


if __name__ == "__main__":
    main()
