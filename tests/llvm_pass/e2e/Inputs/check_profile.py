#!/usr/bin/env python3
"""Checks the profile of one end-to-end run of a program built with the LLVM plugin.

usage: check_profile.py RUNDIR [--visits NAME=N]... [--path A;B;C=N]... [--absent NAME]...
                               [--regions NAME,NAME,...]

RUNDIR must hold exactly one experiment directory. Always checked: the invariants of
docs/profile-format.md (tests/lib/profile.py), no unmatched exit, no region still open at the
end (every location balanced). NAME is a region's display name (demangled signature for C++).
--regions: the exact set of region names that ran. Exit status 1 with the problems listed.
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "lib"))
import profile as P  # noqa: E402  (tests/lib/profile.py)


def pair(text):
    name, sep, count = text.rpartition("=")
    if not sep:
        raise argparse.ArgumentTypeError("expected NAME=N, got %r" % text)
    return name, int(count)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("rundir")
    ap.add_argument("--visits", type=pair, action="append", default=[])
    ap.add_argument("--path", type=pair, action="append", default=[])
    ap.add_argument("--absent", action="append", default=[])
    ap.add_argument("--regions")
    a = ap.parse_args()

    prof = P.load(P.find_experiment(a.rundir))
    problems = list(P.check_consistency(prof))
    run = prof["run"]
    if run.get("unmatched_exits", 0) != 0:
        problems.append("unmatched exits: %r" % run["unmatched_exits"])
    if run.get("closed_at_end", 0) != 0:
        problems.append("regions still open at the end: %r" % run["closed_at_end"])
    visits = P.visits_by_region(prof)
    for name, n in a.visits:
        if visits.get(name, 0) != n:
            problems.append("visits of %r: %r, expected %r" % (name, visits.get(name, 0), n))
    by_path = P.visits_by_path(prof)
    for path, n in a.path:
        if by_path.get(path, 0) != n:
            problems.append("visits of path %r: %r, expected %r"
                            % (path, by_path.get(path, 0), n))
    for name in a.absent:
        if name in visits:
            problems.append("%r ran as a region but should not be instrumented" % name)
    if a.regions is not None:
        want = set(x for x in a.regions.split(",") if x)
        got = set(visits)
        if want != got:
            problems.append("regions: missing %r, unexpected %r"
                            % (sorted(want - got), sorted(got - want)))
    if problems:
        print("profile check failed:", file=sys.stderr)
        for p in problems:
            print("  " + p, file=sys.stderr)
        print("regions and visits: %r" % sorted(visits.items()), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
