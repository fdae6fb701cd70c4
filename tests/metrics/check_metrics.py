#!/usr/bin/env python3
"""End-to-end checks of metrics (docs/metrics.md): the built-in sources and metric plugins
give the values the test programs make predictable, bad input gets one clear line and the
run goes on. Usage: check_metrics.py CASE --bin DIR --work DIR --plugins DIR --bad-plugins DIR
"""
import argparse
import os
import re
import subprocess
import sys

LIB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib")
sys.path.insert(0, LIB)
from cases import Fail, clean_env, expect, fresh_dir, run_case  # noqa: E402
import profile as P  # noqa: E402

A = None


def run(prog, args=(), env=None, name=None, profile=True):
    """Runs a test program in a fresh directory; returns (stdout, instr lines, experiment):
    the one with profile.json, or without `profile` the one with a trace."""
    work = fresh_dir(os.path.join(A.work, A.case, name or prog))
    p = subprocess.run([os.path.join(A.bin, "metrics_" + prog)] + [str(a) for a in args],
                       cwd=work, env=clean_env(env), capture_output=True, timeout=100)
    err = p.stderr.decode(errors="replace")
    expect(p.returncode == 0, "%s exited with %d:\n%s" % (prog, p.returncode, err))
    mine = [l for l in err.splitlines() if l.startswith("instr: ")]
    other = [l for l in err.splitlines() if not l.startswith("instr: ")]
    expect(not other, "the program's stderr changed: %r" % other)
    expect(not any("not a variable instr knows" in l for l in mine),
           "an INSTR_METRIC_* variable was taken for unknown: %r" % mine)
    if not profile:
        exps = [d for d, _, files in os.walk(work) if "traces.otf2" in files]
        expect(len(exps) == 1, "one experiment with a trace in %s, found %r" % (work, exps))
        return p.stdout.decode(), mine, exps[0]
    return p.stdout.decode(), mine, P.find_experiment(work)


def metrics_of(prof):
    return [m["name"] for m in prof["metrics"]]


def node(prof, path):
    """The tree node of a call path given as "main/a/b"."""
    names = {r["id"]: r["name"] for r in prof["regions"]}
    by_id = {n["id"]: n for n in prof["tree"]}

    def path_of(n):
        p = []
        while n is not None:
            p.append(names[n["region"]])
            n = by_id.get(n["parent"])
        return "/".join(reversed(p))
    found = [n for n in prof["tree"] if path_of(n) == path]
    expect(len(found) == 1, "call path %s: %d nodes" % (path, len(found)))
    return found[0]


def value(prof, path, metric, row="inclusive"):
    return node(prof, path)["metrics"][row][metrics_of(prof).index(metric)]


def exclusive_consistent(prof):
    """Exclusive = inclusive less the children's inclusive, for every accumulated metric."""
    kids = {}
    for n in prof["tree"]:
        kids.setdefault(n["parent"], []).append(n)
    for n in prof["tree"]:
        for i, name in enumerate(metrics_of(prof)):
            incl = n["metrics"]["inclusive"][i]
            want = incl - sum(c["metrics"]["inclusive"][i] for c in kids.get(n["id"], []))
            got = n["metrics"]["exclusive"][i]
            expect(abs(got - want) <= 1e-9 * max(1, abs(incl)),
                   "node %d metric %s: exclusive %r, inclusive less children %r"
                   % (n["id"], name, got, want))


def line(mine, *parts):
    """The one instr line that holds all parts."""
    found = [l for l in mine if all(p in l for p in parts)]
    expect(len(found) == 1, "expected one line with %r, got:\n%s" % (parts, "\n".join(mine)))
    return found[0]


def case_rusage():
    out, mine, exp = run("touch_pages", [1000, 100], {"INSTR_METRIC_RUSAGE": "all"})
    expect(out == "touched 1000 pages\n", "stdout %r" % out)
    prof = P.load(exp)
    expect(metrics_of(prof) == ["ru_utime", "ru_stime", "ru_maxrss", "ru_minflt", "ru_majflt",
                                "ru_inblock", "ru_oublock", "ru_nvcsw", "ru_nivcsw"],
           "all: %r" % metrics_of(prof))
    flt = value(prof, "main/touch", "ru_minflt")
    expect(flt >= 1000, "ru_minflt in touch() is %d, it touched 1000 new pages" % flt)
    cpu = value(prof, "main/spin", "ru_utime") + value(prof, "main/spin", "ru_stime")
    spin_us = node(prof, "main/spin")["inclusive"] / 1000
    expect(0 < cpu <= spin_us * 1.05 + 4000,
           "CPU time of spin() %d us, its wall time %d us" % (cpu, spin_us))
    exclusive_consistent(prof)
    txt = open(os.path.join(exp, "profile.txt")).read()
    expect("Metrics per call path" in txt and "ru_minflt" in txt, "profile.txt lacks metrics")


def case_perf_software():
    env = {"INSTR_METRIC_PERF": "page-faults,task-clock,context-switches",
           "INSTR_METRIC_RUSAGE": "ru_utime,ru_stime"}
    _, mine, exp = run("touch_pages", [1000, 300], env)
    prof = P.load(exp)
    expect(metrics_of(prof) == ["ru_utime", "ru_stime", "page-faults", "task-clock",
                                "context-switches"], "metrics %r" % metrics_of(prof))
    pf = value(prof, "main/touch", "page-faults")
    expect(pf >= 1000, "page-faults in touch() is %d, it touched 1000 new pages" % pf)
    # task-clock is the thread's CPU time: at most its wall time, and within 10 % of the CPU
    # time getrusage gives (the wall time itself on an idle machine; shared machines give the
    # thread less CPU than wall time).
    tc = value(prof, "main", "task-clock")
    wall = node(prof, "main")["inclusive"]
    expect(tc <= wall * 1.01 + 100000, "task-clock of main %d ns > its time %d ns" % (tc, wall))
    ru = (value(prof, "main", "ru_utime") + value(prof, "main", "ru_stime")) * 1000
    expect(abs(tc - ru) <= 0.1 * ru + 8e6,
           "task-clock of main %d ns, getrusage CPU time %d ns" % (tc, ru))
    # The issue's acceptance, task-clock of main within 10 % of main's time, holds where the
    # thread had a CPU for (nearly) all of that time; on a machine busy with other work it
    # had less, which getrusage shows, and the comparison above is the one that applies.
    if ru >= 0.95 * wall:
        expect(abs(tc - wall) <= 0.1 * wall,
               "task-clock of main %d ns, its time %d ns" % (tc, wall))
    else:
        print("note: main ran on a CPU for %.0f %% of its time (a busy machine): task-clock "
              "compared with its CPU time only" % (100.0 * ru / wall))
    exclusive_consistent(prof)


def case_hardware_or_message():
    _, mine, exp = run("touch_pages", [10, 10], {"INSTR_METRIC_PERF": "instructions,page-faults"})
    prof = P.load(exp)
    refused = [l for l in mine if "INSTR_METRIC_PERF: event instructions is not available" in l]
    if refused:
        # A machine without hardware counters: one clear line, the rest is recorded.
        expect(len(refused) == 1 and ("does not expose" in refused[0] or
                                      "not permitted" in refused[0]), "line %r" % refused)
        expect(metrics_of(prof) == ["page-faults"], "metrics %r" % metrics_of(prof))
    else:
        expect(metrics_of(prof) == ["instructions", "page-faults"], "%r" % metrics_of(prof))
        expect(value(prof, "main/spin", "instructions") > 1000, "instructions of spin()")


def case_hardware_unavailable():
    """The machine refuses hardware events (a test double of perf_event_open, LD_PRELOAD):
    one line per event names the variable, the event and why, and the software event asked
    for with them is recorded."""
    env = {"INSTR_METRIC_PERF": "instructions,page-faults,cycles",
           "LD_PRELOAD": os.path.join(A.bad_plugins, "libno_hw_counters.so")}
    out, mine, exp = run("touch_pages", [100, 10], env)
    expect(out == "touched 100 pages\n", "stdout %r" % out)
    for ev in ("instructions", "cycles"):
        said = [l for l in mine if "INSTR_METRIC_PERF: event %s is not available" % ev in l]
        expect(len(said) == 1 and "this machine does not expose it" in said[0] and
               "goes on" in said[0], "%s: %r" % (ev, mine))
    prof = P.load(exp)
    expect(metrics_of(prof) == ["page-faults"], "metrics %r" % metrics_of(prof))
    expect(value(prof, "main/touch", "page-faults") >= 100, "page-faults of touch()")


def case_hardware_multiplexed():
    """A group of hardware events the CPU counted only a quarter of the time (a test double
    of perf_event_open and read, LD_PRELOAD): one line at the end names the variable, the
    group and the share; the clocks' group beside it is not named."""
    env = {"INSTR_METRIC_PERF": "instructions,cycles,page-faults,task-clock",
           "LD_PRELOAD": os.path.join(A.bad_plugins, "libfew_hw_counters.so")}
    out, mine, exp = run("touch_pages", [100, 10], env)
    expect(out == "touched 100 pages\n", "stdout %r" % out)
    line(mine, "INSTR_METRIC_PERF", "group instructions,cycles,page-faults",
         "counted only 25.0 % of the time", "not scaled")
    expect(not any("task-clock" in l for l in mine), "the clocks' group named: %r" % mine)
    prof = P.load(exp)
    expect(metrics_of(prof) == ["instructions", "cycles", "page-faults", "task-clock"],
           "metrics %r" % metrics_of(prof))
    expect(value(prof, "main", "task-clock") > 0, "task-clock of main")


def count_env(spec=None, extra=None):
    env = {"INSTR_PLUGIN_PATH": A.plugins, "INSTR_METRIC_PLUGINS": "count"}
    if spec is not None:
        env["INSTR_METRIC_COUNT"] = spec
    env.update(extra or {})
    return env


def case_count_exact():
    out, mine, exp = run("calls", [0], count_env())
    expect(out == "sink=6\n", "stdout %r" % out)
    prof = P.load(exp)
    expect(metrics_of(prof) == ["events", "events_neg", "events_half"], "%r" % metrics_of(prof))
    kinds = [m["type"] for m in prof["metrics"]]
    expect(kinds == ["uint64", "int64", "double"], "types %r" % kinds)
    # k instrumented calls inside a visit: 2k + 1 events from its enter to its exit.
    want = {"main": (19, 4, 1, 19), "main/a": (15, 9, 3, 5), "main/a/b": (6, 6, 6, 1)}
    for path, (incl, excl, visits, per_visit) in want.items():
        n = node(prof, path)
        expect(n["visits"] == visits, "%s visits %d" % (path, n["visits"]))
        m = n["metrics"]
        expect(m["inclusive"] == [incl, -incl, incl / 2], "%s inclusive %r" % (path, m))
        expect(m["exclusive"] == [excl, -excl, excl / 2], "%s exclusive %r" % (path, m))
        expect(m["min_inclusive"][0] == per_visit and m["max_inclusive"][0] == per_visit,
               "%s per visit %r" % (path, m))
    exclusive_consistent(prof)


def case_count_threads():
    out, mine, exp = run("calls", [4], count_env("events"))
    prof = P.load(exp)
    expect(metrics_of(prof) == ["events"], "%r" % metrics_of(prof))
    w = node(prof, "worker")
    expect(len(w["locations"]) == 4 and all(l["metrics"]["inclusive"] == [19]
                                            for l in w["locations"]),
           "worker per thread: %r" % w["locations"])
    expect(w["metrics"]["inclusive"] == [76], "worker over threads %r" % w["metrics"])
    expect(value(prof, "worker/a/b", "events") == 4 * 6, "b under worker")
    expect(value(prof, "main", "events") == 19, "main")
    exclusive_consistent(prof)


def case_signals():
    """SIGALRM and SIGPROF handlers with instrumented functions at 1 kHz each, interrupting
    the events of 2,000,000 calls, some on the cursor path with metrics, some on its slow
    paths: every recorded event asks the count plugin exactly once (main's events span twice
    the events recorded below it, plus one), the interrupted code's visits stay exact, and a
    visit of the leaf without a handler inside spans exactly one event."""
    out, mine, exp = run("signals", [], count_env("events"))
    expect(out == "calls=2000000\n", "stdout %r" % out)
    prof = P.load(exp)
    below = sum(n["visits"] for n in prof["tree"] if n["parent"] is not None)
    expect(value(prof, "main", "events") == 2 * below + 1,
           "main's events %d, %d visits below it" % (value(prof, "main", "events"), below))
    for path, visits in (("main/work", 20000), ("main/work/inner", 1000000),
                         ("main/work/other", 1000000)):
        expect(node(prof, path)["visits"] == visits, "%s visits %d" % (path,
                                                                    node(prof, path)["visits"]))
    expect(value(prof, "main/work/inner", "events", "min_inclusive") == 1,
           "inner's least events per visit")
    exclusive_consistent(prof)


def case_count_columns():
    _, mine, exp = run("calls", [0], count_env(extra={
        "INSTR_PROFILE_METRIC_COLUMNS": "events_half,evnts"}))
    line(mine, "INSTR_PROFILE_METRIC_COLUMNS", "'evnts'", "not a metric")
    txt = open(os.path.join(exp, "profile.txt")).read()
    part = txt[txt.index("Metrics per call path"):]
    expect("events_half" in part and "events_neg" not in part, "columns:\n" + part)
    expect(re.search(r"^\s+9\.5\s+2 \| main$", part, re.M), "main's row:\n" + part)


def case_bad_names():
    env = {"INSTR_METRIC_RUSAGE": "ru_utme", "INSTR_METRIC_PERF": "instrctions",
           "INSTR_METRIC_PAPI": "", "INSTR_VERBOSE": "1"}
    out, mine, exp = run("calls", [0], env)
    expect(out == "sink=6\n", "stdout %r" % out)
    line(mine, "INSTR_METRIC_RUSAGE", "'ru_utme'", "not a getrusage field")
    line(mine, "INSTR_METRIC_PERF", "'instrctions'", "not a perf event")
    line(mine, "no metric is recorded")
    expect(not any("substrate metrics: on" in l for l in mine), "metrics substrate on")
    prof = P.load(exp)
    expect(prof["metrics"] == [] and all("metrics" not in n for n in prof["tree"]),
           "metrics without any metric on")
    expect(node(prof, "main/a")["visits"] == 3, "the profile is still measured")
    # 500 unknown names: one line that names the first and counts the rest
    many = ",".join("nosuch%d" % i for i in range(500))
    out, mine, _ = run("calls", [0], {"INSTR_METRIC_PERF": many + ",task-clock"})
    expect(out == "sink=6\n", "stdout %r" % out)
    perf = [l for l in mine if "INSTR_METRIC_PERF" in l]
    expect(len(perf) == 1, "500 unknown perf names gave %d lines:\n%s" % (len(perf),
                                                                       "\n".join(perf)))
    shown = perf[0].count("'nosuch")
    expect(shown >= 1 and ("and %d more are not perf events" % (500 - shown)) in perf[0] and
           "'nosuch0'" in perf[0], "the line: %r" % perf[0])


def case_bad_plugins():
    env = {"INSTR_PLUGIN_PATH": A.bad_plugins + ":" + A.plugins,
           "INSTR_METRIC_PLUGINS": "bad_no_entry, bad_version,bad_init,bad_no_callback,count",
           "INSTR_METRIC_COUNT": "events"}
    out, mine, exp = run("calls", [0], env)
    expect(out == "sink=6\n", "stdout %r" % out)
    line(mine, "INSTR_METRIC_PLUGINS=bad_no_entry", "no entry point")
    line(mine, "INSTR_METRIC_PLUGINS=bad_version", "version 99", "versions 1 to 2")
    line(mine, "INSTR_METRIC_PLUGINS=bad_init", "failed to initialise", "-7")
    line(mine, "INSTR_METRIC_PLUGINS=bad_no_callback", "get_current_value")
    prof = P.load(exp)
    expect(metrics_of(prof) == ["events"], "the good plugin's metric: %r" % metrics_of(prof))
    expect(value(prof, "main", "events") == 19, "events of main")
    # A specification with a typo names nothing: said, and the run goes on without it.
    out, mine, exp = run("calls", [0], count_env("evnts*"), name="typo")
    line(mine, "INSTR_METRIC_PLUGINS=count", "INSTR_METRIC_COUNT='evnts*'", "names no metric")
    expect(P.load(exp)["metrics"] == [], "metrics from a spec that names none")


def case_plugin_not_found():
    env = {"INSTR_PLUGIN_PATH": A.plugins, "INSTR_METRIC_PLUGINS": "nosuch,../count,count",
           "INSTR_METRIC_COUNT": "events"}
    out, mine, exp = run("calls", [0], env)
    line(mine, "INSTR_METRIC_PLUGINS=nosuch", "libinstr_metric_nosuch.so was not found",
         "INSTR_PLUGIN_PATH")
    line(mine, "INSTR_METRIC_PLUGINS", "'../count'", "not a plugin name")
    expect(metrics_of(P.load(exp)) == ["events"], "count still loaded")


def case_plugin_v1():
    """A plugin built for interface version 1 (one get_current_value per counter) gives the
    same exact values as the count example, alone and next to it (version 2, one
    get_current_values call per event): the cursor path with metrics through its getters,
    through the plugin's one call, and through both."""
    base = {"INSTR_PLUGIN_PATH": A.bad_plugins + ":" + A.plugins, "INSTR_VERBOSE": "1"}
    for plugins in ("v1", "v1,count", "count"):
        env = dict(base, INSTR_METRIC_PLUGINS=plugins, INSTR_METRIC_COUNT="events")
        out, mine, exp = run("calls", [2], env, name="v1_" + plugins.replace(",", "_"))
        expect(out == "sink=18\n", "stdout %r" % out)
        expect(not any("left out" in l for l in mine), "%s: %r" % (plugins, mine))
        prof = P.load(exp)
        names = [{"v1": "v1_events", "count": "events"}[p] for p in plugins.split(",")]
        expect(metrics_of(prof) == names, "%s: metrics %r" % (plugins, metrics_of(prof)))
        for name in names:
            for path, per_visit, visits in (("main", 19, 1), ("main/a", 5, 3),
                                            ("main/a/b", 1, 6), ("worker", 19, 2),
                                            ("worker/a", 5, 6)):
                n = node(prof, path)
                i = metrics_of(prof).index(name)
                m = n["metrics"]
                expect(n["visits"] == visits and m["inclusive"][i] == per_visit * visits and
                       m["min_inclusive"][i] == per_visit == m["max_inclusive"][i],
                       "%s: %s %s: visits %d, %r" % (plugins, name, path, n["visits"], m))
        exclusive_consistent(prof)
        if "v1" in plugins:
            # The header's promises: synchronize(start) after add_counter, finalize at the end.
            files = os.listdir(os.path.dirname(exp))
            expect("v1_synchronize_start" in files and "v1_finalize" in files and
                   "v1_synchronize_start_early" not in files,
                   "%s: the plugin's calls left %r" % (plugins, sorted(files)))


def case_no_metric_no_output():
    """Without metrics nothing says or writes any. (That they cost nothing then is
    perf.profile_instructions' part: callgrind's count of the hooks without metrics.)"""
    _, mine, exp = run("calls", [0], {"INSTR_VERBOSE": "1"})
    expect(not any(l.startswith("instr: metric") or "substrate metrics" in l for l in mine),
           "a metrics line without metrics: %r" % mine)
    prof = P.load(exp)
    expect(prof["metrics"] == [], "metrics list %r" % prof["metrics"])


def trace_events(exp):
    """(location, kind, time, detail) of every event, in file order, from otf2-print; the
    trace first checked with tests/lib/otf2check.py."""
    import otf2check as T
    tr = T.load(exp)
    problems = tr.problems()
    expect(not problems, "trace problems:\n  " + "\n  ".join(problems[:10]))
    p = subprocess.run([T.OTF2_PRINT, os.path.join(exp, "traces.otf2")], capture_output=True,
                       timeout=60)
    out = []
    for l in p.stdout.decode().splitlines():
        m = re.match(r"^(ENTER|LEAVE|METRIC)\s+(\d+)\s+(\d+)\s+(.*)$", l)
        if m:
            out.append((int(m.group(2)), m.group(1), int(m.group(3)), m.group(4)))
    return tr, out


def case_trace_sync():
    env = count_env("events,events_half", {"INSTR_ENABLE_TRACING": "1"})
    _, mine, exp = run("calls", [2], env)
    tr, evs = trace_events(exp)
    by_loc = {}
    for loc, kind, t, detail in evs:
        by_loc.setdefault(loc, []).append((kind, t, detail))
    expect(len(by_loc) == 3, "locations %r" % sorted(by_loc))
    for loc, es in by_loc.items():
        # Every Enter and Leave is followed by the metric set at its own time, whose events
        # value grows by exactly one per event (the count plugin's meaning).
        expect(len(es) % 2 == 0, "location %d: %d records" % (loc, len(es)))
        last = None
        for (k1, t1, _), (k2, t2, d2) in zip(es[0::2], es[1::2]):
            expect(k1 in ("ENTER", "LEAVE") and k2 == "METRIC" and t1 == t2,
                   "location %d: %s at %d then %s at %d" % (loc, k1, t1, k2, t2))
            m = re.search(r'\("events" <\d+>; UINT64; (\d+)\), \("events_half" <\d+>; '
                          r'DOUBLE; ([0-9.e+]+)\)', d2)
            expect(m, "metric record %r" % d2)
            v = int(m.group(1))
            expect(float(m.group(2)) == v / 2, "events_half %r" % d2)
            expect(last is None or v == last + 1, "location %d: events %d after %r" % (loc, v, last))
            last = v
    prof = P.load(exp)
    expect(value(prof, "main", "events") == 19, "the profile of a traced run")


def case_trace_only():
    """The trace with one metric and without the profile takes the metrics' and the trace's
    own path (metrics/trace_direct.c, with the TSC) and gives, event for event, the records
    the generic path gives (the same run with another timer): each Enter and Leave followed
    by the metric at its own time, one more event counted each time."""
    base = count_env("events", {"INSTR_ENABLE_TRACING": "1", "INSTR_ENABLE_PROFILING": "0",
                                "INSTR_VERBOSE": "1"})
    runs = {}
    for name, timer in (("direct", "tsc"), ("generic", "monotonic")):
        _, mine, exp = run("calls", [2], dict(base, INSTR_TIMER=timer), name=name,
                           profile=False)
        on = any("the metrics and the trace's records on the core's stack" in l for l in mine)
        expect(on == (name == "direct"), "%s run: the path's line %s" % (name, mine))
        _, evs = trace_events(exp)
        by_loc = {}
        for loc, kind, t, detail in evs:
            by_loc.setdefault(loc, []).append((kind, t, detail))
        expect(len(by_loc) == 3, "%s run: locations %r" % (name, sorted(by_loc)))
        seqs = []
        for loc, es in by_loc.items():
            expect(len(es) % 2 == 0, "%s run, location %d: %d records" % (name, loc, len(es)))
            seq, last = [], None
            for (k1, t1, d1), (k2, t2, d2) in zip(es[0::2], es[1::2]):
                expect(k1 in ("ENTER", "LEAVE") and k2 == "METRIC" and t1 == t2,
                       "%s run, location %d: %s at %d then %s at %d" % (name, loc, k1, t1, k2, t2))
                m = re.search(r'\("events" <\d+>; UINT64; (\d+)\)$', d2)
                expect(m, "metric record %r" % d2)
                v = int(m.group(1))
                expect(last is None or v == last + 1,
                       "%s run, location %d: events %d after %r" % (name, loc, v, last))
                last = v
                r = re.search(r'"([^"]+)"', d1)
                seq.append((k1, r.group(1) if r else d1, v))
            expect(len(seq) >= 6, "%s run, location %d: %d events" % (name, loc, len(seq)))
            seqs.append(seq)
        runs[name] = sorted(seqs)
    expect(runs["direct"] == runs["generic"],
           "the direct path's events differ from the generic path's:\n%r\n%r"
           % (runs["direct"], runs["generic"]))


def case_async_only():
    """Asynchronous metrics only, without a trace: the run says where they would go, events
    keep the path without metrics, and the profile is written (without metrics)."""
    env = {"INSTR_PLUGIN_PATH": A.plugins, "INSTR_METRIC_PLUGINS": "meminfo",
           "INSTR_METRIC_MEMINFO": "MemFree"}
    out, mine, exp = run("calls", [2], env)
    expect(out == "sink=18\n", "stdout %r" % out)
    line(mine, "asynchronous metric", "MemFree", "this run writes no trace")
    prof = P.load(exp)
    expect(prof["metrics"] == [] and node(prof, "main/a")["visits"] == 3, "profile %r" %
           prof["metrics"])


def many_metrics(n):
    """A strictly synchronous plugin with n metrics (a test double; each metric is the
    thread's events, as the count plugin's): the run is not hurt, and every metric of every
    call path has its exact value, whatever the size of a call-tree node."""
    env = {"INSTR_PLUGIN_PATH": A.bad_plugins, "INSTR_METRIC_PLUGINS": "many",
           "INSTR_METRIC_MANY": str(n)}
    out, mine, exp = run("calls", [2], env, name="many_%d" % n)
    expect(out == "sink=18\n", "stdout %r" % out)
    prof = P.load(exp)
    expect(metrics_of(prof) == ["m%d" % i for i in range(n)], "%d metrics: %r"
           % (n, metrics_of(prof)[:3]))
    # k instrumented calls inside a visit: 2k + 1 events from its enter to its exit.
    want = {"main": 19, "main/a": 15, "main/a/b": 6}
    for path, incl in want.items():
        got = node(prof, path)["metrics"]["inclusive"]
        expect(got == [incl] * n, "%s inclusive %r" % (path, got[:3]))
    w = node(prof, "worker")
    expect(w["metrics"]["inclusive"] == [2 * 19] * n, "worker over 2 threads")
    exclusive_consistent(prof)


def case_many_99():
    many_metrics(99)


def case_many_200():
    many_metrics(200)


def case_trace_units():
    """A metric's unit, base and exponent and its mode reach the trace's definitions; an
    absolute metric (a reading) is in the trace, each event's value the plugin's, and left
    out of the profile with one line saying so."""
    env = {"INSTR_PLUGIN_PATH": A.bad_plugins, "INSTR_METRIC_PLUGINS": "v1",
           "INSTR_METRIC_V1": "v1_events,v1_level", "INSTR_ENABLE_TRACING": "1"}
    _, mine, exp = run("calls", [0], env)
    line(mine, "metric v1_level (v1) gives absolute values", "trace only")
    import otf2check as T
    p = subprocess.run([T.OTF2_PRINT, "-G", os.path.join(exp, "traces.otf2")],
                       capture_output=True, timeout=60)
    defs = p.stdout.decode()
    for name, mode, base, exponent, unit in (("v1_events", "ACCUMULATED_START", "DECIMAL", 0, "#"),
                                             ("v1_level", "ABSOLUTE_POINT", "BINARY", 10, "B")):
        expect(re.search(r'^METRIC_MEMBER .*Name: "%s" .*Mode: %s, Value Type: UINT64, '
                         r'Base: %s, Exponent: %d, Unit: "%s"' % (name, mode, base, exponent,
                                                                  re.escape(unit)), defs, re.M),
               "definition of %s:\n%s" % (name, "\n".join(l for l in defs.splitlines()
                                                          if "METRIC" in l)))
    _, evs = trace_events(exp)
    levels = [int(m.group(1)) for _, k, _, d in evs if k == "METRIC"
              for m in [re.search(r'\("v1_level" <\d+>; UINT64; (\d+)\)', d)] if m]
    expect(len(levels) == 2 * 10 and all(b == a + 1 for a, b in zip(levels, levels[1:])),
           "v1_level readings %r" % levels)
    prof = P.load(exp)
    expect(metrics_of(prof) == ["v1_events"], "profile metrics %r" % metrics_of(prof))
    expect(value(prof, "main", "v1_events") == 19, "v1_events of main")


def case_trace_synchronous():
    """A synchronous plugin (asked at most once per 50 ms per thread) has a class of its own,
    SYNCHRONOUS, next to the strictly synchronous class, and Metric events of that class only
    at the events where it was asked: fewer than the Enters and Leaves, each a new value."""
    env = {"INSTR_PLUGIN_PATH": A.bad_plugins + ":" + A.plugins,
           "INSTR_METRIC_PLUGINS": "every,count", "INSTR_METRIC_COUNT": "events",
           "INSTR_ENABLE_TRACING": "1"}
    _, mine, exp = run("touch_pages", [10, 300], env)
    import otf2check as T
    p = subprocess.run([T.OTF2_PRINT, "-G", os.path.join(exp, "traces.otf2")],
                       capture_output=True, timeout=60)
    defs = p.stdout.decode()
    classes = re.findall(r'^METRIC_CLASS\s+(\d+)\s+Occurrence: (\w+), .*Members?: (.*)$', defs,
                         re.M)
    expect(sorted((int(c), o, "asked" in m, "events" in m) for c, o, m in classes) ==
           [(0, "SYNCHRONOUS_STRICT", False, True), (1, "SYNCHRONOUS", True, False)],
           "classes %r" % classes)
    _, evs = trace_events(exp)
    regions = [e for e in evs if e[1] in ("ENTER", "LEAVE")]
    asked = [int(m.group(1)) for _, k, _, d in evs if k == "METRIC"
             for m in [re.search(r'^Metric: 1, 1 Values?: \("asked" <\d+>; UINT64; (\d+)\)',
                                 d)] if m]
    strict = [d for _, k, _, d in evs if k == "METRIC" and d.startswith("Metric: 0,")]
    expect(len(strict) == len(regions) == 6, "%d strict metric events, %d enters and leaves"
           % (len(strict), len(regions)))
    # Asked at main's enter, and again at spin's exit 300 ms later at the least.
    expect(2 <= len(asked) < len(regions) and
           all(b == a + 1 for a, b in zip(asked, asked[1:])),
           "values of the synchronous class %r" % asked)
    prof = P.load(exp)
    expect(value(prof, "main/spin", "asked") >= 1, "asked during spin()")


def case_trace_async():
    env = {"INSTR_PLUGIN_PATH": A.plugins, "INSTR_METRIC_PLUGINS": "meminfo",
           "INSTR_METRIC_MEMINFO": "MemFree,MemAvail*", "INSTR_ENABLE_TRACING": "1"}
    _, mine, exp = run("touch_pages", [100, 200], env)
    line(mine, "2 asynchronous metrics", "trace only")
    tr, evs = trace_events(exp)
    metric_locs = [r for r, d in tr.locations.items() if d["type"] == "METRIC"]
    expect(len(metric_locs) == 1, "locations %r" % tr.locations)
    vals = [(t, d) for loc, kind, t, d in evs if loc == metric_locs[0]]
    expect(all(k == "METRIC" for loc, k, _, _ in evs if loc == metric_locs[0]), "kinds")
    times = [t for t, _ in vals]
    expect(times == sorted(times), "asynchronous values out of time order")
    free = [d for _, d in vals if '"MemFree"' in d]
    avail = [d for _, d in vals if '"MemAvailable"' in d]
    # Sampled every 10 ms over a run of about 200 ms, plus one at the start and at the end.
    expect(len(free) >= 5 and len(free) == len(avail), "%d MemFree, %d MemAvailable values"
           % (len(free), len(avail)))
    main = [t for loc, k, t, _ in evs if k == "ENTER" and loc != metric_locs[0]]
    expect(times[0] <= main[0] + 1 and times[-1] >= main[-1], "the values span the run")
    expect(P.load(exp)["metrics"] == [], "an asynchronous metric in the profile")


def case_trace_async_event():
    """An ASYNC_EVENT plugin (a test double whose every get_all_values call hands over one
    value, the number of that call, at the time of the call): the runtime asks it at every
    event of the starting thread (delta_t 0) and once at the end, so with two more threads
    running, the starting thread's 20 Enters and Leaves bring values 1 to 20, each between
    its event and the next, and the end value 21; in time order on the location of the
    asynchronous metrics. With a delta_t longer than the run, it is asked at the first event
    and at the end only. The events of a profile-only run keep their paths (no trace)."""
    env = {"INSTR_PLUGIN_PATH": A.bad_plugins, "INSTR_METRIC_PLUGINS": "handover",
           "INSTR_ENABLE_TRACING": "1"}
    out, mine, exp = run("calls", [2], env)
    expect(out == "sink=18\n", "stdout %r" % out)
    line(mine, "asynchronous metric", "handover", "trace only")
    tr, evs = trace_events(exp)
    metric_locs = [r for r, d in tr.locations.items() if d["type"] == "METRIC"]
    expect(len(metric_locs) == 1, "locations %r" % tr.locations)
    vals = [(t, int(re.search(r'\("handover" <\d+>; UINT64; (\d+)\)', d).group(1)))
            for loc, k, t, d in evs if loc == metric_locs[0] and k == "METRIC"]
    times = [t for t, _ in vals]
    expect(times == sorted(times), "values out of time order: %r" % vals)
    by_loc = {}
    for loc, kind, t, _ in evs:
        if kind in ("ENTER", "LEAVE"):
            by_loc.setdefault(loc, []).append(t)
    expect(len(by_loc) == 3, "thread locations %r" % sorted(by_loc))
    main = by_loc[min(by_loc)]
    expect(len(main) == 20, "the starting thread's events: %d" % len(main))
    expect([v for _, v in vals] == list(range(1, 22)),
           "handed-over values %r (20 events of the starting thread, then the end)" %
           [v for _, v in vals])
    for k, (t, v) in enumerate(vals[:20]):
        nxt = main[k + 1] if k + 1 < 20 else None
        expect(main[k] <= t and (nxt is None or t <= nxt),
               "value %d at %d: not between event %d (%d) and the next (%r)"
               % (v, t, k + 1, main[k], nxt))
    expect(vals[20][0] >= main[-1], "the end's value before the last event")
    # delta_t longer than the run: the first event and the end.
    env["HANDOVER_DELTA_T_NS"] = str(3600 * 10**9)
    _, _, exp = run("calls", [2], env, name="delta_t")
    tr, evs = trace_events(exp)
    vals = [(t, d) for loc, k, t, d in evs
            if k == "METRIC" and tr.locations[loc]["type"] == "METRIC"]
    first = min(t for loc, k, t, _ in evs if k == "ENTER")
    expect(len(vals) == 2 and '; 1)' in vals[0][1] and '; 2)' in vals[1][1] and
           first <= vals[0][0], "with delta_t 1 h: %r" % vals)
    # Without a trace the values go nowhere: the run says so, and nothing is asked during it
    # (the profile's paths are kept), so the profile is as without metrics.
    del env["INSTR_ENABLE_TRACING"]
    del env["HANDOVER_DELTA_T_NS"]
    out, mine, exp = run("calls", [0], env, name="profile")
    line(mine, "asynchronous metric", "handover", "this run writes no trace")
    prof = P.load(exp)
    expect(prof["metrics"] == [] and node(prof, "main/a")["visits"] == 3, "profile %r" %
           prof["metrics"])


def build_halo(work):
    """tests/mpi/progs/halo.c built with `instr mpicc` into work; its path."""
    exe = os.path.join(work, "halo")
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "mpi", "progs", "halo.c")
    b = subprocess.run([A.instr, A.mpicc, "-O1", src, "-o", exe], capture_output=True, timeout=120)
    expect(b.returncode == 0, "instr mpicc: %s" % b.stderr.decode(errors="replace"))
    return exe


def mpirun_job(work, env, args):
    """mpirun ARGS in work with env set and forwarded to every rank (-x); the finished
    process."""
    cmd = [A.mpirun, "--oversubscribe", "--allow-run-as-root"]
    for k in env:
        cmd += ["-x", k]
    return subprocess.run(cmd + args, cwd=work, env=clean_env(env), capture_output=True,
                          timeout=240)


def case_mpi_job():
    """The job profile of an MPI job has the metric rows of every rank."""
    work = fresh_dir(os.path.join(A.work, A.case))
    exe = build_halo(work)
    # INSTR_RANK_FILES: the ranks' own profiles, which the database is checked against below
    env = dict(count_env("events"), INSTR_RANK_FILES="1")
    p = mpirun_job(work, env, ["-np", "2", exe])
    expect(p.returncode == 0, "mpirun: %s" % p.stderr.decode(errors="replace")[-2000:])
    job = P.load(P.find_experiment(work))
    expect(metrics_of(job) == ["events"], "job metrics %r" % job.get("metrics"))
    names = {r["id"]: r["name"] for r in job["regions"]}
    mains = [n for n in job["tree"] if names[n["region"]] == "main" and n["parent"] is None]
    expect(len(mains) == 1 and len(mains[0]["locations"]) == 2, "main over two ranks")
    per_rank = [l["metrics"]["inclusive"][0] for l in mains[0]["locations"]]
    expect(per_rank[0] == per_rank[1] and mains[0]["metrics"]["inclusive"] == [sum(per_rank)],
           "main's events per rank %r, over the job %r" % (per_rank, mains[0]["metrics"]))
    # main's events: 2k + 1 for the k instrumented calls made inside it, on every rank.
    calls = sum(n["visits"] for n in job["tree"] if n["parent"] is not None) // 2
    expect(per_rank[0] == 2 * calls + 1, "main's events %d, %d calls inside" % (per_rank[0], calls))
    exclusive_consistent(job)
    # The job database has the metric's columns, each rank's equal to its own profile.
    import jobdb
    expect(jobdb.main(["jobdb.py", "check-job", P.find_experiment(work), "--ranks", "2"]) == 0,
           "the job database profile.jdb is wrong (above)")


def case_mpi_trace():
    """The trace of a 4-rank MPI job has the metrics: one definition set for the job (the
    ranks agreed on it at MPI_Init), and on every rank's location a Metric event after each
    Enter and Leave whose count grows by one per event, read back by otf2-print."""
    work = fresh_dir(os.path.join(A.work, A.case))
    exe = build_halo(work)
    env = count_env("events", {"INSTR_ENABLE_TRACING": "1"})
    p = mpirun_job(work, env, ["-np", "4", exe])
    err = p.stderr.decode(errors="replace")
    expect(p.returncode == 0, "mpirun: %s" % err[-2000:])
    expect("different metrics" not in err, "the ranks disagreed: %s" % err[-2000:])
    exp = P.find_experiment(work)
    import otf2check as T
    d = subprocess.run([T.OTF2_PRINT, "-G", os.path.join(exp, "traces.otf2")],
                       capture_output=True, timeout=60).stdout.decode()
    expect(re.search(r'^METRIC_MEMBER .*Name: "events" ', d, re.M) and
           re.search(r'^METRIC_CLASS\s+0\s+Occurrence: SYNCHRONOUS_STRICT, .*"events"', d, re.M),
           "metric definitions:\n%s" % "\n".join(l for l in d.splitlines() if "METRIC" in l))
    _, evs = trace_events(exp)
    by_loc = {}
    for loc, kind, t, detail in evs:
        by_loc.setdefault(loc, []).append((kind, t, detail))
    ranks = {loc >> 32 for loc in by_loc}
    expect(ranks == {0, 1, 2, 3}, "locations %r" % sorted(by_loc))
    for loc, es in by_loc.items():
        expect(len(es) % 2 == 0 and len(es) >= 4, "location %x: %d records" % (loc, len(es)))
        last = None
        for (k1, t1, _), (k2, t2, d2) in zip(es[0::2], es[1::2]):
            m = re.search(r'\("events" <\d+>; UINT64; (\d+)\)', d2)
            expect(k1 in ("ENTER", "LEAVE") and k2 == "METRIC" and t1 == t2 and m,
                   "location %x: %s at %d then %s at %d %r" % (loc, k1, t1, k2, t2, d2))
            v = int(m.group(1))
            expect(last is None or v == last + 1, "location %x: events %d after %r" %
                   (loc, v, last))
            last = v
    # A per-host plugin: one rank of the host (all four share it) is told it is responsible,
    # at MPI_Init and at the end; the others are told they are not.
    work = fresh_dir(os.path.join(A.work, A.case, "per_host"))
    env = {"INSTR_PLUGIN_PATH": A.bad_plugins, "INSTR_METRIC_PLUGINS": "host"}
    p = mpirun_job(work, env, ["-np", "4", exe])
    expect(p.returncode == 0, "mpirun: %s" % p.stderr.decode(errors="replace")[-2000:])
    calls = [f.split(".")[1:] for f in os.listdir(work) if f.startswith("host_sync.")]
    pids = {pid for pid, _, _ in calls}
    told = {(pid, end): resp for pid, resp, end in calls}
    expect(len(pids) == 4 and len(calls) == 8, "synchronize calls %r" % sorted(calls))
    for end in ("0", "1"):
        expect(sorted(told[(pid, end)] for pid in pids) == ["0", "0", "0", "1"],
               "is_end %s: %r" % (end, sorted(calls)))
    expect(all(told[(pid, "0")] == told[(pid, "1")] for pid in pids), "%r" % sorted(calls))
    # Ranks with different metric sets: one line, and a trace without metrics that reads.
    work = fresh_dir(os.path.join(A.work, A.case, "different"))
    env = count_env(None, {"INSTR_ENABLE_TRACING": "1"})
    p = mpirun_job(work, env, ["-np", "2", "env", "INSTR_METRIC_COUNT=events", exe, ":",
                               "-np", "2", "env", "INSTR_METRIC_COUNT=events,events_neg", exe])
    err = p.stderr.decode(errors="replace")
    expect(p.returncode == 0, "mpirun: %s" % err[-2000:])
    expect(err.count("the ranks record different metrics") == 1, "stderr: %s" % err[-2000:])
    exp = P.find_experiment(work)
    _, evs = trace_events(exp)
    expect(evs and not any(k == "METRIC" for _, k, _, _ in evs),
           "%d records, metric ones among them" % len(evs))


def case_mpi_trace_async():
    """Asynchronous metrics in the trace of a 4-rank MPI job on one host, read back by
    otf2-print: meminfo (per host, ASYNC, a background thread) and the handover test double
    (per process, ASYNC_EVENT). One definition of each for the job (the ranks agreed on the
    set at MPI_Init), each with a class of its own, ASYNCHRONOUS; one location of type METRIC
    per rank, in that rank's group; the MemFree values only in that of rank 0, the host's
    elected rank; on every rank the handover values 1 to N in time order, one at each event
    of the rank's thread from the Leave of MPI_Init on (where the plugin's start synchronize
    came) and one at the end. The same plugin with scope ONCE: values from rank 0 only."""
    work = fresh_dir(os.path.join(A.work, A.case))
    exe = build_halo(work)
    env = {"INSTR_PLUGIN_PATH": A.plugins + ":" + A.bad_plugins,
           "INSTR_METRIC_PLUGINS": "meminfo,handover", "INSTR_METRIC_MEMINFO": "MemFree",
           "INSTR_ENABLE_TRACING": "1"}
    p = mpirun_job(work, env, ["-np", "4", exe])
    err = p.stderr.decode(errors="replace")
    expect(p.returncode == 0, "mpirun: %s" % err[-2000:])
    expect("different metrics" not in err, "the ranks disagreed: %s" % err[-2000:])
    exp = P.find_experiment(work)
    import otf2check as T
    d = subprocess.run([T.OTF2_PRINT, "-G", os.path.join(exp, "traces.otf2")],
                       capture_output=True, timeout=60).stdout.decode()
    members = re.findall(r'^METRIC_MEMBER\s+(\d+)\s+Name: "(\w+)"', d, re.M)
    expect(sorted(n for _, n in members) == ["MemFree", "handover"],
           "metric members %r" % members)
    classes = re.findall(r'^METRIC_CLASS\s+(\d+)\s+Occurrence: (\w+), .*Members?: (.*)$', d,
                         re.M)
    expect(sorted((o, ("MemFree" in m) + 2 * ("handover" in m)) for _, o, m in classes) ==
           [("ASYNCHRONOUS", 1), ("ASYNCHRONOUS", 2)], "metric classes %r" % classes)
    tr, evs = trace_events(exp)
    metric_locs = sorted(r for r, l in tr.locations.items() if l["type"] == "METRIC")
    expect([r >> 32 for r in metric_locs] == [0, 1, 2, 3] and
           all(tr.locations[r]["group"] == r >> 32 for r in metric_locs),
           "locations of asynchronous values %r" % {r: tr.locations[r] for r in metric_locs})
    for loc in metric_locs:
        rank = loc >> 32
        vals = [(t, dd) for l, k, t, dd in evs if l == loc]
        expect(all(k == "METRIC" for l, k, _, _ in evs if l == loc), "rank %d: kinds" % rank)
        times = [t for t, _ in vals]
        expect(times == sorted(times), "rank %d: values out of time order" % rank)
        free = [dd for _, dd in vals if '"MemFree"' in dd]
        expect(bool(free) == (rank == 0), "rank %d: %d MemFree values" % (rank, len(free)))
        hand = [(t, int(m.group(1))) for t, dd in vals
                for m in [re.search(r'\("handover" <\d+>; UINT64; (\d+)\)', dd)] if m]
        threads = [(k, t, dd) for l, k, t, dd in evs
                   if l >> 32 == rank and l != loc and k in ("ENTER", "LEAVE")]
        init = [i for i, (k, _, dd) in enumerate(threads)
                if k == "LEAVE" and '"MPI_Init"' in dd]
        expect(len(init) == 1, "rank %d: Leave of MPI_Init %r" % (rank, init))
        after = [t for _, t, _ in threads[init[0]:]]
        expect([v for _, v in hand] == list(range(1, len(after) + 2)),
               "rank %d: handover values %r, %d events from MPI_Init's Leave on"
               % (rank, [v for _, v in hand], len(after)))
        for k, (t, v) in enumerate(hand[:-1]):
            nxt = after[k + 1] if k + 1 < len(after) else None
            expect(after[k] <= t and (nxt is None or t <= nxt),
                   "rank %d: value %d at %d not between its event (%d) and the next (%r)"
                   % (rank, v, t, after[k], nxt))
    # The same plugin once for the job (scope ONCE): rank 0 alone records it.
    work = fresh_dir(os.path.join(A.work, A.case, "once"))
    env = {"INSTR_PLUGIN_PATH": A.bad_plugins, "INSTR_METRIC_PLUGINS": "handover",
           "HANDOVER_ONCE": "1", "INSTR_ENABLE_TRACING": "1"}
    p = mpirun_job(work, env, ["-np", "4", exe])
    expect(p.returncode == 0, "mpirun: %s" % p.stderr.decode(errors="replace")[-2000:])
    tr, evs = trace_events(P.find_experiment(work))
    metric_locs = [r for r, l in tr.locations.items() if l["type"] == "METRIC"]
    values = {r: sum(1 for l, k, _, _ in evs if l == r and k == "METRIC") for r in metric_locs}
    expect([r >> 32 for r in metric_locs] == [0] and values[metric_locs[0]] >= 2,
           "once: locations of asynchronous values (rank, values) %r"
           % [(r >> 32, n) for r, n in values.items()])


def case_openmp():
    """OpenMP (libomp, OMPT): every thread's leaf update_row spans exactly one event per
    visit, and each thread's rows add up."""
    work = fresh_dir(os.path.join(A.work, A.case))
    exe = os.path.join(work, "heat_omp")
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                       "heat_omp", "heat_omp.c")
    b = subprocess.run([A.instr, A.clang, "-fopenmp", "-O2", src, "-o", exe, "-lm"],
                       capture_output=True, timeout=120)
    expect(b.returncode == 0, "instr clang -fopenmp: %s" % b.stderr.decode(errors="replace"))
    env = count_env("events", {"OMP_NUM_THREADS": "3"})
    p = subprocess.run([exe, "64", "10"], cwd=work, env=clean_env(env), capture_output=True,
                       timeout=120)
    expect(p.returncode == 0, "heat_omp: %s" % p.stderr.decode(errors="replace"))
    prof = P.load(P.find_experiment(work))
    names = {r["id"]: r["name"] for r in prof["regions"]}
    rows = [n for n in prof["tree"] if names[n["region"]] == "update_row"]
    expect(rows, "no update_row node")
    threads = set()
    for n in rows:
        for l in n["locations"]:
            expect(l["metrics"]["inclusive"] == [l["visits"]] and
                   l["metrics"]["max_inclusive"] == [1],
                   "update_row on location %d: %d visits, metrics %r"
                   % (l["location"], l["visits"], l["metrics"]))
            threads.add(l["location"])
    expect(len(threads) == 3, "update_row ran on locations %r" % sorted(threads))


def case_papi():
    _, mine, exp = run("touch_pages", [10, 10], {"INSTR_METRIC_PAPI": "PAPI_TOT_INS,PAPI_NOPE"})
    line(mine, "INSTR_METRIC_PAPI", "'PAPI_NOPE'", "not a PAPI event")
    prof = P.load(exp)
    refused = [l for l in mine if "INSTR_METRIC_PAPI" in l and "PAPI_TOT_INS" in l]
    if refused or any("PAPI cannot" in l for l in mine):
        expect(metrics_of(prof) == [], "metrics %r" % metrics_of(prof))
    else:
        expect(value(prof, "main/spin", "PAPI_TOT_INS") > 1000, "PAPI_TOT_INS of spin()")


def main():
    global A
    ap = argparse.ArgumentParser()
    ap.add_argument("case")
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--plugins", required=True)
    ap.add_argument("--bad-plugins", required=True)
    ap.add_argument("--instr")
    ap.add_argument("--mpicc")
    ap.add_argument("--mpirun")
    ap.add_argument("--clang")
    A = ap.parse_args()
    import otf2check as T
    return run_case(globals(), A.case, (P.ProfileError, T.TraceError))


if __name__ == "__main__":
    sys.exit(main())
