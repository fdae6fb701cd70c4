#!/usr/bin/env python3
"""End-to-end checks of run-time throttling (INSTR_THROTTLE, docs/runtime.md "Throttling"):
progs/throttle.c built with the GCC and LLVM plugins' hooks and in XRay mode through the
`instr` wrapper, or by CMake (--bin) with -finstrument-functions or with the plugin's call
sites written by hand, run with INSTR_THROTTLE=200,1000000, then checked with exact counts:
the profile's visits stop at the throttle point, profile.json, profile.txt and profile.cubex
mark the throttled regions and the visit at which they were throttled, the OTF2 trace is
balanced (otf2-print -A -Werror, tests/lib/otf2check.py) and has as many enters as the
profile has visits; in XRay mode the throttled sleds are unpatched (xray.txt); instr-score -r
marks the throttled regions and -g leaves them out; a 2-rank MPI job's merged profile marks
them; callgrind shows that a throttled function's calls no longer reach the runtime.
Usage: check_throttle.py CASE --work DIR --lib DIR [--src DIR --wrapper W --score S]
                         [--bin DIR] [--clang CLANG] [--trace 0|1] [--valgrind V]
                         [--mpicc MPICC --mpirun MPIRUN]
"""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from cases import Fail, clean_env, expect, fresh_dir, run_case  # noqa: E402

A = None
C = None  # tests/cube/cubex.py (the CUBE4 reader)
P = None  # tests/lib/profile.py
T = None  # tests/lib/otf2check.py

THROTTLE = {"INSTR_THROTTLE": "200,1000000"}
# progs/throttle.c with THROTTLE: what the profile records. gate: the main thread's first 200
# calls and the second thread's one visit, open while the main thread throttled it.
VISITS = {"main": 1, "tiny": 200, "heavy": 250, "deep": 1001, "gate": 201, "second": 1}
# Throttled regions: the deciding thread's visits then.
THROTTLED = {"tiny": 200, "deep": 200, "gate": 200}
UNTHROTTLED_VISITS = {"main": 1, "tiny": 1000000, "heavy": 250, "deep": 2002, "gate": 10001,
                      "second": 1}
OUTPUT = "sink=500000543627 got=2\n"


def workdir(name):
    # the XRay case runs once per clang, possibly at the same time: one folder per clang
    case = A.case
    if A.case == "xray" and A.clang:
        case = "xray-" + A.clang.replace(os.sep, "_")
    return fresh_dir(os.path.join(A.work, case, name))


def sh(cmd, cwd):
    p = subprocess.run(cmd, cwd=cwd, env=clean_env(), capture_output=True, text=True,
                       timeout=280)
    expect(p.returncode == 0, "%s failed (%d):\n%s%s" % (cmd, p.returncode, p.stdout, p.stderr))
    return p


def build(mode, cc):
    wd = workdir("build-%s-%s" % (mode, os.path.basename(cc)))
    exe = os.path.join(wd, "throttle")
    sh([A.wrapper, "--mode=" + mode, cc, "-O2", os.path.join(A.src, "throttle.c"), "-o", exe,
        "-lpthread"], wd)
    return exe


def run(exe, args=(), env=None, name="run", trace=None):
    """(stdout, instr's stderr lines, experiment dir); fails on a non-zero exit or other
    stderr."""
    wd = workdir(name)
    exp = os.path.join(wd, "exp")
    e = {"INSTR_EXPERIMENT_DIRECTORY": exp,
         "INSTR_ENABLE_TRACING": "1" if (A.trace if trace is None else trace) else "0"}
    e.update(env or {})
    p = subprocess.run([exe] + list(args), cwd=wd, env=clean_env(e), capture_output=True,
                       text=True, timeout=240)
    err = p.stderr.splitlines()
    rest = [l for l in err if not l.startswith("instr: ")]
    expect(p.returncode == 0 and not rest, "%s: exit %d, stderr %r" % (exe, p.returncode, rest))
    return p.stdout, [l for l in err if l.startswith("instr: ")], exp


def marks(prof):
    return {r["name"]: r["throttled"] for r in prof["regions"] if "throttled" in r}


def check_throttled_run(what, exp, out, short=False, output=OUTPUT):
    expect(out == output, "%s: output %r, expected %r" % (what, out, output))
    prof = P.load(exp)
    problems = P.check_consistency(prof)
    expect(not problems, "%s: profile inconsistent: %r" % (what, problems[:10]))
    visits = P.visits_by_region(prof, short=short)
    expect(visits == VISITS, "%s: visits %r, expected %r" % (what, visits, VISITS))
    m = marks(prof)
    expect({k: v["visit"] for k, v in m.items()} == THROTTLED,
           "%s: throttled %r, expected visits %r" % (what, m, THROTTLED))
    for name, mark in m.items():
        expect(mark["location"] == 0 and mark["mean_inclusive_ns"] < 1000000,
               "%s: %s: mark %r" % (what, name, mark))
        # Every throttled region is called often enough afterwards to reach step 2.
        expect(mark["excluded"] is True, "%s: %s never reached exclusion: %r" % (what, name, mark))
    with open(os.path.join(exp, "profile.txt"), encoding="utf-8") as f:
        txt = f.read()
    for name, visit in THROTTLED.items():
        expect(re.search(r"\| %s  \[throttled at visit %d\]$" % (name, visit), txt, re.M),
               "%s: profile.txt does not mark %s" % (what, name))
    expect("heavy  [throttled" not in txt, "%s: profile.txt marks heavy" % what)
    sys.setrecursionlimit(20000)  # the reader walks the cnodes recursively: deep is 1000 deep
    cube = C.read(os.path.join(exp, "profile.cubex"))
    C.check_against_json(cube, prof)
    descr = {r["name"]: r["descr"] for r in cube.regions}
    for name, visit in THROTTLED.items():
        expect(descr.get(name, "").startswith("throttled at visit %d " % visit),
               "%s: profile.cubex: %s has description %r" % (what, name, descr.get(name)))
    expect(descr.get("heavy") == "", "%s: profile.cubex: heavy described %r" % (what, descr.get("heavy")))
    if A.trace:
        tr = T.load(exp)
        problems = tr.problems()
        expect(not problems, "%s: trace invalid:\n  %s" % (what, "\n  ".join(problems[:20])))
        enters = tr.enters_by_region()
        expect(enters == P.visits_by_region(prof),
               "%s: trace enters %r != profile visits %r" % (what, enters, visits))
    return prof


def check_score(what, exp):
    """instr-score -r marks the throttled regions; -g leaves them out (their recorded visits
    are below its --min-visits) and nothing else."""
    p = subprocess.run([A.score, "-r", exp], capture_output=True, text=True, timeout=60)
    expect(p.returncode == 0, "%s: instr-score -r: %d %s" % (what, p.returncode, p.stderr))
    for name, visit in THROTTLED.items():
        expect(re.search(r" %s  \[throttled at visit %d\]$" % (name, visit), p.stdout, re.M),
               "%s: instr-score -r does not mark %s:\n%s" % (what, name, p.stdout))
    expect("3 regions were throttled by INSTR_THROTTLE" in p.stdout, "%s: no throttle note" % what)
    spec = os.path.join(os.path.dirname(exp), "generated.spec")
    p = subprocess.run([A.score, "-g", "-o", spec, exp], capture_output=True, text=True,
                       timeout=60)
    expect(p.returncode == 0, "%s: instr-score -g: %d %s" % (what, p.returncode, p.stderr))
    with open(spec, encoding="utf-8") as f:
        rules = sorted(l.strip() for l in f if l.strip() and not l.startswith("#"))
    expect(rules == ["exclude function %s" % n for n in sorted(THROTTLED)],
           "%s: instr-score -g wrote %r" % (what, rules))


def hooks_case(cc):
    exe = build("hooks", cc)
    out, mine, exp = run(exe, env=THROTTLE)
    prof = check_throttled_run("hooks " + cc, exp, out)
    sources = {r["source"] for r in prof["regions"]}
    expect(sources == {"hooks"}, "hooks %s: region sources %r" % (cc, sources))
    check_score("hooks " + cc, exp)
    check_threads("hooks " + cc, exe)


def case_hooks_gcc():
    hooks_case("gcc")


def case_hooks_clang():
    hooks_case(A.clang or "clang")


def case_cyg():
    """-finstrument-functions (built by CMake, also in sanitizer trees): the address table's
    entry is excluded."""
    out, mine, exp = run(os.path.join(A.bin, "throttle_cyg"), env=THROTTLE)
    prof = check_throttled_run("cyg", exp, out)
    sources = {r["source"] for r in prof["regions"]}
    expect(sources == {"cyg"}, "cyg: region sources %r" % sources)
    check_threads("cyg", os.path.join(A.bin, "throttle_cyg"))


def check_threads(what, exe):
    """Four threads call tiny at once: one throttling decision, the region drains while the
    others still call it, and it ends excluded; the trace stays balanced. The threshold is
    20000 visits here, so that the others are calling too when one thread reaches it. Each
    thread records until it sees the new handle, so the visits are not exact: at least the
    threshold, and far below the 800000 calls."""
    out, mine, exp = run(exe, ["threads"], env={"INSTR_THROTTLE": "20000,1000000"},
                         name="run-threads")
    expect(out == "sink=80000400000 threads=4\n", "%s threads: output %r" % (what, out))
    prof = P.load(exp)
    problems = P.check_consistency(prof)
    expect(not problems, "%s threads: profile inconsistent: %r" % (what, problems[:10]))
    visits = P.visits_by_region(prof).get("tiny", 0)
    expect(20000 <= visits < 400000, "%s threads: tiny has %d visits" % (what, visits))
    m = marks(prof)
    expect(list(m) == ["tiny"] and m["tiny"]["visit"] >= 20000 and m["tiny"]["excluded"] is True,
           "%s threads: marks %r" % (what, m))
    if A.trace:
        tr = T.load(exp)
        problems = tr.problems()
        expect(not problems, "%s threads: trace invalid:\n  %s" % (what, "\n  ".join(problems[:20])))
        expect(tr.enters_by_region() == P.visits_by_region(prof),
               "%s threads: trace enters %r != profile visits %r"
               % (what, tr.enters_by_region(), P.visits_by_region(prof)))


def case_hand_hooks():
    """The hooks adapter with the plugin's call sites written by hand (also in sanitizer
    trees); tiny's second descriptor, never entered, is excluded with the first."""
    out, mine, exp = run(os.path.join(A.bin, "throttle_hand_hooks"), env=THROTTLE)
    prof = check_throttled_run("hand hooks", exp, out, output=OUTPUT + "copy=excluded\n")
    sources = {r["source"] for r in prof["regions"]}
    expect(sources == {"hooks"}, "hand hooks: region sources %r" % sources)
    check_threads("hand hooks", os.path.join(A.bin, "throttle_hand_hooks"))


def read_xray(exp):
    """xray.txt: {name: (patched, ever_patched, entered)}"""
    fns = {}
    with open(os.path.join(exp, "xray.txt"), encoding="utf-8") as f:
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if line.startswith("#") or len(cols) != 8:
                continue
            fns[cols[4]] = (int(cols[1]), int(cols[2]), int(cols[3]))
    return fns


def case_xray():
    exe = build("xray", A.clang)
    out, mine, exp = run(exe, env=THROTTLE)
    prof = check_throttled_run("xray " + A.clang, exp, out)
    sources = {r["source"] for r in prof["regions"]}
    expect(sources == {"xray"}, "xray: region sources %r" % sources)
    check_threads("xray", exe)
    fns = read_xray(exp)
    for name in THROTTLED:
        expect(fns.get(name) == (0, 1, 1), "xray.txt: %s is %r, expected unpatched" %
               (name, fns.get(name)))
    for name in ("main", "heavy", "second"):
        expect(fns.get(name) == (1, 1, 1), "xray.txt: %s is %r, expected patched" %
               (name, fns.get(name)))


def case_off():
    """Without INSTR_THROTTLE nothing is throttled; a bad value says so and throttles
    nothing."""
    exe = build("hooks", "gcc")
    for i, (env, said) in enumerate((({}, None),
                      ({"INSTR_THROTTLE": "200"}, "INSTR_THROTTLE='200' is not <visits>,<ns per "
                       "visit> (two positive integers, e.g. 100000,100) or off; using no throttling"),
                      ({"INSTR_THROTTLE": "-5,10"}, "INSTR_THROTTLE='-5,10' is not"),
                      ({"INSTR_THROTTLE": "0,100"}, "INSTR_THROTTLE='0,100' is not"))):
        out, mine, exp = run(exe, env=env, name="run%d" % i)
        expect(out == OUTPUT, "output %r" % out)
        prof = P.load(exp)
        expect(P.visits_by_region(prof) == UNTHROTTLED_VISITS, "%r: visits %r" %
               (env, P.visits_by_region(prof)))
        expect(not marks(prof), "%r: marks %r" % (env, marks(prof)))
        warned = [l for l in mine if "INSTR_THROTTLE" in l]
        if said:
            expect(len(warned) == 1 and said in warned[0], "%r: said %r" % (env, mine))
        else:
            expect(not warned, "said %r" % warned)
        with open(os.path.join(exp, "instr.cfg"), encoding="utf-8") as f:
            expect(re.search(r"^INSTR_THROTTLE=\s", f.read(), re.M), "instr.cfg: no INSTR_THROTTLE line")


def case_mpi():
    """Two ranks each throttle tiny at visit 200: the job's merged profile.json has its 400
    visits and a throttled member naming the first rank and both ranks, profile.cubex
    describes it, instr-score marks it; the job's trace is balanced."""
    wd = workdir("build-mpi")
    exe = os.path.join(wd, "throttle_mpi")
    sh([A.wrapper, A.mpicc, "-O2", os.path.join(A.src, "throttle_mpi.c"), "-o", exe], wd)
    rd = workdir("run-mpi")
    env = clean_env(dict(THROTTLE, OMPI_MCA_btl="self,vader",
                         INSTR_ENABLE_TRACING="1" if A.trace else "0"))
    cmd = [A.mpirun, "-np", "2", "--oversubscribe", "--allow-run-as-root", "--bind-to", "none",
           "-x", "INSTR_THROTTLE", "-x", "INSTR_ENABLE_TRACING", exe]
    p = subprocess.run(cmd, cwd=rd, env=env, capture_output=True, text=True, timeout=240)
    expect(p.returncode == 0 and p.stdout == "sink=10000100000\n",
           "mpirun: %d %r %s" % (p.returncode, p.stdout, p.stderr[-3000:]))
    exp = P.find_experiment(rd)
    prof = P.load(exp)
    problems = P.check_consistency(prof)
    expect(not problems, "mpi: profile inconsistent: %r" % problems[:10])
    visits = P.visits_by_region(prof)
    expect(visits.get("tiny") == 400 and visits.get("main") == 2,
           "mpi: visits %r" % visits)
    m = marks(prof)
    expect(list(m) == ["tiny"], "mpi: marks %r" % m)
    t = m["tiny"]
    expect(t["visit"] == 200 and t["ranks"] == 2 and t["rank"] in (0, 1) and t["excluded"] is True,
           "mpi: tiny's mark %r" % t)
    sys.setrecursionlimit(20000)
    cube = C.read(os.path.join(exp, "profile.cubex"))
    descr = {r["name"]: r["descr"] for r in cube.regions}
    expect(descr.get("tiny", "").startswith("throttled at visit 200 ") and
           descr["tiny"].endswith("; 2 ranks)"), "mpi: profile.cubex describes tiny as %r"
           % descr.get("tiny"))
    p = subprocess.run([A.score, "-r", exp], capture_output=True, text=True, timeout=60)
    expect(p.returncode == 0 and re.search(r" tiny  \[throttled at visit 200\]$", p.stdout, re.M),
           "mpi: instr-score -r: %s%s" % (p.stdout, p.stderr))
    if A.trace:
        tr = T.load(exp)
        problems = tr.problems()
        expect(not problems, "mpi: trace invalid:\n  %s" % "\n  ".join(problems[:20]))
        expect(tr.enters_by_region().get("tiny") == 400,
               "mpi: trace enters %r" % tr.enters_by_region())


def instructions(exe, n):
    """Instructions callgrind counts for `throttle tiny n` (the whole program)."""
    wd = workdir("callgrind-%s-%d" % (os.path.basename(os.path.dirname(exe)), n))
    out_file = os.path.join(wd, "callgrind.out")
    env = dict(THROTTLE, INSTR_EXPERIMENT_DIRECTORY=os.path.join(wd, "exp"))
    p = subprocess.run([A.valgrind, "--tool=callgrind", "--callgrind-out-file=" + out_file,
                        exe, "tiny", str(n)], cwd=wd, env=clean_env(env), capture_output=True,
                       text=True, timeout=280)
    expect(p.returncode == 0, "callgrind failed: %s" % p.stderr[-2000:])
    m = re.search(r"Collected : (\d+)", p.stderr)
    expect(m, "no instruction count from callgrind: %s" % p.stderr[-2000:])
    prof = P.load(os.path.join(wd, "exp"))
    expect(P.visits_by_region(prof).get("tiny") == 200, "tiny visits %r" % P.visits_by_region(prof))
    return int(m.group(1))


def case_not_called():
    """After throttling, a call of tiny costs what the call and the call site's two checks of
    the handle cost (about 20 instructions with the loop), not a runtime call (over 150 on the generic path): counted by
    callgrind, never timed, as the difference between 20000 and 40000 calls."""
    if not A.valgrind:
        print("skip: no valgrind")
        sys.exit(77)
    for cc in ("gcc", A.clang or "clang"):
        exe = build("hooks", cc)
        per_call = (instructions(exe, 40000) - instructions(exe, 20000)) / 20000.0
        expect(per_call < 40, "hooks %s: %.1f instructions per throttled call" % (cc, per_call))
        print("hooks %s: %.1f instructions per call of a throttled function" % (cc, per_call))


def main():
    global A, C, P, T
    ap = argparse.ArgumentParser()
    ap.add_argument("case")
    for opt in ("work", "lib"):
        ap.add_argument("--" + opt, required=True)
    for opt in ("src", "wrapper", "bin", "clang", "valgrind", "score", "mpicc", "mpirun"):
        ap.add_argument("--" + opt)
    ap.add_argument("--trace", type=int, default=0)
    A = ap.parse_args()
    sys.path.insert(0, A.lib)
    sys.path.insert(0, os.path.join(A.lib, "..", "cube"))
    import cubex as C_  # noqa: E402
    import profile as P_  # noqa: E402
    C, P = C_, P_
    if A.trace:
        import otf2check as T_  # noqa: E402
        T = T_
    errors = (P.ProfileError, C.CubeError) + ((T.TraceError,) if T else ())
    return run_case(globals(), A.case, errors)


if __name__ == "__main__":
    sys.exit(main())
