#!/usr/bin/env python3
"""Kokkos's Tools interface (runtime/kokkos, docs/kokkos.md) end to end: progs/kernels.cpp,
built against Debian's Kokkos (libtrilinos-kokkos-dev, the Serial backend), run with the
profile and the trace on. The kernels, profile regions, the section, the fences and the deep
copies must be regions of source "kokkos" named as the program named them, at their call
paths with exact visits; kokkos.txt must have the exact bytes; the trace must read with
otf2-print -A -Werror with the regions' paradigm and roles. Usage:
check.py CASE --wrapper bin/instr --runtime libinstr-rt.so --src DIR --work DIR
Exit 77 (skipped) when Kokkos is not installed.
"""
import argparse
import os
import shutil
import re
import subprocess
import sys
import tarfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from cases import Fail, clean_env, expect, fresh_dir, run_case  # noqa: E402  tests/lib/cases.py
import otf2check as T  # noqa: E402  tests/lib/otf2check.py
import recorded as R  # noqa: E402  tests/lib/recorded.py

A = None
KOKKOS_INCLUDE = "/usr/include/trilinos"
KOKKOS_LIB = "trilinos_kokkoscore"
SKIP = 77

COMPUTE = "compute(Kokkos::View<double*>, Kokkos::View<double*>)"
COPIES = "copies(Kokkos::View<double*>, Kokkos::View<double*>)"
MIRROR = "Kokkos::View::initialization [a_mirror]"
COPY = "deep_copy Host -> Host"
# Call path (region names, outermost first) -> visits, of every node of a kokkos region and
# of the instrumented functions around them (progs/kernels.cpp says why each count).
TREE = {
    ("main",): 1,
    ("main", "Kokkos::View::initialization [a]"): 1,
    ("main", "Kokkos::View::initialization [b]"): 1,
    ("main", "Outer"): 1,
    ("main", "Outer", "Step"): 3,
    ("main", "Outer", "Step", COMPUTE): 3,
    ("main", "Outer", "Step", COMPUTE, "ComputeForces"): 3,
    ("main", "Outer", "Step", COMPUTE, "SumForces"): 3,
    ("main", "Outer", "Step", COMPUTE, "PrefixSum"): 3,
    ("main", "Section"): 2,
    ("main", "Section", COPIES): 2,
    ("main", "Section", COPIES, "Copies"): 2,
    ("main", "Section", COPIES, "Copies", COPY): 4,
    ("main", "Section", COPIES, "Copies", MIRROR): 2,
    ("main", "HaloFence"): 4,
}
# Region name -> (canonical name, OTF2 role)
KINDS = {
    "ComputeForces": ("Kokkos::parallel_for ComputeForces", "LOOP"),
    "SumForces": ("Kokkos::parallel_reduce SumForces", "LOOP"),
    "PrefixSum": ("Kokkos::parallel_scan PrefixSum", "LOOP"),
    "Outer": ("Kokkos::Profiling::pushRegion Outer", "CODE"),
    "Step": ("Kokkos::Profiling::pushRegion Step", "CODE"),
    "Copies": ("Kokkos::Profiling::pushRegion Copies", "CODE"),
    "Section": ("Kokkos::Profiling::ProfilingSection Section", "CODE"),
    "HaloFence": ("Kokkos::fence HaloFence", "BARRIER"),
    COPY: ("Kokkos::" + COPY, "DATA_TRANSFER"),
    MIRROR: ("Kokkos::parallel_for " + MIRROR, "LOOP"),
}
# kokkos.txt: 4 copies of 1000 doubles; Views a, b and two mirrors of 8000 bytes, all
# released before Kokkos::finalize, and the Serial backend's own scratch (11264 bytes,
# released after the tool's finalize); the high-water mark: scratch, a, b and one mirror.
REPORT = ["copy\tHost\tHost\t4\t32000",
          "space\tHost\t5\t4\t43264\t32000\t11264\t35264",
          "metadata\ttest_key\ttest value"]


def have_kokkos():
    return os.path.isfile(os.path.join(KOKKOS_INCLUDE, "Kokkos_Core.hpp"))


def build(name, cxx, through_instr=True, spec=True, prog="kernels.cpp", flags=()):
    wd = fresh_dir(os.path.join(A.work, A.case, "build"))
    exe = os.path.join(wd, name)
    cmd = [cxx, "-O1"] + list(flags) + ["-I" + KOKKOS_INCLUDE, os.path.join(A.src, prog),
                                        "-o", exe, "-l" + KOKKOS_LIB]
    if through_instr:
        pre = [A.wrapper]
        if spec:
            # Kokkos's own templates and the standard library's out: the paths are the
            # program's functions and Kokkos's regions only.
            with open(os.path.join(wd, "k.spec"), "w") as f:
                f.write("exclude function Kokkos::*\nexclude function std::*\n")
            pre.append("--filter=" + os.path.join(wd, "k.spec"))
        cmd = pre + cmd
    R.sh(cmd, wd, tail=3000)
    return exe


def run(exe, env=None, output=("total 2997000",)):
    rd = fresh_dir(os.path.join(A.work, A.case, "run"))
    exp = os.path.join(rd, "exp")
    e = {"INSTR_EXPERIMENT_DIRECTORY": exp, "INSTR_ENABLE_TRACING": "1"}
    e.update(env or {})
    drop = () if env and "KOKKOS_PROFILE_LIBRARY" in env else ("KOKKOS_TOOLS_LIBS",
                                                               "KOKKOS_PROFILE_LIBRARY")
    p = subprocess.run([exe], cwd=rd, env=clean_env(e, drop), capture_output=True, text=True,
                       timeout=240)
    expect(p.returncode == 0, "exit %d: %s" % (p.returncode, p.stderr[-3000:]))
    for o in (output,) if isinstance(output, str) else output:
        expect(o in p.stdout, "output lacks %r: %r" % (o, p.stdout))
    return exp


def tree(exp):
    prof = R.load(exp)
    return prof, {r["id"]: r for r in prof["regions"]}, R.visits_by_chain(prof)


def check_profile(exp, want, what):
    prof, regions, got = tree(exp)
    for r in regions.values():
        if r["name"] in KINDS:
            expect(r["source"] == "kokkos" and r["mangled"] == KINDS[r["name"]][0],
                   "%s: region %r" % (what, r))
    # Every path with a Kokkos region or a function of the program, and nothing else but
    # lambdas the compiler did not inline (below a kernel).
    shown = {p: v for p, v in got.items()
             if not any("lambda" in x or "{" in x for x in p)}
    expect(shown == want, "%s: call paths\n got %r\nwant %r" % (what, sorted(shown.items()),
                                                                 sorted(want.items())))
    with open(os.path.join(exp, "profile.txt")) as f:
        text = f.read()
    for name in KINDS:
        expect(("| " + name + "\n") in text, "%s: profile.txt lacks %r" % (what, name))


def check_report(exp, what):
    with open(os.path.join(exp, "kokkos.txt")) as f:
        text = f.read()
    lines = text.splitlines()
    for l in REPORT:
        expect(l in lines, "%s: kokkos.txt lacks %r:\n%s" % (what, l, text))
    expect("interface_version\t20210225" in lines, "%s: %s" % (what, text))


def check_trace(exp, want, what):
    try:
        tr = T.load(os.path.join(exp, "traces.otf2"))
    except T.TraceError as e:
        raise Fail("%s: %s" % (what, e))
    probs = tr.problems()
    expect(not probs, "%s: trace: %s" % (what, probs[:5]))
    for name, (canonical, role) in KINDS.items():
        r = tr.region_by_name(name)
        expect(r["canonical"] == canonical and r["role"] == role and
               r["paradigm"] == "KOKKOS" and r["description"] == "kokkos",
               "%s: trace region %r" % (what, r))
    enters = tr.enters_by_region()
    for name in KINDS:
        n = sum(v for p, v in want.items() if p[-1] == name)
        expect(enters.get(name) == n, "%s: %s entered %r times, expected %d"
               % (what, name, enters.get(name), n))


CUBE_ROLES = {"LOOP": "loop", "CODE": "code", "BARRIER": "barrier",
              "DATA_TRANSFER": "data transfer"}


def check_cube(exp, what):
    """profile.cubex's anchor.xml: each Kokkos region with paradigm kokkos and its role."""
    with tarfile.open(os.path.join(exp, "profile.cubex")) as t:
        xml = t.extractfile("anchor.xml").read().decode()
    regions = re.findall(r"<region [^>]*>\s*<name>([^<]*)</name>\s*<mangled_name>([^<]*)"
                         r"</mangled_name>\s*<paradigm>([^<]*)</paradigm>\s*<role>([^<]*)"
                         r"</role>", xml)
    got = {n: (m, p, r) for n, m, p, r in regions}
    for name, (canonical, role) in KINDS.items():
        n = name.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        c = canonical.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        expect(got.get(n) == (c, "kokkos", CUBE_ROLES[role]),
               "%s: profile.cubex region %r: %r" % (what, name, got.get(n)))


def check_all(exp, want, what):
    check_profile(exp, want, what)
    check_cube(exp, what)
    check_report(exp, what)
    check_trace(exp, want, what)


def case_gcc():
    """g++ through instr: the runtime names itself for Kokkos (KOKKOS_PROFILE_LIBRARY unset),
    and takes the variables back once Kokkos loaded it."""
    exe = build("kernels_gcc", "g++")
    check_all(run(exe, output=("total 2997000", "tools variable unset")), TREE, "g++")


def case_no_kokkos():
    """A program without Kokkos built through instr: the runtime sets no Kokkos variable
    (the program's children would inherit it)."""
    wd = fresh_dir(os.path.join(A.work, A.case, "build"))
    src = os.path.join(wd, "env.c")
    with open(src, "w") as f:
        f.write('#include <stdio.h>\n#include <stdlib.h>\nint main(void) {\n'
                '  printf("%s %s\\n", getenv("KOKKOS_TOOLS_LIBS") ? "set" : "unset",\n'
                '         getenv("KOKKOS_PROFILE_LIBRARY") ? "set" : "unset");\n'
                '  return 0;\n}\n')
    exe = os.path.join(wd, "env")
    R.sh([A.wrapper, "gcc", "-O1", src, "-o", exe], wd, tail=3000)
    run(exe, output="unset unset")


def case_clang():
    clang = shutil.which("clang++-19") or shutil.which("clang++")
    if not clang:
        print("skipped: no clang++")
        sys.exit(SKIP)
    exe = build("kernels_clang", os.path.basename(clang))
    check_all(run(exe, output=("total 2997000", "tools variable unset")), TREE, "clang++")


def tools_only(env, what):
    exe = build("kernels_plain", "g++", through_instr=False)
    lib = os.path.abspath(A.runtime)
    e = {"KOKKOS_PROFILE_LIBRARY": lib, "KOKKOS_TOOLS_LIBS": lib}
    e.update(env(lib))
    exp = run(exe, e, output=("total 2997000", "tools variable set"))  # the user's: never taken back
    # no instrumented functions: the Kokkos regions are the roots, nested in each other
    want = {tuple(x for x in p if x not in ("main", COMPUTE, COPIES)): v
            for p, v in TREE.items() if p[-1] not in ("main", COMPUTE, COPIES)}
    check_all(exp, want, what)


def case_tools_only():
    """Built without instr: only Kokkos's interface, the runtime named in the variables and
    preloaded (docs/kokkos.md: a late dlopen finds too little static TLS)."""
    tools_only(lambda lib: {"LD_PRELOAD": lib}, "tools only, preloaded")


def case_tools_dlopen():
    """The same, loaded by Kokkos's dlopen alone, with room for the runtime's TLS."""
    tools_only(lambda lib: {"GLIBC_TUNABLES": "glibc.rtld.optional_static_tls=16384"},
               "tools only, dlopen")


def case_unfiltered():
    """Through instr without a spec: Kokkos's inlined templates are instrumented too; every
    kernel stays under the program's function that launched it, with its visits."""
    exe = build("kernels_all", "g++", spec=False)
    exp = run(exe)
    _, regions, got = tree(exp)
    for kernel, fn, n in (("ComputeForces", COMPUTE, 3), ("SumForces", COMPUTE, 3),
                          ("PrefixSum", COMPUTE, 3), (COPY, COPIES, 4)):
        paths = {p: v for p, v in got.items() if p[-1] == kernel}
        expect(sum(paths.values()) == n and all(fn in p for p in paths),
               "unfiltered: %s at %r" % (kernel, paths))
    check_report(exp, "unfiltered")


def omp_kernel(cxx):
    """A kernel whose body forks an OpenMP team (progs/omp_kernel.cpp), as Kokkos's OpenMP
    backend does: the team's four threads are under the kernel's node."""
    exe = build("omp_kernel", cxx, prog="omp_kernel.cpp", flags=("-fopenmp",))
    exp = run(exe, {"INSTR_ENABLE_TRACING": "0"}, output="visits 8")
    prof, regions, got = tree(exp)
    nodes = {n["id"]: n for n in prof["tree"]}
    kernel = {p: v for p, v in got.items() if p[-1] == "OmpKernel"}
    expect(kernel == {("main", "launch(int*)", "OmpKernel"): 2}, "%s: kernel %r" % (cxx, kernel))
    work = [n for n in nodes.values() if regions[n["region"]]["name"] == "work(int*)"]
    paths = {p: v for p, v in got.items() if p[-1] == "work(int*)"}
    expect(len(paths) == 1, "%s: work at %r" % (cxx, paths))
    (path, visits), = paths.items()
    expect(visits == 8 and path[:3] == ("main", "launch(int*)", "OmpKernel") and
           path[3].startswith("!$omp parallel") and path[4].startswith("!$omp implicit task"),
           "%s: work at %r, %d visits" % (cxx, path, visits))
    locs = {l["location"] for n in work for l in n["locations"]}
    expect(len(locs) == 4, "%s: work on locations %r" % (cxx, sorted(locs)))


def case_omp_gcc():
    """g++ -fopenmp on GNU libgomp (the GOMP_* wrappers)."""
    omp_kernel("g++")


def case_omp_clang():
    """clang++-19 -fopenmp on LLVM's libomp (OMPT)."""
    clang = shutil.which("clang++-19")
    if not clang:
        print("skipped: no clang++-19")
        sys.exit(SKIP)
    omp_kernel("clang++-19")


MPI_TREE = {
    ("main",): 2,
    ("main", "Kokkos::View::initialization [a]"): 2,
    ("main", "step(Kokkos::View<double*>)"): 10,
    ("main", "step(Kokkos::View<double*>)", "Fill"): 10,
    ("main", "step(Kokkos::View<double*>)", "Sum"): 10,
    ("main", COPY): 2,
}


def case_mpi():
    """Two ranks through instr mpicxx (progs/mpi_kernels.cpp): the job's merged profile and
    trace have the Kokkos regions of both ranks; the job's one kokkos.txt at its top has each
    rank's report under "# rank N", and no rank has a directory of its own (no
    INSTR_RANK_FILES)."""
    if not (A.mpicxx and A.mpirun):
        print("skipped: no MPI (mpicxx, mpirun)")
        sys.exit(SKIP)
    exe = build("mpi_kernels", A.mpicxx, prog="mpi_kernels.cpp")
    rd = fresh_dir(os.path.join(A.work, A.case, "run"))
    exp = os.path.join(rd, "exp")
    env = clean_env({"INSTR_EXPERIMENT_DIRECTORY": exp, "INSTR_ENABLE_TRACING": "1"},
                    ("KOKKOS_TOOLS_LIBS", "KOKKOS_PROFILE_LIBRARY"))
    p = subprocess.run([A.mpirun, "-np", "2", "--oversubscribe", "--allow-run-as-root",
                        "--bind-to", "none", "-x", "INSTR_EXPERIMENT_DIRECTORY", "-x",
                        "INSTR_ENABLE_TRACING", exe], cwd=rd, env=env, capture_output=True,
                       text=True, timeout=240)
    expect(p.returncode == 0 and "total 49500" in p.stdout,
           "mpi: exit %d: %s %s" % (p.returncode, p.stdout[-1000:], p.stderr[-2000:]))
    prof, regions, got = tree(exp)
    shown = {q: v for q, v in got.items()
             if q[-1] in ("Fill", "Sum", COPY) or q[-1].startswith(("main", "step", "Kokkos::"))}
    expect(shown == MPI_TREE, "mpi: job call paths %r" % sorted(shown.items()))
    for r in regions.values():
        if r["name"] in ("Fill", "Sum", COPY):
            expect(r["source"] == "kokkos", "mpi: job region %r" % r)
    with open(os.path.join(exp, "kokkos.txt")) as f:
        lines = f.read().splitlines()
    heads = [k for k, l in enumerate(lines) if l.startswith("# rank ")]
    expect([lines[k] for k in heads] == ["# rank 0", "# rank 1"],
           "mpi: the job's kokkos.txt has sections %r" % [lines[k] for k in heads])
    for rank, (a, b) in enumerate(zip(heads, heads[1:] + [len(lines)])):
        expect("copy\tHost\tHost\t1\t800" in lines[a:b] and
               lines[a + 1].startswith("# instr Kokkos report"),
               "mpi: rank %d's section of kokkos.txt %r" % (rank, lines[a:b]))
    own = [d for d in os.listdir(exp) if d.startswith("rank-")]
    expect(not own, "mpi: directories of ranks %r without INSTR_RANK_FILES" % own)
    expect("kokkos.txt" in p.stderr and "profile.jdb, kokkos.txt" in p.stderr,
           "mpi: the job's line does not name kokkos.txt: %r" % p.stderr[-2000:])
    try:
        tr = T.load(os.path.join(exp, "traces.otf2"))
    except T.TraceError as e:
        raise Fail("mpi: %s" % e)
    probs = tr.problems()
    expect(not probs, "mpi: trace: %s" % probs[:5])
    enters = tr.enters_by_region()
    for name, canonical, role, n in (("Fill", "Kokkos::parallel_for Fill", "LOOP", 10),
                                     ("Sum", "Kokkos::parallel_reduce Sum", "LOOP", 10),
                                     (COPY, "Kokkos::" + COPY, "DATA_TRANSFER", 2)):
        r = tr.region_by_name(name)
        expect(r["canonical"] == canonical and r["role"] == role and
               r["paradigm"] == "KOKKOS" and enters.get(name) == n,
               "mpi: job trace region %r entered %r times" % (r, enters.get(name)))
    # INSTR_RANK_FILES=1: each rank's own rank-N/kokkos.txt too, equal to its section of the
    # job's.
    exp2 = os.path.join(rd, "exp_rank_files")
    env = clean_env({"INSTR_EXPERIMENT_DIRECTORY": exp2, "INSTR_RANK_FILES": "1"},
                    ("KOKKOS_TOOLS_LIBS", "KOKKOS_PROFILE_LIBRARY"))
    p = subprocess.run([A.mpirun, "-np", "2", "--oversubscribe", "--allow-run-as-root",
                        "--bind-to", "none", "-x", "INSTR_EXPERIMENT_DIRECTORY", "-x",
                        "INSTR_RANK_FILES", exe], cwd=rd, env=env, capture_output=True,
                       text=True, timeout=240)
    expect(p.returncode == 0, "mpi (INSTR_RANK_FILES=1): exit %d: %s" % (p.returncode,
                                                                          p.stderr[-2000:]))
    with open(os.path.join(exp2, "kokkos.txt")) as f:
        job = f.read()
    for rank in (0, 1):
        with open(os.path.join(exp2, "rank-%d" % rank, "kokkos.txt")) as f:
            own = f.read()
        expect("copy\tHost\tHost\t1\t800" in own.splitlines() and
               ("# rank %d\n" % rank + own) in job,
               "mpi: rank %d's own kokkos.txt %r is not its section of the job's %r"
               % (rank, own, job))


def main():
    global A
    ap = argparse.ArgumentParser()
    ap.add_argument("case")
    ap.add_argument("--wrapper", required=True)
    ap.add_argument("--runtime", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--mpicxx")
    ap.add_argument("--mpirun")
    A = ap.parse_args()
    if not have_kokkos():
        print("skipped: Kokkos is not installed (Debian: libtrilinos-kokkos-dev; "
              "scripts/install-deps.sh installs it)")
        return SKIP
    return run_case(globals(), A.case)


if __name__ == "__main__":
    sys.exit(main())
