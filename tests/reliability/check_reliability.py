#!/usr/bin/env python3
"""End-to-end checks of what the runtime promises in docs/reliability.md: the program runs as
written (exit status, stdout, its own stderr) and what was measured is kept or its loss is
said, under termination signals, a file-size limit, a full disk and a deep recursion.
Usage: check_reliability.py CASE --bin DIR --work DIR --lib DIR --double LIB --hung LIB
                            [--trace 0|1] [--sampling 0|1] [--profile-trace 0|1] [--critpath 0|1]
                            [--convert-thread 0|1]
With --sampling 1 every run also samples (INSTR_SAMPLING=1), with --profile-trace 1 every run
also traces (INSTR_ENABLE_TRACING=1), with --convert-thread 1 every run also traces and
converts on the converter thread (INSTR_TRACE_CONVERT=thread), with --critpath 1 every run also measures the critical
path (INSTR_CRITICAL_PATH=1): the same promises hold."""
import argparse
import json
import os
import resource
import signal
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from cases import Fail, clean_env, expect, fresh_dir, run_case  # noqa: E402  tests/lib/cases.py

A = None
P = None  # tests/lib/profile.py
SKIP = 77


class Skip(Exception):
    pass


def workdir(name):
    return fresh_dir(os.path.join(A.work, A.case + (".sampling" if A.sampling else "") +
                                  (".profile_trace" if A.profile_trace else "") +
                                  (".convert_thread" if A.convert_thread else "") +
                                  (".critpath" if A.critpath else ""), name))


def instrumented_visits(prof):
    """Visits per region name of the instrumented regions (sampled frames left out: with
    --sampling they are extra nodes, docs/sampling.md)."""
    sampled = {r["name"] for r in prof["regions"] if r.get("source") == "sampled"}
    return {k: v for k, v in P.visits_by_region(prof).items() if k not in sampled}


def prog(name, kind):
    return os.path.join(A.bin, "rel_%s_%s" % (name, kind))


def split_stderr(err):
    lines = err.splitlines()
    return [l for l in lines if l.startswith("instr: ")], [l for l in lines if not l.startswith("instr: ")]


def run(exe, args=(), cwd=None, env=None, preexec=None):
    p = subprocess.run([exe] + list(args), cwd=cwd, env=clean_env(env), capture_output=True,
                       timeout=150, preexec_fn=preexec)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def same(name, args=(), env=None, preexec=None):
    """Plain and instrumented runs; the same exit status, stdout and own stderr. Returns
    (rc, instr lines, instrumented workdir)."""
    wp, wi = workdir("plain"), workdir("inst")
    r0 = run(prog(name, "plain"), args, wp, None, preexec)
    r1 = run(prog(name, "inst"), args, wi, env, preexec)
    mine, rest1 = split_stderr(r1[2])
    expect(r0[0] == r1[0], "exit status %r instrumented vs %r plain; stderr:\n%s"
           % (r1[0], r0[0], r1[2]))
    expect(r0[1] == r1[1], "stdout differs:\n--- plain\n%s--- instrumented\n%s" % (r0[1], r1[1]))
    expect(split_stderr(r0[2])[1] == rest1, "the program's own stderr differs:\n%s" % r1[2])
    return r1[0], mine, wi


def experiment_dirs(wd):
    return sorted(os.path.join(wd, d) for d in os.listdir(wd) if d.startswith("instr-"))


def no_partial(exp):
    left = [f for f in os.listdir(exp) if f.endswith(".partial")]
    expect(not left, "partial files left under %s: %r" % (exp, left))


def written_files(mine):
    """Files the summary line names, or [] when it says nothing was written."""
    summ = [l for l in mine if " written to " in l or "nothing was written" in l]
    expect(len(summ) == 1, "expected one summary line, got %r" % mine)
    if "nothing was written" in summ[0]:
        return []
    names = summ[0].split(": ", 2)[-1].split(" written to ")[0]
    return [n.strip() for n in names.split(",")]


def complete_files(exp, mine):
    """Everything under a final name is complete, and the summary names exactly the profile
    files that exist."""
    no_partial(exp)
    present = sorted(f for f in os.listdir(exp) if f.startswith("profile."))
    named = sorted(f for f in written_files(mine) if f.startswith("profile."))
    expect(named == present, "summary names %r, directory holds %r" % (named, present))
    if "profile.json" in present:
        P.load(exp)
    if "profile.folded" in present:
        P.read_folded(exp)
    return present


# ---- termination signals

def run_until_signal(kind, sig, env=None, mode="loop", first=None):
    """Starts the program, waits for "ready", sends `first` (if any) then `sig`."""
    wd = workdir(kind)
    pre = (lambda: signal.signal(signal.SIGTERM, signal.SIG_IGN)) if first == "ignore-term" else None
    p = subprocess.Popen([prog("signals", kind), mode], cwd=wd, env=clean_env(env),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=pre)
    line = p.stdout.readline()
    expect(line == b"ready\n", "%s: no ready line: %r" % (kind, line))
    if first == "ignore-term":
        p.send_signal(signal.SIGTERM)
    p.send_signal(sig)
    out, err = p.communicate(timeout=120)
    return p.returncode, line.decode() + out.decode(errors="replace"), err.decode(errors="replace"), wd


def signal_case(sig, mode="loop", first=None, env=None):
    rc0, out0, err0, _ = run_until_signal("plain", sig, mode=mode, first=first)
    rc1, out1, err1, wd = run_until_signal("inst", sig, env=env, mode=mode, first=first)
    expect(rc0 == rc1, "%s: exit status %r instrumented vs %r plain; stderr:\n%s"
           % (sig, rc1, rc0, err1))
    expect(out0 == out1, "%s: stdout %r vs %r" % (sig, out1, out0))
    mine, rest = split_stderr(err1)
    expect(rest == split_stderr(err0)[1], "%s: own stderr differs: %r" % (sig, err1))
    return rc1, mine, wd


def profile_after_signal(sig, mode="loop", first=None):
    rc, mine, wd = signal_case(sig, mode=mode, first=first)
    expect(rc == -sig, "%s: exit status %r, expected death by the signal" % (sig, rc))
    exps = experiment_dirs(wd)
    expect(len(exps) == 1, "%s: experiments %r" % (sig, exps))
    files = complete_files(exps[0], mine)
    expect(files == ["profile.cubex", "profile.folded", "profile.html", "profile.json",
                     "profile.txt"], "%s: %r" % (sig, files))
    prof = P.load(exps[0])
    problems = P.check_consistency(prof)
    expect(not problems, "%s: profile inconsistent: %r" % (sig, problems[:5]))
    v = instrumented_visits(prof)
    expect(v.get("main") == 1 and v.get("work", 0) >= 1000, "%s: visits %r" % (sig, v))
    expect(prof["run"]["closed_at_end"] >= 1, "%s: open regions not closed" % sig)


def case_sigterm():
    profile_after_signal(signal.SIGTERM)


def case_sigterm_trace():
    if not A.trace:
        raise Skip("this runtime is built without OTF2")
    import otf2check as T
    rc, mine, wd = signal_case(signal.SIGTERM, env={"INSTR_ENABLE_TRACING": "1"})
    expect(rc == -signal.SIGTERM, "exit status %r" % rc)
    exps = experiment_dirs(wd)
    expect(len(exps) == 1, "experiments %r" % exps)
    tr = T.load(exps[0])  # otf2-print -A -Werror reads the whole archive
    expect(tr.problems() == [], "trace problems: %r" % tr.problems()[:5])
    n = tr.enters_by_region()
    expect(n.get("main") == 1 and n.get("work", 0) >= 1000, "enters %r" % n)
    expect("traces.otf2" in written_files(mine), "summary %r" % mine)


def case_signals_all():
    for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGXCPU, signal.SIGUSR1, signal.SIGUSR2):
        profile_after_signal(sig)


def case_own_handler():
    # The program's handler, installed after start-up, replaces the runtime's: it runs, the
    # program ends as it says (_exit(7): no profile, as documented for _exit).
    rc, mine, wd = signal_case(signal.SIGTERM, mode="own")
    expect(rc == 7, "exit status %r, expected the program's own 7" % rc)
    exps = experiment_dirs(wd)
    expect(len(exps) == 1 and not os.path.exists(os.path.join(exps[0], "profile.json")),
           "the runtime wrote a profile although the program handled SIGTERM: %r" % exps)


def case_signal_opt_out():
    # INSTR_WRITE_ON_SIGNAL=0: the runtime installs no handler, so a program that installs
    # its own only over the default disposition behaves exactly as built plain.
    rc, mine, wd = signal_case(signal.SIGTERM, mode="if_default",
                               env={"INSTR_WRITE_ON_SIGNAL": "0"})
    expect(rc == 7, "exit status %r, expected the program's own 7" % rc)
    rc, mine, wd = signal_case(signal.SIGTERM, env={"INSTR_WRITE_ON_SIGNAL": "0"})
    expect(rc == -signal.SIGTERM, "exit status %r" % rc)
    exps = experiment_dirs(wd)
    expect(len(exps) == 1 and sorted(os.listdir(exps[0])) == ["instr.cfg"],
           "INSTR_WRITE_ON_SIGNAL=0 wrote a profile: %r" % exps)


def case_ignored_signal():
    # SIGTERM ignored when the program starts (as nohup does for SIGHUP): it stays ignored;
    # the SIGINT that follows ends the program and the profile is written.
    profile_after_signal(signal.SIGINT, first="ignore-term")


def case_stuck_write():
    # The write after a signal gets stuck (a disk that stops answering: tests/lib/
    # hung_disk_double.c hangs every write to profile.*): the watchdog lets the signal
    # through, the process dies by it as the plain program, the profile is lost and no
    # file of it carries a final name.
    env = {"LD_PRELOAD": A.hung, "HUNG_DOUBLE_PREFIX": "profile.",
           "ASAN_OPTIONS": "verify_asan_link_order=0"}
    rc, mine, wd = signal_case(signal.SIGTERM, env=env)
    expect(rc == -signal.SIGTERM, "exit status %r" % rc)
    exps = experiment_dirs(wd)
    expect(len(exps) == 1, "experiments %r" % exps)
    files = sorted(os.listdir(exps[0]))
    expect("instr.cfg" in files and not [f for f in files if f.startswith("profile.") and
                                         not f.endswith(".partial")],
           "files %r" % files)


def case_write_on_fatal():
    rc, mine, wd = same("signals", ["abort"], env={"INSTR_WRITE_ON_FATAL": "1"})
    expect(rc == -signal.SIGABRT, "exit status %r" % rc)
    exps = experiment_dirs(wd)
    expect(len(exps) == 1, "experiments %r" % exps)
    complete_files(exps[0], mine)
    v = instrumented_visits(P.load(exps[0]))
    expect(v == {"main": 1, "work": 1000}, "visits %r" % v)


def case_fatal_default():
    rc, mine, wd = same("signals", ["abort"])
    expect(rc == -signal.SIGABRT, "exit status %r" % rc)
    exps = experiment_dirs(wd)
    expect(len(exps) == 1 and sorted(os.listdir(exps[0])) == ["instr.cfg"],
           "without INSTR_WRITE_ON_FATAL an abort writes nothing: %r"
           % (os.listdir(exps[0]) if exps else exps))


# ---- writes that fail

def lost_line(mine, reason):
    lines = [l for l in mine if "could not write into" in l]
    expect(len(lines) == 1 and reason in lines[0] and " lost: " in lines[0],
           "expected one line naming what was lost and why (%s), got %r" % (reason, mine))
    return lines[0]


def case_fsize_limit():
    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (1024, resource.RLIM_INFINITY))
    rc, mine, wd = same("deep", ["2000"], preexec=limit)
    expect(rc == 0, "exit status %r" % rc)
    exps = experiment_dirs(wd)
    expect(len(exps) == 1, "experiments %r" % exps)
    line = lost_line(mine, "File too large")
    expect("profile.json" in line, line)
    complete_files(exps[0], mine)
    if A.trace:
        # The trace's writes at the end are held off SIGXFSZ too: the program is not killed.
        rc, mine, wd = same("deep", ["2000"], env={"INSTR_ENABLE_TRACING": "1"}, preexec=limit)
        expect(rc == 0, "trace mode: exit status %r" % rc)
        exps = experiment_dirs(wd)
        expect(len(exps) == 1, "experiments %r" % exps)
        complete_files(exps[0], mine)


def case_enospc_double():
    for after in (0, 3000, 40000):
        # (an ASan build checks that its runtime comes first; the double is preloaded)
        rc, mine, wd = same("deep", ["2000"], env={"LD_PRELOAD": A.double,
                                                   "ENOSPC_DOUBLE_AFTER": str(after),
                                                   "ASAN_OPTIONS": "verify_asan_link_order=0"})
        expect(rc == 0, "exit status %r" % rc)
        exps = experiment_dirs(wd)
        expect(len(exps) == 1, "experiments %r" % exps)
        line = lost_line(mine, "No space left on device")
        if after == 0:
            expect("instr.cfg" in line, "the failed instr.cfg is not reported: %r" % line)
            expect(os.listdir(exps[0]) == [], "files left: %r" % os.listdir(exps[0]))
        complete_files(exps[0], mine)


def case_full_disk_tmpfs():
    if os.geteuid() != 0:
        raise Skip("mounting a tmpfs needs root")
    mnt = workdir("tmpfs")
    p = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", mnt],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise Skip("cannot mount a tmpfs here: " + p.stderr.strip())
    try:
        target = os.path.join(mnt, "exp")
        rc, mine, wd = same("deep", ["3000"], env={"INSTR_EXPERIMENT_DIRECTORY": target})
        expect(rc == 0, "exit status %r" % rc)
        lost_line(mine, "No space left on device")
        complete_files(target, mine)
    finally:
        subprocess.run(["umount", mnt])


# ---- sizes

def case_deep_recursion():
    rc, mine, wd = same("deep", ["20000"])
    exps = experiment_dirs(wd)
    expect(len(exps) == 1, "experiments %r" % exps)
    exp = exps[0]
    complete_files(exp, mine)
    sizes = {f: os.path.getsize(os.path.join(exp, f)) for f in os.listdir(exp)}
    total = sum(sizes.values())
    print("experiment of a 20,000-deep recursion: %d bytes %r" % (total, sizes))
    expect(total < 50 * 2**20, "experiment is %d bytes, over 50 MB" % total)
    prof = P.load(exp)
    depth = prof["run"]["folded_max_depth"]
    nodes = len([n for n in prof["tree"] if not n.get("sampled")])
    expect(nodes == 20002, "%d call paths" % nodes)
    if A.sampling:
        # Sampled frames branch off the chain: the folded file's shape below is the chain's.
        expect(any(n.get("sampled") for n in prof["tree"]), "no sampled node")
        return
    expect(prof["run"]["folded_paths_shortened"] == nodes - depth,
           "folded_paths_shortened %r" % prof["run"]["folded_paths_shortened"])
    folds = 0
    with open(os.path.join(exp, "profile.folded")) as f:
        for line in f:
            frames = line.rsplit(" ", 1)[0].split(";")
            expect(len(frames) <= depth, "a line of %d frames" % len(frames))
            folds += any(fr.endswith(" frames folded]") for fr in frames)
    expect(folds == nodes - depth, "%d shortened lines" % folds)
    txt = open(os.path.join(exp, "profile.txt")).read()
    expect("shortened in profile.folded" in txt, "profile.txt does not say what was shortened")


def _trace_error():
    import otf2check as T
    return T.TraceError


def main():
    global A, P, clean_env
    ap = argparse.ArgumentParser()
    ap.add_argument("case")
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--lib", required=True)
    ap.add_argument("--double", required=True)
    ap.add_argument("--hung", required=True)
    ap.add_argument("--trace", type=int, default=0)
    ap.add_argument("--sampling", type=int, default=0)
    ap.add_argument("--profile-trace", type=int, default=0)
    ap.add_argument("--critpath", type=int, default=0)
    ap.add_argument("--convert-thread", type=int, default=0)
    A = ap.parse_args()
    if A.critpath:
        # Every run of the case with the critical path on (with the profile: the cursor path
        # with events, docs/critical-path.md): the same promises hold.
        cp_env = clean_env

        def clean_env(extra=None, drop=()):
            return cp_env(dict({"INSTR_CRITICAL_PATH": "1"}, **(extra or {})), drop)
    if A.profile_trace:
        if not A.trace:
            print("skipped %s: the runtime has no trace" % A.case)
            return SKIP
        # Every run of the case with the profile and the trace together (their cursor path
        # with records, docs/runtime.md): the same promises hold.
        base_env = clean_env

        def clean_env(extra=None, drop=()):
            return base_env(dict({"INSTR_ENABLE_TRACING": "1"}, **(extra or {})), drop)
    if A.convert_thread:
        if not A.trace:
            print("skipped %s: the runtime has no trace" % A.case)
            return SKIP
        # Every run with the trace converted on the runtime's converter thread
        # (INSTR_TRACE_CONVERT=thread, docs/tracing.md): the same promises hold.
        conv_env = clean_env

        def clean_env(extra=None, drop=()):
            return conv_env(dict({"INSTR_ENABLE_TRACING": "1", "INSTR_TRACE_CONVERT": "thread"},
                                 **(extra or {})), drop)
    if A.sampling:
        # Every run of the case with hybrid sampling on too (docs/sampling.md), at a short
        # period so that signals meet the runtime's own work often.
        plain_env = clean_env

        def clean_env(extra=None, drop=()):
            return plain_env(dict({"INSTR_SAMPLING": "1", "INSTR_SAMPLING_PERIOD": "100us"},
                                  **(extra or {})), drop)
    sys.path.insert(0, A.lib)
    import profile as prof_mod
    P = prof_mod
    try:
        return run_case(globals(), A.case, failures=(json.JSONDecodeError, P.ProfileError,
                                                     _trace_error()))
    except Skip as e:
        print("skipped %s: %s" % (A.case, e))
        return SKIP


if __name__ == "__main__":
    sys.exit(main())
