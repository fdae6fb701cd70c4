#!/usr/bin/env python3
"""Fortran through `instr gfortran` (docs/gcc-plugin.md, "Fortran"), on examples/fortran/heat.f90.

Cases
  names      the report names every procedure as a Fortran user reads it (module::procedure,
             host::contained, the program's name; gfortran's C main() is built-in), and
             fortran.spec selects by those names, with its rules as the reasons
  e2e OPT    instr gfortran -OPT against the real runtime: same output as plain gfortran,
             exact visits in profile.json (below), consistent profile; with fortran.spec
             the excluded procedures are absent
  openmp     instr gfortran -fopenmp -g -O0 linked with LLVM's libomp, 4 threads: the parallel
             loop recorded like C's (parallel region on the master, implicit task and
             barrier on every thread), the contained procedure it calls counted per thread
             under the implicit task (static schedule: 16, 16, 15, 15 columns x 100 steps;
             1 600 on the initial thread)
  openmp_libgomp
             the same built with instr gfortran -fopenmp -O0 without -g, on GNU libgomp (the
             runtime gfortran links): the same regions, and the static loop as `!$omp for`
             (marked by the GCC plugin), names with file:line also without -g

usage: fortran.py CASE [OPT] --gfortran GFORTRAN --instr WRAPPER --src DIR --example FILE
                  --work DIR [--libomp DIR]
"""
import argparse
import os
import shutil
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "lib"))
import profile as P  # noqa: E402  tests/lib/profile.py
from gcc_plugin_test import Failure, exit_status, read_report, run  # noqa: E402

OUTPUT = ("step  25 residual  9.5678E-01\nstep  50 residual  4.8474E-01\n"
          "step  75 residual  3.2282E-01\nstep 100 residual  2.4214E-01\n"
          "checksum    35752.985536\n")
# Visits per level. -O2: GCC inlines the contained procedures into their callers (the
# module procedures stay out of line: other units may call them).
VISITS = {
    "-O0": {"heat": 1, "heat_mod::init": 1, "heat_mod::update": 100,
            "heat_mod::update::sweep_column": 6200, "heat_mod::residual": 4, "heat::report": 4},
    "-O2": {"heat": 1, "heat_mod::init": 1, "heat_mod::update": 100, "heat_mod::residual": 4},
}
NAMES = [  # (decision, signature, mangled) of every procedure
    ("include", "heat_mod::update", "__heat_mod_MOD_update"),
    ("include", "heat_mod::update::sweep_column", "sweep_column.0"),
    ("include", "heat_mod::init", "__heat_mod_MOD_init"),
    ("exclude", "heat_mod::residual", "__heat_mod_MOD_residual"),
    ("exclude", "main", "main"),
    ("include", "heat", "MAIN__"),
    ("exclude", "heat::report", "report.1"),
]


def build(args, name, flags, spec=None, report=None):
    exe = os.path.join(args.work, name)
    cmd = [args.instr]
    if spec:
        cmd.append("--filter=" + spec)
    cmd += [args.gfortran] + flags + [args.example, "-o", exe]
    if report:
        cmd.append("-fplugin-arg-instr-report=" + report)
    run(cmd, cwd=args.work)
    return exe


def execute(args, exe, env_extra=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("INSTR_", "OMP_"))}
    exp = os.path.join(args.work, "exp-" + os.path.basename(exe))
    env["INSTR_EXPERIMENT_DIRECTORY"] = exp
    env.update(env_extra or {})
    p = run([exe], env=env, check=False)
    if p.returncode != 0 or p.stdout != OUTPUT:
        raise Failure("%s: rc %d, output %r, expected %r\n%s"
                      % (exe, p.returncode, p.stdout, OUTPUT, p.stderr))
    prof = P.load(os.path.join(exp, "profile.json"))
    problems = P.check_consistency(prof)
    if problems:
        raise Failure("profile inconsistent: %s" % problems[:5])
    return prof


def case_names(args):
    spec = os.path.join(args.src, "fortran.spec")
    report = os.path.join(args.work, "report.tsv")
    exe = build(args, "heat-spec", ["-O0"], spec=spec, report=report)
    rows = read_report(report)
    got = sorted((r[0], r[2], r[3]) for r in rows)
    if got != sorted(NAMES):
        raise Failure("report names:\n  %s\nexpected:\n  %s"
                      % ("\n  ".join(map(str, got)), "\n  ".join(map(str, sorted(NAMES)))))
    reasons = {r[2]: r[6] for r in rows}
    for name, line in (("heat::report", 2), ("heat_mod::residual", 3),
                       ("heat_mod::update::sweep_column", 4)):
        if "fortran.spec:%d" % line not in reasons[name]:
            raise Failure("%s: reason %r, expected the rule at fortran.spec:%d"
                          % (name, reasons[name], line))
    visits = P.visits_by_region(execute(args, exe))
    want = {k: v for k, v in VISITS["-O0"].items() if k not in ("heat::report",
                                                                "heat_mod::residual")}
    if visits != want:
        raise Failure("visits with fortran.spec %r, expected %r" % (visits, want))
    print("%d procedures named as in Fortran; fortran.spec selects by those names" % len(rows))


def case_e2e(args):
    plain = os.path.join(args.work, "plain")
    run([args.gfortran, args.opt, args.example, "-o", plain], cwd=args.work)
    if run([plain]).stdout != OUTPUT:
        raise Failure("plain gfortran %s: unexpected output" % args.opt)
    visits = P.visits_by_region(execute(args, build(args, "heat", [args.opt])))
    if visits != VISITS[args.opt]:
        raise Failure("visits %r, expected %r" % (visits, VISITS[args.opt]))
    print("%s: same output, visits exact: %r" % (args.opt, visits))


def per_location(prof, name):
    reg = P.regions(prof)
    out = {}
    for n in prof["tree"]:
        if reg[n["region"]]["name"] == name:
            # a worker carries the master's fork path with 0 visits (docs/openmp.md):
            # counted where it visits
            for l in n["locations"]:
                if l["visits"]:
                    out[l["location"]] = out.get(l["location"], 0) + l["visits"]
    return out


def check_openmp(args, prof, runtime, loop):
    with open(args.example) as f:
        line = next(n for n, text in enumerate(f, 1) if "!$omp parallel do" in text)
    where = " @heat.f90:%d" % line
    problems = []
    expected = {
        "!$omp parallel" + where: {0: 100},
        "!$omp implicit task" + where: {t: 100 for t in range(4)},
        "!$omp implicit barrier" + where: {t: 100 for t in range(4)},
        "heat_mod::update": {0: 100},
        "heat": {0: 1},
    }
    if loop:
        expected["!$omp for" + where] = {t: 100 for t in range(4)}
    for name, want in expected.items():
        got = per_location(prof, name)
        if got != want:
            problems.append("%s: visits per thread %r, expected %r" % (name, got, want))
    omp = sorted(r["name"] for r in prof["regions"] if r["name"].startswith("!$omp"))
    if omp != sorted(n for n in expected if n.startswith("!$omp")):
        problems.append("OpenMP regions %r, expected those of %r" % (omp, sorted(expected)))
    # Static schedule: OpenMP threads 0 and 1 get 16 of the 62 columns, threads 2 and 3 get
    # 15. Location 0 is the initial thread (OpenMP thread 0); the workers' locations are
    # numbered in the order they first record, which need not be their OpenMP numbers.
    sweeps = per_location(prof, "heat_mod::update::sweep_column")
    if sweeps.get(0) != 1600 or sorted(sweeps.values()) != [1500, 1500, 1600, 1600]:
        problems.append("heat_mod::update::sweep_column: visits per thread %r, expected 1600 "
                        "on location 0 and 1600, 1500, 1500 on the others" % sweeps)
    # every visit of the contained procedure is below its thread's implicit task (and the
    # loop's region where there is one)
    reg = P.regions(prof)
    nodes = {n["id"]: n for n in prof["tree"]}
    for n in prof["tree"]:
        if reg[n["region"]]["name"] != "heat_mod::update::sweep_column":
            continue
        up, chain = n, []
        while up["parent"] is not None:
            up = nodes[up["parent"]]
            chain.append(reg[up["region"]]["name"])
        inside = ["!$omp implicit task" + where] + (["!$omp for" + where] if loop else [])
        if any(c not in chain for c in inside):
            problems.append("sweep_column at %s is not under %s"
                            % (";".join(reversed(chain)), " and ".join(inside)))
    if problems:
        raise Failure("\n".join(problems))
    print("OpenMP Fortran on %s: parallel loop and contained procedure per thread exact"
          % runtime)


def case_openmp(args):
    if not args.libomp:
        raise Failure("--libomp DIR (LLVM's libomp) is needed")
    # -g: the construct names carry file:line (docs/openmp.md)
    exe = build(args, "heat-omp", ["-fopenmp", "-g", "-O0", "-L" + args.libomp, "-lomp",
                                   "-Wl,-rpath," + args.libomp])
    if b"libgomp" in subprocess.run(["ldd", exe], capture_output=True).stdout:
        raise Failure("linked with libgomp, expected LLVM's libomp only")
    # libomp sees no static loop (gcc computes it inline): no `!$omp for` there
    check_openmp(args, execute(args, exe, {"OMP_NUM_THREADS": "4"}), "libomp", loop=False)


def case_openmp_libgomp(args):
    # no -g: the wrapper adds -g1 for -fopenmp, so the names still carry file:line
    exe = build(args, "heat-gomp", ["-fopenmp", "-O0"])
    ldd = subprocess.run(["ldd", exe], capture_output=True).stdout
    if b"libgomp" not in ldd or b"libomp.so" in ldd:
        raise Failure("expected GNU libgomp only: %s" % ldd.decode(errors="replace"))
    check_openmp(args, execute(args, exe, {"OMP_NUM_THREADS": "4"}), "libgomp", loop=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case", choices=("names", "e2e", "openmp", "openmp_libgomp"))
    ap.add_argument("opt", nargs="?", default="-O0")
    ap.add_argument("--gfortran", required=True)
    ap.add_argument("--instr", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--example", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--libomp", default="")
    args = ap.parse_args()
    if not args.opt.startswith("-"):
        args.opt = "-" + args.opt
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    {"names": case_names, "e2e": case_e2e, "openmp": case_openmp,
     "openmp_libgomp": case_openmp_libgomp}[args.case](args)


if __name__ == "__main__":
    sys.exit(exit_status(main))
