#!/usr/bin/env python3
"""Memory recording (INSTR_MEMORY=1, docs/memory.md) end to end: programs with known
allocations per function, built by the instr compiler wrapper with each front end, run with
recording on; the counts and bytes per call path, the blocks still live at the end and the
threads' high-water marks must be exact. Usage:
check.py CASE --wrapper bin/instr --src DIR --work DIR [--exe PROG] [--mpirun M --mpicc C]
"""
import argparse
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cube"))
from cases import Fail, clean_env, expect, run_case  # noqa: E402  tests/lib/cases.py
import otf2check as T  # noqa: E402  tests/lib/otf2check.py
import cubex  # noqa: E402  tests/cube/cubex.py
import recorded as R  # noqa: E402  tests/lib/recorded.py

A = None

# Per function (the innermost region of the call path): allocations, releases, bytes
# allocated, bytes released. alloc_c.c and alloc_cxx.cpp say where each comes from.
C_COUNTS = {
    "c_malloc": (10, 10, 1000, 1000),
    "c_calloc": (1, 1, 128, 128),
    "c_aligned": (2, 2, 456, 456),
    "c_realloc": (3, 3, 1015, 1015),
    "c_leak": (2, 0, 7000, 0),
    "producer": (5, 0, 2560, 0),
    "consumer": (0, 5, 0, 2560),
    "on_signal": (3, 3, 144, 144),
}
CXX_COUNTS = {
    "cxx_new()": (4, 4, 400, 400),
    "cxx_array()": (2, 2, 224, 224),
    "cxx_aligned()": (2, 2, 576, 576),
    "cxx_nothrow()": (2, 2, 140, 140),
    "cxx_leak()": (1, 0, 300, 0),
}


def run_recorded(exe, name, env=None):
    exp, p, _ = R.run_recorded(A, exe, name, dict({"INSTR_MEMORY": "1"}, **(env or {})))
    return exp, p


def by_function(prof):
    """Innermost region -> (allocations, frees, bytes allocated, bytes freed), summed."""
    ps = R.chains(prof)
    out = {}
    for c in prof["memory"]["call_paths"]:
        key = ps[c["node"]][-1] if c["node"] is not None else None
        v = out.get(key, (0, 0, 0, 0))
        out[key] = tuple(a + b for a, b in zip(v, (c["allocations"], c["frees"],
                                                     c["bytes_allocated"], c["bytes_freed"])))
    return out


def check_counts(prof, want, what):
    got = by_function(prof)
    for fn, v in want.items():
        expect(got.get(fn) == v, "%s: %s: %r, expected %r" % (what, fn, got.get(fn), v))


def check_text(exp, lines, what):
    with open(os.path.join(exp, "profile.txt")) as f:
        text = f.read()
    expect("\nMemory (INSTR_MEMORY=1" in text, "%s: no memory section in profile.txt" % what)
    for l in lines:
        expect(l in text, "%s: profile.txt lacks %r:\n%s" % (what, l, text))


def check_c(prof, exp, what):
    check_counts(prof, C_COUNTS, what)
    ps = R.chains(prof)
    leaks = {ps[l["node"]]: (l["bytes"], l["blocks"]) for l in prof["memory"]["leaks"]
             if l["node"] is not None}
    expect(leaks.get(("main", "c_leak")) == (7000, 2), "%s: leaks %r" % (what, leaks))
    # The producer's thread: 5 blocks of 512 live at once, released by the main thread.
    mem = prof["memory"]
    prod = [t for t in mem["threads"] if t["allocations"] == 5 and t["bytes_allocated"] == 2560]
    expect(len(prod) == 1 and prod[0]["high_water_bytes"] == 2560 and prod[0]["live_bytes"] == 0
           and prod[0]["frees"] == 0, "%s: producer thread %r" % (what, mem["threads"]))
    expect(mem["high_water_bytes"] >= 7000 + 2560 and mem["live_bytes"] >= 7000,
           "%s: process %r" % (what, mem))
    expect(mem["dropped_in_handlers"] == 0 and mem["unrecorded_releases"] == 0, what)
    expect(sum(t["allocations"] for t in mem["threads"]) == mem["allocations"], what)
    check_text(exp, ["| main > c_leak\n", "   7000           2 | main > c_leak"], what)
    check_cube(prof, exp, what)


def check_cube(prof, exp, what):
    """profile.cubex has the memory metrics, equal to profile.json's (tests/cube/cubex.py)."""
    if not os.path.exists(os.path.join(exp, "profile.cubex")):
        return  # INSTR_PROFILING_FORMAT without cubex
    try:
        cube = cubex.read(os.path.join(exp, "profile.cubex"))
    except cubex.CubeError as e:
        raise Fail("%s: profile.cubex: %s" % (what, e))
    expect("allocations" in cube.metrics, "%s: no memory metrics in profile.cubex" % what)
    bad = cubex.check_against_json(cube, prof) + cubex.check_memory(cube, prof)
    expect(not bad, "%s: profile.cubex vs profile.json: %s" % (what, bad[:10]))


MEM_ROLES = {"malloc": "ALLOCATE", "calloc": "ALLOCATE", "aligned_alloc": "ALLOCATE",
             "posix_memalign": "ALLOCATE", "realloc": "REALLOCATE", "free": "DEALLOCATE"}


def trace_memory(exp, what, addresses=True):
    """The trace's memory calls (docs/memory.md, "The trace"), read with otf2-print -A -Werror:
    {innermost non-memory region: (allocations, releases, bytes allocated, bytes released)}
    and the number of calls. An allocation is a Leave with RESULT_ADDRESS (its size the
    Enter's ALLOCATION_SIZE), a release a Leave with DEALLOCATION_SIZE; over all threads of
    a process in time order, a release's address and size are those of a block allocated
    before (addresses=False: not checked; in an MPI job the MPI library's threads, which
    have no trace location, allocate blocks that a traced thread releases, docs/memory.md)."""
    try:
        tr = T.load(exp)
    except T.TraceError as e:
        raise Fail("%s: %s" % (what, e))
    probs = tr.problems()
    expect(not probs, "%s: trace problems: %s" % (what, probs[:10]))
    mem = {ref: r for ref, r in tr.regions.items() if r["description"] == "memory"}
    for r in mem.values():
        if r["name"] in MEM_ROLES:
            expect(r["role"] == MEM_ROLES[r["name"]], "%s: region %r" % (what, r))
    expect({r["name"] for r in mem.values()} >= set(MEM_ROLES),
           "%s: memory regions %r" % (what, sorted(r["name"] for r in mem.values())))
    out, calls, timeline = {}, 0, []
    for loc, evs in tr.events.items():
        proc = tr.locations[loc]["group"]
        stack, enter = [], None
        for i, (typ, ts, reg) in enumerate(evs):
            attrs = tr.attributes.get((loc, i), {})
            if typ == "ENTER":
                if reg in mem:
                    expect(enter is None, "%s: memory calls nested on %d" % (what, loc))
                    enter = attrs
                stack.append(reg)
            elif typ == "LEAVE":
                stack.pop()
                if reg not in mem:
                    expect(not attrs, "%s: attributes on a Leave of %r" % (what, reg))
                    continue
                calls += 1
                name = mem[reg]["name"]
                outer = [tr.regions[r]["name"] for r in stack if r not in mem]
                key = outer[-1] if outer else None
                v = list(out.get(key, (0, 0, 0, 0)))
                if "RESULT_ADDRESS" in attrs:
                    expect("ALLOCATION_SIZE" in enter, "%s: %s without a size" % (what, name))
                    v[0] += 1
                    v[2] += enter["ALLOCATION_SIZE"]
                    timeline.append((proc, ts, 1, attrs["RESULT_ADDRESS"],
                                     enter["ALLOCATION_SIZE"]))
                if "DEALLOCATION_SIZE" in attrs:
                    expect("ARGUMENT_ADDRESS" in enter, "%s: %s without an address" %
                           (what, name))
                    v[1] += 1
                    v[3] += attrs["DEALLOCATION_SIZE"]
                    timeline.append((proc, ts, 0, enter["ARGUMENT_ADDRESS"],
                                     attrs["DEALLOCATION_SIZE"]))
                if name == "free":
                    expect("ARGUMENT_ADDRESS" in enter and "RESULT_ADDRESS" not in attrs,
                           "%s: free %r %r" % (what, enter, attrs))
                elif name != "realloc":
                    expect("RESULT_ADDRESS" in attrs and "DEALLOCATION_SIZE" not in attrs,
                           "%s: %s %r %r" % (what, name, enter, attrs))
                out[key] = tuple(v)
                enter = None
    live = {}
    for proc, ts, is_alloc, addr, size in sorted(timeline) if addresses else ():
        if is_alloc:
            live[(proc, addr)] = size
        else:
            expect(live.pop((proc, addr), None) == size,
                   "%s: release of %#x (%d bytes) at %d not of a block allocated before" %
                   (what, addr, size, ts))
    return out, calls


def check_trace_counts(exp, what, prof=None):
    got, calls = trace_memory(exp, what)
    for fn, v in C_COUNTS.items():
        expect(got.get(fn) == v, "%s: trace: %s: %r, expected %r" % (what, fn, got.get(fn), v))
    if prof is not None:
        # Every recorded call of a traced thread is in the trace, and nothing else.
        mem = prof["memory"]
        tot = [sum(v[i] for v in got.values()) for i in range(4)]
        expect(tot == [mem["allocations"], mem["frees"], mem["bytes_allocated"],
                       mem["bytes_freed"]],
               "%s: trace totals %r, profile %r" % (what, tot, mem))


def case_c():
    for mode, cc in (("hooks", "gcc"), ("hooks", "clang"), ("cyg", "gcc")):
        name = "c_%s_%s" % (mode, cc)
        exe = R.build(A, "alloc_c.c", mode, cc, name)
        exp, _ = run_recorded(exe, name)
        check_c(R.load(exp), exp, name)
    # Profile and trace: the generic path, where the cursor is the profile's location data.
    exe = R.build(A, "alloc_c.c", "hooks", "gcc", "c_trace")
    exp, _ = run_recorded(exe, "c_trace", {"INSTR_ENABLE_TRACING": "1"})
    prof = R.load(exp)
    check_c(prof, exp, "profile and trace")
    check_trace_counts(exp, "profile and trace", prof)
    # The trace alone: the direct path (the compact records of the hot path and the
    # recorder's in the same buffer).
    for mode, cc in (("hooks", "clang"), ("cyg", "gcc")):
        name = "c_trace_only_%s_%s" % (mode, cc)
        exe = R.build(A, "alloc_c.c", mode, cc, name)
        exp, _ = run_recorded(exe, name, {"INSTR_ENABLE_TRACING": "1",
                                          "INSTR_ENABLE_PROFILING": "0"})
        check_trace_counts(exp, name)


def case_cxx():
    for cc in ("g++", "clang++"):
        name = "cxx_" + cc
        exe = R.build(A, "alloc_cxx.cpp", "hooks", cc, name)
        exp, _ = run_recorded(exe, name)
        prof = R.load(exp)
        check_counts(prof, CXX_COUNTS, name)
        ps = R.chains(prof)
        leaks = {ps[l["node"]]: (l["bytes"], l["blocks"]) for l in prof["memory"]["leaks"]
                 if l["node"] is not None}
        expect(leaks.get(("main", "cxx_leak()")) == (300, 1), "%s: leaks %r" % (name, leaks))
        check_cube(prof, exp, name)


OMP_COUNTS = {
    "omp_worker": (10, 10, 1000, 1000),
    "omp_give": (4, 0, 256, 0),
    "omp_collect": (0, 4, 0, 256),
}


def case_omp():
    """OpenMP threads, on libgomp (gcc: the GOMP_* wrappers) and LLVM's libomp (clang-19:
    OMPT): each thread's allocations on its own call paths, merged."""
    for cc in ("gcc", "clang-19"):
        if not shutil.which(cc):
            continue
        name = "omp_" + cc
        exe = R.build(A, "alloc_omp.c", "hooks", cc, name, ["-fopenmp"])
        exp, _ = run_recorded(exe, name)
        prof = R.load(exp)
        check_counts(prof, OMP_COUNTS, name)
        ps = R.chains(prof)
        workers = [c for c in prof["memory"]["call_paths"]
                   if c["node"] is not None and ps[c["node"]][-1] == "omp_worker"]
        locs = {l["location"] for c in workers for l in prof["tree"][c["node"]]["locations"]}
        expect(len(locs) == 4, "%s: omp_worker on locations %r" % (name, locs))
        # The threads' own figures: thread t allocated t + 1 blocks of 100 at once in
        # omp_worker and one block of 64 in omp_give (released by the master).
        his = sorted(t["high_water_bytes"] for t in prof["memory"]["threads"]
                     if t["location"] != 0)
        expect(len(his) >= 3 and all(h >= 164 for h in his), "%s: threads %r" %
               (name, prof["memory"]["threads"]))
        check_cube(prof, exp, name)


def case_off():
    """Unset: no memory section, and the program's heap calls go straight to the C library."""
    exe = R.build(A, "alloc_c.c", "hooks", "gcc", "off")
    exp, p = run_recorded(exe, "off", {"INSTR_MEMORY": "0"})
    expect("memory" not in R.load(exp), "INSTR_MEMORY=0 wrote a memory section")
    with open(os.path.join(exp, "profile.txt")) as f:
        expect("\nMemory (" not in f.read(), "INSTR_MEMORY=0: memory section in profile.txt")


def case_asan():
    """Under AddressSanitizer (its malloc comes first) recording is off, and says so."""
    if A.exe:
        exe, name = A.exe, "asan_tree"
    else:
        exe = R.build(A, "alloc_c.c", "hooks", "gcc", "asan", ["-fsanitize=address,undefined"])
        name = "asan"
    exp, p = run_recorded(exe, name, {"ASAN_OPTIONS": "detect_leaks=0"})
    lines = [l for l in p.stderr.splitlines() if l.startswith("instr: ")]
    expect(any("INSTR_MEMORY=1: memory recording is off: AddressSanitizer's malloc" in l
               for l in lines), "%s: no clear word that recording is off: %r" % (name, lines))
    expect("memory" not in R.load(exp), "%s: a memory section although recording is off" % name)


def case_mpi():
    """A job of 4 ranks: each rank's own profile has its call paths' exact counts; the job's
    sums the ranks' totals and names the rank with the highest high-water mark; its call
    paths (from the job database) are the ranks' sums, its profile.cubex agrees."""
    wd = R.workdir(A, "build_mpi")
    exe = os.path.join(wd, "mpi_alloc")
    R.sh([A.wrapper, A.mpicc, "-O1", os.path.join(A.src, "mpi_alloc.c"), "-o", exe], wd)
    rd = R.workdir(A, "run_mpi")
    # INSTR_RANK_FILES: each rank's own profile.json, checked below
    e = {"INSTR_MEMORY": "1", "INSTR_EXPERIMENT_DIRECTORY": os.path.join(rd, "exp"),
         "INSTR_RANK_FILES": "1"}
    p = subprocess.run([A.mpirun, "--oversubscribe", "--allow-run-as-root", "-np", "4", exe],
                       cwd=rd, env=clean_env(e), capture_output=True, text=True, timeout=240)
    expect(p.returncode == 0, "mpirun: %d %s" % (p.returncode, p.stderr[-3000:]))
    exp = os.path.join(rd, "exp")
    ranks = []
    for r in range(4):
        prof = R.load(os.path.join(exp, "rank-%d" % r))
        # Rank r allocates r + 1 blocks of 1000 bytes in rank_work and keeps one of them.
        got = by_function(prof).get("rank_work")
        expect(got == (r + 1, r, (r + 1) * 1000, r * 1000), "rank %d: rank_work %r" % (r, got))
        ps = R.chains(prof)
        leaks = {ps[l["node"]]: (l["bytes"], l["blocks"]) for l in prof["memory"]["leaks"]
                 if l["node"] is not None}
        expect(leaks.get(("main", "rank_work")) == (1000, 1), "rank %d: leaks %r" % (r, leaks))
        ranks.append(prof["memory"])
    job = R.load(exp).get("memory")
    expect(job is not None, "the job's profile.json has no memory section")
    for k in ("allocations", "frees", "bytes_allocated", "bytes_freed", "live_bytes",
              "live_blocks"):
        expect(job[k] == sum(m[k] for m in ranks),
               "job: %s %r, ranks %r" % (k, job[k], [m[k] for m in ranks]))
    top = max(range(4), key=lambda r: (ranks[r]["high_water_bytes"], -r))
    expect(job["largest_rank"]["rank"] == top and
           job["largest_rank"]["high_water_bytes"] == ranks[top]["high_water_bytes"],
           "job: largest rank %r, ranks' high-water %r" %
           (job["largest_rank"], [m["high_water_bytes"] for m in ranks]))
    expect(len(job["ranks"]) == 4, "job: ranks %r" % job["ranks"])
    with open(os.path.join(exp, "profile.txt")) as f:
        text = f.read()
    expect("\nMemory (INSTR_MEMORY=1" in text and "largest rank    %d:" % top in text,
           "job's profile.txt: no memory section:\n" + text)
    # Per call path (the job database's memory_ columns): the ranks' figures summed.
    jprof = R.load(exp)
    got = by_function(jprof).get("rank_work")
    expect(got == (10, 6, 10000, 6000), "job's call paths: rank_work %r" % (got,))
    want = {}
    for r in range(4):
        for k, v in by_function(R.load(os.path.join(exp, "rank-%d" % r))).items():
            want[k] = tuple(a + b for a, b in zip(want.get(k, (0, 0, 0, 0)), v))
    want.pop(None, None)  # outside any region: in the totals only
    expect(by_function(jprof) == want, "job's call paths %r, the ranks' sums %r"
           % (by_function(jprof), want))
    check_cube(jprof, exp, "job")
    # The job's trace: the ranks' memory regions and attributes unified in one archive.
    rd = R.workdir(A, "run_mpi_trace")
    e = {"INSTR_MEMORY": "1", "INSTR_ENABLE_TRACING": "1",
         "INSTR_EXPERIMENT_DIRECTORY": os.path.join(rd, "exp")}
    p = subprocess.run([A.mpirun, "--oversubscribe", "--allow-run-as-root", "-np", "4", exe],
                       cwd=rd, env=clean_env(e), capture_output=True, text=True, timeout=240)
    expect(p.returncode == 0, "mpirun (trace): %d %s" % (p.returncode, p.stderr[-3000:]))
    got, _ = trace_memory(os.path.join(rd, "exp"), "job's trace", addresses=False)
    expect(got.get("rank_work") == (10, 6, 10000, 6000),
           "job's trace: rank_work %r" % (got.get("rank_work"),))


def main():
    global A
    ap = argparse.ArgumentParser()
    ap.add_argument("case")
    ap.add_argument("--wrapper")
    ap.add_argument("--src")
    ap.add_argument("--work")
    ap.add_argument("--exe")
    ap.add_argument("--mpirun")
    ap.add_argument("--mpicc")
    A = ap.parse_args()
    return run_case(globals(), A.case)


if __name__ == "__main__":
    sys.exit(main())
