#!/usr/bin/env python3
"""run.py — the job database's write side and generator (docs/performance.md, "Job database").

Usage: bench/jobdb/run.py --build BUILD [--ranks 8,32,64] [--repeat 3] [--codes 1000]
                          [--gen-ranks 100000] [--no-gen] [--trace] [--workdir DIR]
                          [--libdir DIR] [--env VAR=VALUE ...]

1. Builds bench/jobdb/tree.c with BUILD/bin/instr mpicc and runs it under mpirun with each
   number of (oversubscribed) ranks, INSTR_VERBOSE=1, `repeat` times; rank 0's line
   "job database ...: ... unified in K rounds (U s), written in W s (slowest rank)" gives the
   unification's rounds and time and the whole write side's time on the slowest rank
   (unification, the union's ids down the tree, mapping, summary reduction, the file's writes); medians printed,
   and, from INSTR_VERBOSE=2's lines, the median of each step's time (slowest rank each) and
   of each step's CPU time summed over the ranks (against 2 x the wall time on 2 cores: how
   much of it the ranks computed, how much they polled), with the load average (1 min) at
   each run's start and each run's write side time.
   With --trace the same runs also write the OTF2 trace (INSTR_ENABLE_TRACING=1) and rank
   0's line "trace: definitions of P ranks unified on rank 0 in U s ..., global definitions
   written and archive closed in G s" gives the trace's unification time, and "trace: clock
   offsets of P ranks measured in A s at MPI_Init and B s at the end" their measurement's.
2. Unless --no-gen: checks the free space of the work directory's file system, runs
   BUILD/bin/instr-jobdb-gen -r GEN_RANKS (defaults: 100,000 call paths, ~2,000 per rank),
   prints its time, the file size and peak memory (/usr/bin/time -v when present), and
   deletes the file.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile


def write_side(a, work):
    here = os.path.dirname(os.path.abspath(__file__))
    exe = os.path.join(work, "tree")
    subprocess.run([os.path.join(a.build, "bin", "instr"), "mpicc", "-O1",
                    os.path.join(here, "tree.c"), "-o", exe], check=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("INSTR_")}
    env.update(OMPI_MCA_btl="self,vader", INSTR_VERBOSE="2", INSTR_PROFILING_FORMAT="json")
    if a.trace:
        env["INSTR_ENABLE_TRACING"] = "1"
    for kv in a.env or []:
        k, _, v = kv.partition("=")
        env[k] = v
    if a.libdir:  # another build's runtime libraries, for alternating comparisons
        env["LD_LIBRARY_PATH"] = os.path.abspath(a.libdir)
    # "broadcast of the union": the runtime before the union's ids went down the tree
    steps_pat = re.compile(r"steps \(slowest rank each\): unification ([\d.]+) s, (?:broadcast of "
                           r"the union|union's ids down the tree) ([\d.]+) s, rows mapped ([\d.]+) s, summary ([\d.]+) s, "
                           r"offsets and file ([\d.]+) s")
    cpu_pat = re.compile(r"CPU time summed over the ranks: ([\d.]+) s \(unification ([\d.]+) s, "
                         r"(?:broadcast|ids down) ([\d.]+) s, mapping ([\d.]+) s, summary ([\d.]+) s, "
                         r"offsets and file ([\d.]+) s\)")
    trace_pat = re.compile(r"trace: definitions of \d+ ranks? unified on rank 0 in ([\d.]+) s.*"
                           r"archive closed in ([\d.]+) s")
    clock_pat = re.compile(r"trace: clock offsets of \d+ ranks? measured in ([\d.]+) s at MPI_Init "
                           r"and ([\d.]+) s at the end")
    pat = re.compile(r"job database .*: (\d+) ranks \((\d+) present\), (\d+) call paths, "
                     r"(\d+) rows, definitions unified in (\d+) rounds \(([\d.]+) s\), "
                     r"written in ([\d.]+) s")
    print("%6s %7s %10s %8s %14s %14s %12s" % ("ranks", "rounds", "call paths", "rows",
                                                "unify s (med)", "write s (med)", "file bytes"))
    for np_ in [int(x) for x in a.ranks.split(",")]:
        unify, write, m, size, steps, traces, cpus, loads, clocks = [], [], None, 0, [], [], [], [], []
        for i in range(a.repeat):
            d = os.path.join(work, "run-%d-%d" % (np_, i))
            os.makedirs(d)
            loads.append(os.getloadavg()[0])
            p = subprocess.run(["mpirun", "--oversubscribe", "--allow-run-as-root", "--bind-to",
                                "none", "-np", str(np_), exe, str(a.codes)], env=env, cwd=d,
                               capture_output=True, text=True, timeout=600)
            m = pat.search(p.stderr)
            if not m:
                sys.exit("run with %d ranks failed:\n%s" % (np_, p.stderr[-3000:]))
            if p.returncode != 0:
                # Open MPI 4.1's mpirun at 128 oversubscribed ranks on a loaded machine
                # sometimes says a rank "with PID 0" exited improperly after the job's end
                # (the database and the job's files written): counted, and said
                print("       run %d: mpirun exit code %d after the database was written"
                      % (i, p.returncode))
            st = steps_pat.search(p.stderr)
            if st:
                steps.append([float(x) for x in st.groups()])
            cp = cpu_pat.search(p.stderr)
            if cp:
                cpus.append([float(x) for x in cp.groups()])
            ck = clock_pat.search(p.stderr)
            if ck:
                clocks.append([float(x) for x in ck.groups()])
            tr = trace_pat.search(p.stderr)
            if tr:
                traces.append([float(x) for x in tr.groups()])
            unify.append(float(m.group(6)))
            write.append(float(m.group(7)))
            exp = [x for x in os.listdir(d) if x.startswith("instr-")][0]
            size = os.path.getsize(os.path.join(d, exp, "profile.jdb"))
            shutil.rmtree(d)
        print("%6d %7s %10s %8s %14.4f %14.4f %12d" % (np_, m.group(5), m.group(3), m.group(4),
                                                      statistics.median(unify),
                                                      statistics.median(write), size))
        if steps:
            print("       steps (medians of %d): unification %.4f, union down %.4f, mapping "
                  "%.4f, summary %.4f, offsets and file %.4f s"
                  % ((len(steps),) + tuple(statistics.median(c) for c in zip(*steps))))
        print("       write side s of each run: %s" % ", ".join("%.3f" % x for x in write))
        if cpus:
            print("       CPU summed over the ranks (medians of %d): %.3f s (unification %.3f, "
                  "union down %.3f, mapping %.3f, summary %.3f, offsets and file %.3f s)"
                  % ((len(cpus),) + tuple(statistics.median(c) for c in zip(*cpus))))
        print("       load average (1 min) at each run's start: %s"
              % ", ".join("%.1f" % x for x in loads))
        if traces:
            print("       trace (medians of %d): unification on rank 0 %.4f s, global "
                  "definitions and close %.4f s" % ((len(traces),) + tuple(
                      statistics.median(c) for c in zip(*traces))))
        if clocks:
            print("       trace's clock offsets (medians of %d, slowest rank): at MPI_Init %.4f s, "
                  "at the end %.4f s" % ((len(clocks),) + tuple(
                      statistics.median(c) for c in zip(*clocks))))
        sys.stdout.flush()


def generator(a, work):
    st = os.statvfs(work)
    free = st.f_bavail * st.f_frsize
    need = a.gen_ranks * 2000 * 64 * 1.1
    print("free space in %s: %.1f GB, the file needs about %.1f GB" % (work, free / 1e9, need / 1e9))
    if free < need + 5e9:
        sys.exit("not enough free space for the generator's file (keeping 5 GB free)")
    out = os.path.join(work, "gen.jdb")
    cmd = [os.path.join(a.build, "bin", "instr-jobdb-gen"), "-r", str(a.gen_ranks), "-o", out]
    timer = shutil.which("time") or ("/usr/bin/time" if os.path.exists("/usr/bin/time") else None)
    if timer:
        cmd = [timer, "-v"] + cmd
    print("$ " + " ".join(cmd), flush=True)
    p = subprocess.run(cmd, capture_output=True, text=True)
    print(p.stdout, end="")
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
    if peak:
        print("peak memory: %.0f MB" % (int(peak.group(1)) / 1024))
    if p.returncode != 0:
        print(p.stderr)
    if os.path.exists(out):
        print("file size: %d bytes" % os.path.getsize(out))
        os.remove(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--ranks", default="8,32,64")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--codes", type=int, default=1000)
    ap.add_argument("--gen-ranks", type=int, default=100000)
    ap.add_argument("--no-gen", action="store_true")
    ap.add_argument("--no-mpi", action="store_true")
    ap.add_argument("--trace", action="store_true", help="also write the trace (its unification)")
    ap.add_argument("--workdir")
    ap.add_argument("--env", action="append", metavar="VAR=VALUE",
                    help="an environment variable for the runs, e.g. INSTR_JOB_WAIT=poll")
    ap.add_argument("--libdir", help="run with the runtime libraries of this directory "
                    "(LD_LIBRARY_PATH), e.g. a copy of an older build's lib/")
    a = ap.parse_args()
    a.build = os.path.abspath(a.build)
    work = a.workdir or tempfile.mkdtemp(prefix="instr-jobdb-bench-")
    os.makedirs(work, exist_ok=True)
    if not a.no_mpi:
        write_side(a, work)
    if not a.no_gen:
        generator(a, work)


if __name__ == "__main__":
    main()
