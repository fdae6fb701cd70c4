#!/usr/bin/env python3
"""MPI + OpenMP end to end (docs/openmp.md, "MPI + OpenMP"): progs/hybrid.cpp built with
`instr mpicxx -fopenmp` on clang (libomp), run with 4 ranks x OMP_NUM_THREADS=2 under Open
MPI, with tracing. Checks the job profile and the job trace: 8 thread locations, balanced and
read cleanly by `otf2-print -A -Werror`, the same OpenMP regions (four distinct sites for the
two loops and two barriers of one function) in a rank's profile, the job profile and the
trace, and MPI calls on the thread that made them.
Usage: check_hybrid.py CASE --instr WRAPPER --src DIR --work DIR --lib DIR --cxx CLANG++
                       --mpicxx MPICXX --mpirun MPIRUN
Cases: multiple (MPI_THREAD_MULTIPLE, every thread calls MPI), funneled (MPI_THREAD_FUNNELED,
the master thread calls MPI in `masked`).
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from cases import Fail, expect, fresh_dir, run_case  # noqa: E402  tests/lib/cases.py

A = None
P = None  # tests/lib/profile.py
T = None  # tests/lib/otf2check.py

RANKS, THREADS, STEPS = 4, 2, 3
MPIRUN_FLAGS = ["--oversubscribe", "--allow-run-as-root", "--bind-to", "none"]


def markers():
    out = {}
    with open(os.path.join(A.src, "progs", "hybrid.cpp")) as f:
        for n, line in enumerate(f, 1):
            if "// @" in line:
                out[line.rstrip().rsplit("// @", 1)[1]] = n
    return out


def build_and_run(level):
    wd = fresh_dir(os.path.join(A.work, "hybrid_" + level))
    exe = os.path.join(wd, "hybrid")
    env = dict(os.environ, OMPI_CXX=A.cxx)
    cmd = [A.instr, A.mpicxx, "-fopenmp", "-O2", os.path.join(A.src, "progs", "hybrid.cpp"),
           "-o", exe]
    p = subprocess.run(cmd, capture_output=True, cwd=wd, env=env)
    if p.returncode != 0:
        raise Fail("build failed: %s\n%s" % (" ".join(cmd), p.stderr.decode(errors="replace")))
    exp = os.path.join(wd, "exp")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("INSTR_", "OMP_"))}
    # 8 threads on a machine with fewer cores: libomp's idle threads spin (for 200 ms after
    # each region) and can delay the ping-pong of the clock-offset measurement after
    # MPI_Finalize (docs/mpi.md, "Clocks") by milliseconds; a wrong end offset then maps a
    # rank's first events before the job's clock range (seen: 3 runs in 6). Let them sleep.
    env.update({"OMP_NUM_THREADS": str(THREADS), "OMP_WAIT_POLICY": "passive",
                "INSTR_ENABLE_TRACING": "1", "INSTR_EXPERIMENT_DIRECTORY": exp})
    p = subprocess.run([A.mpirun, "-np", str(RANKS)] + MPIRUN_FLAGS + [exe, level], cwd=wd,
                       env=env, capture_output=True, timeout=240)
    out = p.stdout.decode(errors="replace")
    expect(p.returncode == 0 and out.startswith("result "),
           "mpirun rc %d, output %r, stderr %s" % (p.returncode, out,
                                                  p.stderr.decode(errors="replace")[-2000:]))
    return exp


def omp_names(names):
    return sorted(n for n in names if n.startswith("!$omp"))


def check(level):
    exp = build_and_run(level)
    m = markers()
    job = P.load(exp)
    problems = P.check_consistency(job)
    expect(not problems, "job profile inconsistent: %s" % problems[:5])
    locs = job["locations"]
    per_rank = {}
    for l in locs:
        per_rank.setdefault(l["group"], []).append(l["rank_location"])
    expect(len(locs) == RANKS * THREADS and
           sorted(per_rank.items()) == [(g, list(range(THREADS))) for g in range(RANKS)],
           "job profile locations %r" % [(l["group"], l["rank_location"]) for l in locs])
    # one region per construct site, the same in a rank's profile, the job's and the trace
    job_omp = omp_names(r["name"] for r in job["regions"])
    expect(len(set(job_omp)) == len(job_omp), "equal OpenMP names in the job profile")
    for c, k in [("!$omp for", "for1"), ("!$omp for", "for2"), ("!$omp barrier", "barrier1"),
                 ("!$omp barrier", "barrier2")]:
        want = "%s @hybrid.cpp:%d" % (c, m[k])
        expect(want in job_omp, "no region %r in %r" % (want, job_omp))
    for r in range(RANKS):
        rank_omp = omp_names(x["name"] for x in P.load(os.path.join(exp, "rank-%d" % r))
                             ["regions"])
        expect(rank_omp == job_omp, "rank %d OpenMP regions %r, job %r" % (r, rank_omp, job_omp))
    outlined = [n for n in [r["name"] for r in job["regions"]] if "omp_outlined" in n]
    expect(not outlined, "outlined bodies in the job profile: %r" % outlined)
    tr = T.load(exp)  # otf2-print -A -Werror
    outlined = [r["name"] for r in tr.regions.values() if "omp_outlined" in r["name"]]
    expect(not outlined, "outlined bodies in the trace: %r" % outlined)
    problems = tr.problems()
    expect(not problems, "trace problems: %s" % problems[:5])
    expect(len(tr.locations) == RANKS * THREADS, "%d trace locations" % len(tr.locations))
    tr_omp = omp_names(r["name"] for r in tr.regions.values())
    expect(tr_omp == job_omp, "trace OpenMP regions %r, job %r" % (tr_omp, job_omp))
    counts = [len(P.load(os.path.join(exp, "rank-%d" % r))["regions"]) for r in range(RANKS)]
    expect(counts == [len(job["regions"])] * RANKS and len(tr.regions) == len(job["regions"]),
           "regions: ranks %r, job profile %d, trace %d"
           % (counts, len(job["regions"]), len(tr.regions)))
    visits = P.visits_by_region(job)
    enters = tr.enters_by_region()
    expect(enters == visits, "trace enters differ from job profile visits:\n%r\n%r"
           % (sorted(enters.items()), sorted(visits.items())))
    # MPI calls on the thread that made them, under its implicit task
    reg = P.regions(job)
    nodes = {n["id"]: n for n in job["tree"]}
    allreduce = {}
    for n in job["tree"]:
        if reg[n["region"]]["name"] != "MPI_Allreduce":
            continue
        path, p = [], n
        while p["parent"] is not None:
            p = nodes[p["parent"]]
            path.append(reg[p["region"]]["name"])
        expect("!$omp implicit task @hybrid.cpp:%d" % m["par"] in path,
               "MPI_Allreduce at %s" % ";".join(reversed(path)))
        for l in n["locations"]:
            allreduce[l["location"]] = allreduce.get(l["location"], 0) + l["visits"]
    by_loc = {(l["group"], l["rank_location"]): allreduce.get(l["id"], 0) for l in locs}
    if level == "multiple":
        want = {(g, t): STEPS for g in range(RANKS) for t in range(THREADS)}
    else:
        want = {(g, t): STEPS if t == 0 else 0 for g in range(RANKS) for t in range(THREADS)}
    expect(by_loc == want, "MPI_Allreduce per (rank, thread) %r, expected %r" % (by_loc, want))
    ref = [r for r, d in tr.regions.items() if d["name"] == "MPI_Allreduce"]
    on_loc = {}
    for loc, evs in tr.events.items():
        n = sum(1 for (typ, _, rr) in evs if typ == "ENTER" and rr in ref)
        on_loc[(loc >> 32, tr.locations[loc]["name"])] = n
    expect(sorted(on_loc.values()) == sorted(want.values()),
           "trace MPI_Allreduce per location %r" % on_loc)


def case_multiple():
    check("multiple")


def case_funneled():
    check("funneled")


def main():
    global A, P, T
    ap = argparse.ArgumentParser()
    ap.add_argument("case")
    for a in ("instr", "src", "work", "lib", "cxx", "mpicxx", "mpirun"):
        ap.add_argument("--" + a, required=True)
    A = ap.parse_args()
    sys.path.insert(0, A.lib)
    import profile as _p
    import otf2check as _t
    P, T = _p, _t
    return run_case(globals(), A.case)


if __name__ == "__main__":
    sys.exit(main())
