#!/usr/bin/env python3
"""End-to-end checks of libinstr-rt: run a test program plain and instrumented, compare their
behaviour (exit code, stdout, stderr without the runtime's "instr:" lines), then check the
profile. Usage: check.py CASE --bin DIR --work DIR --lib DIR [--wrapper W --src DIR --cc CC]
"""
import argparse
import json
import os
import re
import shutil
import stat
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from cases import Fail, clean_env, expect, fresh_dir, run_case  # noqa: E402  tests/lib/cases.py

A = None  # parsed arguments
P = None  # tests/lib/profile.py


def workdir(name):
    return fresh_dir(os.path.join(A.work, A.case, name))


def run(exe, args=(), cwd=None, env=None, timeout=240):
    p = subprocess.run([exe] + list(args), cwd=cwd, env=clean_env(env), capture_output=True,
                       timeout=timeout)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def split_stderr(err):
    mine = [l for l in err.splitlines() if l.startswith("instr: ")]
    rest = [l for l in err.splitlines() if not l.startswith("instr: ")]
    return mine, rest


def prog(name, kind):
    return os.path.join(A.bin, "rt_%s_%s" % (name, kind))


def same_behaviour(name, args=(), env=None, compare_stdout=True):
    """Runs the plain and the instrumented build; returns (rc, out, instr_lines, workdir)."""
    wp, wi = workdir("plain"), workdir("inst")
    rc0, out0, err0 = run(prog(name, "plain"), args, cwd=wp)
    rc1, out1, err1 = run(prog(name, "inst"), args, cwd=wi, env=env)
    mine, rest1 = split_stderr(err1)
    _, rest0 = split_stderr(err0)
    expect(rc0 == rc1, "exit code %r instrumented vs %r plain; stderr:\n%s" % (rc1, rc0, err1))
    if compare_stdout:
        expect(out0 == out1, "stdout differs:\n--- plain\n%s--- instrumented\n%s" % (out0, out1))
    expect(rest0 == rest1, "stderr differs:\n--- plain\n%s\n--- instrumented\n%s"
           % ("\n".join(rest0), "\n".join(rest1)))
    return rc1, out1, mine, wi


def consistent(prof):
    problems = P.check_consistency(prof)
    expect(not problems, "profile inconsistent:\n  " + "\n  ".join(problems[:20]))


def files_ok(exp):
    for f in ("profile.json", "profile.txt", "profile.folded", "instr.cfg"):
        expect(os.path.isfile(os.path.join(exp, f)), "missing %s in %s" % (f, exp))
    txt = open(os.path.join(exp, "profile.txt")).read()
    expect("Flat profile" in txt and "Call tree" in txt, "profile.txt lacks its sections")
    prof = P.load(exp)
    folded = P.read_folded(exp)
    paths = P.visits_by_path(prof)
    expect(set(folded) == set(paths), "profile.folded paths %r != tree paths %r"
           % (sorted(folded)[:5], sorted(paths)[:5]))
    total_us = sum(n["exclusive"] for n in prof["tree"]) / 1000
    expect(sum(folded.values()) <= total_us + 1, "folded total exceeds the exclusive total")
    return prof


def one_summary(mine, exp):
    summ = [l for l in mine if "written to" in l]
    expect(len(summ) == 1 and exp in summ[0], "expected one summary naming %s, got %r"
           % (exp, mine))


COUNTS = {"main": 1, "level1": 7, "level2": 21, "leaf": 42, "rec": 12, "is_even": 4,
          "is_odd": 3}


def case_counts():
    rc, out, mine, wd = same_behaviour("counts")
    exp = P.find_experiment(wd)
    prof = files_ok(exp)
    consistent(prof)
    expect(P.visits_by_region(prof) == COUNTS, "visits %r != %r"
           % (P.visits_by_region(prof), COUNTS))
    byp = P.visits_by_path(prof)
    for d in range(1, 7):
        path = "main;" + ";".join(["rec"] * d)
        expect(byp.get(path) == 2, "path %s: %r visits, expected 2" % (path, byp.get(path)))
    expect(byp.get("main;is_even;is_odd;is_even;is_odd;is_even;is_odd;is_even") == 1,
           "mutual recursion path missing")
    expect(byp.get("main;level1;level2;leaf") == 42, "leaf path")
    reg = {r["name"]: r for r in prof["regions"]}
    expect(reg["leaf"]["source"] == "cyg" and reg["leaf"]["object"].endswith("rt_counts_inst"),
           "leaf region: %r" % reg["leaf"])
    expect(len(prof["locations"]) == 1 and prof["run"]["closed_at_end"] == 0, "run metadata")
    expect(prof["run"]["unmatched_exits"] == 0, "unmatched exits")
    one_summary(mine, exp)
    expect(len(mine) == 1, "unexpected runtime messages: %r" % mine)


def case_exit_deep():
    rc, out, mine, wd = same_behaviour("exit_deep")
    expect(rc == 3, "exit code %r" % rc)
    prof = files_ok(P.find_experiment(wd))
    consistent(prof)
    # The program's atexit handler runs inside exit(), so under the still open inner.
    expect(P.visits_by_path(prof) == {"main": 1, "main;outer": 1, "main;outer;middle": 1,
                                      "main;outer;middle;inner": 1,
                                      "main;outer;middle;inner;bye": 1},
           "paths %r" % P.visits_by_path(prof))
    expect(prof["run"]["closed_at_end"] == 4, "closed_at_end %r" % prof["run"]["closed_at_end"])


def case_forks():
    rc, out, mine, wd = same_behaviour("forks")
    exp = P.find_experiment(wd)
    prof = files_ok(exp)
    consistent(prof)
    v = P.visits_by_region(prof)
    expect(v.get("parent_work") == 5 and "child_work" not in v and "quick_child" not in v,
           "parent profile: %r" % v)
    expect(v.get("spawn") == 1 and v.get("spawn_quick") == 1 and v.get("spawn_exec") == 1,
           "parent profile: %r" % v)
    children = sorted(d for d in os.listdir(exp) if d.startswith("fork-"))
    expect(len(children) == 1, "expected exactly one fork-<pid> directory, got %r" % children)
    child = os.path.join(exp, children[0])
    cprof = files_ok(child)
    consistent(cprof)
    expect(cprof["run"]["fork_of"] == prof["run"]["pid"], "fork_of %r" % cprof["run"]["fork_of"])
    expect(children[0] == "fork-%d" % cprof["run"]["pid"], "directory not named by pid")
    cv = P.visits_by_path(cprof)
    expect(cv == {"main": 1, "main;spawn": 1, "main;spawn;child_work": 5},
           "child profile paths %r" % cv)
    # the parent's summary and the child's
    expect(sum("written to" in l for l in mine) == 2, "summaries: %r" % mine)


def case_threads():
    rc, out, mine, wd = same_behaviour("threads")
    prof = files_ok(P.find_experiment(wd))
    consistent(prof)
    v = P.visits_by_region(prof)
    expect(v == {"main": 1, "worker": 1000, "task": 3000}, "visits %r" % v)
    locs = prof["locations"]
    expect(len(locs) == 1001, "%d locations, expected 1001" % len(locs))
    ended = sum(1 for l in locs if l["end"] == "thread-exit")
    expect(ended == 1000, "%d threads handed their data over at thread exit" % ended)
    workers = P.locations_with_region(prof, "worker")
    expect(len(workers) == 1000, "worker seen on %d locations" % len(workers))
    for l in workers:
        expect(P.visits_by_region(prof, location=l) == {"worker": 1, "task": 3},
               "location %d: %r" % (l, P.visits_by_region(prof, location=l)))


def case_main_pthread_exit():
    # main ends with pthread_exit; the last worker runs the program's atexit handler, which
    # is recorded on that worker's location (it ends with the program, not at thread exit)
    rc, out, mine, wd = same_behaviour("main_pthread_exit")
    expect(rc == 0 and out.startswith("bye sink "), "exit %r, stdout %r" % (rc, out))
    prof = files_ok(P.find_experiment(wd))
    consistent(prof)
    v = P.visits_by_region(prof)
    expect(v == {"main": 1, "worker": 2, "task": 202, "at_end": 1, "bye": 1}, "visits %r" % v)
    byp = P.visits_by_path(prof)
    expect(byp.get("at_end;bye;task") == 1, "paths %r" % byp)
    ends = sorted(l["end"] for l in prof["locations"])
    expect(ends == ["program-end", "thread-exit", "thread-exit"], "location ends %r" % ends)
    expect(prof["run"]["program"].endswith("main_pthread_exit_inst"),
           "program %r (the main thread's /proc entry is gone)" % prof["run"]["program"])
    # the trace too, where the runtime has one: OTF2 writes through /proc/thread-self
    rc, out, mine, wd = same_behaviour("main_pthread_exit", env={"INSTR_ENABLE_TRACING": "1"})
    exp = P.find_experiment(wd)
    if os.path.exists(os.path.join(exp, "traces.otf2")):
        import otf2check as T
        tr = T.load(exp)
        expect(not tr.problems(), "trace: %r" % tr.problems()[:5])
        e = tr.enters_by_region()
        expect(e == {"main": 1, "worker": 2, "task": 202, "at_end": 1, "bye": 1}, "enters %r" % e)


MANUAL = {"outer": 1, "phase": 3, "step 0": 1, "step 1": 1, "step 2": 1, "after": 1}


def case_manual():
    rc, out, mine, wd = same_behaviour("manual")
    expect("recording while paused: 0" in out, out)
    prof = files_ok(P.find_experiment(wd))
    consistent(prof)
    expect(P.visits_by_region(prof) == MANUAL, "visits %r" % P.visits_by_region(prof))
    expect(P.visits_by_path(prof).get("outer;phase;step 1") == 1, "nesting")
    expect(all(r["source"] == "manual" for r in prof["regions"]), "sources")


def case_manual_disabled():
    # -DINSTR_DISABLE: no reference to the runtime at all.
    exe = prog("manual", "plain")
    syms = subprocess.run(["nm", "-u", exe], capture_output=True, text=True).stdout
    expect("instr_" not in syms, "disabled build references the runtime:\n" + syms)
    libs = subprocess.run(["ldd", exe], capture_output=True, text=True).stdout
    expect("libinstr-rt" not in libs, "disabled build links the runtime")
    wd = workdir("plain")
    rc, out, err = run(exe, cwd=wd)
    expect(rc == 0 and "recording while paused: 0" in out, out + err)
    expect(os.listdir(wd) == [], "disabled build wrote %r" % os.listdir(wd))


def case_hooks():
    rc, out, mine, wd = same_behaviour("hooks", compare_stdout=False)
    expect("handles: main=1 work=1 skipped=1" in out, out)
    prof = files_ok(P.find_experiment(wd))
    consistent(prof)
    expect(P.visits_by_region(prof) == {"main": 1, "work": 4, "skipped": 4},
           "visits %r" % P.visits_by_region(prof))
    reg = {r["name"]: r for r in prof["regions"]}
    expect(reg["work"]["file"] == "/src/hooks_demo.c" and reg["work"]["line_begin"] == 20 and
           reg["work"]["line_end"] == 23 and reg["work"]["source"] == "hooks", reg["work"])


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def case_hooks_filter():
    spec = write(os.path.join(workdir("spec"), "rt.spec"), "exclude function skipped\n")
    rc, out, mine, wd = same_behaviour("hooks", env={"INSTR_FILTERING_FILE": spec},
                                       compare_stdout=False)
    expect("skipped=99" in out, "excluded descriptor not marked UINT32_MAX: " + out)
    prof = files_ok(P.find_experiment(wd))
    consistent(prof)
    expect(P.visits_by_region(prof) == {"main": 1, "work": 4}, P.visits_by_region(prof))


def case_filter_file():
    spec = write(os.path.join(workdir("spec"), "rt.spec"),
                 "# drop the innermost function and the mutual recursion\n"
                 "exclude function leaf\nexclude function is_*\n")
    rc, out, mine, wd = same_behaviour("counts", env={"INSTR_FILTERING_FILE": spec})
    prof = files_ok(P.find_experiment(wd))
    consistent(prof)
    want = {k: v for k, v in COUNTS.items() if k not in ("leaf", "is_even", "is_odd")}
    expect(P.visits_by_region(prof) == want, "visits %r" % P.visits_by_region(prof))
    cfg = open(os.path.join(P.find_experiment(wd), "instr.cfg")).read()
    expect("INSTR_FILTERING_FILE=%s" % spec in cfg, cfg)


def case_cxx():
    rc, out, mine, wd = same_behaviour("cxx")
    prof = files_ok(P.find_experiment(wd))
    consistent(prof)
    v = P.visits_by_region(prof, short=True)
    for name, n in [("ns::Grid::step", 10), ("ns::Grid::operator", 10), ("thrower", 3),
                    ("catcher", 3), ("ns::Grid::Grid", 1)]:
        expect(v.get(name) == n, "%s: %r visits (all: %r)" % (name, v.get(name), sorted(v)))
    scale = [k for k in v if "ns::scale<double>" in k]
    expect(len(scale) == 1 and v[scale[0]] == 10, "template: %r" % sorted(v))
    expect(prof["run"]["unmatched_exits"] == 0, "unmatched exits after exceptions")
    byp = P.visits_by_path(prof, short=True)
    expect(byp.get("main;catcher;thrower") == 3, "exception path %r" % byp)
    mangled = {r["mangled"] for r in prof["regions"]}
    expect("_ZN2ns4Grid4stepEv" in mangled, "mangled names kept")


def case_dlopen():
    plugin = os.path.join(A.bin, "librt_plugin.so")
    rc, out, mine, wd = same_behaviour("dlopen", args=[plugin])
    prof = files_ok(P.find_experiment(wd))
    consistent(prof)
    v = P.visits_by_region(prof)
    want = {"main": 1, "run_plugin": 1, "plugin_work": 5, "plugin_helper": 15, "dso_fn": 2}
    expect(v == want, "visits %r != %r" % (v, want))
    reg = {r["name"]: r for r in prof["regions"]}
    expect(reg["plugin_helper"]["object"].endswith("librt_plugin.so"), reg["plugin_helper"])
    expect(reg["dso_fn"]["object"].endswith("librt_dso.so"), reg["dso_fn"])


def case_bad_config():
    base = workdir("files")
    afile = write(os.path.join(base, "a-file"), "")
    bad_spec = write(os.path.join(base, "bad.spec"), "include function main\nfrobnicate x\n")
    cases = [
        ({"INSTR_EXPERIMENT_DIRECTORY": "/nonexistent/instr/exp"}, "INSTR_EXPERIMENT_DIRECTORY", False),
        ({"INSTR_EXPERIMENT_DIRECTORY": afile + "/exp"}, "INSTR_EXPERIMENT_DIRECTORY", False),
        ({"INSTR_FILTERING_FILE": bad_spec}, "bad.spec:2", True),
        ({"INSTR_FILTERING_FILE": os.path.join(base, "missing.spec")}, "INSTR_FILTERING_FILE", True),
        ({"INSTR_TOTAL_MEMORY": "12Q"}, "INSTR_TOTAL_MEMORY='12Q'", True),
        ({"INSTR_TOTAL_MEMORY": "-5M"}, "INSTR_TOTAL_MEMORY='-5M'", True),
        ({"INSTR_TOTAL_MEMORY": "99999999999G"}, "INSTR_TOTAL_MEMORY", True),
        ({"INSTR_TIMER": "sundial"}, "INSTR_TIMER='sundial'", True),
        ({"INSTR_VERBOSE": "loud"}, "INSTR_VERBOSE='loud'", True),
        ({"INSTR_ENABLE_PROFILING": "maybe"}, "INSTR_ENABLE_PROFILING='maybe'", True),
        ({"INSTR_ENABLE_TRACING": "sometimes"}, "INSTR_ENABLE_TRACING='sometimes'", True),
    ]
    for env, needle, writes in cases:
        rc, out, mine, wd = same_behaviour("counts", env=env)
        warn = [l for l in mine if "written to" not in l]
        expect(len(warn) == 1 and needle in warn[0],
               "%r: expected one message with %r, got %r" % (env, needle, mine))
        exps = P.find_experiments(wd)
        if writes:
            expect(len(exps) == 1, "%r: no profile written" % env)
            prof = P.load(exps[0])
            consistent(prof)
            expect(P.visits_by_region(prof) == COUNTS, "%r: visits %r" % (env, P.visits_by_region(prof)))
        else:
            expect(exps == [] and not any("written to" in l for l in mine),
                   "%r: something was written: %r" % (env, mine))


def case_existing_dir():
    wd0 = workdir("exp")
    target = os.path.join(wd0, "myexp")
    os.makedirs(target)
    marker = write(os.path.join(target, "profile.json"), "do not touch\n")
    for i in (1, 2):
        rc, out, mine, wd = same_behaviour("counts", env={"INSTR_EXPERIMENT_DIRECTORY": target})
        expect(open(marker).read() == "do not touch\n", "existing directory overwritten")
        new = target + ".%d" % i
        expect(os.path.isfile(os.path.join(new, "profile.json")), "no %s" % new)
        expect(any("exists already" in l and new in l for l in mine), mine)
        consistent(P.load(new))


def case_profiling_off():
    rc, out, mine, wd = same_behaviour("counts", env={"INSTR_ENABLE_PROFILING": "0"})
    expect(mine == [] and os.listdir(wd) == [], "profiling off wrote %r / said %r"
           % (os.listdir(wd), mine))
    rc, out, mine, wd = same_behaviour("counts", env={"INSTR_VERBOSE": "quiet"})
    expect(mine == [] and len(P.find_experiments(wd)) == 1, "quiet: %r" % mine)


def case_timer_clock_gettime():
    rc, out, mine, wd = same_behaviour("counts", env={"INSTR_TIMER": "clock_gettime",
                                                      "INSTR_VERBOSE": "1"})
    prof = files_ok(P.find_experiment(wd))
    consistent(prof)
    expect(prof["run"]["timer"] == "clock_gettime", prof["run"]["timer"])
    expect(P.visits_by_region(prof) == COUNTS, "visits")
    expect(any("experiment directory" in l for l in mine), "INSTR_VERBOSE=1 explains: %r" % mine)


def case_timers():
    # INSTR_TIMER: every timer records the same counts; its name, resolution and cost measured
    # at start-up are in profile.json and instr.cfg.
    for timer in ("tsc", "monotonic", "monotonic_raw", "realtime"):
        rc, out, mine, wd = same_behaviour("counts", env={"INSTR_TIMER": timer})
        exp = P.find_experiment(wd)
        prof = files_ok(exp)
        consistent(prof)
        meta = prof["run"]
        expect(meta["timer"] == timer, "%s: timer %r" % (timer, meta["timer"]))
        expect(meta["timer_cost_ns"] > 0 and meta["timer_resolution_ns"] >= 0,
               "%s: cost %r resolution %r" % (timer, meta["timer_cost_ns"],
                                              meta["timer_resolution_ns"]))
        expect(P.visits_by_region(prof) == COUNTS, "%s: visits" % timer)
        cfg = open(os.path.join(exp, "instr.cfg")).read()
        expect(re.search(r"^# timer: %s, resolution [0-9.]+ ns, [0-9.]+ ns per read" % timer,
                         cfg, re.M), "%s: instr.cfg lacks the timer line:\n%s" % (timer, cfg))


def case_memory_budget():
    # 64K holds a few hundred call paths of the 5,000-deep recursion: those are exact, the
    # deeper frames are dropped and counted, exits stay balanced, leaf's node (made before
    # the budget ran out) gets every visit.
    # the folded file holds the deep paths whole, so that it can be compared with the tree
    rc, out, mine, wd = same_behaviour("deep", env={"INSTR_TOTAL_MEMORY": "64K",
                                                    "INSTR_FOLDED_MAX_DEPTH": "100000"})
    expect(out == "rec=14997 sink=15200\n", out)
    prof = files_ok(P.find_experiment(wd))
    consistent(prof)
    meta = prof["run"]
    expect(meta["dropped_call_paths"] > 0, "nothing dropped with 64K: %r" % meta)
    expect(meta["unmatched_exits"] == 0 and meta["closed_at_end"] == 0,
           "unbalanced after the budget ran out: %r" % meta)
    byp = P.visits_by_path(prof)
    expect(byp.get("main;leaf") == 200, "main;leaf %r" % byp.get("main;leaf"))
    recs = [v for p, v in byp.items() if p.startswith("main;rec")]
    expect(recs and all(v == 3 for v in recs) and len(recs) < 5000,
           "recorded rec paths: %d, visits %r" % (len(recs), sorted(set(recs))))
    expect(any("INSTR_TOTAL_MEMORY=64K was not enough" in l for l in mine), mine)


# ---- longjmp and signal handlers (issue 26 items 1 and 2)

LONGJMP_PATHS = {"main": 1, "main;work": 2001, "main;outer": 2000, "main;outer;middle": 2000,
                 "main;outer;middle;inner": 2000}


def check_longjmp(prof, what):
    consistent(prof)
    byp = P.visits_by_path(prof)
    levels = 1 + max(n["depth"] for n in prof["tree"])
    expect(levels <= 8, "%s: call tree %d levels deep after 2,000 longjmps (paths %r)"
           % (what, levels, sorted(byp)[:8]))
    expect(byp == LONGJMP_PATHS, "%s: paths %r, expected %r" % (what, byp, LONGJMP_PATHS))
    run_meta = prof["run"]
    expect(run_meta["closed_after_longjmp"] == 6000 and run_meta["unmatched_exits"] == 0,
           "%s: closed_after_longjmp %r unmatched_exits %r" % (
               what, run_meta["closed_after_longjmp"], run_meta["unmatched_exits"]))


def case_longjmp():
    rc, out, mine, wd = same_behaviour("longjmp")
    expect(out == "jumped=2000 sink=4001\n", out)
    check_longjmp(files_ok(P.find_experiment(wd)), "cyg")


SIGNAL_CALLS = 2000000


def check_signals(prof, ticks_file, what):
    consistent(prof)
    alarms, profs = (int(x) for x in open(ticks_file).read().split())
    expect(alarms + profs >= 5, "%s: only %d handler calls: the test did not test" %
           (what, alarms + profs))
    byp = P.visits_by_path(prof)
    # The interrupted code: exact, on its own path.
    for path, n in (("main;work", 20000), ("main;work;inner", SIGNAL_CALLS // 2),
                    ("main;work;other", SIGNAL_CALLS // 2)):
        expect(byp.get(path) == n, "%s: %s has %r visits, expected %d" % (what, path,
                                                                          byp.get(path), n))
    v = P.visits_by_region(prof)
    got = {"on_alarm": v.get("on_alarm", 0), "on_prof": v.get("on_prof", 0)}
    dropped = prof["run"]["events_dropped_in_handlers"]
    for name, real in (("on_alarm", alarms), ("on_prof", profs)):
        expect(got[name] <= real, "%s: %s has %d visits, called %d times" % (
            what, name, got[name], real))
    # Each handler call not recorded was dropped: at least its enter and its exit.
    missing = alarms + profs - got["on_alarm"] - got["on_prof"]
    expect(2 * missing <= dropped, "%s: %d handler calls neither recorded nor counted as dropped "
           "(events_dropped_in_handlers %d)" % (what, missing, dropped))
    expect(v.get("tick_body", 0) == got["on_alarm"] + got["on_prof"],
           "%s: tick_body %r != handler visits %r" % (what, v.get("tick_body"), got))
    expect(prof["run"]["unmatched_exits"] == 0, "%s: unmatched exits" % what)


def case_signals():
    wp, wi = workdir("plain"), workdir("inst")
    ticks = os.path.join(wi, "ticks.txt")
    rc0, out0, _ = run(prog("signals", "plain"), [os.path.join(wp, "ticks.txt")], cwd=wp)
    rc1, out1, err1 = run(prog("signals", "inst"), [ticks], cwd=wi)
    expect(rc0 == rc1 == 0 and out0 == out1, "plain %d %r, instrumented %d %r %s"
           % (rc0, out0, rc1, out1, err1))
    check_signals(files_ok(P.find_experiment(wi)), ticks, "cyg")


# ---- the wrapper (non-sanitizer trees only)

def sh(cmd, cwd, env=None):
    p = subprocess.run(cmd, cwd=cwd, env=clean_env(env), capture_output=True, text=True,
                       timeout=280)
    expect(p.returncode == 0, "%s failed (%d):\n%s%s" % (cmd, p.returncode, p.stdout, p.stderr))
    return p


def case_wrapper():
    wd = workdir("build")
    src = os.path.join(A.src, "counts.c")
    for mode in ("cyg", "hooks"):
        for cc in ("gcc", "clang"):
            exe = os.path.join(wd, "counts_%s_%s" % (mode, cc))
            p = sh([A.wrapper, "--mode=" + mode, cc, "-O1", src, "-o", exe], wd)
            lines = [l for l in p.stderr.splitlines() if l.startswith("instr:")]
            expect(len(lines) <= 1, "wrapper said more than one line: %r" % lines)
            if lines:
                expect(mode == "hooks" and "cyg mode" in lines[0], lines)
            rd = workdir("run_%s_%s" % (mode, cc))
            rc, out, err = run(exe, cwd=rd)
            expect(rc == 0 and out.startswith("sink=42 rec=10 even=1"), out + err)
            prof = P.load(P.find_experiment(rd))
            consistent(prof)
            v = P.visits_by_region(prof)
            expect(v == COUNTS, "%s %s: visits %r" % (mode, cc, v))
            src_kind = {r["source"] for r in prof["regions"]}
            expect(src_kind == ({"cyg"} if mode == "cyg" or lines else {"hooks"}),
                   "%s %s: region sources %r" % (mode, cc, src_kind))
    # pass-through: no inputs, no additions
    p = sh([A.wrapper, "gcc", "-dumpversion"], wd)
    q = sh(["gcc", "-dumpversion"], wd)
    expect(p.stdout == q.stdout and p.stderr == q.stderr, "-dumpversion not passed through")
    # a bad spec fails the compile with the filter's message
    bad = write(os.path.join(wd, "bad.spec"), "frobnicate x\n")
    p = subprocess.run([A.wrapper, "--mode=cyg", "--filter=" + bad, "gcc", "-c", src, "-o",
                        os.path.join(wd, "x.o")], cwd=wd, capture_output=True, text=True)
    expect(p.returncode != 0 and "bad.spec:1" in p.stderr, "bad spec: %d %s" % (p.returncode, p.stderr))


def plugin_builds(name, modes=(("hooks", "gcc"), ("hooks", "clang"), ("cyg", "gcc"))):
    """(what, executable) of the program built by the wrapper: GCC and LLVM plugin hooks and
    -finstrument-functions with gcc."""
    wd = workdir("build")
    src = os.path.join(A.src, name + ".c")
    for mode, cc in modes:
        exe = os.path.join(wd, "%s_%s_%s" % (name, mode, cc))
        sh([A.wrapper, "--mode=" + mode, cc, "-O2", src, "-o", exe], wd)
        yield "%s %s" % (mode, cc), exe


def case_longjmp_plugins():
    for what, exe in plugin_builds("longjmp"):
        rd = workdir("run_" + what.replace(" ", "_"))
        rc, out, err = run(exe, cwd=rd)
        expect(rc == 0 and out == "jumped=2000 sink=4001\n", "%s: %d %r %s" % (what, rc, out, err))
        check_longjmp(P.load(P.find_experiment(rd)), what)


EXCEPTION_PATHS = {"main": 1, "main;work": 2001, "main;top": 2000, "main;top;mid": 2000,
                   "main;top;mid;thrower": 2000}


def case_exceptions_plugins():
    wd = workdir("build")
    src = os.path.join(A.src, "exceptions.cpp")
    spec = write(os.path.join(wd, "catcher.spec"), "exclude function catcher\n")
    builds = [("hooks g++", ["--filter=" + spec, "g++"]), ("hooks clang++", ["--filter=" + spec, "clang++"]),
              ("cyg g++", ["--mode=cyg", "g++", "-finstrument-functions-exclude-function-list=catcher"])]
    for what, args in builds:
        exe = os.path.join(wd, what.replace(" ", "_").replace("+", "x"))
        sh([A.wrapper] + args + ["-O2", src, "-o", exe], wd)
        rd = workdir("run_" + os.path.basename(exe))
        rc, out, err = run(exe, cwd=rd)
        expect(rc == 0 and out == "sink=6001\n", "%s: %d %r %s" % (what, rc, out, err))
        prof = P.load(P.find_experiment(rd))
        consistent(prof)
        byp = P.visits_by_path(prof, short=True)
        expect(byp == EXCEPTION_PATHS, "%s: paths %r, expected %r" % (what, byp, EXCEPTION_PATHS))


def case_signals_plugins():
    for what, exe in plugin_builds("signals"):
        rd = workdir("run_" + what.replace(" ", "_"))
        ticks = os.path.join(rd, "ticks.txt")
        rc, out, err = run(exe, [ticks], cwd=rd)
        expect(rc == 0 and out == "calls=%d\n" % SIGNAL_CALLS, "%s: %d %r %s" % (what, rc, out, err))
        check_signals(P.load(P.find_experiment(rd)), ticks, what)
        # Another timer than the TSC: the hooks and cyg take the cursor's steps with that
        # clock through the jump table (profile/cct_clock.c).
        rd = workdir("run_monotonic_" + what.replace(" ", "_"))
        ticks = os.path.join(rd, "ticks.txt")
        rc, out, err = run(exe, [ticks], cwd=rd, env={"INSTR_TIMER": "monotonic"})
        expect(rc == 0 and out == "calls=%d\n" % SIGNAL_CALLS, "%s, monotonic: %d %r %s"
               % (what, rc, out, err))
        check_signals(P.load(P.find_experiment(rd)), ticks, what + ", monotonic")


HANDLER_FIRST_PATHS = {"main": 1, "main;work": 1000, "main;work;on_usr1": 1,
                       "main;work;on_usr1;first_in_handler": 1}


def case_handler_first():
    """A handler's functions first called inside the handler, which interrupted malloc: the
    runtime's path for them must not allocate (the double ends the run with 86 if it does)."""
    for what, exe in plugin_builds("handler_first", modes=(("hooks", "gcc"), ("hooks", "clang"))):
        for trace in ("0", "1"):
            rd = workdir("run_%s_%s" % (what.replace(" ", "_"), trace))
            env = {"LD_PRELOAD": A.malloc_double, "MALLOC_REENTRY_DOUBLE_SIZE": "12345",
                   "INSTR_ENABLE_TRACING": trace}
            rc, out, err = run(exe, cwd=rd, env=env)
            expect(rc == 0 and out == "handled=1\n", "%s, tracing %s: exit %d, stdout %r\n%s"
                   % (what, trace, rc, out, err))
            prof = P.load(P.find_experiment(rd))
            consistent(prof)
            byp = P.visits_by_path(prof)
            expect(byp == HANDLER_FIRST_PATHS, "%s, tracing %s: paths %r, expected %r"
                   % (what, trace, byp, HANDLER_FIRST_PATHS))


def case_wrapper_make():
    wd = workdir("build")
    for f in ("counts.c",):
        shutil.copy(os.path.join(A.src, f), wd)
    write(os.path.join(wd, "Makefile"),
          "counts: counts.o\n\t$(CC) $(CFLAGS) counts.o -o counts\n"
          "counts.o: counts.c\n\t$(CC) $(CFLAGS) -c counts.c -o counts.o\n")
    sh(["make", "CC=%s --mode=cyg gcc" % A.wrapper, "CFLAGS=-O1"], wd)
    rd = workdir("run")
    rc, out, err = run(os.path.join(wd, "counts"), cwd=rd)
    expect(rc == 0, err)
    expect(P.visits_by_region(P.load(P.find_experiment(rd))) == COUNTS, "make build visits")


def case_wrapper_cmake():
    wd = workdir("src")
    shutil.copy(os.path.join(A.src, "counts.c"), wd)
    write(os.path.join(wd, "CMakeLists.txt"),
          "cmake_minimum_required(VERSION 3.16)\nproject(counts C)\n"
          "add_executable(counts counts.c)\ntarget_compile_options(counts PRIVATE -O1)\n")
    bd = workdir("build")
    sh(["cmake", "-S", wd, "-B", bd], bd, env={"CC": "%s --mode=cyg gcc" % A.wrapper})
    sh(["cmake", "--build", bd], bd)
    rd = workdir("run")
    rc, out, err = run(os.path.join(bd, "counts"), cwd=rd)
    expect(rc == 0, err)
    expect(P.visits_by_region(P.load(P.find_experiment(rd))) == COUNTS, "cmake build visits")


def main():
    global A, P
    ap = argparse.ArgumentParser()
    ap.add_argument("case")
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--lib", required=True)
    ap.add_argument("--wrapper")
    ap.add_argument("--src")
    ap.add_argument("--cc")
    ap.add_argument("--malloc-double")
    A = ap.parse_args()
    sys.path.insert(0, A.lib)
    import profile as prof_mod
    P = prof_mod
    return run_case(globals(), A.case)


if __name__ == "__main__":
    sys.exit(main())
