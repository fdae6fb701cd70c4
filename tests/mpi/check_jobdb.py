#!/usr/bin/env python3
"""check_jobdb.py — the job database (profile.jdb) of a real MPI job: progs/jobdb.c (ranks with
different call trees, 1-3 threads each) compiled with `instr mpicc`, run under mpirun with NP
oversubscribed ranks; tests/lib/jobdb.py then checks that the file is valid, that every rank's
rows equal its own rank-N/profile.json exactly, that the summary equals the reduction of the
rows, that the pruned section is there and holds exactly the rows of the paths with time_incl
>= 1 % (with --api-python, check_analysis.py invariants: a pruned query's DataFrame from it ==
the one from the rows area, and a damaged pruned index is refused), and that a truncated copy
is refused.

  check_jobdb.py --np N --source progs/jobdb.c --workdir DIR --instr <bin/instr>
                 --mpicc <mpicc> --mpirun <mpirun> [--absent R] [--env NAME=VALUE ...]

--absent R: rank R runs with INSTR_ENABLE_PROFILING=0 (an MPMD launch): it has no profile, so
the database must mark it absent, hold the others' data and one line must name it.
--env: set for every rank (e.g. INSTR_METRIC_RUSAGE=...: metric columns, checked too).
--api-python PY --api-path DIR: then the Python module's answers on the database are checked
against the ranks' own profiles (check_jobdb_api.py, run by PY, a python3 with numpy and
pandas, with DIR on PYTHONPATH: instr_analysis), and so are the invariants of every database
(tests/analysis/check_analysis.py invariants --jdb); --compare: the job runs twice and the
module's compare() of the two databases is checked too.
--export BIN: instr-export; every present rank's profile.json made from the database on demand
(instr-export --json profile.jdb --rank N) must equal its own rank-N/profile.json, call path by
call path and thread by thread (the job runs with INSTR_RANK_FILES=1 so that the ranks' own
files exist to compare with).
--damage BIN: tests/analysis' test_damage, whose group rows_cut opens copies of the database
cut inside its rows with the C library and checks its message, and whose group pruned damages
every field of its pruned section in turn (each must be refused naming the file).
Every case checks the job's profile.cubex against the ranks' profiles, call path by call path
and thread by thread (check_cube). --no-rank-files: the job runs without INSTR_RANK_FILES;
its directory must hold only the job's constant set of files, and the ranks' profiles are made
from the database by instr-export (--export, needed) and checked against its rows (the Python
module's checks, which read the ranks' own files, are left to the other cases).
"""
import re
import argparse
import glob
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import jobdb  # noqa: E402

MPIRUN_FLAGS = ["--oversubscribe", "--allow-run-as-root", "--bind-to", "none"]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run_job(cmd, env, cwd, np_):
    """Runs the job in cwd: its completed process and its one experiment directory."""
    print("$ " + " ".join(cmd), flush=True)
    p = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=280)
    sys.stderr.write(p.stderr)
    want = "ranks %d total %.1f\n" % (np_, np_ * (np_ + 1) / 2)
    if p.returncode != 0 or p.stdout != want:
        fail("the job failed (status %d) or printed %r instead of %r"
             % (p.returncode, p.stdout, want))
    exps = glob.glob(os.path.join(cwd, "instr-*"))
    if len(exps) != 1:
        fail("expected one experiment directory, found %r" % exps)
    return p, exps[0]


def check_api(args, env, work, exp, second):
    """The Python module's answers against the ranks' own profiles, and the invariants of
    every database of the test (check_jobdb_api.py, check_analysis.py invariants)."""
    if not shutil.which(args.api_python):
        fail("no python3 with numpy and pandas for the analysis module (%s): install "
             "python3-numpy and python3-pandas (scripts/install-deps.sh) and configure again"
             % args.api_python)
    here = os.path.dirname(os.path.abspath(__file__))
    penv = dict(env, PYTHONPATH=args.api_path)
    cmd = [args.api_python, os.path.join(here, "check_jobdb_api.py"), exp, "--ranks",
           str(args.np), "--work", work]
    if args.absent is not None:
        cmd += ["--absent", str(args.absent)]
    if second:
        cmd += ["--second", second]
    invariants = os.path.join(here, "..", "analysis", "check_analysis.py")
    for c in [cmd] + [[args.api_python, invariants, "invariants", "--jdb",
                       os.path.join(e, "profile.jdb"), "--work", os.path.join(work, "inv")]
                      for e in [exp] + ([second] if second else [])]:
        print("$ " + " ".join(c), flush=True)
        r = subprocess.run(c, env=penv, cwd=work, capture_output=True, text=True, timeout=280)
        sys.stdout.write(r.stdout)
        sys.stderr.write(r.stderr)
        if r.returncode != 0:
            fail("%s failed (status %d)" % (os.path.basename(c[1]), r.returncode))


def check_damage_c(binary, jdb, work):
    """The C library on copies of the real database cut inside its rows (test_damage
    rows_cut: its message names the copy and says truncated) and with its pruned section
    damaged field by field (test_damage pruned: each refused naming the copy)."""
    d = os.path.join(work, "damage")
    os.makedirs(d, exist_ok=True)
    for group in ("rows_cut", "pruned"):
        r = subprocess.run([binary, group, jdb], cwd=d, capture_output=True, text=True,
                           timeout=240)
        sys.stdout.write(r.stdout)
        sys.stderr.write(r.stderr)
        if r.returncode != 0:
            fail("test_damage %s %s failed (status %d)" % (group, jdb, r.returncode))


def _export_values(prof):
    """{(call path names, location or None): {field: value}} of a profile.json: per node the
    node's own fields (None) and each location's; message fields absent where zero."""
    reg = {x["id"]: x["name"] for x in prof["regions"]}
    names, out = {}, {}
    fields = ("visits", "inclusive", "exclusive", "messages_sent", "bytes_sent",
              "messages_received", "bytes_received", "collectives")
    for n in prof["tree"]:
        names[n["id"]] = (names[n["parent"]] if n["parent"] is not None else ()) + \
            (reg[n["region"]],)
        out[(names[n["id"]], None)] = {k: n[k] for k in fields if k in n}
        for l in n["locations"]:
            out[(names[n["id"]], l["location"])] = {k: l[k] for k in fields if k in l}
    return out


def check_export(export, exp, np_, absent, work):
    """Every present rank's profile.json made from profile.jdb by instr-export --rank equals
    its own rank-N/profile.json (call paths, threads, visits, times, messages); an absent
    rank is refused with a message naming it."""
    import json
    d = os.path.join(work, "export")
    os.makedirs(d, exist_ok=True)
    for r in range(np_):
        out = os.path.join(d, "rank-%d.json" % r)
        p = subprocess.run([export, "--json", exp, "--rank", str(r), "-o", out],
                           capture_output=True, text=True, timeout=120)
        if r == absent:
            if p.returncode != 1 or "rank %d is absent" % r not in p.stderr:
                fail("instr-export --rank %d of an absent rank: status %d, %r"
                     % (r, p.returncode, p.stderr))
            continue
        if p.returncode != 0:
            fail("instr-export --rank %d: %s" % (r, p.stderr))
        with open(out, encoding="utf-8") as f:
            got = _export_values(json.load(f))
        with open(os.path.join(exp, "rank-%d" % r, "profile.json"), encoding="utf-8") as f:
            want = _export_values(json.load(f))
        # A node's own times are its threads' ticks summed, then made ns; the database holds
        # each thread's ns: the node's times may differ by the rounding, 1 ns per thread.
        def same(k):
            g, w = got.get(k), want.get(k)
            if k[1] is not None or g is None or w is None or set(g) != set(w):
                return g == w
            nthreads = sum(1 for x in want if x[0] == k[0] and x[1] is not None)
            return all(abs(g[f] - w[f]) <= (nthreads if f in ("inclusive", "exclusive") else 0)
                       for f in g)
        if not all(same(k) for k in set(got) | set(want)):
            diff = sorted((k for k in set(got) | set(want) if not same(k)),
                          key=lambda k: (k[0], -1 if k[1] is None else k[1]))[:5]
            fail("rank %d: its profile from the database differs from rank-%d/profile.json: "
                 "%s" % (r, r, "; ".join("%r: %r vs %r" % (k, got.get(k), want.get(k))
                                         for k in diff)))
    print("instr-export --rank: %d ranks' profiles from the database equal their own"
          % (np_ - (absent is not None)))


def export_profiles(export, exp, np_, absent, work):
    """Every present rank's profile.json made from profile.jdb on demand, as
    work/export/rank-N/profile.json (what a job without INSTR_RANK_FILES is checked with)."""
    d = os.path.join(work, "export")
    for r in range(np_):
        if r == absent:
            continue
        os.makedirs(os.path.join(d, "rank-%d" % r), exist_ok=True)
        out = os.path.join(d, "rank-%d" % r, "profile.json")
        p = subprocess.run([export, "--json", exp, "--rank", str(r), "-o", out],
                           capture_output=True, text=True, timeout=120)
        if p.returncode != 0:
            fail("instr-export --rank %d: %s" % (r, p.stderr))
    return d


def check_cube(exp, np_, absent, rank_dirs):
    """The job's profile.cubex holds every present rank's values: one process per rank
    ("MPI Rank N") with one location per thread, and per call path and location visits,
    inclusive time, its extremes, the message counts and every metric equal to that rank's
    own profile.json (rank_dirs/rank-N/profile.json: its own files, or made from the database
    by instr-export) exactly; every other cell is zero."""
    import json
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cube"))
    import cubex  # noqa: E402
    try:
        cube = cubex.read(os.path.join(exp, "profile.cubex"))
    except cubex.CubeError as e:
        fail("the job's profile.cubex: %s" % e)
    ranks = [g["rank"] for g in cube.groups]
    present = [r for r in range(np_) if r != absent]
    if sorted(ranks) != present or \
            [g["name"] for g in cube.groups] != ["MPI Rank %d" % r for r in ranks]:
        fail("profile.cubex: processes %r, expected one per rank %r"
             % ([g["name"] for g in cube.groups], present))
    fields = (("visits", "visits"), ("bytes_sent", "bytes_sent"),
              ("bytes_received", "bytes_received"), ("messages_sent", "messages_sent"),
              ("messages_received", "messages_received"))
    want, nthreads = {}, {}
    metric_names = None
    for r in present:
        with open(os.path.join(rank_dirs, "rank-%d" % r, "profile.json"), encoding="utf-8") as f:
            prof = json.load(f)
        nthreads[r] = len(prof["locations"])
        names = [m["name"] for m in prof.get("metrics", [])]
        metric_names = names if metric_names is None else metric_names
        paths = cubex.node_paths(prof)
        for n in prof["tree"]:
            for l in n["locations"]:
                v = {c: l.get(j, 0) for c, j in fields}
                v["time"] = l["inclusive"]
                if l["visits"]:
                    v["min_time"], v["max_time"] = l["min_inclusive"], l["max_inclusive"]
                incl = l.get("metrics", {}).get("inclusive")
                for i, m in enumerate(names):
                    v["metric " + m] = incl[i] if incl else 0
                want[(paths[n["id"]], r, l["location"])] = v
    locs = {}
    for k, (gi, _, thread) in enumerate(cube.locations):
        locs.setdefault(cube.groups[gi]["rank"], []).append(thread)
    for r in present:
        if sorted(locs.get(r, [])) != list(range(nthreads[r])):
            fail("profile.cubex: rank %d has locations %r, its profile %d threads"
                 % (r, locs.get(r), nthreads[r]))
    by_disp = {info["disp"]: u for u, info in cube.metric_info.items() if u not in cubex.KINDS}
    if sorted(by_disp) != sorted(metric_names or []):
        fail("profile.cubex: metrics %r, the ranks' profiles %r" % (sorted(by_disp), metric_names))
    bad, seen, cells = [], set(), 0
    for c in range(len(cube.cnodes)):
        path = cube.path(c)
        for k, (gi, _, thread) in enumerate(cube.locations):
            key = (path, cube.groups[gi]["rank"], thread)
            w = want.get(key)
            got = {"visits": cube.metrics["visits"][c][k],
                   "time": cubex.ns(cube.metrics["time"][c][k])}
            for m, _ in fields[1:]:
                got[m] = cube.metrics[m][c][k]
            if w is None:
                if any(got.values()):
                    bad.append("%r: %r, the rank's profile has no such call path" % (key, got))
                continue
            seen.add(key)
            cells += 1
            if w.get("visits"):
                got["min_time"] = cubex.ns(cube.metrics["min_time"][c][k])
                got["max_time"] = cubex.ns(cube.metrics["max_time"][c][k])
            for m in metric_names or []:
                got["metric " + m] = cube.metrics[by_disp[m]][c][k]
            if got != w:
                bad.append("%r: cube %r, the rank's profile %r" % (key, got, w))
    missing = set(want) - seen
    if missing:
        bad.append("call paths of the ranks' profiles not in profile.cubex: %r"
                   % sorted(missing)[:5])
    if bad:
        fail("the job's profile.cubex differs from the ranks' profiles (%d): %s"
             % (len(bad), "; ".join(bad[:5])))
    print("profile.cubex: %d ranks, %d locations, %d call paths, %d cells equal the ranks' "
          "profiles" % (len(present), len(cube.locations), len(cube.cnodes), cells))


JOB_FILES = {"profile.txt", "profile.json", "profile.cubex", "profile.html", "profile.jdb",
             "instr.cfg"}


def main():
    ap = argparse.ArgumentParser()
    for a in ("source", "workdir", "instr", "mpicc", "mpirun"):
        ap.add_argument("--" + a, required=True)
    ap.add_argument("--np", type=int, required=True)
    ap.add_argument("--absent", type=int)
    ap.add_argument("--env", action="append", default=[])
    ap.add_argument("--export")
    ap.add_argument("--api-python")
    ap.add_argument("--api-path")
    ap.add_argument("--compare", action="store_true")
    ap.add_argument("--damage")
    ap.add_argument("--no-rank-files", action="store_true")
    # with --env INSTR_VERBOSE=2: some of the ranks' naps were cut short by a doorbell (a
    # ring from the rank that sent or took a message: docs/mpi.md, "Waiting in the job's
    # end steps"), which no rank does when the doorbells do not work
    ap.add_argument("--doorbells", action="store_true")
    args = ap.parse_args()
    work = os.path.abspath(args.workdir)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    env = {k: v for k, v in os.environ.items() if not k.startswith("INSTR_")}
    env["OMPI_MCA_btl"] = "self,vader"
    # every rank's own rank-N/profile.json: what the database is checked against; without
    # them (--no-rank-files) the ranks' profiles made from the database by instr-export
    xenv = []
    if not args.no_rank_files:
        env["INSTR_RANK_FILES"] = "1"
        xenv = ["-x", "INSTR_RANK_FILES"]
    for kv in args.env:
        k, v = kv.split("=", 1)
        env[k] = v
        xenv += ["-x", k]
    exe = os.path.join(work, "measured")
    c = subprocess.run([args.instr, args.mpicc, "-O1", "-pthread", args.source, "-o", exe],
                       env=env, cwd=work, capture_output=True, text=True)
    if c.returncode != 0:
        fail("instr %s failed:\n%s%s" % (args.mpicc, c.stdout, c.stderr))
    if args.absent is None:
        cmd = [args.mpirun, "-np", str(args.np)] + MPIRUN_FLAGS + xenv + [exe]
    else:
        r = args.absent
        cmd = [args.mpirun] + MPIRUN_FLAGS + xenv
        if r:
            cmd += ["-np", str(r), exe, ":"]
        cmd += ["-np", "1", "-x", "INSTR_ENABLE_PROFILING=0", exe]
        if args.np - r - 1:
            cmd += [":", "-np", str(args.np - r - 1), exe]
    p, exp = run_job(cmd, env, work, args.np)
    # the pruned section is always written (jobdb.py checks it against the rule and the rows)
    opts = [sys.argv[0], "check-job", exp, "--ranks", str(args.np), "--pruned", "1"]
    if args.absent is not None:
        opts += ["--absent", str(args.absent)]
        # The job's one line names it (the database's own line only with INSTR_VERBOSE).
        line = "; rank %d missing from it (1 of %d:" % (args.absent, args.np)
        if line not in p.stderr:
            fail("no line naming the absent rank %d on stderr" % args.absent)
    if args.doorbells:
        m = re.search(r"waits of the job's end so far, all ranks: (\d+) naps cut short by a "
                      r"doorbell, (\d+) ended at their timeout", p.stderr)
        if not m:
            fail("no line counting the naps of the job's end (INSTR_VERBOSE=2)")
        if int(m.group(1)) == 0:
            fail("no nap was cut short by a doorbell (%s ended at their timeout)" % m.group(2))
    summary = env.get("INSTR_JOB_PROFILE_MAX_RANKS") and \
        args.np > int(env["INSTR_JOB_PROFILE_MAX_RANKS"])
    if summary:
        opts += ["--summary", "1"]
    if not os.path.exists(os.path.join(exp, "profile.cubex")):
        fail("no job profile.cubex")
    rank_dirs = exp
    if args.no_rank_files:
        # the job's constant set of files at its top, nothing per rank
        top = set(os.listdir(exp))
        if top != JOB_FILES:
            fail("the experiment holds %r, expected the job's files %r"
                 % (sorted(top), sorted(JOB_FILES)))
        if not args.export:
            fail("--no-rank-files needs --export (the ranks' profiles from the database)")
        rank_dirs = export_profiles(args.export, exp, args.np, args.absent, work)
        opts += ["--rank-dirs", rank_dirs]
    if not re.search(r"MPI job of %d ranks?: [^\n]*profile\.json[^\n]* written to" % args.np,
                     p.stderr):
        fail("no line saying that the job's profile.json was written")
    if jobdb.main(opts) != 0:
        fail("the job database is wrong")
    if args.export and not args.no_rank_files:
        check_export(args.export, exp, args.np, args.absent, work)
    check_cube(exp, args.np, args.absent, rank_dirs)
    db = jobdb.read(os.path.join(exp, "profile.jdb"))
    # Some call paths are only on some ranks (the point of progs/jobdb.c).
    metrics = [k.split("=", 1)[1] for k in args.env if k.startswith("INSTR_METRIC_RUSAGE=")]
    for m in ",".join(metrics).split(",") if metrics else []:
        if not any(c["name"] == m for c in db["cols"]) or \
                not any(c["name"] == m + ":excl" for c in db["cols"]):
            fail("no columns %s and %s:excl in %r" % (m, m, [c["name"] for c in db["cols"]]))
    partial = [p for p, (nvis, _) in enumerate(db["summary"]) if 0 < nvis < db["present"]]
    if args.np >= 4 and not partial:
        fail("every call path is on every rank: the ranks' trees were meant to differ")
    # A truncated copy is refused, naming the file and the reason.
    cut = os.path.join(work, "truncated.jdb")
    with open(os.path.join(exp, "profile.jdb"), "rb") as f:
        data = f.read()
    with open(cut, "wb") as f:
        f.write(data[:len(data) - 64])
    try:
        jobdb.read(cut)
        fail("a truncated database was read without complaint")
    except jobdb.JdbError as e:
        if "truncated" not in str(e) or cut not in str(e):
            fail("the truncated database's error does not say what and where: %s" % e)
    second = None
    if args.compare:
        again = os.path.join(work, "second")
        os.makedirs(again)
        _, second = run_job(cmd, env, again, args.np)
    if args.api_python and not args.no_rank_files:
        # (it compares with the ranks' own files; the other jobdb cases run it)
        check_api(args, env, work, exp, second)
    if args.damage:
        check_damage_c(args.damage, os.path.join(exp, "profile.jdb"), work)
    print("job database: %d ranks, %d call paths (%d only on some ranks), %d rows: as expected"
          % (args.np, len(db["paths"]), len(partial), sum(len(r) for r in db["rows"].values())))


if __name__ == "__main__":
    main()
