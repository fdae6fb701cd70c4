#!/usr/bin/env python3
"""check_gen.py — instr-jobdb-gen writes a valid job database of the asked shape: 64 ranks over
a synthetic tree of 5,000 call paths, checked by tests/lib/jobdb.py (every section, rows sorted,
summary == reduction of the rows, the pruned section == the rule and the ranks' rows); the
same seed gives the same bytes, another seed another file; the structure is there (paths on every rank, paths on some only, imbalance growing with
the rank, outlier ranks); bad options are refused with a message.

  check_gen.py <instr-jobdb-gen> <workdir> [<python3 with numpy and pandas> <PYTHONPATH>]
               [--damage <test_damage>]

With the last two, the analysis module's invariants are checked on the generated file too
(tests/analysis/check_analysis.py invariants --jdb: the summary is the reduction of the rows,
the queries, contexts, stats and a self-comparison agree; a pruned query's DataFrame from the
pruned section == the one from the rows area; a damaged pruned index is refused). With
--damage, tests/analysis' test_damage (group pruned) damages every field of a small generated
file's pruned section in turn: the C library must refuse each with the file's name.
"""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import jobdb  # noqa: E402


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def gen(exe, out, *opts):
    cmd = [exe, "-r", "64", "-p", "5000", "-k", "500", "-t", "2", "-o", out] + list(opts)
    print("$ " + " ".join(cmd), flush=True)
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        fail("%s failed (%d): %s" % (exe, p.returncode, p.stderr))
    print(p.stdout, end="")


def check_invariants(python, pythonpath, jdb, work):
    if not shutil.which(python):
        fail("no python3 with numpy and pandas for the analysis module (%s): install "
             "python3-numpy and python3-pandas (scripts/install-deps.sh) and configure again"
             % python)
    here = os.path.dirname(os.path.abspath(__file__))
    cmd = [python, os.path.join(here, "..", "analysis", "check_analysis.py"), "invariants",
           "--jdb", jdb, "--work", os.path.join(work, "inv")]
    print("$ " + " ".join(cmd), flush=True)
    p = subprocess.run(cmd, env=dict(os.environ, PYTHONPATH=pythonpath), cwd=work,
                       capture_output=True, text=True)
    print(p.stdout + p.stderr, end="")
    if p.returncode != 0:
        fail("the analysis module's invariants do not hold on %s" % jdb)


def check_damage(binary, exe, work):
    small = os.path.join(work, "small.jdb")
    gen(exe, small, "-r", "8", "-p", "300", "-k", "40")
    d = os.path.join(work, "damage")
    os.makedirs(d, exist_ok=True)
    print("$ %s pruned %s" % (binary, small), flush=True)
    p = subprocess.run([binary, "pruned", small], cwd=d, capture_output=True, text=True)
    print(p.stdout + p.stderr, end="")
    if p.returncode != 0:
        fail("test_damage pruned: a damaged pruned section was not refused")


def main():
    args = sys.argv[1:]
    damage = None
    if "--damage" in args:
        i = args.index("--damage")
        damage = args[i + 1]
        del args[i:i + 2]
    sys.argv[1:] = args
    exe, work = sys.argv[1], os.path.abspath(sys.argv[2])
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    a, b, c = (os.path.join(work, n) for n in ("a.jdb", "b.jdb", "c.jdb"))
    gen(exe, a, "-s", "7")
    gen(exe, b, "-s", "7")
    gen(exe, c, "-s", "8")
    if jobdb.main(["jobdb.py", "check", a, "--ranks", "64", "--pruned", "1"]) != 0:
        fail("the generated database is wrong")
    if open(a, "rb").read() != open(b, "rb").read():
        fail("the same seed gave two different files")
    if open(a, "rb").read() == open(c, "rb").read():
        fail("another seed gave the same file")
    db = jobdb.read(a)
    nvis = [n for n, _ in db["summary"]]
    if max(nvis) != 64 or min(nvis) >= 64:
        fail("ranks visited per path from %d to %d: expected paths on every rank and paths on "
             "some only" % (min(nvis), max(nvis)))
    per_rank = [len(db["rows"][r]) // 2 for r in range(64)]
    if min(per_rank) < 400 or max(per_rank) > 600:
        fail("call paths per rank from %d to %d, asked for ~500" % (min(per_rank), max(per_rank)))
    if any(e["threads"] != 2 for e in db["index"]):
        fail("threads per rank %r, asked for 2" % sorted({e["threads"] for e in db["index"]}))
    # Imbalance: the root's time grows with the rank, and some ranks stand out far above it.
    root = [next(row for row in db["rows"][r] if db["paths"][row[0]][0] == jobdb.NONE)[3]
            for r in range(64)]
    if not root[63] > 1.2 * root[0]:
        fail("no imbalance: the root's time on rank 0 %d, rank 63 %d" % (root[0], root[63]))
    # Outliers: a hot path (on every rank) where 1 to 3 ranks take over 10x the median time.
    excl = {}
    for r in range(64):
        for row in db["rows"][r]:
            if row[1] == 0:
                excl.setdefault(row[0], []).append((row[4], r))
    outliers = []
    for p, vals in excl.items():
        if len(vals) == 64:
            median = sorted(v for v, _ in vals)[32]
            far = [r for v, r in vals if v > 10 * median]
            if 1 <= len(far) <= 3:
                outliers = far
                break
    if not outliers:
        fail("no hot path with 1 to 3 outlier ranks (over 10x the median)")
    # Bad options: a message naming the option, exit status 2.
    p = subprocess.run([exe, "-r", "0", "-o", a], capture_output=True, text=True)
    if p.returncode != 2 or "-r ranks '0'" not in p.stderr:
        fail("-r 0 accepted or unclear: %d %r" % (p.returncode, p.stderr))
    if len(sys.argv) > 3:
        check_invariants(sys.argv[3], sys.argv[4], a, work)
    if damage:
        check_damage(damage, exe, work)
    print("generator: valid, deterministic, %d call paths, %d-%d per rank, outlier ranks %r"
          % (len(db["paths"]), min(per_rank), max(per_rank), outliers))


if __name__ == "__main__":
    main()
