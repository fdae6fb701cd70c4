#!/usr/bin/env python3
"""End-to-end checks of the XRay adapter (docs/xray.md) with one clang version: build the
test programs with XRay sleds (plugin in XRay mode, plain -fxray-instrument, or the wrapper),
run them, and check with exact counts what was recorded: profile.json (tests/lib/profile.py),
the OTF2 trace (tests/lib/otf2check.py) and xray.txt.
Usage: check_xray.py CASE --clang CLANG --plugin SO --libdir DIR --include DIR --wrapper W
                     --src DIR --work DIR --lib DIR [--trace 0|1]
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from cases import Fail, expect, fresh_dir, run_case  # noqa: E402  tests/lib/cases.py
from cases import clean_env as cases_clean_env  # noqa: E402

A = None
P = None  # tests/lib/profile.py
T = None  # tests/lib/otf2check.py

# xprog.c "run": phase(5) then tail_caller(7), which tail-calls work_a.
RUN_ALL = {"main": 1, "phase": 1, "work_a": 6, "work_b": 5, "work_c": 5, "tail_caller": 1}
XPROG_FUNCTIONS = {"main", "phase", "work_a", "work_b", "work_c", "self_unpatch", "outer",
                   "tail_caller", "with_args", "worker"}


def workdir(name):
    return fresh_dir(os.path.join(A.work, A.case, name))


def clean_env(extra=None):
    return cases_clean_env(extra, drop=("XRAY_OPTIONS",))


def sh(cmd, cwd, env=None):
    p = subprocess.run(cmd, cwd=cwd, env=clean_env(env), capture_output=True, text=True,
                       timeout=110)
    expect(p.returncode == 0, "%s failed (%d):\n%s%s" % (cmd, p.returncode, p.stdout, p.stderr))
    return p


GLUE = None


def link_runtime():
    return ["-Wl,--whole-archive", GLUE, "-Wl,--no-whole-archive", "-L" + A.libdir,
            "-Wl,-rpath," + A.libdir, "-linstr-rt"]


def build(name, src, how, extra=()):
    """how: 'plugin' (our plugin, XRay mode), 'plain' (-fxray-instrument, no plugin),
    'none' (no XRay, not instrumented, no runtime: the reference behaviour),
    'noxray' (no XRay but linked with the runtime and the glue)."""
    wd = workdir("build-" + name)
    exe = os.path.join(wd, name)
    src = os.path.join(A.src, src)
    cmd = [A.clang, "-O1", "-I" + A.include] + list(extra)
    env = None
    if how == "plugin":
        cmd += ["-fxray-instrument", "-fpass-plugin=" + A.plugin]
        env = {"INSTR_MODE": "xray"}
    elif how == "plain":
        cmd += ["-fxray-instrument", "-fxray-instruction-threshold=1"]
    elif how == "none":
        cmd += ["-DINSTR_DISABLE"]
    cmd += [src, "-o", exe]
    if how != "none":
        cmd += link_runtime()
    if src.endswith(".cpp"):
        cmd += ["-lstdc++"]
    sh(cmd, wd, env)
    return exe


def run(exe, args=(), env=None, name="run"):
    """Runs in a fresh directory with INSTR_* only from env; (rc, stdout, instr lines, other
    stderr lines, experiment dir)."""
    wd = workdir(name)
    exp = os.path.join(wd, "exp")
    e = {"INSTR_EXPERIMENT_DIRECTORY": exp}
    if A.trace:
        e["INSTR_ENABLE_TRACING"] = "1"
    e.update(env or {})
    p = subprocess.run([exe] + list(args), cwd=wd, env=clean_env(e), capture_output=True,
                       text=True, timeout=60)
    err = p.stderr.splitlines()
    mine = [l for l in err if l.startswith("instr: ")]
    rest = [l for l in err if not l.startswith("instr: ")]
    return p.returncode, p.stdout, mine, rest, exp


def read_xray(exp):
    """xray.txt: ({key: value}, {name: {patched, ever_patched, entered, mangled, file, by}})"""
    head, fns = {}, {}
    with open(os.path.join(exp, "xray.txt"), encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#") or not line:
                continue
            cols = line.split("\t")
            if len(cols) == 2:
                head[cols[0]] = cols[1] if not cols[1].isdigit() else int(cols[1])
            else:
                expect(len(cols) == 8, "xray.txt: bad line %r" % line)
                fns[cols[4]] = {"patched": int(cols[1]), "ever_patched": int(cols[2]),
                                "entered": int(cols[3]), "mangled": cols[5], "file": cols[6],
                                "by": cols[7]}
    return head, fns


def checked_profile(exp):
    prof = P.load(exp)
    problems = P.check_consistency(prof)
    expect(not problems, "profile inconsistent: %r" % problems[:10])
    return prof


def checked_trace(exp, prof):
    """Trace balanced and nested, Enter counts equal to the profile's visits."""
    if not A.trace:
        return
    tr = T.load(exp)
    problems = tr.problems()
    expect(not problems, "trace invalid:\n  " + "\n  ".join(problems[:20]))
    visits = P.visits_by_region(prof)
    expect(tr.enters_by_region() == visits,
           "trace enters %r != profile visits %r" % (tr.enters_by_region(), visits))


def same_output(exe, ref, args, env=None):
    """The program's own behaviour (stdout minus the API's numbers, exit code) is that of the
    uninstrumented build."""
    rc, out, mine, rest, exp = run(exe, args, env)
    rrc, rout, _, _, _ = run(ref, args, name="reference")
    keep = lambda s: [l for l in s.splitlines() if l.startswith("sink=")]
    expect(rc == rrc == 0 and keep(out) == keep(rout),
           "behaviour changed: rc %d vs %d, %r vs %r" % (rc, rrc, out, rout))
    expect(not rest, "unexpected stderr: %r" % rest)
    return out, mine, exp


def api_results(out):
    res = {}
    for l in out.splitlines():
        if "=" in l and not l.startswith("sink="):
            k, v = l.rsplit("=", 1)
            res[k] = int(v)
    return res


def tail_calls(exe, caller, callee):
    """1 when the machine code of `caller` jumps to `callee` (a tail call), from objdump."""
    p = subprocess.run(["objdump", "-d", "--no-show-raw-insn", exe], capture_output=True,
                       text=True, check=True)
    body, inside = [], False
    for line in p.stdout.splitlines():
        if line.endswith("<%s>:" % caller):
            inside = True
        elif inside and not line.strip():
            break
        elif inside:
            body.append(line)
    expect(body, "no %s in objdump -d of %s" % (caller, exe))
    return any("jmp" in l and l.rstrip().endswith("<%s>" % callee) for l in body)


# ---- cases ---------------------------------------------------------------------------------

def case_nothing_patched():
    exe = build("xprog", "xprog.c", "plugin")
    ref = build("xprog_ref", "xprog.c", "none")
    out, mine, exp = same_output(exe, ref, ["run"], {"INSTR_XRAY_PATCH": "manual"})
    prof = checked_profile(exp)
    expect(prof["tree"] == [], "nothing patched, yet recorded: %r" % P.visits_by_region(prof))
    checked_trace(exp, prof)
    head, fns = read_xray(exp)
    expect(head["patch_mode"] == "manual", head)
    expect(head["functions_with_sleds"] == len(XPROG_FUNCTIONS), head)
    expect(set(fns) == XPROG_FUNCTIONS, "functions with sleds %r" % sorted(fns))
    expect(head["patched_at_end"] == head["ever_patched"] == head["ever_entered"] == 0, head)
    expect(all(f["by"] == "descriptor" and f["file"].endswith("xprog.c") for f in fns.values()),
           "names not from the plugin's descriptors: %r" % fns)


def case_startup():
    exe = build("xprog", "xprog.c", "plugin")
    ref = build("xprog_ref", "xprog.c", "none")
    out, mine, exp = same_output(exe, ref, ["run"])
    prof = checked_profile(exp)
    expect(P.visits_by_region(prof) == RUN_ALL, "visits %r" % P.visits_by_region(prof))
    # XRay's TAIL is an exit: where the compiler made tail_caller's call a tail call (clang 19
    # does, clang 14 keeps a call in XRay-instrumented functions), work_a runs beside
    # tail_caller, not inside it.
    paths = P.visits_by_path(prof)
    inner = "main;work_a" if tail_calls(exe, "tail_caller", "work_a") else "main;tail_caller;work_a"
    expect(paths.get(inner) == 1 and paths.get("main;tail_caller") == 1 and
           paths.get("main;phase;work_a") == 5, "call paths %r (expected %s)" % (paths, inner))
    expect({r["source"] for r in prof["regions"]} == {"xray"}, "sources")
    checked_trace(exp, prof)
    head, fns = read_xray(exp)
    n = len(XPROG_FUNCTIONS)
    expect(head["patch_mode"] == "startup" and head["patched_at_end"] == n and
           head["ever_patched"] == n and head["ever_entered"] == len(RUN_ALL), head)
    expect({k for k, f in fns.items() if f["entered"]} == set(RUN_ALL), fns)
    expect(any("xray.txt" in l and "written to" in l for l in mine), "summary: %r" % mine)


def case_log_args():
    """A function with xray_log_args enters through XRay's LOG_ARGS_ENTRY, which goes to the
    adapter's handler of arguments: recorded as any other entry, its callee inside it."""
    exe = build("xprog", "xprog.c", "plugin")
    ref = build("xprog_ref", "xprog.c", "none")
    out, mine, exp = same_output(exe, ref, ["args"])
    expect(b"__xray_ArgLoggerEntry" in open(exe, "rb").read(), "no argument-logging sled")
    prof = checked_profile(exp)
    want = {"main": 1, "with_args": 3, "work_b": 3, "work_c": 1}
    expect(P.visits_by_region(prof) == want, "visits %r" % P.visits_by_region(prof))
    paths = P.visits_by_path(prof)
    expect(paths.get("main;with_args;work_b") == 3 and paths.get("main;work_c") == 1,
           "call paths %r" % paths)
    checked_trace(exp, prof)


def case_modes():
    """The profile alone and the trace alone, whose handlers are their modes' own (xray.c,
    install_handler), and the general handler that pause puts back: the run, patching while
    running, pause/resume and three threads record the same as with both (the other cases)."""
    exe = build("xprog", "xprog.c", "plugin")
    unpatch = {"phase": 4, "work_a": 5, "work_b": 5, "work_c": 5, "outer": 1, "self_unpatch": 1}
    paused = {"main": 1, "phase": 2, "work_a": 6, "work_b": 6, "work_c": 6}
    threads = {"main": 1, "worker": 3, "phase": 3, "work_a": 15, "work_b": 15, "work_c": 15}
    scenarios = (("run", {}, RUN_ALL), ("unpatch", {"INSTR_XRAY_PATCH": "manual"}, unpatch),
                 ("pause", {}, paused), ("threads", {}, threads))
    modes = [("profile", {"INSTR_ENABLE_PROFILING": "1", "INSTR_ENABLE_TRACING": "0"})]
    if A.trace:
        modes.append(("trace", {"INSTR_ENABLE_PROFILING": "0", "INSTR_ENABLE_TRACING": "1"}))
    for mode, menv in modes:
        for scenario, senv, want in scenarios:
            rc, out, mine, rest, exp = run(exe, [scenario], dict(menv, **senv),
                                           name="%s-%s" % (mode, scenario))
            expect(rc == 0 and not rest, "%s %s: %r" % (mode, scenario, rest))
            if mode == "profile":
                prof = checked_profile(exp)
                got = P.visits_by_region(prof)
            else:
                tr = T.load(exp)
                problems = tr.problems()
                expect(not problems, "%s %s: trace invalid:\n  %s" %
                       (mode, scenario, "\n  ".join(problems[:20])))
                got = tr.enters_by_region()
            expect(got == want, "%s %s: visits %r, expected %r" % (mode, scenario, got, want))


def case_filter_file():
    exe = build("xprog", "xprog.c", "plugin")
    wd = workdir("spec")
    spec = os.path.join(wd, "rt.spec")
    with open(spec, "w") as f:
        f.write("exclude function work_*\ninclude function work_b\nexclude function main\n")
    rc, out, mine, rest, exp = run(exe, ["run"], {"INSTR_FILTERING_FILE": spec})
    expect(rc == 0 and not rest, rest)
    prof = checked_profile(exp)
    want = {"phase": 1, "work_b": 5, "tail_caller": 1}
    expect(P.visits_by_region(prof) == want, "visits %r" % P.visits_by_region(prof))
    checked_trace(exp, prof)
    head, fns = read_xray(exp)
    expect({k for k, f in fns.items() if f["patched"]} ==
           XPROG_FUNCTIONS - {"work_a", "work_c", "main"}, fns)


def case_pattern():
    exe = build("xprog", "xprog.c", "plugin")
    ref = build("xprog_ref", "xprog.c", "none")
    out, mine, exp = same_output(exe, ref, ["pattern"], {"INSTR_XRAY_PATCH": "manual"})
    expect(api_results(out) == {"patch(work_[ab])": 2, "patch(work_a)": 0}, out)
    prof = checked_profile(exp)
    expect(P.visits_by_region(prof) == {"work_a": 5, "work_b": 5},
           "visits %r" % P.visits_by_region(prof))
    checked_trace(exp, prof)
    head, fns = read_xray(exp)
    expect(head["patched_at_end"] == 2 and head["ever_entered"] == 2, head)


def case_unpatch():
    exe = build("xprog", "xprog.c", "plugin")
    ref = build("xprog_ref", "xprog.c", "none")
    out, mine, exp = same_output(exe, ref, ["unpatch"], {"INSTR_XRAY_PATCH": "manual"})
    n = len(XPROG_FUNCTIONS)
    expect(api_results(out) == {"patch_all": n, "unpatch(work_*)": 3,
                                "unpatch(self_unpatch)": 1, "patch(work_*)": 3}, out)
    prof = checked_profile(exp)
    # phase(3) patched, phase(4) with work_* unpatched, outer's phase(1) too, phase(2)
    # re-patched; main was entered before anything was patched: its exit is ignored.
    want = {"phase": 4, "work_a": 5, "work_b": 5, "work_c": 5, "outer": 1, "self_unpatch": 1}
    expect(P.visits_by_region(prof) == want, "visits %r" % P.visits_by_region(prof))
    paths = P.visits_by_path(prof)
    expect(paths.get("phase;work_a") == 5 and paths.get("outer;phase") == 1 and
           paths.get("outer;self_unpatch") == 1, "paths %r" % paths)
    checked_trace(exp, prof)
    head, fns = read_xray(exp)
    expect(head["patched_at_end"] == n - 1 and head["ever_patched"] == n and
           head["ever_entered"] == len(want), head)
    expect(fns["self_unpatch"]["patched"] == 0 and fns["self_unpatch"]["ever_patched"] == 1, fns)


def case_symbols():
    exe = build("cxx_names", "cxx_names.cpp", "plain")
    ref = build("cxx_names_ref", "cxx_names.cpp", "none")
    out, mine, exp = same_output(exe, ref, [])
    prof = checked_profile(exp)
    want = {"main": 1, "geo::Grid::sweep(int)": 1, "geo::Grid::at(int) const": 4,
            "long geo::twice<long>(long)": 1, "int geo::twice<int>(int)": 1}
    expect(P.visits_by_region(prof) == want, "visits %r" % P.visits_by_region(prof))
    checked_trace(exp, prof)
    head, fns = read_xray(exp)
    expect(head["named_by_descriptors"] == 0, head)
    expect(fns["geo::Grid::sweep(int)"]["mangled"] == "_ZN3geo4Grid5sweepEi" and
           fns["geo::Grid::sweep(int)"]["by"] == "symbol", fns)


def case_wrapper():
    wd = workdir("build-wrapper")
    obj = os.path.join(wd, "xprog.o")
    exe = os.path.join(wd, "xprog")
    p = sh([A.wrapper, "--mode=xray", A.clang, "-O1", "-c", os.path.join(A.src, "xprog.c"),
            "-o", obj], wd)
    expect(not p.stderr.strip(), "wrapper compile said: %r" % p.stderr)
    p = sh([A.wrapper, "--mode=xray", A.clang, obj, "-o", exe], wd)
    expect(not p.stderr.strip(), "wrapper link said: %r" % p.stderr)
    rc, out, mine, rest, exp = run(exe, ["pattern"], {"INSTR_XRAY_PATCH": "manual"})
    expect(rc == 0 and not rest, rest)
    expect(api_results(out) == {"patch(work_[ab])": 2, "patch(work_a)": 0}, out)
    prof = checked_profile(exp)
    expect(P.visits_by_region(prof) == {"work_a": 5, "work_b": 5},
           "visits %r" % P.visits_by_region(prof))
    head, fns = read_xray(exp)
    expect(head["named_by_descriptors"] == len(XPROG_FUNCTIONS), head)
    # one command: compile and link
    exe2 = os.path.join(wd, "xprog2")
    sh([A.wrapper, "--mode=xray", A.clang, "-O1", os.path.join(A.src, "xprog.c"), "-o", exe2], wd)
    rc, out, mine, rest, exp = run(exe2, ["run"], name="run2")
    expect(rc == 0 and P.visits_by_region(checked_profile(exp)) == RUN_ALL, "one-step build")


def case_errors():
    exe = build("xprog", "xprog.c", "plugin")
    # a bad INSTR_XRAY_PATCH: one warning naming it, and the default is used
    rc, out, mine, rest, exp = run(exe, ["run"], {"INSTR_XRAY_PATCH": "sometimes"})
    expect(rc == 0, rest)
    expect(any("INSTR_XRAY_PATCH='sometimes'" in l and "using startup" in l for l in mine), mine)
    expect(P.visits_by_region(checked_profile(exp)) == RUN_ALL, "default not used")
    # a malformed pattern and NULL: -1, a message each, nothing changed
    rc, out, mine, rest, exp = run(exe, ["bad"], {"INSTR_XRAY_PATCH": "manual"}, name="bad")
    expect(rc == 0 and api_results(out) == {"patch([)": -1, "patch(NULL)": -1}, out)
    expect(any("unterminated '['" in l for l in mine) and any("NULL" in l for l in mine), mine)
    expect(read_xray(exp)[0]["ever_patched"] == 0, "bad pattern patched something")
    # no XRay in the program: the API says so and returns -1; the program runs unchanged
    noxray = build("xprog_noxray", "xprog.c", "noxray")
    rc, out, mine, rest, exp = run(noxray, ["pattern"], name="noxray")
    expect(rc == 0 and api_results(out) == {"patch(work_[ab])": -1, "patch(work_a)": -1}, out)
    expect(sum("no XRay instrumentation" in l for l in mine) == 1, mine)
    expect(not os.path.exists(os.path.join(exp, "xray.txt")), "xray.txt without XRay")
    # nothing recorded (profiling off): nothing patched, the program unchanged
    rc, out, mine, rest, exp = run(exe, ["pattern"], {"INSTR_ENABLE_PROFILING": "0",
                                                      "INSTR_ENABLE_TRACING": "0"}, name="off")
    expect(rc == 0 and api_results(out) == {"patch(work_[ab])": 0, "patch(work_a)": 0}, out)


def main():
    global A, P, T, GLUE
    ap = argparse.ArgumentParser()
    ap.add_argument("case")
    for opt in ("clang", "plugin", "libdir", "include", "wrapper", "src", "work", "lib"):
        ap.add_argument("--" + opt, required=True)
    ap.add_argument("--trace", type=int, default=1)
    A = ap.parse_args()
    sys.path.insert(0, A.lib)
    import profile as prof_mod
    P = prof_mod
    if A.trace:
        import otf2check
        T = otf2check
    GLUE = os.path.join(A.libdir, "libinstr-xray.a")
    return run_case(globals(), A.case)


if __name__ == "__main__":
    sys.exit(main())
