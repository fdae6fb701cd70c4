#!/usr/bin/env python3
"""End-to-end checks of substrate plugins (docs/plugins.md): the callcount example counts
exactly, several plugins run at once with their own per-location data and next to the profile
and trace writers, bad plugins get one clear line and the run goes on.
Usage: check_substrate.py CASE --bin DIR --work DIR --plugins DIR --test-plugins DIR
"""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys

LIB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib")
sys.path.insert(0, LIB)
from cases import Fail, clean_env, expect, fresh_dir, run_case  # noqa: E402
import profile as P  # noqa: E402

A = None


def experiment(work):
    dirs = [os.path.join(work, d) for d in os.listdir(work) if d.startswith("instr-")]
    expect(len(dirs) == 1, "expected one experiment directory in %s: %r" % (work, dirs))
    return dirs[0]


def run(cmd, env, name=None, want_out=None, plugin_says=None):
    """Runs cmd (a test program's name under --bin, or a list) in a fresh directory; returns
    (instr lines, experiment directory), and with plugin_says (a prefix of the lines a
    plugin may write on stderr) those lines third."""
    work = fresh_dir(os.path.join(A.work, A.case, name or "run"))
    if isinstance(cmd, str):
        cmd = [os.path.join(A.bin, "substrate_" + cmd)]
    p = subprocess.run([str(c) for c in cmd], cwd=work, env=clean_env(env),
                       capture_output=True, timeout=100)
    err = p.stderr.decode(errors="replace")
    expect(p.returncode == 0, "%s exited with %d:\n%s" % (cmd, p.returncode, err))
    if want_out is not None:
        expect(p.stdout.decode() == want_out, "stdout %r" % p.stdout.decode())
    mine = [l for l in err.splitlines() if l.startswith("instr: ")]
    other = [l for l in err.splitlines() if not l.startswith("instr: ") and
             not (plugin_says and l.startswith(plugin_says))]
    expect(not other, "the program's stderr changed: %r" % other)
    expect(not any("not a variable instr knows" in l for l in mine),
           "a plugin's own variable was taken for unknown: %r" % mine)
    if plugin_says:
        return mine, experiment(work), [l for l in err.splitlines() if l.startswith(plugin_says)]
    return mine, experiment(work)


def env_for(plugins, extra=None):
    env = {"INSTR_PLUGIN_PATH": A.test_plugins + ":" + A.plugins,
           "INSTR_SUBSTRATE_PLUGINS": plugins}
    env.update(extra or {})
    return env


def callcount(exp, name="callcount.txt"):
    """{scope: {(rank, location, thread, region): calls}} from callcount's file."""
    path = os.path.join(exp, name)
    expect(os.path.isfile(path), "no %s in %s: %r" % (name, exp, os.listdir(exp)))
    rows = collections.defaultdict(dict)
    lines = open(path).read().splitlines()
    expect(lines and lines[0] == "scope\trank\tlocation\tthread\tcalls\tregion",
           "header %r" % lines[:1])
    for l in lines[1:]:
        scope, rank, loc, thread, calls, region = l.split("\t", 5)
        key = (rank, loc, thread, region)
        expect(key not in rows[scope], "row twice: %r" % l)
        rows[scope][key] = int(calls)
    return rows


def per_location(rows):
    """{location: {region: calls}}."""
    out = collections.defaultdict(dict)
    for (rank, loc, thread, region), n in rows["location"].items():
        out[int(loc)][region] = n
    return out


def totals(rows, scope):
    return {k[3]: n for k, n in rows[scope].items()}


def line(mine, *parts):
    found = [l for l in mine if all(p in l for p in parts)]
    expect(len(found) == 1, "expected one line with %r, got:\n%s" % (parts, "\n".join(mine)))
    return found[0]


def probe(exp):
    text = open(os.path.join(exp, "probe.txt")).read()
    out = {"region": []}
    for l in text.splitlines():
        if l.startswith("region\t"):
            out["region"].append(l.split("\t")[1:])
            continue
        if l.startswith("mpi\t"):
            out.setdefault("mpi", []).append(l[4:])
            continue
        k, _, v = l.partition(" ")
        out[k] = v
    return out


def profile_visits(exp):
    """{(location, region name): visits} from profile.json."""
    prof = P.load(exp)
    names = {r["id"]: r["name"] for r in prof["regions"]}
    v = collections.Counter()
    for n in prof["tree"]:
        for l in n["locations"]:
            v[(l["location"], names[n["region"]])] += l["visits"]
    return v


def case_plain():
    mine, exp = run("calls", env_for("callcount"), want_out="sink=6\n")
    rows = callcount(exp)
    locs = per_location(rows)
    expect(locs == {0: {"main": 1, "a": 3, "b": 6}}, "per location %r" % dict(locs))
    expect(totals(rows, "process") == {"main": 1, "a": 3, "b": 6}, "process %r" % rows)
    expect(totals(rows, "job") == {"main": 1, "a": 3, "b": 6}, "job %r" % rows)
    line(mine, "callcount's results written to")
    # The exact counts agree with the profile's visits.
    for (loc, region), n in profile_visits(exp).items():
        expect(locs[loc].get(region) == n, "%s on %d: profile %d, callcount %r"
               % (region, loc, n, locs[loc].get(region)))


def case_threads():
    mine, exp = run([os.path.join(A.bin, "substrate_calls"), 4], env_for("callcount"),
                    want_out="sink=30\n")
    rows = callcount(exp)
    locs = per_location(rows)
    expect(len(locs) == 5, "locations %r" % dict(locs))
    expect(locs[0] == {"main": 1, "a": 3, "b": 6}, "main thread %r" % locs[0])
    for l in range(1, 5):
        expect(locs[l] == {"worker": 1, "a": 3, "b": 6}, "thread %d: %r" % (l, locs[l]))
    threads = {k[2] for k in rows["location"]}
    expect(len(threads) == 5, "OS thread ids %r" % threads)
    expect(totals(rows, "job") == {"main": 1, "worker": 4, "a": 15, "b": 30}, "%r" % rows["job"])


def case_config():
    """The plugin reads its own INSTR_CALLCOUNT_FILE (not warned about as unknown); a bad
    value makes it fail to initialise: said once, the run goes on."""
    mine, exp = run("calls", env_for("callcount", {"INSTR_CALLCOUNT_FILE": "counts.tsv"}))
    expect(per_location(callcount(exp, "counts.tsv"))[0]["b"] == 6, "counts.tsv")
    mine, exp, said = run("calls", env_for("callcount", {"INSTR_CALLCOUNT_FILE": "../x"}),
                          "bad", plugin_says="callcount: ")
    expect(len(said) == 1 and "INSTR_CALLCOUNT_FILE=../x is not a file name" in said[0],
           "the plugin's own message %r" % said)
    line(mine, "INSTR_SUBSTRATE_PLUGINS=callcount", "failed to initialise")
    expect(not os.path.exists(os.path.join(exp, "callcount.txt")), "written anyway")
    expect(os.path.isfile(os.path.join(exp, "profile.json")), "the profile is still written")


def case_several():
    """callcount and probe at once, with the profile and the trace: each plugin keeps its own
    per-location data, the management events come in order, counts agree with the profile."""
    env = env_for("probe,callcount", {"INSTR_ENABLE_TRACING": "1", "INSTR_PROBE_WORD": "w1"})
    mine, exp = run([os.path.join(A.bin, "substrate_calls"), 3], env)
    expect(os.path.isfile(os.path.join(exp, "traces.otf2")), "no trace: %r" % os.listdir(exp))
    rows = callcount(exp)
    locs = per_location(rows)
    for (loc, region), n in profile_visits(exp).items():
        expect(locs[loc].get(region) == n, "%s on %d: profile %d, callcount %r"
               % (region, loc, n, locs[loc].get(region)))
    pr = probe(exp)
    expect(pr["config"] == "w1" and pr["id"] == "0", "probe config/id %r" % pr)
    expect(pr["slot_errors"] == "0" and pr["depth_errors"] == "0", "probe slots %r" % pr)
    calls = sum(sum(r.values()) for r in locs.values())
    expect(pr["events"] == "%d %d" % (calls, calls), "probe events %r, %d calls"
           % (pr["events"], calls))
    order = pr["order"].split(" ")
    expect(order[0] == "initialize" and order[-2:] == ["pre_unify", "write_data"],
           "order %r" % order)
    for l in range(4):
        seq = [e.split(":")[0] for e in order if e.endswith(":%d" % l)]
        expect(seq == ["create", "activate", "deactivate", "delete"],
               "location %d: %r" % (l, seq))
    names = {r[0]: r for r in pr["region"]}
    expect(set(names) == {"main", "a", "b", "worker"}, "regions defined %r" % sorted(names))
    # -finstrument-functions regions come from ELF symbols: no file or lines, kind function.
    expect(all(r[4] == "0" for r in names.values()), "kinds %r" % names)
    expect(pr["metrics"] == "0 0 metric_values 0", "metrics %r" % pr["metrics"])
    expect(pr["clock"] == "1" and pr["comm"] == "0 1 1", "clock/comm %r" % pr)
    expect(pr["types"] == "4 0 def_locations 4", "location types %r" % pr["types"])
    expect(pr["async"] == "0 sorted=1", "asynchronous values %r" % pr["async"])


CURSOR = "events: the profile's cursor path with "
ALONE = "events: substrate plugins alone, called directly"


def case_several_cursor():
    """callcount and probe at once with the profile alone (no trace): the profile's cursor path
    calls the plugins' list itself (docs/performance.md, "Substrate plugins"); the plugins see
    exactly what they see on the generic path (with the trace)."""
    seen = {}
    for name, extra in (("cursor", {}), ("generic", {"INSTR_ENABLE_TRACING": "1"})):
        env = env_for("probe,callcount", dict(extra, INSTR_VERBOSE="1"))
        mine, exp = run([os.path.join(A.bin, "substrate_calls"), 3], env, name)
        on_cursor = any(l.startswith("instr: " + CURSOR + "substrate plugins") for l in mine)
        expect(on_cursor == (name == "cursor"), "%s: the path said %r" % (name, mine))
        rows = callcount(exp)
        locs = per_location(rows)
        for (loc, region), n in profile_visits(exp).items():
            expect(locs[loc].get(region) == n, "%s: %s on %d: profile %d, callcount %r"
                   % (name, region, loc, n, locs[loc].get(region)))
        pr = probe(exp)
        calls = sum(sum(r.values()) for r in locs.values())
        expect(pr["events"] == "%d %d" % (calls, calls), "%s: probe events %r, %d calls"
               % (name, pr["events"], calls))
        expect(pr["slot_errors"] == "0" and pr["depth_errors"] == "0", "%s: probe %r"
               % (name, pr))
        seen[name] = (dict(locs), pr["events"])
    expect(seen["cursor"] == seen["generic"], "cursor path %r, generic path %r"
           % (seen["cursor"], seen["generic"]))


def case_jumps():
    """longjmp out of instrumented frames, a signal handler's instrumented calls and exit()
    deep in a stack: the plugins get balanced enters and exits, the same on the profile's
    cursor path (one plugin, then two), with the plugins alone (called directly by the
    adapters' slow paths) and on the generic path (profile and trace)."""
    want = {"main": 1, "outer": 3, "middle": 3, "inner": 3, "a": 1, "on_usr1": 2,
            "handler_work": 2, "deep1": 1, "deep2": 1, "deep3": 1}
    calls = sum(want.values())
    modes = [("cursor", "callcount", {}), ("cursor2", "probe,callcount", {}),
             ("profile_off", "probe,callcount", {"INSTR_ENABLE_PROFILING": "0"}),
             ("generic", "probe,callcount", {"INSTR_ENABLE_TRACING": "1"})]
    for name, plugins, extra in modes:
        mine, exp = run("jumps", env_for(plugins, dict(extra, INSTR_VERBOSE="1")), name,
                        want_out="sink=8\n")
        on_cursor = any(l.startswith("instr: " + CURSOR) for l in mine)
        expect(on_cursor == name.startswith("cursor"), "%s: the path said %r" % (name, mine))
        alone = any(l.startswith("instr: " + ALONE) for l in mine)
        expect(alone == (name == "profile_off"), "%s: the path said %r" % (name, mine))
        locs = per_location(callcount(exp))
        expect(locs == {0: want}, "%s: counts %r" % (name, dict(locs)))
        if "probe" in plugins:
            pr = probe(exp)
            expect(pr["events"] == "%d %d" % (calls, calls), "%s: probe events %r, %d calls"
                   % (name, pr["events"], calls))
            expect(pr["depth_errors"] == "0", "%s: probe %r" % (name, pr))


def reent_counts(exp, name):
    """({region: enters}, {region: exits}, nested, raised) from the reentrant double's file."""
    path = os.path.join(exp, name + ".txt")
    expect(os.path.isfile(path), "no %s.txt in %s: %r" % (name, exp, os.listdir(exp)))
    enters, exits, other = {}, {}, {}
    for l in open(path).read().splitlines():
        kind, _, rest = l.partition(" ")
        if kind in ("enter", "exit"):
            region, _, n = rest.rpartition(" ")
            (enters if kind == "enter" else exits)[region] = int(n)
        else:
            other[kind] = int(rest)
    return enters, exits, other.get("nested"), other.get("raised")


def case_reentrant():
    """A plugin declared reentrant (INSTR_SUBSTRATE_PLUGIN_REENTRANT, docs/plugins.md) is called
    last on the profile's cursor path (one plugin, then two: the list) and with the plugins
    alone: a signal handler that arrives while it runs (the double raises SIGUSR1 inside its
    enter of middle, 3 times, and its exit of a, once) has its events recorded, by the plugin
    (called again inside its own call) and by the profile. On the generic path (with the
    trace), for a version 1 plugin (whose flags are not read) and next to a plugin that is not
    reentrant (callcount), the handler's events are kept away from the running plugin: dropped
    and counted. The program's own 2 signals (raised by a(), not by the plugin) are recorded
    everywhere; longjmp and exit() deep in a stack leave the counts balanced."""
    want = {"main": 1, "outer": 3, "middle": 3, "inner": 3, "a": 1, "on_usr1": 2,
            "handler_work": 2, "deep1": 1, "deep2": 1, "deep3": 1}
    inside = 4  # signals the double raises inside its own calls
    # name, plugins, settings, of the signals inside the plugin those whose handler's events
    # are recorded. Alone: not the first, in middle's first enter, which is the generic path's
    # (the adapter's table does not know the function before its first event).
    modes = [("cursor", "reent", {}, inside),
             ("cursor2", "reent,reent2", {}, inside),
             ("alone", "reent", {"INSTR_ENABLE_PROFILING": "0"}, inside - 1),
             ("generic", "reent", {"INSTR_ENABLE_TRACING": "1"}, 0),
             ("version1", "reent_protected", {}, 0),
             ("mixed", "reent,callcount", {}, 0)]
    # With a strictly synchronous metric: the cursor path with metrics and plugins.
    if A.metric_plugins and os.path.isfile(os.path.join(A.metric_plugins,
                                                        "libinstr_metric_count.so")):
        modes.append(("metrics", "reent", {
            "INSTR_METRIC_PLUGINS": "count", "INSTR_METRIC_COUNT": "events",
            "INSTR_PLUGIN_PATH": A.test_plugins + ":" + A.metric_plugins}, inside))
    for name, plugins, extra, recorded in modes:
        first = plugins.split(",")[0]  # the one that raises the signals
        var = "INSTR_%s_RAISE_" % first.upper()
        env = env_for(plugins, dict(extra, INSTR_VERBOSE="1",
                                    **{var + "ENTER": "middle", var + "EXIT": "a"}))
        mine, exp = run("jumps", env, name, want_out="sink=12\n")  # 8 + the 4 signals
        reent_path = any(l.startswith("instr: " + CURSOR) and l.endswith("(reentrant)")
                         for l in mine)
        expect(reent_path == (recorded > 0 and name != "alone"), "%s: the path said %r"
               % (name, mine))
        exp_counts = dict(want)
        exp_counts["on_usr1"] += recorded
        exp_counts["handler_work"] += recorded
        for plugin in plugins.split(","):
            if plugin == "callcount":
                got = {r: n for (r, n) in per_location(callcount(exp))[0].items()}
                expect(got == exp_counts, "%s: callcount %r, expected %r" % (name, got, exp_counts))
                continue
            enters, exits, nested, raised = reent_counts(exp, plugin)
            expect(enters == exp_counts, "%s: %s's enters %r, expected %r"
                   % (name, plugin, enters, exp_counts))
            expect(exits == exp_counts, "%s: %s's exits %r, expected %r"
                   % (name, plugin, exits, exp_counts))
            if plugin == first:
                # Each signal inside a call: the handler's 2 enters and 2 exits, nested.
                expect(raised == inside and nested == 4 * recorded,
                       "%s: %s raised %r, nested calls %r" % (name, plugin, raised, nested))
        if name != "alone":
            visits = {r: n for (loc, r), n in profile_visits(exp).items()}
            expect(visits == exp_counts, "%s: the profile's visits %r, expected %r"
                   % (name, visits, exp_counts))
            dropped = P.load(exp)["run"]["events_dropped_in_handlers"]
            expect((dropped > 0) == (recorded < inside), "%s: %d events dropped in handlers"
                   % (name, dropped))


def case_metrics():
    """With a strictly synchronous metric on, enter and exit carry its values: on the
    profile's cursor path with metrics and plugins, and on the generic path (with the
    trace)."""
    for name, extra in (("cursor", {}), ("generic", {"INSTR_ENABLE_TRACING": "1"})):
        env = env_for("probe", dict(extra, INSTR_METRIC_PLUGINS="count",
                                    INSTR_METRIC_COUNT="events", INSTR_VERBOSE="1",
                                    INSTR_PLUGIN_PATH=A.test_plugins + ":" + A.metric_plugins))
        mine, exp = run("calls", env, name)
        on_cursor = any(l.startswith("instr: " + CURSOR + "metrics and substrate plugins")
                        for l in mine)
        expect(on_cursor == (name == "cursor"), "%s: the path said %r" % (name, mine))
        pr = probe(exp)
        expect(pr["metrics"] == "1 1 metric_values 10", "%s: metrics %r" % (name, pr["metrics"]))


def case_async_metrics():
    """An asynchronous metric plugin (meminfo): its values reach the plugin at the end, in time
    order, at least the two the plugin takes at the start and the end, for each metric."""
    env = env_for("probe", {"INSTR_METRIC_PLUGINS": "meminfo",
                            "INSTR_METRIC_MEMINFO": "MemFree,MemAvail*",
                            "INSTR_PLUGIN_PATH": A.test_plugins + ":" + A.metric_plugins})
    mine, exp = run("calls", env)
    words = probe(exp)["async"].split(" ")
    per = dict(w.split("=") for w in words[2:])
    expect(words[1] == "sorted=1" and set(per) == {"MemFree", "MemAvailable"} and
           int(per["MemFree"]) >= 2 and per["MemFree"] == per["MemAvailable"] and
           int(words[0]) == 2 * int(per["MemFree"]), "asynchronous values %r" % words)


def case_doc_example():
    """The complete example of docs/plugins.md builds against the installed header layout and
    does what the page says: the enters of each thread, printed when the thread ends."""
    doc = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs",
                       "plugins.md")
    blocks = re.findall(r"```c\n(.*?)```", open(doc).read(), re.S)
    expect(len(blocks) == 1, "%d C blocks in docs/plugins.md" % len(blocks))
    work = fresh_dir(os.path.join(A.work, A.case, "build"))
    src = os.path.join(work, "enters.c")
    with open(src, "w") as f:
        f.write(blocks[0])
    b = subprocess.run([A.cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-O2", "-fPIC",
                        "-shared", "-I" + A.include, src, "-o",
                        os.path.join(work, "libinstr_substrate_enters.so")],
                       capture_output=True, timeout=120)
    expect(b.returncode == 0, "the example does not build: %s" % b.stderr.decode(errors="replace"))
    env = {"INSTR_PLUGIN_PATH": work, "INSTR_SUBSTRATE_PLUGINS": "enters"}
    mine, exp, said = run([os.path.join(A.bin, "substrate_calls"), 2], env,
                          plugin_says="enters: ")
    said.sort()
    expect(said == ["enters: thread 0: 10", "enters: thread 1: 10", "enters: thread 2: 10"],
           "the example printed %r" % said)


def per_call(env):
    """callgrind's instructions per call of bench/callheavy.c (inside main, at 100,000 and
    200,000 calls, subtracted; 1.1 calls per iteration with the warm-up)."""
    exe = os.path.join(A.bin, "substrate_callheavy")
    work = fresh_dir(os.path.join(A.work, A.case, "cg"))
    counts = []
    for n in (100000, 200000):
        out = os.path.join(work, "cg.out")
        p = subprocess.run(["valgrind", "--tool=callgrind", "--toggle-collect=main",
                            "--callgrind-out-file=" + out, exe, str(n)], cwd=work,
                           env=clean_env(dict(env, INSTR_VERBOSE="quiet")), capture_output=True,
                           timeout=200)
        m = re.search(r"Collected : (\d+)", p.stderr.decode())
        expect(p.returncode == 0 and m, "callgrind: %s" % p.stderr.decode()[-500:])
        counts.append(int(m.group(1)))
    return (counts[1] - counts[0]) / 110000


def case_no_cost():
    """A plugin that registers for no application event leaves the events' path as it is:
    the same instructions per call as without any plugin (profile, and trace)."""
    if not shutil.which("valgrind"):
        print("SKIP: valgrind is not installed; the cost is not measured")
        sys.exit(77)
    quiet = {"INSTR_PLUGIN_PATH": A.test_plugins, "INSTR_SUBSTRATE_PLUGINS": "quiet"}
    for mode in ({}, {"INSTR_ENABLE_PROFILING": "0", "INSTR_ENABLE_TRACING": "1"}):
        without = per_call(mode)
        with_plugin = per_call(dict(mode, **quiet))
        expect(round(with_plugin, 1) == round(without, 1),
               "%r: %.1f instructions per call with a plugin without events, %.1f without"
               % (mode, with_plugin, without))
        print("%r: %.1f instructions per call, with and without" % (mode, without))


def case_profile_off():
    """A plugin alone (INSTR_ENABLE_PROFILING=0): the events still reach it."""
    mine, exp = run("calls", env_for("callcount", {"INSTR_ENABLE_PROFILING": "0"}))
    expect(per_location(callcount(exp))[0] == {"main": 1, "a": 3, "b": 6}, "counts")
    expect(not os.path.exists(os.path.join(exp, "profile.json")), "a profile anyway")


def case_bad_plugins():
    env = env_for("nosuch,bad_no_entry, bad_version,bad_init,../x,callcount")
    mine, exp = run("calls", env, want_out="sink=6\n")
    line(mine, "INSTR_SUBSTRATE_PLUGINS=nosuch", "libinstr_substrate_nosuch.so was not found",
         "INSTR_PLUGIN_PATH")
    line(mine, "INSTR_SUBSTRATE_PLUGINS=bad_no_entry", "no entry point",
         "instr_substrate_plugin_get_info")
    line(mine, "INSTR_SUBSTRATE_PLUGINS=bad_version", "version 99", "versions 1 to 4")
    line(mine, "INSTR_SUBSTRATE_PLUGINS=bad_init", "failed to initialise", "-7")
    line(mine, "INSTR_SUBSTRATE_PLUGINS", "'../x'", "not a plugin name")
    expect(len(mine) == 6, "one line each and the summary:\n%s" % "\n".join(mine))
    expect(per_location(callcount(exp))[0] == {"main": 1, "a": 3, "b": 6}, "callcount")


def case_none_loaded():
    """No plugin loads: the substrate is not active (events keep their inline path)."""
    mine, exp = run("calls", env_for("nosuch", {"INSTR_VERBOSE": "1"}))
    expect(not any("substrate plugins: on" in l for l in mine), "plugins substrate on: %r" % mine)
    expect(any("substrate profile: on" in l for l in mine), "profile on: %r" % mine)
    mine, exp = run("calls", env_for("callcount", {"INSTR_VERBOSE": "1"}), "loaded")
    line(mine, "substrate plugins: on")


def case_openmp():
    """OpenMP (libomp through clang): each of the 3 threads calls work() exactly 10 times."""
    work = fresh_dir(os.path.join(A.work, A.case, "build"))
    exe = os.path.join(work, "omp_calls")
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "progs", "omp_calls.c")
    b = subprocess.run([A.instr, A.clang, "-fopenmp", "-O1", src, "-o", exe],
                       capture_output=True, timeout=120)
    expect(b.returncode == 0, "instr clang -fopenmp: %s" % b.stderr.decode(errors="replace"))
    mine, exp = run([exe], env_for("callcount,probe"), want_out="sink=448\n")
    locs = per_location(callcount(exp))
    work_calls = sorted(r.get("work", 0) for r in locs.values())
    expect(work_calls.count(10) == 3 and sum(work_calls) == 30,
           "work() per location %r" % dict(locs))
    expect(sum(r.get("task_work", 0) for r in locs.values()) == 4, "task_work %r" % dict(locs))
    pr = probe(exp)
    expect(pr["slot_errors"] == "0" and pr["depth_errors"] == "0", "probe %r" % pr)
    omp = dict(kv.split("=") for kv in pr["omp"].split(" "))
    nloc = len(locs)
    want = {"fork": "1/3", "join": "1", "create": "4", "switch": "4", "complete": "4",
            "same_tasks": "1", "acquire": "3", "release": "3",
            "threads": "%d/%d" % (nloc, nloc)}
    expect(omp == want, "OpenMP events %r, expected %r" % (omp, want))
    expect(pr["types"] == "1 %d def_locations %d" % (nloc - 1, nloc),
           "location types %r (%d locations)" % (pr["types"], nloc))
    kinds = {r[0]: r[4] for r in pr["region"]}
    expect(kinds.get("main") == "0" and "3" in kinds.values(),
           "an OpenMP construct among the regions: %r" % kinds)


def dot_edges(exp, name="eventflow.dot"):
    """{cluster label: {(from label, to label): edge label}} from eventflow's DOT file."""
    text = open(os.path.join(exp, name)).read()
    expect(text.startswith("digraph eventflow {") and text.rstrip().endswith("}"), text)
    graphs = {}
    for m in re.finditer(r'subgraph cluster_\d+ \{\n    label="([^"]*)";\n(.*?)\n  \}', text,
                         re.S):
        body = m.group(2)
        nodes = dict(re.findall(r'^    (l\d+n\d+) \[label="([^"]*)"\];$', body, re.M))
        edges = {}
        for a, b, label in re.findall(r'^    (l\d+n\d+) -> (l\d+n\d+) \[label="([^"]*)"\];$',
                                      body, re.M):
            key = (nodes[a], nodes[b])
            expect(key not in edges, "edge twice: %r" % (key,))
            edges[key] = label
        graphs[m.group(1)] = edges
    return graphs


def case_eventflow():
    """The event flow graph of flow.c's known sequence, with the iteration notation (the
    traversals of each call stack at which each transition is taken) and with counts."""
    mine, exp = run("flow", env_for("eventflow"), want_out="sink=8\n")
    graphs = dot_edges(exp)
    expect(list(graphs) == ["rank 0 thread 0"], "clusters %r" % list(graphs))
    want = {
        ("thread 0", "main"): "1",
        ("main", "a"): "1,2,1,3,2",   # main's traversals 1, 2 and 4, 5: twice a run of 2
        ("main", "b"): "3,6,3",
        ("main", "thread 0"): "7",
        ("a", "leaf"): "1,7,2",
        ("a", "main"): "2,8,2",
        ("leaf", "a"): "1,4,1",
        ("b", "main"): "1,2,1",
    }
    expect(graphs["rank 0 thread 0"] == want, "edges %r" % graphs["rank 0 thread 0"])
    mine, exp = run("flow", env_for("eventflow", {"INSTR_EVENTFLOW_LABELS": "counts"}),
                    "counts")
    counts = dot_edges(exp)["rank 0 thread 0"]
    expect(counts == {("thread 0", "main"): "1x", ("main", "a"): "4x", ("main", "b"): "2x",
                      ("main", "thread 0"): "1x", ("a", "leaf"): "4x", ("a", "main"): "4x",
                      ("leaf", "a"): "4x", ("b", "main"): "2x"}, "counts %r" % counts)
    # Threads: one cluster each, next to callcount.
    mine, exp = run([os.path.join(A.bin, "substrate_calls"), 2], env_for("eventflow,callcount"),
                    "threads")
    graphs = dot_edges(exp)
    expect(sorted(graphs) == ["rank 0 thread 0", "rank 0 thread 1", "rank 0 thread 2"],
           "clusters %r" % sorted(graphs))
    expect(graphs["rank 0 thread 1"] == {
        ("thread 1", "worker"): "1", ("worker", "a"): "1,3,1", ("a", "b"): "1,2,1,3,3",
        ("b", "a"): "1,6,1", ("a", "worker"): "3,9,3", ("worker", "thread 1"): "4"},
        "worker's graph %r" % graphs["rank 0 thread 1"])
    expect(per_location(callcount(exp))[1] == {"worker": 1, "a": 3, "b": 6}, "callcount")


def build_mpi_program(name):
    """progs/<name>.c built with `instr mpicc -O1` in the case's build directory; its path."""
    work = fresh_dir(os.path.join(A.work, A.case, "build"))
    exe = os.path.join(work, name)
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "progs", name + ".c")
    b = subprocess.run([A.instr, A.mpicc, "-O1", src, "-o", exe], capture_output=True,
                       timeout=120)
    expect(b.returncode == 0, "instr mpicc: %s" % b.stderr.decode(errors="replace"))
    return exe


def run_mpi_job(exe, env):
    """exe on 4 oversubscribed ranks with env (exported to every rank), in a fresh run
    directory; (the completed process, the run directory)."""
    cmd = [A.mpirun, "--oversubscribe", "--allow-run-as-root", "-np", "4"]
    for k in env:
        cmd += ["-x", k]
    run_dir = fresh_dir(os.path.join(A.work, A.case, "run"))
    p = subprocess.run(cmd + [exe], cwd=run_dir, env=clean_env(env), capture_output=True,
                       timeout=240)
    return p, run_dir


def case_mpi():
    """4 ranks: callcount's per-location counts in every rank's directory, the job's sums on
    rank 0 through the communication callbacks; the probe's reduce over the job."""
    exe = build_mpi_program("mpi_calls")
    env = env_for("callcount,probe,eventflow")
    p, run_dir = run_mpi_job(exe, env)
    expect(p.returncode == 0, "mpirun: %s" % p.stderr.decode(errors="replace")[-2000:])
    # sink per rank: 6 + 2 (rank + 1); over 4 ranks 24 + 20.
    expect(p.stdout.decode() == "sum=44\n", "stdout %r" % p.stdout.decode())
    job = experiment(run_dir)
    want_c = {}
    for r in range(4):
        rows = callcount(os.path.join(job, "rank-%d" % r))
        locs = per_location(rows)
        expect(list(locs) == [0], "rank %d locations %r" % (r, dict(locs)))
        got = {k: v for k, v in locs[0].items() if not k.startswith("MPI_")}
        expect(got == {"main": 1, "a": 3, "b": 6, "c": r + 1}, "rank %d: %r" % (r, got))
        expect(locs[0].get("MPI_Allreduce") == 1 and locs[0].get("MPI_Sendrecv") == 1,
               "rank %d MPI calls %r" % (r, locs[0]))
        expect(all(k[0] == str(r) for k in rows["location"]), "rank column %r" % rows)
        expect(("job" in rows) == (r == 0), "job rows on rank %d: %r" % (r, rows.get("job")))
        pr = probe(os.path.join(job, "rank-%d" % r))
        expect(pr["comm"] == ("0 4 10" if r == 0 else "%d 4 0" % r), "probe comm %r" % pr["comm"])
        order = pr["order"].split(" ")
        expect(order[:2] == ["initialize", "init_mpp"] or
               (order[0] == "initialize" and "init_mpp" in order), "order %r" % order)
        # MPI events: Sendrecv (4 bytes, tag 5), Isend/Irecv (8 bytes, tag 6) completed in
        # Waitall, Allreduce (op 11, no root), Barrier (op 0), all on MPI_COMM_WORLD.
        right, left = (r + 1) % 4, (r + 3) % 4
        world = pr["mpi"][0].split(" ")[4]
        # The non-blocking ones by request: the Irecv's is 1, the Isend's 2; Waitall completes
        # them in the order of its array (the receive first).
        want = ["send %d 5 4 %s" % (right, world), "recv %d 5 4 %s" % (left, world),
                "irecv_request 1", "isend %d 6 8 %s" % (right, world), "  request 2",
                "irecv %d 6 8 %s" % (left, world), "  request 1", "isend_complete 2",
                "coll_begin", "coll_end 11 -1 %s" % world,
                "coll_begin", "coll_end 0 -1 %s" % world]
        expect(pr["mpi"] == want, "rank %d MPI events %r, expected %r" % (r, pr["mpi"], want))
        want_c[r] = r + 1
        # eventflow's cluster names the rank (read at the end, after MPI_Init).
        g = dot_edges(os.path.join(job, "rank-%d" % r))
        expect(list(g) == ["rank %d thread 0" % r], "rank %d clusters %r" % (r, list(g)))
        e = g["rank %d thread 0" % r]
        expect(e.get(("a", "b")) == "1,2,1,3,3" and e.get(("b", "a")) == "1,6,1" and
               e.get(("c", "main")) == ("1" if r == 0 else "1,%d,1" % (r + 1)),
               "rank %d edges %r" % (r, e))
    jobrows = totals(callcount(os.path.join(job, "rank-0")), "job")
    got = {k: v for k, v in jobrows.items() if not k.startswith("MPI_")}
    expect(got == {"main": 4, "a": 12, "b": 24, "c": 10}, "job %r" % jobrows)
    expect(jobrows.get("MPI_Allreduce") == 4 and jobrows.get("MPI_Init") == 4,
           "job MPI rows %r" % jobrows)


def trace_coll_ends(out):
    """otf2-print's collective ends (blocking and non-blocking), in each rank's order:
    {rank: [(operation, communicator's name, root, sent, received)]}."""
    names = dict(re.findall(r'^(?:INTER_)?COMM\s+(\d+)\s+[Nn]ame: "([^"]*)"', out, re.M))
    ends = collections.defaultdict(list)
    for m in re.finditer(r"^(?:MPI_COLLECTIVE_END|NON_BLOCKING_COLLECTIVE_COMPLETE)\s+(\d+)\s+"
                         r"\d+\s+Operation: (\w+), Communicator: (?:\"[^\"]*\" )?<(\d+)>, "
                         r"Root: (\w+)(?: \([^)]*\))?, Sent: (\d+), Received: (\d+)", out, re.M):
        ends[int(m.group(1)) >> 32].append((m.group(2), names.get(m.group(3), m.group(3)),
                                            m.group(4), int(m.group(5)), int(m.group(6))))
    return dict(ends)


def job_probes(p, run_dir):
    """A 4-rank probe job's experiment directory and each rank's mpiprobe.txt lines, once
    mpirun p ended well and the program printed "ok" and nothing "wrong"."""
    err = p.stderr.decode(errors="replace")
    expect(p.returncode == 0, "mpirun: %s" % err[-2000:])
    expect(p.stdout.decode() == "ok\n" and "wrong" not in err, "stdout %r %r" % (p.stdout, err))
    job = experiment(run_dir)
    probes = []
    for r in range(4):
        with open(os.path.join(job, "rank-%d" % r, "mpiprobe.txt")) as f:
            probes.append(f.read().splitlines())
    return job, probes


def world_defs(r, halves=True):
    """The definitions a 4-rank probe job starts with on rank r: the world, the rank's self
    and, with halves, its half of the world by MPI_Comm_split, whose making is a collective
    on the world (op 17, CREATE_HANDLE: version 4) after the new communicator's definition."""
    h = r % 2
    d = ["def group 0 0,1,2,3",
         "def comm 0 MPI_COMM_WORLD group=0 size=4 rank=%d leader=-1 seq=0" % r,
         "def group 1 %d" % r,
         "def comm 1 MPI_COMM_SELF group=1 size=1 rank=0 leader=-1 seq=1"]
    if halves:
        d += ["def group 2 %s" % ("0,2" if h == 0 else "1,3"),
              "def comm 2 MPI_Comm_split (comm %d.2, 2 ranks) group=2 size=2 rank=%d leader=%d "
              "seq=2" % (h, r // 2, h), "coll_end 17 0"]
    return d


def expect_probe(r, got, want):
    expect(got == want, "rank %d mpiprobe.txt:\n%s\nexpected:\n%s"
           % (r, "\n".join(got), "\n".join(want)))


def job_trace(job):
    """otf2-print -A -Werror's listing of the job's trace, which it must read without a
    warning."""
    t = subprocess.run(["otf2-print", "-A", "-Werror", os.path.join(job, "traces.otf2")],
                       capture_output=True, text=True)
    expect(t.returncode == 0 and "warning" not in t.stderr.lower(),
           "otf2-print: %d %s" % (t.returncode, t.stderr[-2000:]))
    return t.stdout


def expect_trace_colls(r, ends, want):
    expect(ends.get(r) == want, "rank %d trace's collectives:\n%s\nexpected:\n%s"
           % (r, "\n".join(map(str, ends.get(r, []))), "\n".join(map(str, want))))


def trace_groups(listing):
    """{group id: its members' world ranks} of an otf2-print listing."""
    return {int(m.group(1)): [int(x) for x in re.findall(r"(\d+) \(\"", m.group(2))]
            for m in re.finditer(r"^GROUP\s+(\d+)\s+Name: .*?Members?:?(.*)$", listing, re.M)}


def trace_intercomms(listing):
    """[(name, group A's members, group B's members)] of the listing's InterComm
    definitions, sorted."""
    groups = trace_groups(listing)
    inters = re.findall(r'^INTER_COMM\s+\d+\s+name: "([^"]*)" <\d+>, Group A: "[^"]*" <(\d+)>, '
                        r'Group B: "[^"]*" <(\d+)>', listing, re.M)
    return sorted((n, groups.get(int(a)), groups.get(int(b))) for n, a, b in inters)


def case_mpi_events():
    """4 ranks, interface version 3 (progs/mpi_events.c, the mpiprobe test double next to the
    version 2 probe): the MPI definitions (communicators, groups, a window) and the events of
    non-blocking collectives and persistent requests, exact per rank, communicators named by
    definition; the version 2 plugin loads and keeps Fortran handles; the job's trace (same
    run) reads with otf2-print -A -Werror and has the same operations per rank, and one RMA
    window definition per window (one per half, each with its half's communicator; two over
    the world), whose creation and MPI_Win_free are collectives on that communicator."""
    exe = build_mpi_program("mpi_events")
    # The window through Open MPI's point-to-point component: its shared-memory one (osc sm)
    # failed MPI_Win_create twice in a row in a full CI run (open(2) of its backing file in the
    # session directory: ENOENT), and never alone; what is checked is instr's events and
    # definitions of the window, the same with either component.
    env = env_for("mpiprobe,probe2", {"INSTR_ENABLE_TRACING": "1", "OMPI_MCA_osc": "pt2pt"})
    p, run_dir = run_mpi_job(exe, env)
    job, probes = job_probes(p, run_dir)
    for r, got in enumerate(probes):
        right, left, h = (r + 1) % 4, (r + 3) % 4, r % 2
        bcast_sent = 32 if r == 0 else 0
        # version 4: a communicator made, a collective (op 17, CREATE_HANDLE) on the one it
        # was made from, after the new one's definition
        want = world_defs(r) + [
            "def comm 3 MPI_Comm_dup (comm 0.3, 4 ranks) group=0 size=4 rank=%d leader=0 seq=3"
            % r, "coll_end 17 0",
            # MPI_Comm_idup: a non-blocking one (request 1), ended where MPI_Test completed it;
            # the leader of half 0 (world rank 0) made the dup before; half 1's did not
            "icoll_begin 17 2 -1 0 0 1",
            "def comm 4 MPI_Comm_idup (comm %d.%d, 2 ranks) group=2 size=2 rank=%d leader=%d "
            "seq=%d" % (h, 4 - h, r // 2, h, 4 - h),
            "icoll_end 17 2 -1 0 0 1",
            # op (OTF2's numbers) comm root sent received request
            "icoll_begin 0 0 -1 0 0 2", "icoll_end 0 0 -1 0 0 2",
            "icoll_begin 11 2 -1 8 8 3", "icoll_end 11 2 -1 8 8 3",
            "icoll_begin 1 3 0 %d 8 4" % bcast_sent, "icoll_end 1 3 0 %d 8 4" % bcast_sent,
            "pinit recv %d 0 7 16 5" % left, "pinit send %d 0 7 16 6" % right,
        ]
        for _ in range(3):
            want += ["pstart 5", "pstart 6", "pcomplete %d 0 7 16 5" % left,
                     "pcomplete %d 0 7 16 6" % right]
        want += ["pstart 5", "pstart 6", "pcomplete %d 0 7 16 5" % left,
                 "pcomplete %d 0 7 16 6" % right, "pfree 5", "pfree 6",
                 "coll_end 11 2 sent=8 recvd=8", "def window 0 MPI_Win_create comm=2",
                 # version 4: the window's creation and MPI_Win_free, collectives on the
                 # window's communicator (the half), after the window's definition
                 "coll_end 17 2", "coll_end 18 2",
                 # MPI_Win_allocate and MPI_Win_create_dynamic over the world, freed in
                 # reverse order
                 "def window 1 MPI_Win_allocate comm=0", "coll_end 17 0",
                 "def window 2 MPI_Win_create_dynamic comm=0", "coll_end 17 0",
                 "coll_end 18 0", "coll_end 18 0",
                 # MPI_Comm_free of the idup, the dup, the half: op 18, DESTROY_HANDLE
                 "coll_end 18 4", "coll_end 18 3", "coll_end 18 2", "bad_defs 0"]
        expect_probe(r, got, want)
        # The version 2 probe: loaded, the blocking collective only (not the version 4
        # collectives of communicator creation and MPI_Comm_free), its communicator by
        # Fortran handle (the program wrote MPI_Comm_c2f of its half into half-<rank>.txt).
        with open(os.path.join(run_dir, "half-%d.txt" % r)) as f:
            handle = int(f.read())
        pr = probe(os.path.join(job, "rank-%d" % r))
        ev = pr.get("mpi", [])
        expect(ev == ["coll_begin", "coll_end 11 -1 %d" % handle],
               "rank %d version 2 probe's MPI events %r (the half's handle %d)"
               % (r, ev, handle))
    listing = job_trace(job)
    counts = collections.Counter()
    for line in listing.splitlines():
        m = re.match(r"^(\w+)\s+(\d+)\s+\d+", line)
        if m and m.group(1).startswith(("MPI_", "NON_BLOCKING")):
            counts[(m.group(1), int(m.group(2)) >> 32)] += 1
    # the MPI_Comm_idup: a non-blocking collective; the split, the dup, the window's
    # three windows' creation and MPI_Win_free and the three MPI_Comm_free: blocking ones
    per_rank = {"MPI_ISEND": 4, "MPI_ISEND_COMPLETE": 4, "MPI_IRECV_REQUEST": 4, "MPI_IRECV": 4,
                "NON_BLOCKING_COLLECTIVE_REQUEST": 4, "NON_BLOCKING_COLLECTIVE_COMPLETE": 4,
                "MPI_COLLECTIVE_BEGIN": 12, "MPI_COLLECTIVE_END": 12}
    want_counts = {(k, r): v for k, v in per_rank.items() for r in range(4)}
    expect(dict(counts) == want_counts, "trace's MPI events per rank %r, expected %r"
           % (dict(counts), want_counts))
    ends = trace_coll_ends(listing)
    for r in range(4):
        half = "MPI_Comm_split (comm %d.2, 2 ranks)" % (r % 2)
        idup = "MPI_Comm_idup (comm %s, 2 ranks)" % ("0.4" if r % 2 == 0 else "1.3")
        want = [("CREATE_HANDLE", "MPI_COMM_WORLD", "NONE", 0, 0),
                ("CREATE_HANDLE", "MPI_COMM_WORLD", "NONE", 0, 0),
                ("CREATE_HANDLE", half, "NONE", 0, 0),
                ("BARRIER", "MPI_COMM_WORLD", "NONE", 0, 0),
                ("ALLREDUCE", half, "NONE", 8, 8),
                ("BCAST", "MPI_Comm_dup (comm 0.3, 4 ranks)", "0", 32 if r == 0 else 0, 8),
                ("ALLREDUCE", half, "NONE", 8, 8),
                ("CREATE_HANDLE", half, "NONE", 0, 0),  # MPI_Win_create over the half
                ("DESTROY_HANDLE", half, "NONE", 0, 0),  # MPI_Win_free
                # MPI_Win_allocate, MPI_Win_create_dynamic, both freed
                ("CREATE_HANDLE", "MPI_COMM_WORLD", "NONE", 0, 0),
                ("CREATE_HANDLE", "MPI_COMM_WORLD", "NONE", 0, 0),
                ("DESTROY_HANDLE", "MPI_COMM_WORLD", "NONE", 0, 0),
                ("DESTROY_HANDLE", "MPI_COMM_WORLD", "NONE", 0, 0),
                ("DESTROY_HANDLE", idup, "NONE", 0, 0),
                ("DESTROY_HANDLE", "MPI_Comm_dup (comm 0.3, 4 ranks)", "NONE", 0, 0),
                ("DESTROY_HANDLE", half, "NONE", 0, 0)]
        expect_trace_colls(r, ends, want)
    # Communicators with their parents: the one each was made from
    comms = re.findall(r'^COMM\s+\d+\s+Name: "([^"]*)" <\d+>, Group: "[^"]*" <\d+>, '
                       r'Parent: (?:"([^"]*)" <\d+>|UNDEFINED)', listing, re.M)
    expect(sorted(comms) == sorted([("MPI_COMM_WORLD", ""), ("MPI_COMM_SELF", ""),
                                    ("MPI_Comm_split (comm 0.2, 2 ranks)", "MPI_COMM_WORLD"),
                                    ("MPI_Comm_split (comm 1.2, 2 ranks)", "MPI_COMM_WORLD"),
                                    ("MPI_Comm_dup (comm 0.3, 4 ranks)", "MPI_COMM_WORLD"),
                                    ("MPI_Comm_idup (comm 0.4, 2 ranks)",
                                     "MPI_Comm_split (comm 0.2, 2 ranks)"),
                                    ("MPI_Comm_idup (comm 1.3, 2 ranks)",
                                     "MPI_Comm_split (comm 1.2, 2 ranks)")]),
           "trace's communicators and parents %r:\n%s" % (comms, "\n".join(
               l for l in listing.splitlines() if l.startswith("COMM"))))
    # The MPI trace's general checks (tests/mpi/check_trace.py) too: among them, collective
    # ends per operation as many as the calls (CREATE_HANDLE: of the communicators' and
    # windows' creation, DESTROY_HANDLE: of MPI_Comm_free and MPI_Win_free), the visits
    # taken from the job's profile; 4 starts of a persistent send per rank.
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "mpi"))
    import check_trace  # noqa: E402
    visits = P.visits_by_region(P.load(job))
    problems = check_trace.check(job, 4, visits, 16)
    expect(not problems, "check_trace.py: %s" % problems)
    wins = re.findall(r'^RMA_WIN\s+\d+\s+Name: "([^"]*)" <\d+>, Communicator: "([^"]*)" <\d+>',
                      listing, re.M)
    expect(sorted(wins) == [("MPI_Win_allocate (win 0.1, 4 ranks)", "MPI_COMM_WORLD"),
                            ("MPI_Win_create (win 0.0, 2 ranks)",
                             "MPI_Comm_split (comm 0.2, 2 ranks)"),
                            ("MPI_Win_create (win 1.0, 2 ranks)",
                             "MPI_Comm_split (comm 1.2, 2 ranks)"),
                            ("MPI_Win_create_dynamic (win 0.2, 4 ranks)", "MPI_COMM_WORLD")],
           "trace's RMA windows %r:\n%s" % (wins, "\n".join(
               l for l in listing.splitlines() if l.startswith("RMA_WIN"))))


def inter_colls(r):
    """progs/mpi_intercomm.c's rooted and all-to-all collectives on the inter-communicator
    at world rank r: [(op, the probe's root and sizes)]. Half 0's rank 0 (world rank 0) is
    the root (MPI_ROOT: ROOT_SELF, -2), its other rank passes MPI_PROC_NULL (ROOT_THIS_GROUP,
    -3), half 1 the root's rank 0; 1 int (4 bytes) per rank, 2 ranks per half: the root
    receives (Gather, Reduce) or sends (Scatter) one block per rank of the other half, each of
    those sends or receives one, MPI_PROC_NULL nothing; Allreduce, Allgather and Alltoall
    send and receive one block per rank of the other half."""
    h = r % 2
    root = {0: -2, 2: -3}.get(r, 0)

    def rooted(to_root):
        if root == -2:
            sent, recvd = (0, 8) if to_root else (8, 0)
        elif root == -3:
            sent, recvd = 0, 0
        else:
            sent, recvd = (4, 0) if to_root else (0, 4)
        return "root=%d sent=%d recvd=%d" % (root, sent, recvd)
    assert h in (0, 1)
    return [(2, rooted(True)), (4, rooted(False)), (12, rooted(True)),
            (11, "sent=8 recvd=8"), (6, "sent=8 recvd=8"), (8, "sent=8 recvd=8")]


def uneven_vw(r):
    """progs/mpi_intercomm.c's v and w collectives on the uneven inter-communicator at world
    rank r: [(op, root or None, sent, received)]. World rank 0 (group A, alone; MPI_ROOT of
    the rooted ones: ROOT_SELF, -2) against ranks 1 to 3 (group B; the root is rank 0 of the
    remote group); 4 bytes per int, k = 4 r the bytes of b + 1 ints at rank b + 1 of B. By the
    remote group's size: Gatherv's root receives 1 + 2 + 3 ints, Scatterv's sends them;
    Allgatherv sends the rank's block to each of the other group (world rank 0: 1 int to 3
    ranks); Alltoallv and Alltoallw the counts per remote rank; Reduce_scatter sends the
    rank's vector (3 ints) and receives its own block from each remote rank (world rank 0: 3
    ints from 3 ranks)."""
    if r == 0:
        return [(3, -2, 0, 24), (5, -2, 24, 0), (7, None, 12, 24), (9, None, 24, 12),
                (10, None, 24, 24), (13, None, 12, 36)]
    k = 4 * r
    return [(3, 0, k, 0), (5, 0, 0, k), (7, None, k, 4), (9, None, 4, k), (10, None, k, 8),
            (13, None, 12, 4)]


def uneven_lines(r):
    """The mpiprobe lines of progs/mpi_intercomm.c's uneven inter-communicator at world rank
    r: world rank 0 (group A; its group {0} is MPI_COMM_SELF's there) against ranks 1 to 3
    (their group {1,2,3} is new, group 5); rank 0 leads comm 0.10 and the inter-communicator
    0.11, rank 1 the three's comm 1.3. Allreduce, Allgather, Alltoall of 1 int (4 bytes) per
    rank of the other group: rank 0 sends and receives 3 blocks, the others 1."""
    if r == 0:
        lone = ["def comm 10 MPI_Comm_split (comm 0.10, 1 ranks) group=1 size=1 rank=0 leader=0 "
                "seq=10"]
        ic = ["def group 5 1,2,3",
              "def comm 11 MPI_Intercomm_create (intercomm 0.11, 1+3 ranks) group=1 size=1 "
              "rank=0 leader=0 seq=11 remote=5"]
        b = 12
    else:
        lone = ["def group 5 1,2,3",
                "def comm 10 MPI_Comm_split (comm 1.3, 3 ranks) group=5 size=3 rank=%d leader=1 "
                "seq=3" % (r - 1)]
        ic = ["def group 6 0",
              "def comm 11 MPI_Intercomm_create (intercomm 0.11, 1+3 ranks) group=5 size=3 "
              "rank=%d leader=0 seq=11 remote=6" % (r - 1)]
        b = 4
    return (lone + ["coll_end 17 0"] + ic + ["coll_end 17 10"] +
            ["coll_end %d 11 sent=%d recvd=%d" % (op, b, b) for op in (11, 6, 8)] +
            ["coll_end %d 11%s sent=%d recvd=%d" % (op, "" if root is None else
                                                    " root=%d" % root, sent, recvd)
             for op, root, sent, recvd in uneven_vw(r)] +
            ["coll_end 18 11", "coll_end 18 10"])


def case_mpi_intercomm():
    """4 ranks, interface version 3 (progs/mpi_intercomm.c, the mpiprobe test double):
    inter-communicators (MPI_Intercomm_create, and MPI_Comm_dup, _split, _create and _idup of
    one) defined by local and remote group, the same leader and counter on both sides;
    point-to-point partners as ranks in the remote group (MPI_Mrecv's and MPI_Imrecv's too,
    their communicator remembered from the matched probe), a broadcast's MPI_ROOT and
    MPI_PROC_NULL as ROOT_SELF and ROOT_THIS_GROUP; an MPI_Comm_idup whose MPI_Request_free
    MPI refused, defined by its wait; MPI_Intercomm_merge's intra-communicator; the v and w
    collectives' bytes on an inter-communicator of 1 + 3 ranks, by the remote group's size.
    The job's trace (same run) reads with otf2-print -A -Werror, has the same operations
    per rank, the inter-communicators as InterComm definitions of both halves, and its
    point-to-point records name the remote rank."""
    exe = build_mpi_program("mpi_intercomm")
    env = env_for("mpiprobe", {"INSTR_ENABLE_TRACING": "1"})
    p, run_dir = run_mpi_job(exe, env)
    job, probes = job_probes(p, run_dir)
    for r, got in enumerate(probes):
        h, l = r % 2, r // 2
        other = "1,3" if h == 0 else "0,2"

        def inter(comm, how):
            return ("def comm %d %s (intercomm 0.%d, 2+2 ranks) group=2 size=2 rank=%d "
                    "leader=0 seq=%d remote=3" % (comm, how, comm, l, comm))
        # half 0's rank 0 is the root (MPI_ROOT), its other rank passes MPI_PROC_NULL
        bcast = {0: "root=-2 sent=16 recvd=0", 2: "root=-3 sent=0 recvd=0"}.get(
            r, "root=0 sent=0 recvd=8")
        want = world_defs(r) + [
            "def group 3 %s" % other,
            # collective over the local communicator
            inter(3, "MPI_Intercomm_create"), "coll_end 17 2",
            # partners: ranks in the remote group (l: world rank r ^ 1)
            "send %d 3 3 8" % l, "recv %d 3 3 8" % l,
            "isend %d 3 4 4 2" % l, "irecv %d 3 4 4 1" % l,
            # MPI_Mrecv and MPI_Imrecv: the communicator remembered from the matched probe
            "send %d 3 6 4" % l, "recv %d 3 6 4" % l, "send %d 3 7 4" % l,
            "irecv %d 3 7 4 3" % l,
            "coll_end 0 3", "coll_end 1 3 %s" % bcast,
        ] + ["coll_end %d 3 %s" % (op, sizes) for op, sizes in inter_colls(r)] + [
            inter(4, "MPI_Comm_dup"), "coll_end 17 3", "coll_end 0 4",
            inter(5, "MPI_Comm_split"), "coll_end 17 3", "coll_end 0 5",
            inter(6, "MPI_Comm_create"), "coll_end 17 3", "coll_end 0 6",
            "icoll_begin 17 3 -1 0 0 4", inter(7, "MPI_Comm_idup"), "icoll_end 17 3 -1 0 0 4",
            "coll_end 0 7",
            # MPI_Request_free of an MPI_Comm_idup's request refused: its wait defines it
            "icoll_begin 17 3 -1 0 0 5", inter(8, "MPI_Comm_idup"), "icoll_end 17 3 -1 0 0 5",
            "coll_end 0 8",
            "def group 4 0,2,1,3",
            "def comm 9 MPI_Intercomm_merge (comm 0.9, 4 ranks) group=4 size=4 rank=%d "
            "leader=0 seq=9" % (h * 2 + l), "coll_end 17 3",
            "coll_end 11 9 sent=16 recvd=16",
        ] + uneven_lines(r) + ["coll_end 18 %d" % c for c in (9, 8, 7, 6, 5, 4, 3, 2)] + [
            "bad_defs 0"]
        expect_probe(r, got, want)
    listing = job_trace(job)
    open(os.path.join(run_dir, "otf2-print.txt"), "w").write(listing)
    counts = collections.Counter()
    for line in listing.splitlines():
        m = re.match(r"^(\w+)\s+(\d+)\s+\d+", line)
        if m and m.group(1).startswith(("MPI_", "NON_BLOCKING")):
            counts[(m.group(1), int(m.group(2)) >> 32)] += 1
    # barriers on inter, dup, split, create and the two idups; the broadcast; the six rooted
    # and all-to-all ones on inter; the merged one's allreduce; the split, the
    # MPI_Intercomm_create, dup, split, create and merge of inter (CREATE_HANDLE) and the
    # eight MPI_Comm_free (DESTROY_HANDLE); the two idups non-blocking (CREATE_HANDLE); the
    # uneven inter-communicator: 2 made, 3 + 6 collectives, 2 freed
    per_rank = {"MPI_SEND": 3, "MPI_RECV": 2, "MPI_ISEND": 1, "MPI_ISEND_COMPLETE": 1,
                "MPI_IRECV_REQUEST": 2, "MPI_IRECV": 2, "MPI_COLLECTIVE_BEGIN": 41,
                "MPI_COLLECTIVE_END": 41, "NON_BLOCKING_COLLECTIVE_REQUEST": 2,
                "NON_BLOCKING_COLLECTIVE_COMPLETE": 2}
    want_counts = {(k, r): v for k, v in per_rank.items() for r in range(4)}
    expect(dict(counts) == want_counts, "trace's MPI events per rank %r, expected %r"
           % (dict(counts), want_counts))
    # The collectives in order: operation, communicator, root, bytes as the plugin had them.
    ends = trace_coll_ends(listing)
    ops = {0: "BARRIER", 1: "BCAST", 2: "GATHER", 3: "GATHERV", 4: "SCATTER", 5: "SCATTERV",
           6: "ALLGATHER", 7: "ALLGATHERV", 8: "ALLTOALL", 9: "ALLTOALLV", 10: "ALLTOALLW",
           11: "ALLREDUCE", 12: "REDUCE", 13: "REDUCE_SCATTER"}
    for r in range(4):
        h, l = r % 2, r // 2
        half = "MPI_Comm_split (comm %d.2, 2 ranks)" % h
        ic = "MPI_Intercomm_create (intercomm 0.3, 2+2 ranks)"
        root = {0: "SELF", 2: "THIS_GROUP"}.get(r, "0")

        def ic_of(c, how):
            return "%s (intercomm 0.%d, 2+2 ranks)" % (how, c)
        made = ("CREATE_HANDLE", ic, "NONE", 0, 0)
        want = [("CREATE_HANDLE", "MPI_COMM_WORLD", "NONE", 0, 0),
                ("CREATE_HANDLE", half, "NONE", 0, 0),
                ("BARRIER", ic, "NONE", 0, 0),
                ("BCAST", ic, root, 16 if r == 0 else 0, 8 if h else 0)]
        for op, sizes in inter_colls(r):
            d = dict(kv.split("=") for kv in sizes.split())
            want.append((ops[op], ic, root if "root" in d else "NONE", int(d["sent"]),
                         int(d["recvd"])))
        for c, how in [(4, "MPI_Comm_dup"), (5, "MPI_Comm_split"), (6, "MPI_Comm_create"),
                       (7, "MPI_Comm_idup"), (8, "MPI_Comm_idup")]:
            want += [made, ("BARRIER", ic_of(c, how), "NONE", 0, 0)]
        merged = "MPI_Intercomm_merge (comm 0.9, 4 ranks)"
        want += [made, ("ALLREDUCE", merged, "NONE", 16, 16)]
        lone = ("MPI_Comm_split (comm 0.10, 1 ranks)" if r == 0 else
                "MPI_Comm_split (comm 1.3, 3 ranks)")
        uneven = "MPI_Intercomm_create (intercomm 0.11, 1+3 ranks)"
        b = 12 if r == 0 else 4
        want += [("CREATE_HANDLE", "MPI_COMM_WORLD", "NONE", 0, 0),
                 ("CREATE_HANDLE", lone, "NONE", 0, 0)]
        want += [(op, uneven, "NONE", b, b) for op in ("ALLREDUCE", "ALLGATHER", "ALLTOALL")]
        want += [(ops[op], uneven, {None: "NONE", -2: "SELF"}.get(root, str(root)), sent,
                  recvd) for op, root, sent, recvd in uneven_vw(r)]
        want += [("DESTROY_HANDLE", uneven, "NONE", 0, 0), ("DESTROY_HANDLE", lone, "NONE", 0, 0)]
        want += [("DESTROY_HANDLE", n, "NONE", 0, 0) for n in
                 [merged, ic_of(8, "MPI_Comm_idup"), ic_of(7, "MPI_Comm_idup"),
                  ic_of(6, "MPI_Comm_create"), ic_of(5, "MPI_Comm_split"),
                  ic_of(4, "MPI_Comm_dup"), ic, half]]
        expect_trace_colls(r, ends, want)
    # The inter-communicators: InterComm definitions, group A (the halves' leader, world rank
    # 0, is in it) and group B by their members' world ranks.
    inters = trace_intercomms(listing)
    expect(inters == sorted(
        [("%s (intercomm 0.%d, 2+2 ranks)" % (how, c), [0, 2], [1, 3]) for c, how in
         [(3, "MPI_Intercomm_create"), (4, "MPI_Comm_dup"), (5, "MPI_Comm_split"),
          (6, "MPI_Comm_create"), (7, "MPI_Comm_idup"), (8, "MPI_Comm_idup")]] +
        [("MPI_Intercomm_create (intercomm 0.11, 1+3 ranks)", [0], [1, 2, 3])]),
           "trace's inter-communicators %r" % inters)
    groups = trace_groups(listing)
    comms = re.findall(r'^COMM\s+\d+\s+Name: "([^"]*)" <\d+>, Group: "[^"]*" <(\d+)>',
                       listing, re.M)
    merged = [groups.get(int(g)) for n, g in comms if n.startswith("MPI_Intercomm_merge")]
    expect(merged == [[0, 2, 1, 3]], "trace's merged communicator %r" % comms)
    # Parents: the halves' is MPI_COMM_WORLD, the merged one's the inter-communicator
    # (InterComm definitions have none: OTF2 gives them a common communicator instead)
    parents = dict(re.findall(r'^COMM\s+\d+\s+Name: "([^"]*)" <\d+>, Group: "[^"]*" <\d+>, '
                              r'Parent: (?:"([^"]*)" <\d+>|UNDEFINED)', listing, re.M))
    expect(parents == {"MPI_COMM_WORLD": "", "MPI_COMM_SELF": "",
                       "MPI_Comm_split (comm 0.2, 2 ranks)": "MPI_COMM_WORLD",
                       "MPI_Comm_split (comm 1.2, 2 ranks)": "MPI_COMM_WORLD",
                       "MPI_Comm_split (comm 0.10, 1 ranks)": "MPI_COMM_WORLD",
                       "MPI_Comm_split (comm 1.3, 3 ranks)": "MPI_COMM_WORLD",
                       "MPI_Intercomm_merge (comm 0.9, 4 ranks)":
                           "MPI_Intercomm_create (intercomm 0.3, 2+2 ranks)"},
           "trace's communicators' parents %r" % parents)
    # Point-to-point records name the partner by its rank in the remote group: otf2-print
    # resolves it through the InterComm to the partner's location (world rank r ^ 1).
    p2p = re.findall(r"^MPI_I?(?:SEND|RECV)\s+(\d+)\s+\d+\s+(?:Receiver|Sender): (\d+) "
                     r"\(\"[^\"]*\" <(\d+)>\)", listing, re.M)
    expect(len(p2p) == 32 and all(int(rk) == int(loc) // 2 ** 32 // 2 and
                                  int(peer) // 2 ** 32 == (int(loc) // 2 ** 32) ^ 1
                                  for loc, rk, peer in p2p),
           "trace's point-to-point partners %r" % p2p)
    roots = sorted((int(loc) // 2 ** 32, root) for loc, root in re.findall(
        r"^MPI_COLLECTIVE_END\s+(\d+)\s+\d+\s+Operation: BCAST, .*?Root: (\w+)", listing,
        re.M))
    expect(roots == [(0, "SELF"), (1, "0"), (2, "THIS_GROUP"), (3, "0")],
           "trace's broadcast roots %r" % roots)


def case_mpi_dynamic():
    """4 ranks, interface version 3 (progs/mpi_dynamic.c, the mpiprobe test double): the
    inter-communicator MPI_Comm_accept and MPI_Comm_connect make between the two halves of
    the job, defined by its local and remote group like MPI_Intercomm_create's (named after
    the process's own call), its creation a collective on the half each side called it on,
    MPI_Comm_disconnect one on it; MPI_Comm_join of world ranks 0 and 1 the same way, on
    MPI_COMM_SELF. The job's trace (same run) reads with otf2-print -A -Werror and has the
    same collectives, the inter-communicators as InterComm definitions of their groups."""
    exe = build_mpi_program("mpi_dynamic")
    env = env_for("mpiprobe", {"INSTR_ENABLE_TRACING": "1"})
    p, run_dir = run_mpi_job(exe, env)
    job, probes = job_probes(p, run_dir)
    port = 1024  # MPI_MAX_PORT_NAME of Open MPI
    for r, got in enumerate(probes):
        h, l = r % 2, r // 2
        other = "1,3" if h == 0 else "0,2"
        how = "MPI_Comm_accept" if h == 0 else "MPI_Comm_connect"
        want = world_defs(r) + [
            "coll_end 1 0 root=0 sent=%d recvd=%d" % (4 * port if r == 0 else 0, port),
            "def group 3 %s" % other,
            # half 0 (world rank 0's) is group A: its rank 0 leads, with its counter 3
            "def comm 3 %s (intercomm 0.3, 2+2 ranks) group=2 size=2 rank=%d leader=0 seq=3 "
            "remote=3" % (how, l),
            "coll_end 17 2",
            "send %d 3 3 8" % l, "recv %d 3 3 8" % l,
            "coll_end 11 3 sent=8 recvd=8",
            "coll_end 18 3",
            "coll_end 1 0 root=0 sent=%d recvd=4" % (16 if r == 0 else 0)]
        if r < 2:
            # MPI_Comm_join of world ranks 0 and 1: on MPI_COMM_SELF, the local group the
            # rank's self's (group 1), the remote one the other rank (new: group 4); world
            # rank 0 leads, its counter 4
            want += ["def group 4 %d" % (1 - r),
                     "def comm 4 MPI_Comm_join (intercomm 0.4, 1+1 ranks) group=1 size=1 "
                     "rank=0 leader=0 seq=4 remote=4", "coll_end 17 1",
                     "coll_end 11 4 sent=4 recvd=4", "coll_end 18 4"]
        want += ["coll_end 18 2", "bad_defs 0"]
        expect_probe(r, got, want)
    listing = job_trace(job)
    ends = trace_coll_ends(listing)
    # the trace's definition is group A's: named after half 0's MPI_Comm_accept
    ic = "MPI_Comm_accept (intercomm 0.3, 2+2 ranks)"
    for r in range(4):
        half = "MPI_Comm_split (comm %d.2, 2 ranks)" % (r % 2)
        want = [("CREATE_HANDLE", "MPI_COMM_WORLD", "NONE", 0, 0),
                ("BCAST", "MPI_COMM_WORLD", "0", 4 * port if r == 0 else 0, port),
                ("CREATE_HANDLE", half, "NONE", 0, 0),
                ("ALLREDUCE", ic, "NONE", 8, 8),
                ("DESTROY_HANDLE", ic, "NONE", 0, 0),
                ("BCAST", "MPI_COMM_WORLD", "0", 16 if r == 0 else 0, 4)]
        if r < 2:
            joined = "MPI_Comm_join (intercomm 0.4, 1+1 ranks)"
            want += [("CREATE_HANDLE", "MPI_COMM_SELF", "NONE", 0, 0),
                     ("ALLREDUCE", joined, "NONE", 4, 4),
                     ("DESTROY_HANDLE", joined, "NONE", 0, 0)]
        want += [("DESTROY_HANDLE", half, "NONE", 0, 0)]
        expect_trace_colls(r, ends, want)
    inters = trace_intercomms(listing)
    expect(inters == [(ic, [0, 2], [1, 3]),
                      ("MPI_Comm_join (intercomm 0.4, 1+1 ranks)", [0], [1])],
           "trace's inter-communicators %r" % inters)
    p2p = re.findall(r"^MPI_(?:SEND|RECV)\s+(\d+)\s+\d+\s+(?:Receiver|Sender): (\d+) "
                     r"\(\"[^\"]*\" <(\d+)>\)", listing, re.M)
    expect(len(p2p) == 8 and all(int(rk) == int(loc) // 2 ** 32 // 2 and
                                 int(peer) // 2 ** 32 == (int(loc) // 2 ** 32) ^ 1
                                 for loc, rk, peer in p2p),
           "trace's point-to-point partners %r" % p2p)


def case_mpi_spawn():
    """4 ranks, interface version 3 (progs/mpi_spawn.c, the mpiprobe test double): the world
    spawns one process (progs/mpi_spawn_child.c, built without instr), then two with
    MPI_Comm_spawn_multiple. Each is a collective on the world (CREATE_HANDLE) in plugins and
    the trace; its inter-communicator
    has no definition (its remote group is not in the job's MPI_COMM_WORLD): the broadcast
    over it and MPI_Comm_disconnect's collective name UINT64_MAX to plugins, and the trace
    has no record of either."""
    exe = build_mpi_program("mpi_spawn")
    child = os.path.join(os.path.dirname(exe), "mpi_spawn_child")
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "progs", "mpi_spawn_child.c")
    b = subprocess.run([A.mpicc, "-O1", src, "-o", child], capture_output=True, timeout=120)
    expect(b.returncode == 0, "mpicc: %s" % b.stderr.decode(errors="replace"))
    env = env_for("mpiprobe", {"INSTR_ENABLE_TRACING": "1"})
    cmd = [A.mpirun, "--oversubscribe", "--allow-run-as-root", "-np", "4"]
    for k in env:
        cmd += ["-x", k]
    run_dir = fresh_dir(os.path.join(A.work, A.case, "run"))
    p = subprocess.run(cmd + [exe, child], cwd=run_dir, env=clean_env(env),
                       capture_output=True, timeout=240)
    job, probes = job_probes(p, run_dir)
    none = 2 ** 64 - 1
    for r, got in enumerate(probes):

        def bcast(sent):  # from world rank 0 to the spawned processes
            return "root=-2 sent=%d recvd=0" % sent if r == 0 else "root=-3 sent=0 recvd=0"
        want = world_defs(r, halves=False) + [
            # MPI_Comm_spawn: 1 process, MPI_Comm_spawn_multiple: 2
            "coll_end 17 0", "coll_end 1 %d %s" % (none, bcast(8)),
            "coll_end 18 %d" % none,
            "coll_end 17 0", "coll_end 1 %d %s" % (none, bcast(16)),
            "coll_end 18 %d" % none, "bad_defs 0"]
        expect_probe(r, got, want)
    listing = job_trace(job)
    ends = trace_coll_ends(listing)
    want = {r: [("CREATE_HANDLE", "MPI_COMM_WORLD", "NONE", 0, 0)] * 2 for r in range(4)}
    expect(ends == want, "trace's collectives %r, expected %r" % (ends, want))


def main():
    global A
    ap = argparse.ArgumentParser()
    ap.add_argument("case")
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--plugins", required=True)
    ap.add_argument("--test-plugins", required=True)
    ap.add_argument("--metric-plugins")
    ap.add_argument("--instr")
    ap.add_argument("--cc")
    ap.add_argument("--include")
    ap.add_argument("--clang")
    ap.add_argument("--mpicc")
    ap.add_argument("--mpirun")
    A = ap.parse_args()
    return run_case(globals(), A.case, (P.ProfileError,))


if __name__ == "__main__":
    sys.exit(main())
