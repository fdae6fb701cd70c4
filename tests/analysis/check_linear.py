#!/usr/bin/env python3
"""The analysis API's cost on a deep recursion is linear in the number of call paths: the
work of a query on a 10,000-deep chain is about twice that on a 5,000-deep one (a quadratic
query's is four times). Counted, never timed:

    check_linear.py c --test-analysis BIN --work DIR   # instructions of instr_jdb_select
                                                       # (callgrind) for path(GLOB)
    check_linear.py py --work DIR                      # bytes the Python module allocates
                                                       # (tracemalloc) for tree(context=False)
                                                       # and tree(), and the Python lines tree()
                                                       # and a lookup by context execute

The databases are written by the test double (tests/lib/jdb_testdouble.py): main, then a
chain of recurse_function paths on two ranks. Exit 77 (skipped) where valgrind is missing.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from cases import Fail, expect, fresh_dir, run_case  # noqa: E402
import jdb_testdouble as T  # noqa: E402

DEPTHS = [5000, 10000]
# linear: 2 (plus what does not grow); quadratic: 4
MAX_RATIO = 2.5
A = None


def deep_db(depth):
    filename = os.path.join(A.work, "deep_%d.jdb" % depth)
    db = T.JobDB(nranks=2)
    main = db.region("main", file="main.c", line=3)
    rec = db.region("recurse_function", file="recurse.c", line=10)
    p = db.path(None, main)
    for rank in (0, 1):
        db.row(rank, p, 0, visits=1, time_incl=depth + 1)
    for _ in range(depth):
        p = db.path(p, rec)
        for rank in (0, 1):
            db.row(rank, p, 0, visits=1, time_incl=1)
    db.write(filename)
    return filename


def select_instructions(jdb):
    out = os.path.join(A.work, os.path.basename(jdb) + ".callgrind")
    subprocess.run(["valgrind", "--tool=callgrind", "--toggle-collect=instr_jdb_select",
                    "--callgrind-out-file=" + out, A.test_analysis, "deep", jdb, jdb],
                   check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    with open(out) as f:
        for line in f:
            m = re.match(r"(?:summary|totals):\s*(\d+)", line)
            if m:
                return int(m.group(1))
    raise Fail("%s: no instruction total" % out)


def ratio_check(what, counts):
    ratio = counts[1] / counts[0]
    print("%s: %d at depth %d, %d at depth %d: ratio %.2f (at most %.1f)"
          % (what, counts[0], DEPTHS[0], counts[1], DEPTHS[1], ratio, MAX_RATIO))
    expect(ratio <= MAX_RATIO, "%s grows faster than the number of paths: %r" % (what, counts))


def case_c():
    if not shutil.which("valgrind"):
        print("skipped: no valgrind (the instructions are counted by callgrind)")
        sys.exit(77)
    ratio_check("instructions of instr_jdb_select",
                [select_instructions(deep_db(d)) for d in DEPTHS])


def counted(work):
    """work()'s result, the peak of the bytes it allocates (tracemalloc) and the Python lines
    it executes (a trace function counting line events, pandas' and numpy's too): the strings
    of a quadratic context column show in the bytes, a walk of every chain in the lines."""
    import tracemalloc
    lines = [0]

    def trace(frame, event, arg):
        if event == "line":
            lines[0] += 1
        return trace
    tracemalloc.start()
    sys.settrace(trace)
    try:
        result = work()
    finally:
        sys.settrace(None)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return result, peak, lines[0]


def case_py():
    import numpy as np
    import instr_analysis as ia
    bare, full, full_lines = [], [], []
    for d in DEPTHS:
        db = ia.open(deep_db(d))
        t, peak, _ = counted(lambda: db.tree(context=False))
        bare.append(peak)
        expect(len(t) == d + 1 and t["depth"].iloc[-1] == d, "the tree of depth %d" % d)
        expect(len(db.select("path(main/recurse_function/*)")) == d - 1, "path() at %d" % d)
        deepest = "main" + "/recurse_function" * d

        def tree_and_lookup():
            t = db.tree()
            return t, list(np.flatnonzero(t["context"] == deepest)), t.loc[d, "context"]
        (t, found, last), peak, lines = counted(tree_and_lookup)
        full.append(peak)
        full_lines.append(lines)
        expect(len(t) == d + 1 and found == [d] and last == deepest,
               "tree() of depth %d: the deepest context %s, found at %r"
               % (d, "right" if last == deepest else "wrong", found))
        expect(t.loc[1, "context"] == "main/recurse_function", "a context of tree()")
        db.close()
    ratio_check("bytes allocated by tree(context=False)", bare)
    ratio_check("bytes allocated by tree() and a lookup by context", full)
    ratio_check("Python lines executed by tree() and a lookup by context", full_lines)


def main():
    global A
    ap = argparse.ArgumentParser()
    ap.add_argument("case")
    ap.add_argument("--work", default="work")
    ap.add_argument("--test-analysis")
    ap.add_argument("--depths", type=int, nargs=2, default=DEPTHS,
                    help="the two depths (the second twice the first)")
    A = ap.parse_args()
    A.work = os.path.abspath(A.work)
    DEPTHS[:] = A.depths
    fresh_dir(A.work)
    status = run_case(globals(), A.case)
    if status == 0:
        shutil.rmtree(A.work, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
