#!/usr/bin/env python3
"""Instructions per call of a tiny function with and without run-time throttling
(INSTR_THROTTLE, docs/runtime.md), counted by callgrind, never timed.

tests/throttle/progs/throttle.c ("tiny N": N calls of tiny in a loop) is built with the GCC
and the LLVM plugins' hooks through the instr wrapper and run under callgrind with N and 2N
calls; the difference over N is the cost of one call (call, loop, hooks and what they reach):
  - INSTR_THROTTLE unset: the inline cursor path;
  - INSTR_THROTTLE set but never reached (10^12 visits): every event on the generic path
    through the throttle substrate;
  - INSTR_THROTTLE=200,1000000: tiny throttled at visit 200, its later calls cost the call
    site's two checks of the handle.
Usage: bench/throttle/throttle_cost.py --build BUILD_DIR [-n 20000]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "..", "..", "tests", "throttle", "progs", "throttle.c")
VARIANTS = [("throttling off", {}),
            ("throttling on, not reached", {"INSTR_THROTTLE": "1000000000000,1"}),
            ("throttling on, tiny throttled", {"INSTR_THROTTLE": "200,1000000"})]


def instructions(exe, n, env, work):
    out = os.path.join(work, "cg.out")
    e = {k: v for k, v in os.environ.items() if not k.startswith("INSTR_")}
    e.update(env)
    e["INSTR_EXPERIMENT_DIRECTORY"] = os.path.join(work, "exp-%d-%d" % (n, len(os.listdir(work))))
    p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out, exe,
                        "tiny", str(n)], env=e, capture_output=True, text=True, check=True)
    return int(re.search(r"Collected : (\d+)", p.stderr).group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("-n", type=int, default=20000)
    a = ap.parse_args()
    wrapper = os.path.join(a.build, "bin", "instr")
    print("%-40s %12s" % ("variant", "instr/call"))
    with tempfile.TemporaryDirectory() as work:
        for cc in ("gcc", "clang"):
            exe = os.path.join(work, "throttle_" + cc)
            subprocess.run([wrapper, cc, "-O2", SRC, "-o", exe, "-lpthread"], check=True)
            for name, env in VARIANTS:
                per_call = (instructions(exe, 2 * a.n, env, work) -
                            instructions(exe, a.n, env, work)) / float(a.n)
                print("%-40s %12.1f" % ("%s hooks, %s" % (cc, name), per_call))
    return 0


if __name__ == "__main__":
    sys.exit(main())
