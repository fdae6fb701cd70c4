#!/usr/bin/env python3
"""check_mpi.py — one MPI test: run a program uninstrumented and measured under mpirun, compare
their behaviour (stdout, exit status), then check the job's experiment directory.

  check_mpi.py --case halo|collectives|abort --np N --mode instr|preload
               --source progs/X.c --plain <uninstrumented exe> --workdir DIR
               --instr <bin/instr> --mpicc <mpicc> --mpirun <mpirun> --lib <libinstr-rt-mpi.so>

mode instr: the program is compiled with `instr mpicc` (what a user does); mode preload: the
uninstrumented executable runs with LD_PRELOAD=libinstr-rt-mpi.so. The expected numbers of
calls and bytes follow from the programs in progs/ (their comments say what they do).
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import profile as P  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_trace  # noqa: E402
import job_output  # noqa: E402

MPIRUN_FLAGS = ["--oversubscribe", "--allow-run-as-root", "--bind-to", "none"]
TIMEOUT = 120


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(cmd, env=None, cwd=None):
    print("$ " + " ".join(cmd), flush=True)
    p = subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=TIMEOUT)
    return p


def halo_expect(np_, mode):
    it, halo = 10, 16
    msg = halo * 8
    v = {"MPI_Init": np_, "MPI_Finalize": np_, "MPI_Comm_rank": np_, "MPI_Comm_size": np_,
         "MPI_Irecv": 2 * (it // 2) * np_, "MPI_Isend": 2 * (it // 2) * np_,
         "MPI_Waitall": (it // 2) * np_, "MPI_Sendrecv": 2 * (it // 2) * np_,
         "MPI_Allreduce": it * np_, "MPI_Send": np_ - 1, "MPI_Recv": np_ - 1}
    if mode == "instr":
        v.update({"main": np_, "exchange_nonblocking": (it // 2) * np_,
                  "exchange_blocking": (it // 2) * np_, "compute": it * np_,
                  "residual": it * np_})
    n_nb = 2 * (it // 2) * np_
    n_sr = 2 * (it // 2) * np_
    # region: (messages sent, bytes sent, messages received, bytes received)
    msgs = {"MPI_Isend": (n_nb, n_nb * msg, 0, 0),
            "MPI_Waitall": (0, 0, n_nb, n_nb * msg),
            "MPI_Sendrecv": (n_sr, n_sr * msg, n_sr, n_sr * msg),
            "MPI_Send": (np_ - 1, (np_ - 1) * 8, 0, 0),
            "MPI_Recv": (0, 0, np_ - 1, (np_ - 1) * 8)}
    # One rank sends nothing at the end: no MPI_Send or MPI_Recv regions at all.
    return {k: n for k, n in v.items() if n}, msgs


def collectives_expect(np_, mode):
    c = 3 * np_ + np_ + np_ // 2  # calls of round_of_collectives
    v = {}
    for r in ["Barrier", "Bcast", "Allreduce", "Gather", "Scatter", "Allgather", "Alltoall",
              "Scan", "Reduce_scatter_block", "Ibcast", "Iallreduce"]:
        v["MPI_" + r] = c
    v.update({"MPI_Reduce": c + np_, "MPI_Comm_rank": c + np_, "MPI_Comm_size": c + np_,
              "MPI_Wait": 2 * c, "MPI_Comm_split": np_, "MPI_Comm_group": np_,
              "MPI_Group_range_incl": np_, "MPI_Comm_create": np_,
              "MPI_Comm_free": np_ + np_ // 2, "MPI_Group_free": 2 * np_,
              "MPI_Init_thread": np_, "MPI_Finalize": np_, "MPI_Finalized": np_})
    if mode == "instr":
        v.update({"main": np_, "round_of_collectives": c})
    return v, {}


def check_job(exp, np_, visits, msgs, rank_files=True):
    prof = P.load(exp)
    problems = P.check_consistency(prof)
    if problems:
        fail("job profile inconsistent: %s" % problems[:5])
    groups = prof["location_groups"]
    if sorted(g["rank"] for g in groups) != list(range(np_)):
        fail("location groups %r, expected one per rank 0..%d" % (groups, np_ - 1))
    if prof["run"]["mpi"] != {"ranks": np_, "ranks_merged": list(range(np_)),
                              "ranks_missing": [], "complete": True}:
        fail("run.mpi is %r" % prof["run"]["mpi"])
    got = P.visits_by_region(prof)
    if got != visits:
        diff = {k: (got.get(k), visits.get(k)) for k in set(got) | set(visits)
                if got.get(k) != visits.get(k)}
        fail("visits differ (got, expected): %r" % diff)
    # Every rank called MPI_Init (or _thread) and MPI_Finalize exactly once, on its own group.
    loc_group = {l["id"]: l["group"] for l in prof["locations"]}
    reg = P.regions(prof)
    for name in ("MPI_Finalize",):
        per = {}
        for n in prof["tree"]:
            if reg[n["region"]]["name"] == name:
                for l in n["locations"]:
                    per[loc_group[l["location"]]] = per.get(loc_group[l["location"]], 0) + \
                        l["visits"]
        if per != {r: 1 for r in range(np_)}:
            fail("%s per rank: %r" % (name, per))
    flat = {reg[f["region"]]["name"]: f for f in prof["flat"]}
    for name, (ms, bs, mr, br) in msgs.items():
        f = flat.get(name, {})
        got_m = (f.get("messages_sent", 0), f.get("bytes_sent", 0),
                 f.get("messages_received", 0), f.get("bytes_received", 0))
        if got_m != (ms, bs, mr, br):
            fail("%s messages (sent, bytes sent, received, bytes received): got %r, expected %r"
                 % (name, got_m, (ms, bs, mr, br)))
    tot = [sum(f.get(k, 0) for f in prof["flat"]) for k in
           ("messages_sent", "bytes_sent", "messages_received", "bytes_received")]
    if tot[0] != tot[2] or tot[1] != tot[3]:
        fail("messages sent %r != received %r over the job" % (tot[:2], tot[2:]))
    # Message counts are per call path: the tree's sums equal the flat ones.
    for k in ("messages_sent", "bytes_sent"):
        if sum(n.get(k, 0) for n in prof["tree"]) != sum(f.get(k, 0) for f in prof["flat"]):
            fail("tree and flat %s differ" % k)
    for r in range(np_ if rank_files else 0):
        if not os.path.isfile(os.path.join(exp, "rank-%d" % r, "profile.json")):
            fail("rank-%d/profile.json missing" % r)
    print("job profile: %d rank(s), %d regions, %d messages, %d bytes: as expected"
          % (np_, len(visits), tot[0], tot[1]))
    return prof


def check_missing(exp, np_, unrecorded, stderr):
    """A job whose last ranks recorded nothing: the job's profile has the others and says
    which are missing, in run.mpi, in profile.txt and in its one line on stderr."""
    prof = P.load(exp)
    present = np_ - unrecorded
    missing = list(range(present, np_))
    if prof["run"]["mpi"] != {"ranks": np_, "ranks_merged": list(range(present)),
                              "ranks_missing": missing, "complete": True}:
        fail("run.mpi is %r" % prof["run"]["mpi"])
    text = "%d-%d" % (missing[0], missing[-1]) if len(missing) > 1 else str(missing[0])
    said = "; %s %s missing from it (%d of %d: ended early or sent nothing)" % (
        "ranks" if len(missing) > 1 else "rank", text, len(missing), np_)
    problems = job_output.stderr_problems(stderr, exp, np_, False, False, said)
    ranks = job_output.load_ranks(exp, present, P.load)
    problems += job_output.rank_problems(prof, ranks)
    problems += job_output.text_problems(exp, np_, ranks, None)
    with open(os.path.join(exp, "profile.txt"), encoding="utf-8") as f:
        if "; missing: %s (" % text not in f.read():
            problems.append("profile.txt does not name the missing ranks %s" % text)
    if problems:
        fail("job output: %d problem(s):\n  %s" % (len(problems), "\n  ".join(problems[:20])))
    print("missing ranks %s: named on stderr, in run.mpi and profile.txt; the other ranks' "
          "profiles agree with the job's" % text)


def check_enospc_trace(exp, np_, stderr, export):
    """The last rank wrote nothing (a full disk): rank 0's line on the job's trace names it
    as incomplete, never the line of a whole archive."""
    last = np_ - 1
    line = None
    for l in stderr.splitlines():
        if l.startswith("instr: trace: %s/traces.otf2" % exp):
            line = l
    if line is None:
        fail("no line on the job's trace:\n" + stderr)
    want = ("instr: trace: %s/traces.otf2 is incomplete: the trace of rank %d could not be "
            "written whole (its writes or its close failed: a full disk?); " % (exp, last))
    want_end = ("events from %d ranks were unified, the incomplete ranks' files are short"
                % np_)
    if not (line.startswith(want) and line.endswith(want_end)
            and line[len(want):-len(want_end)].strip().isdigit()):
        fail("the job's trace line %r is not %r<N> %r" % (line, want, want_end))
    if "definitions unified" in stderr:
        fail("the job's trace was reported whole although rank %d's writes failed" % last)
    evt = os.path.join(exp, "traces", "%d.evt" % (last << 32))
    if os.path.isfile(evt) and os.path.getsize(evt) > 0:
        fail("rank %d's event file %s has %d bytes although every write failed"
             % (last, evt, os.path.getsize(evt)))
    print("enospc: rank %d's trace named incomplete: %s" % (last, line))
    # the reader says so too, not "out of memory"
    out = os.path.join(exp, "trace.json")
    x = run([export, "--chrome", os.path.join(exp, "traces.otf2"), "-o", out])
    ref = last << 32
    want = ("instr-export: %s/traces.otf2: incomplete archive: the events of location %d "
            "(traces/%d.evt) cannot be read: the file is empty or cut short (did that "
            "process's writes fail?)" % (exp, ref, ref))
    mine = [l for l in x.stderr.splitlines() if l.startswith("instr-export: ")]
    if x.returncode == 0 or mine != [want] or os.path.exists(out):
        fail("instr-export --chrome on the incomplete archive: status %d, lines %r (want %r)%s"
             % (x.returncode, mine, want, ", and it wrote " + out if os.path.exists(out) else ""))
    print("enospc: instr-export --chrome says: " + want)


def check_killed(exp, np_, stderr, trace):
    """The last rank was killed (or _exit()ed) while the others were at the job's end: Open MPI
    ends them with SIGTERM. Each survivor says in one line that nothing was merged, rank 0
    which rank never came, each where its own profile is; with a trace, that traces/ holds
    orphan files. Nothing at the job's top claims a merged job."""
    last = np_ - 1
    lines = stderr.splitlines()
    problems = []
    tail = ("; traces/ holds orphan files: the ranks' event files, without traces.otf2 and "
            "traces.def" if trace else "")
    for r in range(last):
        who = ("; rank %d never reached MPI_Finalize (killed, or ended without it)" % last
               if r == 0 else "")
        want = ("instr: rank %d: ended by SIGTERM at the job's end, waiting for the other ranks%s: "
                "no job profile or database was merged; this rank's own profile is in "
                "%s/rank-%d%s" % (r, who, exp, r, tail))
        if lines.count(want) != 1:
            problems.append("rank %d's line missing (or repeated): %r" % (r, want))
        if not os.path.isfile(os.path.join(exp, "rank-%d" % r, "profile.json")):
            problems.append("rank-%d/profile.json missing" % r)
    mine = [l for l in lines if "no job profile or database was merged" in l]
    if len(mine) != last:
        problems.append("%d lines say nothing was merged, expected one per survivor (%d): %r"
                        % (len(mine), last, mine))
    for top in ("profile.json", "profile.jdb", "profile.cubex", "profile.txt", "traces.otf2",
                "traces.def"):
        if os.path.exists(os.path.join(exp, top)):
            problems.append("%s written although no job profile was merged" % top)
    if "MPI job of" in stderr or "definitions unified" in stderr:
        problems.append("a job summary was printed although the job was cut short")
    if trace:
        evts = sorted(glob.glob(os.path.join(exp, "traces", "*.evt")))
        if not evts:
            problems.append("traces/ holds no event files")
    if problems:
        fail("killed rank: %d problem(s):\n  %s" % (len(problems), "\n  ".join(problems)))
    print("killed rank %d: each survivor says nothing was merged, rank 0 names rank %d%s"
          % (last, last, "; traces/ holds orphan files" if trace else ""))


def main():
    ap = argparse.ArgumentParser()
    for a in ("case", "mode", "source", "plain", "workdir", "instr", "mpicc", "mpirun", "lib"):
        ap.add_argument("--" + a, required=True)
    ap.add_argument("--np", type=int, required=True)
    ap.add_argument("--trace", action="store_true")
    ap.add_argument("--verbose", action="store_true", help="INSTR_VERBOSE=1 on every rank")
    ap.add_argument("--no-rank-files", action="store_true",
                    help="without INSTR_RANK_FILES: the job's constant set of files only, every "
                         "rank's profile from profile.jdb (instr-export --rank)")
    ap.add_argument("--export", help="instr-export, for --no-rank-files")
    ap.add_argument("--unrecorded", type=int, default=0,
                    help="the last N ranks run with INSTR_ENABLE_PROFILING=0: missing from the "
                         "job's profile")
    ap.add_argument("--killed-exit", action="store_true",
                    help="case killed: the last rank _exit()s without MPI_Finalize instead of "
                         "being killed (KILLED_EXIT=1)")
    ap.add_argument("--enospc-double",
                    help="with --trace: the last rank's writes fail (this ENOSPC test double, "
                         "LD_PRELOADed into it alone); the job's line names its trace incomplete")
    args = ap.parse_args()

    work = os.path.abspath(args.workdir)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    mpirun = [args.mpirun, "-np", str(args.np)] + MPIRUN_FLAGS

    env = dict(os.environ)
    for k in list(env):
        if k.startswith("INSTR_"):
            del env[k]
    env["OMPI_MCA_btl"] = "self,vader"  # no network probing: quick, and the same every run
    if args.killed_exit:
        env["KILLED_EXIT"] = "1"
        mpirun[1:1] = ["-x", "KILLED_EXIT"]

    plain = run(mpirun + [os.path.abspath(args.plain)], env=env, cwd=work)
    # Open MPI's mpirun: the status of the rank that ended first, 128 + 9 for the killed one
    want = {"abort": 5, "killed": 3 if args.killed_exit else 137}.get(args.case, 0)
    if plain.returncode != want or not plain.stdout:
        fail("the uninstrumented run itself failed (status %d, expected %d):\n%s%s"
             % (plain.returncode, want, plain.stdout, plain.stderr))

    if args.mode == "instr":
        exe = os.path.join(work, "measured")
        c = run([args.instr, args.mpicc, "-O1", args.source, "-o", exe], env=env, cwd=work)
        if c.returncode != 0:
            fail("instr %s failed:\n%s%s" % (args.mpicc, c.stdout, c.stderr))
        cmd = mpirun + [exe]
    else:
        cmd = mpirun + ["-x", "LD_PRELOAD=" + args.lib, os.path.abspath(args.plain)]
    menv = dict(env)
    if args.trace:
        menv["INSTR_ENABLE_TRACING"] = "1"
        cmd = cmd[:1] + ["-x", "INSTR_ENABLE_TRACING"] + cmd[1:]
    # Every rank's own files (rank-N/) are what the checks below compare the job's with; the
    # aborting rank and --no-rank-files show the default: files at the job's top only.
    rank_files = args.case not in ("abort", "killed") and not args.no_rank_files
    if rank_files:
        menv["INSTR_RANK_FILES"] = "1"
        cmd = cmd[:1] + ["-x", "INSTR_RANK_FILES"] + cmd[1:]
    if args.verbose:
        menv["INSTR_VERBOSE"] = "1"
        cmd = cmd[:1] + ["-x", "INSTR_VERBOSE"] + cmd[1:]
    if args.unrecorded:
        # MPMD: the same program, its last ranks recording nothing.
        rest = cmd[cmd.index(str(args.np)) + 1:]
        cmd = cmd[:cmd.index(str(args.np))] + [str(args.np - args.unrecorded)] + rest + \
            [":", "-np", str(args.unrecorded), "-x", "INSTR_ENABLE_PROFILING=0"] + \
            [a for a in rest if a not in MPIRUN_FLAGS]
    if args.enospc_double:
        # MPMD: the same program, its last rank on a full disk from its first write on.
        rest = cmd[cmd.index(str(args.np)) + 1:]
        cmd = cmd[:cmd.index(str(args.np))] + [str(args.np - 1)] + rest + \
            [":", "-np", "1", "-x", "LD_PRELOAD=" + args.enospc_double,
             "-x", "ENOSPC_DOUBLE_AFTER=0"] + [a for a in rest if a not in MPIRUN_FLAGS]
    measured = run(cmd, env=menv, cwd=work)
    sys.stderr.write(measured.stderr)

    if measured.stdout != plain.stdout:
        fail("stdout differs:\n--- plain\n%s--- measured\n%s" % (plain.stdout, measured.stdout))
    if measured.returncode != plain.returncode:
        fail("exit status %d, uninstrumented %d" % (measured.returncode, plain.returncode))
    print("behaviour unchanged: same stdout, exit status %d" % plain.returncode)

    exps = sorted(glob.glob(os.path.join(work, "instr-*")))
    if len(exps) != 1:
        fail("expected one experiment directory for the job, found %r" % exps)
    exp = exps[0]

    if args.case == "abort":
        if "MPI_Abort called on rank 1" not in measured.stderr:
            fail("no report of the abort on stderr")
        prof = P.load(os.path.join(exp, "rank-1"))
        got = P.visits_by_region(prof)
        for name in ("MPI_Init", "MPI_Recv", "MPI_Abort"):
            if got.get(name) != 1:
                fail("rank-1 profile: %s visits %r, expected 1 (%r)" % (name, got.get(name), got))
        if os.path.exists(os.path.join(exp, "profile.json")):
            fail("a job profile.json was written although the job was aborted")
        # Rank 1 ended alone: it says where its files are, with its number; no job summary.
        # Without INSTR_RANK_FILES it keeps what it measured in the one file that holds it.
        own = ("instr: rank 1: 1 thread, 5 regions: %s written to %s/rank-1"
               % ("profile.json", exp))
        if own not in measured.stderr.splitlines():
            fail("rank 1 did not say where its own files are (%r)" % own)
        if sorted(os.listdir(os.path.join(exp, "rank-1"))) != ["profile.json"]:
            fail("rank-1/ holds %r, expected profile.json only"
                 % sorted(os.listdir(os.path.join(exp, "rank-1"))))
        if "MPI job of" in measured.stderr:
            fail("a job summary was printed although the job was aborted")
        print("abort: rank 1's profile written, the abort reported")
        if args.trace:
            # Rank 1 wrote its events before aborting and said that the archive is unfinished.
            if "trace: rank 1 wrote its events to traces/" not in measured.stderr:
                fail("no report of rank 1's unfinished trace on stderr")
            evt = os.path.join(exp, "traces", "%d.evt" % (1 << 32))
            if not os.path.isfile(evt) or os.path.getsize(evt) == 0:
                fail("rank 1's event file %s is missing or empty" % evt)
            if os.path.exists(os.path.join(exp, "traces.def")):
                fail("traces.def written although the job was aborted")
            print("abort: rank 1's trace events written (%d bytes), the unfinished archive "
                  "reported" % os.path.getsize(evt))
        return

    if args.case == "killed":
        check_killed(exp, args.np, measured.stderr, args.trace)
        return
    if args.unrecorded:
        check_missing(exp, args.np, args.unrecorded, measured.stderr)
        return
    if args.enospc_double:
        check_enospc_trace(exp, args.np, measured.stderr,
                           os.path.join(os.path.dirname(os.path.abspath(args.instr)),
                                        "instr-export"))
        return
    expect = {"halo": halo_expect, "collectives": collectives_expect}[args.case]
    visits, msgs = expect(args.np, args.mode)
    prof = check_job(exp, args.np, visits, msgs, rank_files)
    # What the job printed, its profile.txt, and each rank's own profile against the job's.
    problems = job_output.stderr_problems(measured.stderr, exp, args.np, args.verbose,
                                          args.trace, rank_files=rank_files)
    if rank_files:
        ranks = job_output.load_ranks(exp, args.np, P.load)
    else:
        problems += job_output.top_problems(exp, args.trace)
        ranks = job_output.export_ranks(exp, args.np, args.export, work, P.load)
    problems += job_output.rank_problems(prof, ranks)
    problems += job_output.text_problems(exp, args.np, ranks, visits)
    if args.case == "collectives":
        problems += job_output.collectives_problems(prof, ranks, args.np)
    if problems:
        fail("job output: %d problem(s):\n  %s" % (len(problems), "\n  ".join(problems[:20])))
    print("job output: %d instr lines on stderr as expected, profile.txt and every rank's "
          "own profile.json agree with the job's profile.json"
          % sum(1 for l in measured.stderr.splitlines() if l.startswith("instr: ")))
    if args.trace:
        p2p = sum(m[0] for m in msgs.values())
        problems = check_trace.check(exp, args.np, visits, p2p)
        if problems:
            fail("trace: %d problem(s):\n  %s" % (len(problems), "\n  ".join(problems[:20])))
        if "definitions unified" not in measured.stderr:
            fail("no summary line for the job's trace on stderr")
    elif os.path.exists(os.path.join(exp, "traces.otf2")):
        fail("a trace was written without INSTR_ENABLE_TRACING")


if __name__ == "__main__":
    main()
