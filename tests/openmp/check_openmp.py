#!/usr/bin/env python3
"""End-to-end checks of the OpenMP adapter (runtime/ompt/, docs/openmp.md): build
progs/constructs.c with the instr wrapper, run it with OMP_NUM_THREADS=4 on LLVM's libomp and
check exact per-thread visit counts, the nesting of instrumented functions under the implicit
task of the thread that ran them, source lines in region names, and the OTF2 trace.
Usage: check_openmp.py CASE --instr WRAPPER --src DIR --work DIR --lib DIR [--cc CC] [--libomp DIR]
Hybrid cases also take --cxx CLANG++ --mpicxx MPICXX --mpirun MPIRUN.
Cases: clang (clang -fopenmp, plugin hooks), clang_trace, clang_trace_only (the trace alone),
gcc_libomp (gcc -fopenmp linked with
libomp), gcc_preload (gcc -fopenmp on libgomp, run with LD_PRELOAD=libomp), libgomp (gcc
-fopenmp on libgomp, recorded through the GOMP_* wrappers of runtime/gomp/), gcc_trace,
libgomp_first (libgomp before libinstr-rt: one notice, functions still recorded), gomp_*
(gcc on libgomp against clang on libomp, see GOMP_CASES), serial, hybrid_*.
"""
import argparse
import os
import re
import signal
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from cases import Fail, expect, fresh_dir, run_case  # noqa: E402  tests/lib/cases.py

A = None
P = None  # tests/lib/profile.py
T = None  # tests/lib/otf2check.py

THREADS = 4
REGIONS, ITERS, TASKS = 5, 64, 8
OUTPUT = "sum 1895 crit 20 singles 5 tasks 40 locked 20 masked 5\n"


def markers(prog="constructs.c"):
    """{"parallel": line, ...} from the "// @name" comments of a program in progs/."""
    out = {}
    with open(os.path.join(A.src, "progs", prog)) as f:
        for n, line in enumerate(f, 1):
            m = re.search(r"// @(\w+)$", line.rstrip())
            if m:
                out[m.group(1)] = n
    return out


def build(prog, args, name, debug=("-g", "-O1")):
    wd = fresh_dir(os.path.join(A.work, A.case))
    exe = os.path.join(wd, name)
    cmd = [A.instr] + args + list(debug) + [os.path.join(A.src, "progs", prog), "-o", exe]
    p = subprocess.run(cmd, capture_output=True, cwd=wd)
    if p.returncode != 0:
        raise Fail("build failed: %s\n%s" % (" ".join(cmd), p.stderr.decode(errors="replace")))
    return wd, exe


def run(wd, exe, env=None):
    e = {k: v for k, v in os.environ.items() if not k.startswith(("INSTR_", "OMP_"))}
    e.update({"OMP_NUM_THREADS": str(THREADS), "INSTR_EXPERIMENT_DIRECTORY":
              os.path.join(wd, "exp")})
    e.update(env or {})
    p = subprocess.run([exe], cwd=wd, env=e, capture_output=True, timeout=120)
    err = p.stderr.decode(errors="replace").splitlines()
    return p.returncode, p.stdout.decode(errors="replace"), err, os.path.join(wd, "exp")


def by_location(prof, pred):
    """{location: visits} of the regions whose name satisfies pred."""
    reg = P.regions(prof)
    out = {}
    for n in prof["tree"]:
        if pred(reg[n["region"]]["name"]):
            for l in n["locations"]:
                out[l["location"]] = out.get(l["location"], 0) + l["visits"]
    return out


# libomp's GOMP entry points now and then report no code address, or one inside libomp itself
# (the region is then "!$omp task (create)", names.c: an address in libomp names no source):
# under gcc, such names count for the construct too.
GOMP_ADDRESSES = False


def named(prefix, line=None, src="constructs.c"):
    if line is None:
        return lambda s: s == prefix or s.startswith(prefix + " @")
    exact = "%s @%s:%d" % (prefix, src, line)
    if GOMP_ADDRESSES:
        return lambda s: s in (exact, prefix) or (s.startswith(prefix + " @") and
                                                  "constructs.c" not in s)
    return lambda s: s == exact


def every_thread(prof, pred, n, what):
    got = by_location(prof, pred)
    want = {l: n for l in range(THREADS)}
    expect(got == want, "%s: visits per thread %r, expected %r" % (what, got, want))


def ancestors(prof, node):
    reg = P.regions(prof)
    nodes = {n["id"]: n for n in prof["tree"]}
    out = []
    while node["parent"] is not None:
        node = nodes[node["parent"]]
        out.append(reg[node["region"]]["name"])
    return out


def check_nesting(prof, function, under, total):
    """Every visit of `function` is below an `under` region, on the same location; visits sum
    to total."""
    reg = P.regions(prof)
    seen = 0
    for n in prof["tree"]:
        if reg[n["region"]]["name"] != function:
            continue
        anc = ancestors(prof, n)
        expect(any(under(a) for a in anc),
               "%s at %s is not under the implicit task" % (function, ";".join(reversed(anc))))
        seen += n["visits"]
    expect(seen == total, "%s: %d visits, expected %d" % (function, seen, total))


def paths_by_location(prof):
    """{"main;!$omp parallel @f:L;...": {location: visits}} of the merged tree."""
    reg = P.regions(prof)
    path = {}
    out = {}
    for n in prof["tree"]:
        name = reg[n["region"]]["name"]
        path[n["id"]] = name if n["parent"] is None else path[n["parent"]] + ";" + name
        out[path[n["id"]]] = {l["location"]: l["visits"] for l in n["locations"]}
    return out


def check_fork_paths(prof, m):
    """Every thread's work is below the path where the team was forked: main is the only
    root, the implicit task is below main > parallel on every thread, and the parallel
    region's inclusive time covers each worker's implicit task."""
    reg = P.regions(prof)
    roots = [reg[n["region"]]["name"] for n in prof["tree"] if n["parent"] is None]
    expect(roots == ["main"], "roots %r, expected only main" % roots)
    par = "main;!$omp parallel @constructs.c:%d" % m["parallel"]
    itask = par + ";!$omp implicit task @constructs.c:%d" % m["parallel"]
    paths = paths_by_location(prof)
    want = {l: REGIONS for l in range(THREADS)}
    expect(paths.get(itask) == want, "%s: visits per thread %r, expected %r"
           % (itask, paths.get(itask), want))
    expect(paths.get(par) == {l: REGIONS if l == 0 else 0 for l in range(THREADS)},
           "%s: visits per thread %r (workers: 0)" % (par, paths.get(par)))
    nodes = {}
    for n in prof["tree"]:
        nodes.setdefault(reg[n["region"]]["name"], []).append(n)
    for pn in nodes["!$omp parallel @constructs.c:%d" % m["parallel"]]:
        children = [c for c in prof["tree"] if c["parent"] == pn["id"]]
        for l in pn["locations"]:
            below = sum(cl["inclusive"] for c in children for cl in c["locations"]
                        if cl["location"] == l["location"])
            expect(l["inclusive"] + 1 >= below and below > 0,
                   "parallel region on location %d: inclusive %d, its children %d"
                   % (l["location"], l["inclusive"], below))


OUTLINED = re.compile(r"omp_outlined|_omp_fn\.|omp_task_entry|_omp_cpyfn")


def check_no_outlined(names):
    """No region is named after (or in) a body the compiler outlined for a construct."""
    bad = [n for n in names if OUTLINED.search(n)]
    expect(not bad, "regions named after outlined bodies: %r" % bad)


def check_common(prof, m, gcc=False):
    global GOMP_ADDRESSES
    GOMP_ADDRESSES = gcc
    problems = P.check_consistency(prof)
    expect(not problems, "profile inconsistent: %s" % problems[:5])
    check_no_outlined(r["name"] for r in prof["regions"])
    expect(len(prof["locations"]) == THREADS,
           "%d locations, expected %d" % (len(prof["locations"]), THREADS))
    par = by_location(prof, named("!$omp parallel", m["parallel"]))
    want = {l: REGIONS if l == 0 else 0 for l in range(THREADS)}  # workers: the fork path
    expect(par == want, "parallel region visits %r, expected %r" % (par, want))
    every_thread(prof, named("!$omp implicit task", m["parallel"]), REGIONS, "implicit task")
    every_thread(prof, named("!$omp implicit barrier", m["parallel"]), REGIONS,
                 "implicit barrier of the parallel region")
    every_thread(prof, named("!$omp critical", m["critical"]), REGIONS, "critical")
    every_thread(prof, named("!$omp critical (wait)", m["critical"]), REGIONS, "critical wait")
    every_thread(prof, named("omp_set_lock", m["lock"]), REGIONS, "omp_set_lock")
    every_thread(prof, named("omp_set_lock (wait)", m["lock"]), REGIONS, "omp_set_lock wait")
    if not gcc:
        every_thread(prof, named("!$omp single", m["single"]), REGIONS, "single")
        every_thread(prof, named("!$omp barrier", m["barrier"]), REGIONS, "explicit barrier")
    else:
        # libomp's GOMP entry points report every barrier as a runtime barrier, and gcc's
        # line table puts GOMP_single_start on another line (docs/openmp.md)
        every_thread(prof, named("!$omp single"), REGIONS, "single")
        every_thread(prof, named("!$omp barrier (runtime)", m["barrier"]), REGIONS,
                     "explicit barrier")
    tasks = P.visits_by_region(prof)
    created = sum(v for k, v in tasks.items() if named("!$omp task (create)", m["task"])(k))
    ran = sum(v for k, v in tasks.items() if named("!$omp task", m["task"])(k))
    expect(created == REGIONS * TASKS, "tasks created %d, expected %d" % (created, REGIONS * TASKS))
    expect(ran == REGIONS * TASKS, "tasks run %d, expected %d" % (ran, REGIONS * TASKS))
    check_nesting(prof, "task_body", named("!$omp task", m["task"]), REGIONS * TASKS)
    check_nesting(prof, "kernel", named("!$omp implicit task", m["parallel"]), REGIONS * ITERS)
    kernel = by_location(prof, lambda s: s == "kernel")
    if not gcc:
        every_thread(prof, named("!$omp for", m["for"]), REGIONS, "for")
        expect(kernel == {l: REGIONS * ITERS // THREADS for l in range(THREADS)},
               "kernel visits per thread %r (static schedule)" % kernel)
        every_thread(prof, named("!$omp implicit barrier", m["for"]), REGIONS,
                     "implicit barrier of the loop")
        masked = by_location(prof, named("!$omp masked", m["masked"]))
        expect(masked == {0: REGIONS}, "masked visits %r" % masked)
        tw = by_location(prof, named("!$omp taskwait", m["taskwait"]))
        expect(sum(tw.values()) == REGIONS, "taskwait visits %r" % tw)
    check_fork_paths(prof, m)
    if not gcc:
        loop = "main;!$omp parallel @constructs.c:%d;!$omp implicit task @constructs.c:%d;" \
               "!$omp for @constructs.c:%d;kernel" % (m["parallel"], m["parallel"], m["for"])
        got = paths_by_location(prof).get(loop)
        want = {l: REGIONS * ITERS // THREADS for l in range(THREADS)}
        expect(got == want, "%s: visits per thread %r, expected %r" % (loop, got, want))
        # explicit tasks under their creation path, whichever thread ran them
        task = "main;!$omp parallel @constructs.c:%d;!$omp implicit task @constructs.c:%d;" \
               "!$omp single @constructs.c:%d;!$omp task @constructs.c:%d;task_body" \
               % (m["parallel"], m["parallel"], m["single"], m["task"])
        got = paths_by_location(prof).get(task, {})
        expect(sum(got.values()) == REGIONS * TASKS,
               "%s: visits per thread %r, expected %d in all" % (task, got, REGIONS * TASKS))


def case_clang():
    wd, exe = build("constructs.c", [A.cc, "-fopenmp"], "constructs")
    rc, out, err, exp = run(wd, exe)
    expect(rc == 0 and out == OUTPUT, "rc %d, output %r" % (rc, out))
    expect(not any("libgomp" in l for l in err), "libgomp notice on libomp: %r" % err)
    check_common(P.load(exp), markers())


def case_clang_xray():
    # XRay mode: the plugin marks outlined bodies xray-never like every built-in exclusion
    wd, exe = build("constructs.c", ["--mode=xray", A.cc, "-fopenmp"], "constructs")
    rc, out, err, exp = run(wd, exe)
    expect(rc == 0 and out == OUTPUT, "rc %d, output %r" % (rc, out))
    check_common(P.load(exp), markers())


def case_clang_trace():
    check_trace([A.cc, "-fopenmp"])


def case_gcc_trace():
    # gcc on GNU libgomp (runtime/gomp/): the same trace checks as for clang on libomp
    check_trace(["gcc", "-fopenmp"])


def case_clang_trace_only():
    # The trace alone (no profile): the direct trace path, on which the master closes its
    # workers' late-ending constructs in their records; the visits compared with a profile
    # run's.
    check_trace([A.cc, "-fopenmp"], trace_only=True)


def check_trace(compiler, trace_only=False):
    wd, exe = build("constructs.c", compiler, "constructs")
    env = {"INSTR_ENABLE_TRACING": "1"}
    if trace_only:
        env["INSTR_ENABLE_PROFILING"] = "0"
    rc, out, err, exp = run(wd, exe, env)
    expect(rc == 0 and out == OUTPUT, "rc %d, output %r" % (rc, out))
    if trace_only:
        expect(not os.path.exists(os.path.join(exp, "profile.json")), "a profile without profiling")
        prof_exp = os.path.join(wd, "exp_profile")
        rc, out, err, _ = run(wd, exe, {"INSTR_EXPERIMENT_DIRECTORY": prof_exp})
        expect(rc == 0 and out == OUTPUT, "profile run: rc %d, output %r" % (rc, out))
        prof = P.load(prof_exp)
    else:
        prof = P.load(exp)
    tr = T.load(exp)
    check_no_outlined(r["name"] for r in tr.regions.values())
    problems = tr.problems()
    expect(not problems, "trace problems: %s" % problems[:5])
    expect(len(tr.locations) == THREADS, "%d trace locations" % len(tr.locations))
    # the same visits as the profile, per region name
    enters = {}
    for ref, n in tr.enters_by_region().items():
        enters[ref] = n
    visits = P.visits_by_region(prof)
    expect(enters == visits, "trace enters differ from profile visits:\n%r\n%r"
           % (sorted(enters.items()), sorted(visits.items())))
    forks = sum(1 for (typ, _, _) in tr.events.get(0, []) if typ == "THREAD_FORK")
    joins = sum(1 for (typ, _, _) in tr.events.get(0, []) if typ == "THREAD_JOIN")
    expect(forks == REGIONS and joins == REGIONS,
           "location 0: %d ThreadFork, %d ThreadJoin, expected %d each" % (forks, joins, REGIONS))
    # Causality, not timing: a worker's k-th implicit task lies within the k-th fork/join of
    # the master (libomp reports a worker's end only at the next fork; the adapter must not).
    fork_t = [ts for (typ, ts, _) in tr.events[0] if typ == "THREAD_FORK"]
    join_t = [ts for (typ, ts, _) in tr.events[0] if typ == "THREAD_JOIN"]
    itask = {ref for ref, r in tr.regions.items() if r["name"].startswith("!$omp implicit task")}
    for l in range(1, THREADS):
        ev = [(typ, ts) for (typ, ts, reg) in tr.events.get(l, []) if reg in itask]
        enters = [ts for (typ, ts) in ev if typ == "ENTER"]
        leaves = [ts for (typ, ts) in ev if typ == "LEAVE"]
        expect(len(enters) == REGIONS and len(leaves) == REGIONS,
               "location %d: %d/%d implicit task enters/leaves" % (l, len(enters), len(leaves)))
        for k in range(REGIONS):
            expect(fork_t[k] <= enters[k] and leaves[k] <= join_t[k],
                   "location %d: implicit task %d [%d, %d] outside fork/join [%d, %d]"
                   % (l, k, enters[k], leaves[k], fork_t[k], join_t[k]))
    others = [l for l in tr.events if l != 0 and
              any(typ.startswith("THREAD_") for (typ, _, _) in tr.events[l])]
    expect(not others, "fork/join on worker locations %r" % others)
    roles = {r["name"].split(" @")[0]: (r["role"], r["paradigm"]) for r in tr.regions.values()}
    expect(roles.get("!$omp parallel") == ("PARALLEL", "OPENMP"),
           "parallel region role/paradigm %r" % (roles.get("!$omp parallel"),))
    expect(roles.get("!$omp implicit barrier") == ("IMPLICIT_BARRIER", "OPENMP"),
           "implicit barrier role/paradigm %r" % (roles.get("!$omp implicit barrier"),))
    expect(roles.get("kernel", ("", ""))[1] == "COMPILER", "kernel paradigm %r" % (roles.get("kernel"),))


def case_nested():
    # outer team of 2, each thread forks an inner team of 2 (progs/nested.c)
    rounds, calls = 3, 5
    wd, exe = build("nested.c", [A.cc, "-fopenmp"], "nested")
    rc, out, err, exp = run(wd, exe, {"OMP_MAX_ACTIVE_LEVELS": "2"})
    expect(rc == 0 and out == "rounds 3 arrived 12\n", "rc %d, output %r" % (rc, out))
    prof = P.load(exp)
    problems = P.check_consistency(prof)
    expect(not problems, "profile inconsistent: %s" % problems[:5])
    expect(len(prof["locations"]) == THREADS, "%d locations" % len(prof["locations"]))
    check_no_outlined(r["name"] for r in prof["regions"])
    m = markers("nested.c")
    outer = "main;!$omp parallel @nested.c:%d;!$omp implicit task @nested.c:%d;inner" \
        % (m["outer"], m["outer"])
    inner = outer + ";!$omp parallel @nested.c:%d;!$omp implicit task @nested.c:%d" \
        % (m["inner"], m["inner"])
    paths = paths_by_location(prof)
    everyone = range(THREADS)
    for path, want in [(inner, {l: rounds for l in everyone}),
                       (inner + ";kernel", {l: rounds * calls for l in everyone}),
                       (inner + ";rendezvous", {l: rounds for l in everyone})]:
        expect(paths.get(path) == want, "%s: visits per thread %r, expected %r"
               % (path, paths.get(path), want))
    # the outer team: the master and one worker; the inner masters are those two
    expect(sorted(paths.get(outer, {}).values()) == [0, 0, rounds, rounds],
           "%s: visits per thread %r" % (outer, paths.get(outer)))
    reg = P.regions(prof)
    roots = [reg[n["region"]]["name"] for n in prof["tree"] if n["parent"] is None]
    expect(roots == ["main"], "roots %r, expected only main" % roots)


SITES_OUT = "11394\n"


def cxx():
    """clang++ next to the C compiler (clang-19 -> clang++-19)."""
    d, b = os.path.split(A.cc)
    return os.path.join(d, b.replace("clang", "clang++", 1))


def sites_names(exp):
    prof = P.load(exp)
    problems = P.check_consistency(prof)
    expect(not problems, "profile inconsistent: %s" % problems[:5])
    names = [r["name"] for r in prof["regions"]]
    check_no_outlined(names)
    expect(len(set(names)) == len(names), "regions with equal names: %r" % names)
    return [n for n in names if n.startswith("!$omp")]


def sites_nodebug(compiler):
    # -fopenmp -O2 without -g: the wrapper adds line tables; unrolled copies of a construct
    # are one region (clang); gcc's GOMP_* calls at -O2 can carry a neighbouring line, so its
    # sites are named from the outlined body's entry (docs/openmp.md, "Names")
    wd, exe = build("sites.cpp", [compiler, "-fopenmp"], "sites", debug=("-O2",))
    rc, out, err, exp = run(wd, exe)
    expect(rc == 0 and out == SITES_OUT, "rc %d, output %r" % (rc, out))
    names = sites_names(exp)
    m = markers("sites.cpp")
    lineless = [n for n in names if not re.search(r" @sites\.cpp:\d+$", n)]
    expect(not lineless, "OpenMP regions without @sites.cpp:LINE: %r" % lineless)
    for c, k in [("!$omp parallel", "for1"), ("!$omp for", "for1"), ("!$omp parallel", "for2"),
                 ("!$omp for", "for2"), ("!$omp barrier", "barrier1"),
                 ("!$omp barrier", "barrier2"), ("!$omp parallel", "par")]:
        want = "%s @sites.cpp:%d" % (c, m[k])
        expect(want in names, "no region %r in %r" % (want, names))
    expect(len(names) == 13, "%d OpenMP regions, expected 13: %r" % (len(names), names))


def sites_fallback(compiler):
    # -g0: no line is known; names carry the enclosing function demangled, and sites with
    # equal names are told apart by #2, #3
    wd, exe = build("sites.cpp", [compiler, "-fopenmp"], "sites", debug=("-g0", "-O2"))
    rc, out, err, exp = run(wd, exe)
    expect(rc == 0 and out == SITES_OUT, "rc %d, output %r" % (rc, out))
    names = sites_names(exp)
    mangled = [n for n in names if "_Z" in n]
    expect(not mangled, "mangled names: %r" % mangled)
    barriers = sorted(n for n in names if n.startswith("!$omp barrier"))
    expect(barriers == ["!$omp barrier @app::sweep", "!$omp barrier @app::sweep #2"],
           "barriers %r" % barriers)
    loops = sorted(n for n in names if n.startswith("!$omp for"))
    expect(loops == ["!$omp for @app::sweep", "!$omp for @app::sweep #2"], "loops %r" % loops)
    parallels = sorted(n for n in names if n.startswith("!$omp parallel"))
    expect(parallels == ["!$omp parallel @app::sweep", "!$omp parallel @app::sweep #2",
                         "!$omp parallel @app::sweep #3"], "parallel regions %r" % parallels)


def case_cxx_nodebug():
    sites_nodebug(cxx())


def case_cxx_fallback():
    sites_fallback(cxx())


def case_gomp_sites():
    # the same program with g++ on GNU libgomp: the same 13 regions and names as clang++'s
    sites_nodebug("g++")
    sites_fallback("g++")


def total(prof, pred):
    return sum(by_location(prof, pred).values())


def under(prof, function, pred):
    """Visits of `function` below a region whose name satisfies pred."""
    reg = P.regions(prof)
    return sum(n["visits"] for n in prof["tree"] if reg[n["region"]]["name"] == function and
               any(pred(a) for a in ancestors(prof, n)))


def case_more():
    # teams/distribute, ordered, master/masked, single, taskloop (progs/more.c); atomic is
    # native under clang (libomp reports only lock-based atomics: case more_gcc)
    wd, exe = build("more.c", [A.cc, "-fopenmp", "-latomic"], "more")
    rc, out, err, exp = run(wd, exe)
    expect(rc == 0 and out == "distributed 16 ordered 16 atomic 4 masters 1 maskeds 1 "
           "singles 1 looped 16\n", "rc %d, output %r" % (rc, out))
    prof = P.load(exp)
    problems = P.check_consistency(prof)
    expect(not problems, "profile inconsistent: %s" % problems[:5])
    check_no_outlined(r["name"] for r in prof["regions"])
    m = markers("more.c")
    at = lambda c, k: named(c, m[k], "more.c")  # noqa: E731
    teams = by_location(prof, at("!$omp teams", "teams"))  # the other team: its fork path
    expect({l: v for l, v in teams.items() if v} == {0: 1} and len(teams) == 2,
           "teams %r" % teams)
    expect(total(prof, at("!$omp initial task", "teams")) == 2, "initial tasks")
    expect(total(prof, at("!$omp distribute", "distribute")) == 2, "distribute")
    expect(under(prof, "work", at("!$omp distribute", "distribute")) == 16, "work in distribute")
    expect(total(prof, at("!$omp ordered", "ordered")) == 16, "ordered")
    expect(total(prof, at("!$omp ordered (wait)", "ordered")) == 16, "ordered wait")
    # master and masked are both masked constructs: one name
    expect(by_location(prof, at("!$omp masked", "master")) == {0: 1}, "master")
    expect(by_location(prof, at("!$omp masked", "masked")) == {0: 1}, "masked")
    every_thread(prof, at("!$omp single", "single"), 1, "single")
    expect(total(prof, named("!$omp taskloop")) == 1, "taskloop")
    expect(under(prof, "work", named("!$omp task")) == 16, "work in taskloop tasks")
    reg = P.regions(prof)
    roots = [reg[n["region"]]["name"] for n in prof["tree"] if n["parent"] is None]
    expect(roots == ["main"], "roots %r, expected only main" % roots)


def case_more_gcc():
    # gcc on libomp: a long double atomic goes through GOMP_atomic_start, a lock libomp reports
    wd, exe = build("more.c", ["gcc", "-fopenmp", "-L" + A.libomp, "-lomp",
                               "-Wl,-rpath," + A.libomp], "more")
    rc, out, err, exp = run(wd, exe)
    expect(rc == 0 and out.startswith("distributed 16 ordered 16 atomic 4"),
           "rc %d, output %r" % (rc, out))
    prof = P.load(exp)
    check_no_outlined(r["name"] for r in prof["regions"])
    m = markers("more.c")
    # gcc's line table puts the call on the line of the atomic's statement (the next one)
    atomic = by_location(prof, named("!$omp atomic", m["atomic"] + 1, "more.c"))
    expect(atomic == {l: 1 for l in range(THREADS)}, "atomic per thread %r" % atomic)
    expect(total(prof, named("!$omp atomic (wait)", m["atomic"] + 1, "more.c")) == THREADS,
           "atomic wait")


def case_tasks():
    # nested tied tasks under their creation paths, untied tasks where they ran (progs/tasks.c)
    depth, untied = 6, 100
    wd, exe = build("tasks.c", [A.cc, "-fopenmp"], "tasks")
    rc, out, err, exp = run(wd, exe)
    expect(rc == 0 and out == "tree %d untied %d\n" % (2 ** (depth + 1) - 1, untied),
           "rc %d, output %r" % (rc, out))
    prof = P.load(exp)
    problems = P.check_consistency(prof)
    expect(not problems, "profile inconsistent: %s" % problems[:5])
    check_no_outlined(r["name"] for r in prof["regions"])
    m = markers("tasks.c")
    paths = paths_by_location(prof)
    path = "main;!$omp parallel @tasks.c:%d;!$omp implicit task @tasks.c:%d;" \
           "!$omp single @tasks.c:%d;!$omp task @tasks.c:%d" \
           % (m["parallel"], m["parallel"], m["single"], m["root"])
    for level in range(depth + 1):
        got = sum(paths.get(path + ";tree;leaf", {}).values())
        expect(got == 2 ** level, "level %d: %s;tree;leaf: %d visits, expected %d"
               % (level, path, got, 2 ** level))
        path += ";tree;!$omp task @tasks.c:%d" % m["inner"]
    at = lambda c, k: named(c, m[k], "tasks.c")  # noqa: E731
    expect(total(prof, at("!$omp task", "untied")) == untied, "untied tasks run")
    expect(total(prof, at("!$omp task (create)", "untied")) == untied, "untied tasks created")
    expect(P.visits_by_region(prof).get("leaf") == 2 ** (depth + 1) - 1 + 2 * untied,
           "leaf visits %r" % P.visits_by_region(prof).get("leaf"))


def case_gcc_libomp():
    # gcc -fopenmp, but linked with LLVM's libomp instead of libgomp (docs/openmp.md)
    wd, exe = build("constructs.c", ["gcc", "-fopenmp", "-L" + A.libomp, "-lomp",
                                     "-Wl,-rpath," + A.libomp], "constructs")
    p = subprocess.run(["ldd", exe], capture_output=True)
    expect(b"libgomp" not in p.stdout, "linked with libgomp: %r" % p.stdout)
    rc, out, err, exp = run(wd, exe)
    expect(rc == 0 and out == OUTPUT, "rc %d, output %r" % (rc, out))
    check_common(P.load(exp), markers(), gcc=True)
    check_markers_idle(P.load(exp))


def check_markers_idle(prof):
    """On libomp the GCC plugin's construct markers record nothing (runtime/gomp/constructs.c):
    libomp's OMPT records the program's constructs, none twice, and those gcc computes inline
    not at all (docs/openmp.md)."""
    names = [r["name"] for r in prof["regions"]]
    extra = [n for n in names if n.startswith(("!$omp for", "!$omp masked",
                                               "!$omp implicit barrier @constructs.c:%d"
                                               % markers()["for"]))]
    expect(not extra, "constructs recorded by the markers on libomp: %r" % extra)


def case_gcc_preload():
    # gcc -fopenmp linked with libgomp as usual, run with libomp preloaded (docs/openmp.md)
    wd, exe = build("constructs.c", ["gcc", "-fopenmp"], "constructs")
    libomp = os.path.join(A.libomp, "libomp.so.5")
    if not os.path.exists(libomp):
        libomp = os.path.join(A.libomp, "libomp.so")
    rc, out, err, exp = run(wd, exe, {"LD_PRELOAD": libomp})
    expect(rc == 0 and out == OUTPUT, "rc %d, output %r" % (rc, out))
    expect(not any(l.startswith("instr: OpenMP:") for l in err), "OpenMP notice: %r" % err)
    check_common(P.load(exp), markers(), gcc=True)
    check_markers_idle(P.load(exp))


def case_libgomp():
    # gcc -fopenmp on GNU libgomp: its constructs recorded through the GOMP_* wrappers
    # (runtime/gomp/); the comparison with clang is in the gomp_* cases
    global GOMP_ADDRESSES
    wd, exe = build("constructs.c", ["gcc", "-fopenmp"], "constructs")
    rc, out, err, exp = run(wd, exe)
    expect(rc == 0 and out == OUTPUT, "rc %d, output %r" % (rc, out))
    expect(not any(l.startswith("instr: OpenMP:") for l in err), "OpenMP notice: %r" % err)
    prof = P.load(exp)
    problems = P.check_consistency(prof)
    expect(not problems, "profile inconsistent: %s" % problems[:5])
    check_no_outlined(r["name"] for r in prof["regions"])
    m = markers()
    GOMP_ADDRESSES = False
    every_thread(prof, named("!$omp implicit task", m["parallel"]), REGIONS, "implicit task")
    every_thread(prof, named("!$omp implicit barrier", m["parallel"]), REGIONS,
                 "implicit barrier of the parallel region")
    every_thread(prof, named("!$omp critical", m["critical"]), REGIONS, "critical")
    every_thread(prof, named("!$omp critical (wait)", m["critical"]), REGIONS, "critical wait")
    every_thread(prof, named("omp_set_lock", m["lock"]), REGIONS, "omp_set_lock")
    every_thread(prof, named("!$omp single"), REGIONS, "single")
    # the explicit barrier; those gcc calls at the end of the static loop and of single are
    # their implicit barriers (the GCC plugin marks both constructs)
    every_thread(prof, named("!$omp barrier"), REGIONS, "barriers")
    every_thread(prof, named("!$omp barrier", m["barrier"]), REGIONS, "explicit barrier")
    every_thread(prof, named("!$omp implicit barrier", m["for"]), REGIONS,
                 "implicit barrier of the loop")
    every_thread(prof, named("!$omp implicit barrier", m["single"]), REGIONS,
                 "implicit barrier of single")
    every_thread(prof, named("!$omp single", m["single"]), REGIONS, "single")
    every_thread(prof, named("!$omp for", m["for"]), REGIONS, "static loop")
    masked = by_location(prof, named("!$omp masked", m["masked"]))
    expect(masked == {0: REGIONS}, "masked visits %r" % masked)
    visits = P.visits_by_region(prof)
    created = sum(v for k, v in visits.items() if named("!$omp task (create)")(k))
    expect(created == REGIONS * TASKS, "tasks created %d" % created)
    check_nesting(prof, "task_body", named("!$omp task"), REGIONS * TASKS)
    check_nesting(prof, "kernel", named("!$omp implicit task", m["parallel"]), REGIONS * ITERS)
    kernel = by_location(prof, lambda s: s == "kernel")
    expect(kernel == {l: REGIONS * ITERS // THREADS for l in range(THREADS)},
           "kernel visits per thread %r (static schedule)" % kernel)
    check_fork_paths(prof, m)
    loop = "main;!$omp parallel @constructs.c:%d;!$omp implicit task @constructs.c:%d;" \
           "!$omp for @constructs.c:%d;kernel" % (m["parallel"], m["parallel"], m["for"])
    got = paths_by_location(prof).get(loop)
    want = {l: REGIONS * ITERS // THREADS for l in range(THREADS)}
    expect(got == want, "%s: visits per thread %r, expected %r" % (loop, got, want))


def case_libgomp_first():
    # libgomp before libinstr-rt in the search order: the GOMP_* calls do not reach the
    # wrappers; one notice says so, and the functions are still recorded
    wd, exe = build("constructs.c", ["gcc", "-fopenmp", "-Wl,--no-as-needed", "-lgomp"],
                    "constructs")
    rc, out, err, exp = run(wd, exe)
    expect(rc == 0 and out == OUTPUT, "rc %d, output %r" % (rc, out))
    notice = [l for l in err if l.startswith("instr: OpenMP:")]
    expect(len(notice) == 1 and "not recorded" in notice[0],
           "expected one notice about libgomp, got %r" % err)
    visits = P.visits_by_region(P.load(exp))
    expect(not any(k.startswith("!$omp") for k in visits), "OpenMP regions? %r" % visits)
    expect(visits.get("kernel") == REGIONS * ITERS, "kernel visits %r" % visits.get("kernel"))


# ---- gcc on GNU libgomp (runtime/gomp/, docs/openmp.md "gcc -fopenmp"): every program of
# progs/ built with gcc (libgomp, no -g: the wrapper adds line tables) gives the call tree it
# gives built with clang on libomp, at OMP_NUM_THREADS=1, 2 and 4, but for the differences that
# come from the runtimes, applied below to the clang tree (or the gcc tree) and listed in
# docs/openmp.md:
#   - a loop with a static schedule and `master`/`masked` make no runtime call under gcc: no
#     `!$omp for` (its calls are in the implicit task) and no `!$omp masked`;
#   - the barrier at the end of a static loop or of a single is a plain GOMP_barrier call:
#     `!$omp barrier` where clang has `!$omp implicit barrier`;
#   - gcc asks libgomp for a lock for a long double atomic and for the combination of several
#     reduction variables (`!$omp atomic`); clang's atomic is native, its reduction no region;
#   - a taskloop's taskgroup waits inside GOMP_taskloop: no `!$omp taskgroup (wait)`;
#   - `teams` on the host is not recorded under gcc (libgomp runs the teams one after another
#     on the encountering thread): more.c is compared below its parallel region;
#   - libgomp starts fresh threads for every nested team: nested.c is compared in visits per
#     path, not per thread; so are explicit tasks and single, which any thread may run;
#   - untied tasks are recorded where they run (Limits): left out, with the calls an untied
#     task that moved to another thread makes after its region ended there (`leaf` right
#     under a barrier or taskwait).

GOMP_CASES = {
    # program: (clang names dropped, clang names renamed to !$omp barrier, gcc names dropped,
    #           paths ignored on both sides, environment)
    "constructs": ([], [], [], [], {}),
    "static": ([], [], ["!$omp atomic", "!$omp atomic (wait)"], [], {}),
    "more": (["!$omp taskgroup (wait)"], [], ["!$omp atomic", "!$omp atomic (wait)"],
             [r"^main;(?!!\$omp parallel)"], {}),
    "nested": ([], [], [], [], {"OMP_MAX_ACTIVE_LEVELS": "2"}),
    "tasks": ([], [], [],
              [r"!\$omp task @tasks\.c:{untied}(;|$)", r"(barrier|taskwait)( @[^;]*)?;leaf$"],
              {}),
}


def gomp_tree(prof, drop, rename, ignore):
    """{path with the source lines left out: {location: visits}} of the profile's merged tree;
    a dropped region's children move up to its parent; paths matching an `ignore` pattern
    (with their source lines) are left out."""
    reg = P.regions(prof)
    path, lined, out = {}, {}, {}
    for n in prof["tree"]:
        name = reg[n["region"]]["name"]
        parent = path.get(n["parent"], "") if n["parent"] is not None else ""
        parent_lined = lined.get(n["parent"], "") if n["parent"] is not None else ""
        if any(name == d or name.startswith(d + " @") for d in drop):
            path[n["id"]], lined[n["id"]] = parent, parent_lined
            continue
        if name in rename:
            name = "!$omp barrier"
        p = (parent + ";" if parent else "") + re.sub(r" @.*$", "", name)
        full = (parent_lined + ";" if parent_lined else "") + name
        path[n["id"]], lined[n["id"]] = p, full
        if any(re.search(i, full) for i in ignore):
            continue
        d = out.setdefault(p, {})
        for l in n["locations"]:
            if l["visits"]:
                d[l["location"]] = d.get(l["location"], 0) + l["visits"]
    return {k: v for k, v in out.items() if v}


def gomp_compare(prog):
    global THREADS
    m = markers(prog + ".c")
    fill = lambda xs: [x.format(**m) for x in xs]  # noqa: E731
    cdrop, crename, gdrop, ignore, env = GOMP_CASES[prog]
    cdrop, crename, gdrop, ignore = fill(cdrop), fill(crename), fill(gdrop), fill(ignore)
    extra = ["-latomic"] if prog == "more" else []
    wd, clang_exe = build(prog + ".c", [A.cc, "-fopenmp"] + extra, prog + "_clang")
    gcc_exe = os.path.join(wd, prog + "_gcc")
    cmd = [A.instr, "gcc", "-fopenmp", "-O1", os.path.join(A.src, "progs", prog + ".c"), "-o",
           gcc_exe]
    p = subprocess.run(cmd, capture_output=True, cwd=wd)
    expect(p.returncode == 0, "build failed: %s\n%s" % (" ".join(cmd), p.stderr.decode()))
    ldd = subprocess.run(["ldd", gcc_exe], capture_output=True).stdout.decode()
    expect("libgomp" in ldd and "libomp" not in ldd, "gcc program not on libgomp: %s" % ldd)
    for threads in (1, 2, 4):
        THREADS = threads
        trees = {}
        for kind, exe in (("clang", clang_exe), ("gcc", gcc_exe)):
            exp = os.path.join(wd, "exp-%s-%d" % (kind, threads))
            rc, out, err, _ = run(wd, exe, dict(env, INSTR_EXPERIMENT_DIRECTORY=exp))
            expect(rc == 0, "%s at %d threads: rc %d" % (kind, threads, rc))
            expect(not any("libgomp" in l for l in err), "libgomp notice: %r" % err)
            prof = P.load(exp)
            problems = P.check_consistency(prof)
            expect(not problems, "%s: profile inconsistent: %s" % (kind, problems[:5]))
            check_no_outlined(r["name"] for r in prof["regions"])
            if kind == "gcc":
                # names carry their source line also without -g
                bad = [r["name"] for r in prof["regions"] if r["name"].startswith("!$omp") and
                       " @%s.c:" % prog not in r["name"]]
                expect(not bad, "gcc regions without a source line: %r" % bad)
                trees[kind] = gomp_tree(prof, gdrop, [], ignore)
            else:
                trees[kind] = gomp_tree(prof, cdrop, crename, ignore)
        c, g = trees["clang"], trees["gcc"]
        diff = sorted(set(c) ^ set(g))
        expect(not diff, "%s at %d threads: paths only in one tree: %s" % (prog, threads, [
            ("clang" if k in c else "gcc", k) for k in diff]))
        for k in sorted(c):
            exact = prog != "nested" and not re.search(r"!\$omp (single|task)", k)
            a, b = c[k], g[k]
            if not exact:
                a, b = sum(a.values()), sum(b.values())
            elif re.search(r"!\$omp masked", k):
                # masked filter(n), n > 0: thread n is a location of its own, but the
                # runtimes number workers' locations in the order they start
                a, b = (a.get(0), sorted(a.values())), (b.get(0), sorted(b.values()))
            expect(a == b, "%s at %d threads: %s: clang %r, gcc %r" % (prog, threads, k, a, b))
    if prog == "static" and os.environ.get("OTF2_PRINT"):
        # gcc's trace with the markers' regions: read by otf2-print -A -Werror, balanced per
        # location, its Enter counts the profile's visits
        exp = os.path.join(wd, "exp-gcc-trace")
        rc, out, err, _ = run(wd, gcc_exe, dict(env, INSTR_EXPERIMENT_DIRECTORY=exp,
                                                INSTR_ENABLE_TRACING="1"))
        expect(rc == 0, "traced run: rc %d" % rc)
        tr = T.load(exp)
        problems = tr.problems()
        expect(not problems, "trace problems: %s" % problems[:5])
        enters, visits = tr.enters_by_region(), P.visits_by_region(P.load(exp))
        expect(enters == visits, "trace enters %r, profile visits %r"
               % (sorted(enters.items()), sorted(visits.items())))


def case_gomp_constructs():
    gomp_compare("constructs")


def case_gomp_more():
    gomp_compare("more")


def case_gomp_static():
    gomp_compare("static")


def case_gomp_nested():
    gomp_compare("nested")


def case_gomp_tasks():
    gomp_compare("tasks")


def case_gomp_entries():
    # gcc on GNU libgomp: the GOMP_* entry points of progs/entries.c, exact visits per thread
    global THREADS
    m = markers("entries.c")
    wd = fresh_dir(os.path.join(A.work, A.case))
    exe = os.path.join(wd, "entries")
    cmd = [A.instr, "gcc", "-fopenmp", "-O1", os.path.join(A.src, "progs", "entries.c"), "-o",
           exe]
    p = subprocess.run(cmd, capture_output=True, cwd=wd)
    expect(p.returncode == 0, "build failed: %s\n%s" % (" ".join(cmd), p.stderr.decode()))
    syms = subprocess.run(["nm", exe], capture_output=True).stdout.decode()
    for f in ("GOMP_parallel_start", "GOMP_teams_reg", "GOMP_loop_doacross_static_start",
              "GOMP_cancel"):
        expect(f in syms, "the program calls no %s" % f)
    for threads in (1, 2, 4):
        THREADS = threads
        exp = os.path.join(wd, "exp-%d" % threads)
        rc, out, err, _ = run(wd, exe, {"INSTR_EXPERIMENT_DIRECTORY": exp,
                                         "OMP_CANCELLATION": "true"})
        expect(rc == 0 and out == "cancelled %d\n" % threads, "rc %d, output %r" % (rc, out))
        prof = P.load(exp)
        problems = P.check_consistency(prof)
        expect(not problems, "profile inconsistent: %s" % problems[:5])
        check_no_outlined(r["name"] for r in prof["regions"])
        # gcc's line table may put a call a line or two off its construct (docs/openmp.md)
        for c, k in (("!$omp parallel", "old"), ("!$omp teams", "teams"),
                     ("!$omp distribute", "distribute"), ("!$omp scope", "scope"),
                     ("!$omp for", "cancel_for"), ("!$omp parallel", "parallel")):
            lines = [int(r["name"].rsplit(":", 1)[1]) for r in prof["regions"]
                     if r["name"].startswith(c + " @entries.c:")]
            expect(any(abs(l - m[k]) <= 2 for l in lines), "%d threads: no %s near line %d: %r"
                   % (threads, c, m[k], lines))
        paths = gomp_tree(prof, [], [], [])
        everyone = {l: 1 for l in range(threads)}
        par, itask = "main;!$omp parallel", "main;!$omp parallel;!$omp implicit task"
        teams = "main;!$omp teams;!$omp initial task"
        want = {
            # the old interface: one more parallel region (its paths are the new one's too)
            par: {0: 2},
            itask: {l: 2 for l in range(threads)},
            itask + ";old_body;work": everyone,
            # libgomp runs the teams one after another on the encountering thread
            "main;!$omp teams": {0: 1},
            teams: {0: TEAMS_ENTRIES},
            teams + ";!$omp distribute": {0: TEAMS_ENTRIES},
            teams + ";!$omp distribute;work": {0: 16},
            # the doacross loop and the cancelled static loop are both `!$omp for`
            itask + ";!$omp for": {l: 2 for l in range(threads)},
            itask + ";!$omp scope": everyone,
            itask + ";!$omp scope;work": everyone,
            # the implicit barriers of the doacross loop, scope and the cancelled loop, and
            # (more than one thread) those of the two parallel regions
            itask + ";!$omp implicit barrier": {l: 3 + 2 * (threads > 1) for l in range(threads)},
        }
        for path, v in want.items():
            expect(paths.get(path) == v, "%d threads: %s: visits per thread %r, expected %r"
                   % (threads, path, paths.get(path), v))
        work = sum(paths.get(itask + ";!$omp for;work", {}).values())
        expect(15 <= work <= 15 + 16, "%d threads: work in the loops %d" % (threads, work))
    if os.environ.get("OTF2_PRINT"):
        # the trace of the same run: read by otf2-print -A -Werror, balanced per location,
        # its Enter counts the profile's visits
        exp = os.path.join(wd, "exp-trace")
        rc, out, err, _ = run(wd, exe, {"INSTR_EXPERIMENT_DIRECTORY": exp,
                                         "OMP_CANCELLATION": "true", "INSTR_ENABLE_TRACING": "1"})
        expect(rc == 0, "traced run: rc %d" % rc)
        tr = T.load(exp)
        problems = tr.problems()
        expect(not problems, "trace problems: %s" % problems[:5])
        enters, visits = tr.enters_by_region(), P.visits_by_region(P.load(exp))
        expect(enters == visits, "trace enters %r, profile visits %r"
               % (sorted(enters.items()), sorted(visits.items())))


TEAMS_ENTRIES = 2


def case_gomp_exits():
    # g++ on GNU libgomp: exceptions caught inside parallel regions, exit() in a worker
    # inside a parallel region, and SIGTERM while all threads work in one: the profile
    # consistent, the trace balanced per location
    wd, exe = build("exits.cpp", ["g++", "-fopenmp"], "exits")
    for args, name in (([], "caught"), (["exit"], "exit")):
        exp = os.path.join(wd, "exp-" + name)
        e = {k: v for k, v in os.environ.items() if not k.startswith(("INSTR_", "OMP_"))}
        e.update({"OMP_NUM_THREADS": str(THREADS), "INSTR_EXPERIMENT_DIRECTORY": exp,
                  "INSTR_ENABLE_TRACING": "1"})
        p = subprocess.run([exe] + args, cwd=wd, env=e, capture_output=True, timeout=120)
        out = p.stdout.decode(errors="replace")
        expect(p.returncode == 0 and out == "caught %d\n" % (3 * (THREADS // 2)),
               "%s: rc %d, output %r" % (name, p.returncode, out))
        prof = P.load(exp)
        problems = P.check_consistency(prof)
        expect(not problems, "%s: profile inconsistent: %s" % (name, problems[:5]))
        every_thread(prof, named("!$omp critical"), 3, name + ": critical")
        tr = T.load(exp)  # otf2-print -A -Werror
        problems = tr.problems()
        expect(not problems, "%s: trace problems: %s" % (name, problems[:5]))
        enters = tr.enters_by_region()
        visits = P.visits_by_region(prof)
        expect(enters == visits, "%s: trace enters %r, profile visits %r"
               % (name, sorted(enters.items()), sorted(visits.items())))
    # SIGTERM while every thread works inside a parallel region: the process dies by the
    # signal (docs/reliability.md) and leaves a consistent profile and a balanced trace
    exp = os.path.join(wd, "exp-signal")
    e = {k: v for k, v in os.environ.items() if not k.startswith(("INSTR_", "OMP_"))}
    e.update({"OMP_NUM_THREADS": str(THREADS), "INSTR_EXPERIMENT_DIRECTORY": exp,
              "INSTR_ENABLE_TRACING": "1"})
    p = subprocess.Popen([exe, "signal"], cwd=wd, env=e, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    lines = [p.stdout.readline() for _ in range(2)]
    expect(lines == [b"caught %d\n" % (3 * (THREADS // 2)), b"ready\n"],
           "signal: output %r" % lines)
    p.send_signal(signal.SIGTERM)
    try:
        p.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        p.kill()
        raise Fail("signal: the process did not end within 120 s of SIGTERM")
    expect(p.returncode == -signal.SIGTERM, "signal: rc %d, expected death by SIGTERM"
           % p.returncode)
    prof = P.load(exp)
    # The workers keep running while the handler writes, so an open construct's children can
    # end up with a little more inclusive time than the construct (docs/openmp.md, Limits):
    # that, within 5 % of the construct's time, and nothing else
    problems = []
    for pr in P.check_consistency(prof):
        m = re.match(r"node \d+: children's inclusive (\d+) > its inclusive (\d+)$", pr)
        if not m or int(m.group(1)) > int(m.group(2)) * 1.05:
            problems.append(pr)
    expect(not problems, "signal: profile inconsistent: %s" % problems[:5])
    every_thread(prof, named("!$omp critical"), 3, "signal: critical")
    busy = by_location(prof, lambda n: n.startswith("work("))
    expect(sorted(busy) == list(range(THREADS)) and all(busy.values()),
           "signal: work visits per thread %r" % busy)
    tr = T.load(exp)  # otf2-print -A -Werror
    problems = tr.problems()
    expect(not problems, "signal: trace problems: %s" % problems[:5])
    enters, visits = tr.enters_by_region(), P.visits_by_region(prof)
    # The workers keep calling work() between the moments the handler writes their profile
    # and their trace (docs/openmp.md, Limits): there the two may differ by the calls made
    # meanwhile, within 1 %; every other region's counts are equal
    loop = [r for r in visits if r.startswith("work(")]
    near = all(abs(enters.get(r, 0) - visits[r]) <= 0.01 * visits[r] for r in loop)
    same = {r: c for r, c in enters.items() if r not in loop} == \
        {r: c for r, c in visits.items() if r not in loop}
    expect(loop and near and same, "signal: trace enters %r, profile visits %r"
           % (sorted(enters.items()), sorted(visits.items())))


def case_gomp_fortran():
    # gfortran -fopenmp on GNU libgomp: !$omp constructs of Fortran as those of C
    wd, exe = build("fortran.f90", ["gfortran", "-fopenmp"], "fortran", debug=("-O1",))
    rc, out, err, exp = run(wd, exe)
    expect(rc == 0 and out.split() == ["190", str(THREADS), "190", "1"],
           "rc %d, output %r" % (rc, out))
    prof = P.load(exp)
    problems = P.check_consistency(prof)
    expect(not problems, "profile inconsistent: %s" % problems[:5])
    check_no_outlined(r["name"] for r in prof["regions"])
    at = lambda c: lambda s: s.startswith(c + " @fortran.f90:")  # noqa: E731
    expect(by_location(prof, at("!$omp parallel")) == {l: 1 if l == 0 else 0
                                                       for l in range(THREADS)}, "parallel")
    for c in ("!$omp implicit task", "!$omp critical", "!$omp critical (wait)",
              "!$omp barrier"):
        every_thread(prof, at(c), 1, c)
    # the dynamic loop (GOMP_loop_*) and the static one (marked by the GCC plugin)
    every_thread(prof, at("!$omp for"), 2, "loops")
    # the loops' and the parallel region's implicit barriers
    every_thread(prof, at("!$omp implicit barrier"), 3, "implicit barriers")
    master = by_location(prof, at("!$omp masked"))
    expect(master == {0: 1}, "master visits per thread %r" % master)
    expect("!$omp for @fortran.f90:18" in P.visits_by_region(prof),
           "no static loop at fortran.f90:18: %r" % sorted(P.visits_by_region(prof)))


def case_serial():
    wd, exe = build("serial.c", [A.cc], "serial")
    rc, out, err, exp = run(wd, exe, {"INSTR_VERBOSE": "0"})
    expect(rc == 0 and out == "24\n", "rc %d, output %r" % (rc, out))
    expect(not any("OpenMP" in l for l in err), "OpenMP message for a serial program: %r" % err)
    expect(P.visits_by_region(P.load(exp)) == {"main": 1, "leaf": 10}, "serial visits")


# ---- MPI + OpenMP (docs/openmp.md, "MPI + OpenMP"): progs/hybrid.cpp built with
# `instr mpicxx -fopenmp` on clang (libomp), run with 4 ranks x OMP_NUM_THREADS=2 under Open
# MPI, with tracing. Checks the job profile and the job trace: 8 thread locations, balanced and
# read cleanly by `otf2-print -A -Werror`, the same regions (four distinct sites for the two
# loops and two barriers of one function) in every rank's profile, the job profile and the
# trace, and MPI calls on the thread that made them. Cases hybrid_multiple
# (MPI_THREAD_MULTIPLE, every thread calls MPI) and hybrid_funneled (MPI_THREAD_FUNNELED, the
# master thread calls MPI in `masked`).

RANKS, RANK_THREADS, STEPS = 4, 2, 3
MPIRUN_FLAGS = ["--oversubscribe", "--allow-run-as-root", "--bind-to", "none"]


def build_and_run_hybrid(level, cxx=None, trace=True, name=None):
    """The job's experiment directory and its stderr."""
    wd = fresh_dir(os.path.join(A.work, name or "hybrid_" + level))
    exe = os.path.join(wd, "hybrid")
    env = dict(os.environ, OMPI_CXX=cxx or A.cxx)
    cmd = [A.instr, A.mpicxx, "-fopenmp", "-O2", os.path.join(A.src, "progs", "hybrid.cpp"),
           "-o", exe]
    p = subprocess.run(cmd, capture_output=True, cwd=wd, env=env)
    if p.returncode != 0:
        raise Fail("build failed: %s\n%s" % (" ".join(cmd), p.stderr.decode(errors="replace")))
    exp = os.path.join(wd, "exp")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("INSTR_", "OMP_"))}
    # INSTR_RANK_FILES: each rank's own profile.json, checked against the job's
    env.update({"OMP_NUM_THREADS": str(RANK_THREADS), "INSTR_EXPERIMENT_DIRECTORY": exp,
                "INSTR_RANK_FILES": "1"})
    if trace:
        env["INSTR_ENABLE_TRACING"] = "1"
    p = subprocess.run([A.mpirun, "-np", str(RANKS)] + MPIRUN_FLAGS + [exe, level], cwd=wd,
                       env=env, capture_output=True, timeout=240)
    out = p.stdout.decode(errors="replace")
    expect(p.returncode == 0 and out.startswith("result "),
           "mpirun rc %d, output %r, stderr %s" % (p.returncode, out,
                                                  p.stderr.decode(errors="replace")[-2000:]))
    return exp, p.stderr.decode(errors="replace").splitlines()


def omp_names(names):
    return sorted(n for n in names if n.startswith("!$omp"))


def check_hybrid(level, cxx=None, name=None):
    exp, err = build_and_run_hybrid(level, cxx=cxx, name=name)
    gcc = cxx is not None
    notice = [l for l in err if l.startswith("instr: OpenMP:")]
    expect(not notice, "OpenMP notice: %r" % notice)
    m = markers("hybrid.cpp")
    job = P.load(exp)
    problems = P.check_consistency(job)
    expect(not problems, "job profile inconsistent: %s" % problems[:5])
    locs = job["locations"]
    per_rank = {}
    for l in locs:
        per_rank.setdefault(l["group"], []).append(l["rank_location"])
    expect(len(locs) == RANKS * RANK_THREADS and
           sorted(per_rank.items()) == [(g, list(range(RANK_THREADS))) for g in range(RANKS)],
           "job profile locations %r" % [(l["group"], l["rank_location"]) for l in locs])
    # one region per construct site, the same in a rank's profile, the job's and the trace
    job_omp = omp_names(r["name"] for r in job["regions"])
    expect(len(set(job_omp)) == len(job_omp), "equal OpenMP names in the job profile")
    # (under gcc a combined construct carries the line of its `for` statement, and its line
    # table may put a call on a neighbouring line: the lines are checked for clang only; the
    # static loops are there under gcc too, through the GCC plugin's markers)
    if gcc:
        loops = [n for n in job_omp if n.startswith("!$omp for @hybrid.cpp:")]
        expect(len(loops) == 2, "gcc: static loops %r in %r" % (loops, job_omp))
    for c, k in [] if gcc else [("!$omp for", "for1"), ("!$omp for", "for2"),
                                ("!$omp barrier", "barrier1"), ("!$omp barrier", "barrier2")]:
        want = "%s @hybrid.cpp:%d" % (c, m[k])
        expect(want in job_omp, "no region %r in %r" % (want, job_omp))
    expect(any(n.startswith("!$omp parallel @hybrid.cpp:") for n in job_omp) and
           any(n.startswith("!$omp barrier @hybrid.cpp:") for n in job_omp),
           "OpenMP regions %r" % job_omp)
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
    expect(len(tr.locations) == RANKS * RANK_THREADS, "%d trace locations" % len(tr.locations))
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
        expect(any(x.startswith("!$omp implicit task @hybrid.cpp:") for x in path),
               "MPI_Allreduce at %s" % ";".join(reversed(path)))
        for l in n["locations"]:
            allreduce[l["location"]] = allreduce.get(l["location"], 0) + l["visits"]
    by_loc = {(l["group"], l["rank_location"]): allreduce.get(l["id"], 0) for l in locs}
    if level == "multiple":
        want = {(g, t): STEPS for g in range(RANKS) for t in range(RANK_THREADS)}
    else:
        want = {(g, t): STEPS if t == 0 else 0
                for g in range(RANKS) for t in range(RANK_THREADS)}
    expect(by_loc == want, "MPI_Allreduce per (rank, thread) %r, expected %r" % (by_loc, want))
    ref = [r for r, d in tr.regions.items() if d["name"] == "MPI_Allreduce"]
    on_loc = {}
    for loc, evs in tr.events.items():
        n = sum(1 for (typ, _, rr) in evs if typ == "ENTER" and rr in ref)
        on_loc[(loc >> 32, tr.locations[loc]["name"])] = n
    expect(sorted(on_loc.values()) == sorted(want.values()),
           "trace MPI_Allreduce per location %r" % on_loc)


def case_hybrid_multiple():
    check_hybrid("multiple")


def case_hybrid_funneled():
    check_hybrid("funneled")


def case_hybrid_libgomp():
    # The same program built with g++ (`instr mpicxx -fopenmp`, GNU libgomp): its constructs
    # are recorded through the GOMP_* wrappers (runtime/gomp/), as under clang on libomp.
    check_hybrid("multiple", cxx="g++", name="hybrid_libgomp")


def main():
    global A, P, T
    ap = argparse.ArgumentParser()
    ap.add_argument("case")
    ap.add_argument("--instr", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--lib", required=True)
    ap.add_argument("--cc", default="clang")
    ap.add_argument("--libomp", default="")
    for a in ("cxx", "mpicxx", "mpirun"):  # the hybrid cases
        ap.add_argument("--" + a, default="")
    A = ap.parse_args()
    sys.path.insert(0, A.lib)
    import profile as _p
    import otf2check as _t
    P, T = _p, _t
    return run_case(globals(), A.case)


if __name__ == "__main__":
    sys.exit(main())
