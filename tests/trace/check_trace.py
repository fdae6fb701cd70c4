#!/usr/bin/env python3
"""End-to-end checks of the OTF2 trace substrate: run a test program with
INSTR_ENABLE_TRACING=1, read the archive completely with otf2-print (tests/lib/otf2check.py)
and otf2-marker, and check it: per location Enter/Leave balanced and nested, timestamps
non-decreasing, exact Enter counts per region, equal to the profile's visits of the same run,
region definitions equal to the descriptors, the summary line equal to what is on disk.
Usage: check_trace.py CASE --bin DIR --work DIR --lib DIR
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from cases import Fail, expect, fresh_dir, run_case  # noqa: E402  tests/lib/cases.py

A = None
P = None  # tests/lib/profile.py
T = None  # tests/lib/otf2check.py

CALLS = {"main": 1, "early": 1, "mid": 15, "leaf": 56, "rec": 7}


def workdir(name):
    return fresh_dir(os.path.join(A.work, A.case + (".convert_" + A.convert if A.convert else ""),
                                  name))


def run(prog, args=(), env=None, name="run", timeout=600):
    """Runs tests/trace's program `prog` (or the program at the path `prog`) in a fresh
    directory with INSTR_* from `env` only.
    Returns (rc, stdout, instr lines, other stderr lines, experiment dir)."""
    wd = workdir(name)
    exe = prog if os.path.isabs(prog) else os.path.join(A.bin, "trace_" + prog)
    e = {k: v for k, v in os.environ.items() if not k.startswith("INSTR_")}
    e.update({"INSTR_ENABLE_TRACING": "1", "INSTR_EXPERIMENT_DIRECTORY": os.path.join(wd, "exp")})
    if A.convert:
        e["INSTR_TRACE_CONVERT"] = A.convert
    e.update(env or {})
    p = subprocess.run([exe] + list(args), cwd=wd, env=e,
                       capture_output=True, timeout=timeout)
    err = p.stderr.decode(errors="replace").splitlines()
    mine = [l for l in err if l.startswith("instr: ")]
    rest = [l for l in err if not l.startswith("instr: ")]
    return p.returncode, p.stdout.decode(errors="replace"), mine, rest, os.path.join(wd, "exp")


SUMMARY = re.compile(r"^instr: trace: (.*)/traces\.otf2: (\d+) events from (\d+) threads?, "
                     r"(\d+) bytes, (\d+) buffer flush(?:es)?")


def disk_bytes(exp):
    total = sum(os.path.getsize(os.path.join(exp, f)) for f in ("traces.otf2", "traces.def"))
    d = os.path.join(exp, "traces")
    return total + sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d))


def check_archive(exp, mine, profile=True):
    """Reads and checks the archive; returns (trace, flushes from the summary line)."""
    for f in ("traces.otf2", "traces.def", "traces"):
        expect(os.path.exists(os.path.join(exp, f)), "no %s in %s" % (f, exp))
    tr = T.load(exp)
    T.run_marker(exp)
    problems = tr.problems()
    expect(not problems, "trace invalid:\n  " + "\n  ".join(problems[:30]))
    expect(not tr.other, "unexpected event types %r" % tr.other)
    sums = [m for m in (SUMMARY.match(l) for l in mine) if m]
    expect(len(sums) == 1, "expected one trace summary line, got %r" % mine)
    m = sums[0]
    expect(m.group(1) == exp, "summary names %r, not %r" % (m.group(1), exp))
    expect(int(m.group(2)) == tr.total_events(),
           "summary says %s events, otf2-print read %d" % (m.group(2), tr.total_events()))
    expect(int(m.group(3)) == len(tr.locations), "summary says %s threads, %d locations defined"
           % (m.group(3), len(tr.locations)))
    expect(int(m.group(4)) == disk_bytes(exp), "summary says %s bytes, %d on disk"
           % (m.group(4), disk_bytes(exp)))
    flushes = int(m.group(5))
    expect(flushes == tr.flushes, "summary says %d flushes, %d BUFFER_FLUSH records"
           % (flushes, tr.flushes))
    if profile:
        prof = P.load(exp)
        pc = P.check_consistency(prof)
        expect(not pc, "profile inconsistent: %r" % pc[:10])
        pv, tv = P.visits_by_region(prof), tr.enters_by_region()
        expect(pv == tv, "trace Enter counts %r != profile visits %r" % (tv, pv))
        expect(len(prof["locations"]) == len(tr.locations),
               "%d profile locations, %d trace locations"
               % (len(prof["locations"]), len(tr.locations)))
    else:
        expect(not os.path.exists(os.path.join(exp, "profile.json")), "profile written")
    return tr, flushes


def subset(counts, want):
    return {k: counts.get(k) for k in want}


def case_calls():
    rc, out, mine, rest, exp = run("calls")
    expect(rc == 0 and rest == [], "rc %r, stderr %r" % (rc, rest))
    tr, flushes = check_archive(exp, mine)
    got = tr.enters_by_region()
    expect(subset(got, CALLS) == CALLS, "Enter counts %r, want %r" % (got, CALLS))
    expect(flushes == 0, "flushes with the default budget: %d" % flushes)
    expect(len(tr.locations) == 2, "locations %r" % tr.locations)
    # the helper thread: its own location, only its own regions
    early = [l for l in tr.events if tr.enters_by_region(l).get("early")]
    expect(len(early) == 1, "early thread locations %r" % early)
    expect(tr.enters_by_region(early[0]) == {"early": 1, "mid": 5, "leaf": 15},
           "early thread %r" % tr.enters_by_region(early[0]))
    # clock: ticks per second as the runtime's clock; the events inside its range
    expect(tr.clock[0] > 0, "clock %r" % (tr.clock,))
    for r in tr.regions.values():
        expect(r["paradigm"] == "COMPILER" and r["role"] == "FUNCTION" and
               r["description"] == "cyg", "cyg region %r" % r)


def case_trace_only():
    rc, out, mine, rest, exp = run("calls", env={"INSTR_ENABLE_PROFILING": "0"})
    expect(rc == 0 and rest == [], "rc %r, stderr %r" % (rc, rest))
    tr, _ = check_archive(exp, mine, profile=False)
    expect(subset(tr.enters_by_region(), CALLS) == CALLS, tr.enters_by_region())


def case_exit_deep():
    rc, out, mine, rest, exp = run("calls", ["exit"])
    expect(rc == 3, "exit code %r, want 3" % rc)
    expect(out.startswith("exiting deep"), out)
    tr, _ = check_archive(exp, mine)
    want = dict(CALLS, deep_exit=6)
    expect(subset(tr.enters_by_region(), want) == want, tr.enters_by_region())
    # main and the six deep_exit frames were open at exit(): closed at the end, not lost
    main_loc = [l for l in tr.events if tr.enters_by_region(l).get("main")][0]
    evs = tr.events[main_loc]
    expect(evs[-1][0] == "LEAVE" and tr.regions[evs[-1][2]]["name"] == "main",
           "last event of main's location %r" % (evs[-1],))


def case_fork():
    rc, out, mine, rest, exp = run("calls", ["fork"])
    expect(rc == 0 and rest == [], "rc %r, stderr %r" % (rc, rest))
    expect(any("forked child" in l and "no trace" in l for l in mine),
           "no message about the child's trace: %r" % mine)
    parent = [l for l in mine if "forked child" not in l]
    tr, _ = check_archive(exp, parent)
    expect(subset(tr.enters_by_region(), CALLS) == CALLS, tr.enters_by_region())
    for d in os.listdir(exp):
        if d.startswith("fork-"):
            expect(not os.path.exists(os.path.join(exp, d, "traces.otf2")),
                   "the child wrote a trace in %s" % d)


def case_nothing_recorded():
    # everything filtered at run time: still a complete archive (one empty location)
    spec = os.path.join(workdir("spec"), "none.spec")
    with open(spec, "w") as f:
        f.write("exclude function *\n")
    rc, out, mine, rest, exp = run("calls", env={"INSTR_FILTERING_FILE": spec})
    expect(rc == 0 and rest == [], "rc %r, stderr %r" % (rc, rest))
    tr = T.load(exp)
    T.run_marker(exp)
    expect(tr.problems() == [], tr.problems())
    expect(tr.total_events() == 0 and len(tr.locations) == 1, (tr.total_events(), tr.locations))
    expect(any(SUMMARY.match(l) and " 0 events" in l for l in mine), mine)


def case_definitions():
    rc, out, mine, rest, exp = run("hooks")
    expect(rc == 0 and rest == [], "rc %r, stderr %r" % (rc, rest))
    tr, _ = check_archive(exp, mine)
    want = {"main": 1, "ns::solver::step(int)": 3, "ns::kernel<double>(double*, long)": 6,
            "assemble phase": 2}
    expect(tr.enters_by_region() == want, "Enter counts %r" % tr.enters_by_region())
    descs = {
        "main": ("main", "/src/app/main.c", 40, 52),
        "ns::solver::step(int)": ("_ZN2ns6solver4stepEi", "/src/app/solver.cpp", 101, 140),
        "ns::kernel<double>(double*, long)": ("_ZN2ns6kernelIdEEvPdl",
                                              "/src/app/include/kernel.hpp", 7, 19),
    }
    for name, (mangled, file, b, e) in descs.items():
        r = tr.region_by_name(name)
        got = (r["canonical"], r["file"], r["begin"], r["end"], r["paradigm"], r["role"])
        expect(got == (mangled, file, b, e, "COMPILER", "FUNCTION"), "%s: %r" % (name, got))
    r = tr.region_by_name("assemble phase")
    expect((r["paradigm"], r["role"], r["description"]) == ("USER", "CODE", "manual"),
           "manual region %r" % r)


def threads_case(threads, waves, iters, memory):
    args = [str(threads), str(waves), str(iters)]
    rc, out, mine, rest, exp = run("threads", args, env={"INSTR_TOTAL_MEMORY": memory})
    expect(rc == 0 and rest == [], "rc %r, stderr %r" % (rc, rest))
    tr, flushes = check_archive(exp, mine)
    want = {"main": 1, "worker": threads, "outer": threads * iters, "inner": 3 * threads * iters}
    expect(tr.enters_by_region() == want, "Enter counts %r, want %r" % (tr.enters_by_region(), want))
    expect(len(tr.locations) == threads + 1, "%d locations" % len(tr.locations))
    workers = [l for l in tr.events if tr.enters_by_region(l).get("worker")]
    expect(len(workers) == threads, "%d locations ran worker" % len(workers))
    for loc in workers:
        n = sum(1 for e in tr.events[loc] if e[0] in ("ENTER", "LEAVE"))
        expect(n == 2 * (1 + 4 * iters), "location %d: %d Enter/Leave records" % (loc, n))
    # more events than the budget holds: buffers were flushed, and said so
    expect(flushes > 0, "no buffer flush with INSTR_TOTAL_MEMORY=%s" % memory)
    expect(any("INSTR_TOTAL_MEMORY=%s was full" % memory in l for l in mine), mine)


def case_convert_thread():
    # INSTR_TRACE_CONVERT=thread against the conversion at the end: 4 threads at once, each
    # with records for two chunks (the smallest, with a 4 MiB budget) that the budget holds
    # all of, so that the converter thread converts full chunks while they run and the end
    # flushes no buffer; the same events, and no location of its own.
    threads, iters = 4, 5000
    got = {}
    for mode in ("end", "thread"):
        rc, out, mine, rest, exp = run("threads", [str(threads), "1", str(iters)], name=mode,
                                       env={"INSTR_TOTAL_MEMORY": "4M", "INSTR_VERBOSE": "1",
                                            "INSTR_TRACE_CONVERT": mode})
        expect(rc == 0 and rest == [], "%s: rc %r, stderr %r" % (mode, rc, rest))
        tr, flushes = check_archive(exp, mine)
        expect(flushes == 0, "%s: %d buffer flushes" % (mode, flushes))
        expect(len(tr.locations) == threads + 1, "%s: %d locations" % (mode, len(tr.locations)))
        on = any("converting full buffer chunks on a thread" in l for l in mine)
        expect(on == (mode == "thread"), "%s: converter thread said %r: %r" % (mode, on, mine))
        if mode == "thread":
            conv = [re.search(r"converter thread converted (\d+) full chunk", l) for l in mine]
            conv = [int(m.group(1)) for m in conv if m]
            expect(conv and conv[0] > 0, "the converter converted no chunk: %r" % mine)
        got[mode] = (tr.enters_by_region(), tr.total_events(),
                     sorted(sum(1 for e in tr.events[l] if e[0] in ("ENTER", "LEAVE"))
                            for l in tr.events))
    want = {"main": 1, "worker": threads, "outer": threads * iters, "inner": 3 * threads * iters}
    expect(got["thread"][0] == want, "Enter counts %r, want %r" % (got["thread"][0], want))
    expect(got["thread"] == got["end"], "thread %r != end %r" % (got["thread"][1:],
                                                                  got["end"][1:]))


def case_convert_invalid():
    rc, out, mine, rest, exp = run("calls", env={"INSTR_TRACE_CONVERT": "later"})
    expect(rc == 0 and rest == [], "rc %r, stderr %r" % (rc, rest))
    expect(any("INSTR_TRACE_CONVERT=later" in l and "use end" in l and "thread" in l
               for l in mine), "no message naming the variable and its values: %r" % mine)
    tr, _ = check_archive(exp, [l for l in mine if "INSTR_TRACE_CONVERT" not in l])
    expect(subset(tr.enters_by_region(), CALLS) == CALLS, tr.enters_by_region())


def case_threads():
    # 20 threads at once; 20 * 10000 * 8 Enter/Leave records (~17 MB) with a 2 MiB budget
    threads_case(20, 1, 10000, "2M")


def case_thread_waves():
    # 64 threads in 4 waves of 16: ended threads hand their buffers back to the next wave
    threads_case(64, 4, 3000, "2M")


def dropped_by_handlers(mine):
    """Events of signal handlers the summary says were dropped (0 when it says nothing)."""
    for l in mine:
        m = re.match(r"^instr: trace: (\d+) event\(s\) of signal handlers", l)
        if m:
            return int(m.group(1))
    return 0


def check_signals(prog, mode, memory, runs=3, env=None, path_line=None):
    """An instrumented handler at 1 kHz, trace only (or with `env`, e.g. the profile too): the
    archive reads back, the interrupted code's counts are exact, every handler call is in the
    trace or counted as dropped. path_line: a line INSTR_VERBOSE must print (the events' path
    chosen), asked for with it."""
    calls = 100000
    e = {"INSTR_ENABLE_PROFILING": "0", "INSTR_TOTAL_MEMORY": memory}
    e.update(env or {})
    if path_line:
        e["INSTR_VERBOSE"] = "1"
    tag = "_".join(v for k, v in sorted((env or {}).items()) if k == "INSTR_TIMER" or
                   k == "INSTR_ENABLE_PROFILING")
    for i in range(runs):
        rc, out, mine, rest, exp = run(prog, [mode, str(calls)],
                                       name="%s_%s_%s_%s%d" % (os.path.basename(prog), mode,
                                                               memory, tag, i),
                                       env=e)
        expect(rc == 0 and rest == [], "rc %r, stderr %r" % (rc, rest))
        if path_line:
            expect(any(path_line in l for l in mine), "no %r in %r" % (path_line, mine))
        m = re.match(r"^work (\d+) handler (\d+)$", out.strip())
        expect(m and int(m.group(1)) >= calls, "output %r" % out)
        made, handled = int(m.group(1)), int(m.group(2))
        expect(handled > 0, "the handler never ran: the case tests nothing")
        tr, _ = check_archive(exp, mine, profile=e["INSTR_ENABLE_PROFILING"] == "1")
        got = tr.enters_by_region()
        expect(got.get("work") == made and got.get("inner") == 3 * made,
               "interrupted code's counts %r, want work %d inner %d" % (got, made, 3 * made))
        dropped = dropped_by_handlers(mine)
        recorded = got.get("on_signal", 0) - 1  # one call before the timer (signals.c)
        expect(got.get("tick", 0) == recorded + 1, "handler %r" % got)
        if dropped == 0:
            expect(recorded == handled, "%d handler calls recorded, %d ran, none said dropped"
                   % (recorded, handled))
        else:
            expect(recorded < handled and handled - recorded <= dropped,
                   "%d handler calls recorded, %d ran, %d events said dropped"
                   % (recorded, handled, dropped))


def case_signals_alrm():
    check_signals("signals", "alrm", "256M")
    check_signals("signals", "alrm", "1M")  # buffers converted and written during the run


def case_signals_prof():
    check_signals("signals", "prof", "256M")
    check_signals("signals", "prof", "1M")


def signals_plugin_builds(tag):
    """The signal program built with the GCC and the LLVM plugin's hooks (instr gcc / clang):
    [(cc, executable)], one at least."""
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "progs", "signals.c")
    built = []
    for cc in ("gcc", "clang"):
        if not shutil.which(cc):
            continue
        wd = workdir("build_%s_%s" % (tag, cc))
        exe = os.path.join(wd, "signals_" + cc)
        p = subprocess.run([A.wrapper, cc, "-O1", src, "-o", exe], cwd=wd, capture_output=True)
        err = p.stderr.decode(errors="replace")
        expect(p.returncode == 0, "%s: build failed: %s" % (cc, err))
        expect("cyg mode" not in err, "%s: no plugin, the wrapper fell back: %s" % (cc, err))
        built.append((cc, exe))
    expect(built, "neither gcc nor clang found")
    return built


def case_signals_plugins():
    for cc, exe in signals_plugin_builds("tsc"):
        for mode in ("alrm", "prof"):
            check_signals(exe, mode, "256M", runs=2)
            check_signals(exe, mode, "1M", runs=2)


def case_signals_plugins_clock():
    # Another timer than the TSC: the hooks' direct path with that clock through the jump
    # table, alone and with the profile (the cursor path with records).
    for cc, exe in signals_plugin_builds("clock"):
        for mode in ("alrm", "prof"):
            check_signals(exe, mode, "1M", runs=1, env={"INSTR_TIMER": "monotonic"},
                          path_line="events: the trace's records appended by the sources, "
                                    "timer monotonic")
            check_signals(exe, mode, "1M", runs=1,
                          env={"INSTR_TIMER": "monotonic", "INSTR_ENABLE_PROFILING": "1"},
                          path_line="events: the profile's cursor path with the trace's "
                                    "records, timer monotonic")


def check_ending(how, runs, want_out):
    """The process ends while four threads call instrumented code: every run's archive reads
    back complete and properly nested, with the program's own output and status. The last
    run with another timer than the TSC (the direct path through the slow paths)."""
    for i in range(runs):
        env = {"INSTR_ENABLE_PROFILING": "0"}
        if i == runs - 1:
            env["INSTR_TIMER"] = "monotonic"
        rc, out, mine, rest, exp = run("ending", [how], name="%s_%d" % (how, i), env=env)
        expect(rc == 0 and rest == [], "run %d: rc %r, stderr %r" % (i, rc, rest))
        expect(out == want_out, "run %d: output %r" % (i, out))
        tr, _ = check_archive(exp, mine, profile=False)
        expect(len(tr.locations) == 5, "run %d: %d locations" % (i, len(tr.locations)))
        spinning = [l for l in tr.events if tr.enters_by_region(l).get("top")]
        expect(len(spinning) == 4, "run %d: %d locations ran top()" % (i, len(spinning)))


def case_ending_return():
    check_ending("return", 20, "main ends (return)\n")


def case_ending_exit():
    check_ending("exit", 5, "worker exits\n")


def case_ending_quick_exit():
    check_ending("quick_exit", 5, "main ends (quick_exit)\n")


def case_ending_detached():
    check_ending("detached", 5, "main ends (detached)\n")


INCOMPLETE = re.compile(r"^instr: trace: (.*)/traces\.otf2 is incomplete.*: writing .*failed "
                        r"\((No space left on device|File too large)\)")


def check_full_disk_output(what, rc, out, mine, rest, want_out):
    """The program's own output and status, one line saying the trace is incomplete and why,
    and nothing that presents the archive as written."""
    expect(rc == 0 and rest == [], "%s: rc %r, stderr %r" % (what, rc, rest))
    expect(out == want_out, "%s: output %r, want %r" % (what, out, want_out))
    said = [l for l in mine if INCOMPLETE.match(l)]
    expect(len(said) == 1, "%s: want one line saying the trace is incomplete, got %r"
           % (what, mine))
    expect(not any(SUMMARY.match(l) for l in mine), "%s: the trace's summary line: %r"
           % (what, mine))
    expect(not any("traces.otf2" in l and " written to " in l for l in mine),
           "%s: the summary lists traces.otf2: %r" % (what, mine))


def case_disk_full():
    # The full-disk test double (tests/lib/enospc_double.c): writes to regular files fail
    # with ENOSPC after N bytes. With 1M of budget the trace is converted during the run, so
    # it fails in the run as well as at the end.
    shim = A.double
    args = ["4", "1", "20000"]
    rc, want_out, mine, rest, exp = run("threads", args, name="plain",
                                        env={"INSTR_ENABLE_PROFILING": "0"})
    expect(rc == 0 and rest == [], "without the shim: rc %r, stderr %r" % (rc, rest))
    check_archive(exp, mine, profile=False)
    for memory in ("256M", "1M"):
        for after in (0, 4096, 1 << 20, 6 << 20):
            what = "INSTR_TOTAL_MEMORY=%s, ENOSPC after %d bytes" % (memory, after)
            env = {"INSTR_ENABLE_PROFILING": "0", "INSTR_TOTAL_MEMORY": memory,
                   "LD_PRELOAD": shim, "ENOSPC_DOUBLE_AFTER": str(after),
                   "ASAN_OPTIONS": (os.environ.get("ASAN_OPTIONS", "") +
                                    ":verify_asan_link_order=0").lstrip(":")}
            rc, out, mine, rest, exp = run("threads", args, env=env,
                                           name="full_%s_%d" % (memory, after))
            check_full_disk_output(what, rc, out, mine, rest, want_out)


def case_disk_full_tmpfs():
    # A real full file system: a 256 KiB tmpfs in a private mount namespace (unshare -rm),
    # where this machine lets the test make one.
    unshare = shutil.which("unshare")
    probe = subprocess.run([unshare, "-rm", "true"], capture_output=True) if unshare else None
    if not probe or probe.returncode != 0:
        print("skipped: cannot make a private mount namespace here (unshare -rm), so no "
              "tmpfs; trace.disk_full covers the case with the test double")
        sys.exit(77)
    rc, want_out, _, _, _ = run("threads", ["4", "1", "20000"], name="plain",
                                env={"INSTR_ENABLE_PROFILING": "0"})
    for memory in ("256M", "1M"):
        wd = workdir("tmpfs_" + memory)
        mnt = os.path.join(wd, "mnt")
        os.makedirs(mnt)
        e = {k: v for k, v in os.environ.items() if not k.startswith("INSTR_")}
        e.update({"INSTR_ENABLE_TRACING": "1", "INSTR_ENABLE_PROFILING": "0",
                  "INSTR_TOTAL_MEMORY": memory,
                  "INSTR_EXPERIMENT_DIRECTORY": os.path.join(mnt, "exp")})
        script = 'mount -t tmpfs -o size=256k tmpfs "$1" || exit 99; shift; exec "$@"'
        p = subprocess.run([unshare, "-rm", "sh", "-c", script, "sh", mnt,
                            os.path.join(A.bin, "trace_threads"), "4", "1", "20000"],
                           cwd=wd, env=e, capture_output=True, timeout=600)
        expect(p.returncode != 99, "mount of the tmpfs failed: %r" % p.stderr)
        err = p.stderr.decode(errors="replace").splitlines()
        mine = [l for l in err if l.startswith("instr: ")]
        rest = [l for l in err if not l.startswith("instr: ")]
        check_full_disk_output("tmpfs 256k, INSTR_TOTAL_MEMORY=" + memory, p.returncode,
                               p.stdout.decode(errors="replace"), mine, rest, want_out)


def main():
    global A, P, T
    ap = argparse.ArgumentParser()
    ap.add_argument("case")
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--lib", required=True)
    ap.add_argument("--wrapper", help="the instr compiler wrapper (signals_plugins)")
    ap.add_argument("--double", help="the full-disk test double, enospc_double (disk_full)")
    ap.add_argument("--convert", help="INSTR_TRACE_CONVERT for every run (thread)")
    A = ap.parse_args()
    sys.path.insert(0, A.lib)
    import profile as prof_mod
    import otf2check as trace_mod
    P, T = prof_mod, trace_mod
    return run_case(globals(), A.case, (T.TraceError, P.ProfileError))


if __name__ == "__main__":
    sys.exit(main())
