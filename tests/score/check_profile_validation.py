#!/usr/bin/env python3
"""check_profile_validation.py — instr-export and instr-score take the same profile.json for
valid (tools/json/profile_check.h): each crafted profile below is refused by both, exit 1, with
the same line naming the file and the node; the valid profile they are made from is read by
both.

    check_profile_validation.py --score INSTR_SCORE --export INSTR_EXPORT --work DIR
"""
import argparse
import copy
import json
import os
import shutil
import subprocess
import sys


def valid():
    """main -> solve -> step, main -> io: two threads, as instr writes it."""
    def node(i, parent, region, visits, incl, excl):
        return {"id": i, "parent": parent, "depth": 0, "region": region, "visits": visits,
                "inclusive": incl, "exclusive": excl,
                "locations": [{"location": 0, "visits": visits, "inclusive": incl,
                               "exclusive": excl}]}
    tree = [node(0, None, 1, 1, 1000, 100), node(1, 0, 2, 2, 700, 300),
            node(2, 1, 3, 8, 400, 400), node(3, 0, 4, 1, 200, 200)]
    for n in tree:
        n["depth"] = 0 if n["parent"] is None else tree[n["parent"]]["depth"] + 1
    regions = [{"id": r, "name": name, "mangled": name, "file": "x.c", "line": r,
                "source": "plugin"} for r, name in ((1, "main"), (2, "solve"), (3, "step"),
                                                    (4, "io"))]
    flat = [{"region": n["region"], "visits": n["visits"], "inclusive": n["inclusive"],
             "exclusive": n["exclusive"]} for n in tree]
    return {"format": "instr-profile", "version": 2, "time_unit": "ns",
            "run": {"program": "crafted", "duration": 1000},
            "location_groups": [{"id": 0, "kind": "process", "name": "process 1", "pid": 1}],
            "locations": [{"id": 0, "group": 0, "kind": "thread", "name": "thread 0",
                           "tid": 1}],
            "regions": regions, "tree": tree, "flat": flat}


def crafted():
    """(name, profile, what the tools must say after '<file>: ')"""
    out = []
    p = valid()
    p["tree"][2]["region"] = 99
    out.append(("bad_region", p, 'tree[2].region 99 is not the id of a region in "regions"'))
    p = valid()
    p["tree"][1]["visits"] = "many"
    out.append(("visits_many", p, "tree[1].visits is not a count (a non-negative integer)"))
    p = valid()
    p["tree"][1]["locations"][0]["visits"] = "many"
    out.append(("location_visits_many", p,
                "tree[1].locations[0].visits is not a count (a non-negative integer)"))
    p = valid()
    p["tree"][2]["parent"] = 2
    out.append(("self_parent", p, "tree[2].parent is 2: the node is its own parent"))
    p = valid()
    p["tree"][1]["parent"] = 2  # 1 -> 2 -> 1
    out.append(("parent_cycle", p, "tree[1].parent is 2: the parents form a cycle"))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--score", required=True)
    ap.add_argument("--export", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    problems = []

    def tools_on(name, prof):
        d = os.path.join(a.work, name)
        os.makedirs(d)
        path = os.path.join(d, "profile.json")
        with open(path, "w") as f:
            json.dump(prof, f)
        s = subprocess.run([a.score, d], capture_output=True, text=True, timeout=60)
        e = subprocess.run([a.export, "--folded", path], capture_output=True, text=True,
                           timeout=60)
        return path, s, e

    path, s, e = tools_on("valid", valid())
    if s.returncode != 0 or e.returncode != 0 or "main;solve;step" not in e.stdout:
        problems.append("the valid profile: instr-score exit %d %r, instr-export exit %d %r"
                        % (s.returncode, s.stderr, e.returncode, e.stderr))
    for name, prof, what in crafted():
        path, s, e = tools_on(name, prof)
        for tool, r in (("instr-score", s), ("instr-export", e)):
            want = "%s: %s: %s" % (tool, path, what)
            first = r.stderr.splitlines()[0] if r.stderr else ""
            if r.returncode != 1 or first != want:
                problems.append("%s: %s exit %d, first line %r; want exit 1 and %r%s"
                                % (name, tool, r.returncode, first, want,
                                   " (stdout %r)" % r.stdout[:200] if r.stdout else ""))
        if not problems:
            print("%s: both refuse it: ...: %s" % (name, what))
    if problems:
        print("FAIL: %d problem(s):\n  %s" % (len(problems), "\n  ".join(problems)))
        sys.exit(1)
    print("the valid profile read by both; %d crafted ones refused by both with the same line"
          % len(crafted()))


if __name__ == "__main__":
    main()
