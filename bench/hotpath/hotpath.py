#!/usr/bin/env python3
"""The hot path per call: instructions (callgrind) and nanoseconds, next to the floors.

bench/callheavy.c calls one tiny out-of-line function from a loop (N/10 warm-up calls, then
N measured ones). Every variant is built from it and measured two ways:

  instr/call  callgrind's instruction count inside main (--toggle-collect=main: start-up
              before main and the end of the run after it returns, atexit, are outside) at
              two sizes, N1 and N2: (Ir(N2) - Ir(N1)) / (1.1 * (N2 - N1)), so what is left is
              one loop iteration: the call, the function, the hooks and the runtime
              (instructions are deterministic: the figure does not depend on the machine's
              load)
  end/record  trace variants: the work the end of the run does per trace record (conversion
              of the compact records to OTF2 and writing them), counted the same way over the
              whole process minus the count inside main, divided by the 2 records per call.
              It is moved off the hot path, not removed: the program pays it at exit (with
              INSTR_TRACE_CONVERT=thread, its converter thread mostly, all threads counted).
  ns/call     the program's own time per loop iteration with N calls (best of REPS runs)

Variants: uninstrumented; -finstrument-functions with empty hooks and with hooks that only
read the TSC (bench/empty_hooks.c, bench/clock_hooks.c: the floors); instr with the GCC and
the LLVM plugins' hooks in profile, trace and both modes, profile with one metric, profile
with an empty substrate plugin (reentrant, and not declared so: protected), the reentrant one
alone and no substrate at all (its baseline), the profile and the trace with one metric, the
trace with one metric and without the profile; the profile, the trace and both with another
timer than the TSC (INSTR_TIMER=monotonic);
the LLVM plugin's hooks in an OpenMP program on libomp with the OMPT tool active
(bench/callheavy_omp.c, clang-19 -fopenmp, one thread), trace and profile+trace;
-finstrument-functions (cyg mode);
XRay mode patched (clang, clang-19), profile and trace; and the GCC plugin's hooks with the
function excluded by the run-time filter (INSTR_FILTERING_FILE).

  bench/hotpath/hotpath.py [--build DIR] [--n1 N] [--n2 N] [--n N] [--reps R] [--only a,b]
  bench/hotpath/hotpath.py --check [--budget NAME] [--build DIR]   (ctest label perf)

--check measures only the budgeted variants (docs/architecture.md, "Budgets": profile <= 80,
trace <= 130 instructions per call, GCC and LLVM plugin hooks; and profile with one metric
<= 175, profile with an empty reentrant substrate plugin <= 100, with the protected one
<= 110, the reentrant one alone <= 124, profile and trace together <= 150, profile with the
critical path on <= 150, profile and trace with one metric <= 255, the trace alone in the
OpenMP program <= 130, the trace with one metric and without the profile <= 240; with
INSTR_TIMER=monotonic the profile <= 140, the trace <= 145, both <= 165, counted with glibc's
clock_gettime but not the vDSO's read, which valgrind does not run; XRay mode patched with
clang 14 and 19, profile <= 150, LLVM's trampolines included; see BUDGET) and
exits 1 when one is over, 77
(skipped) when valgrind or a compiler plugin is missing.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)
REPO = os.path.dirname(BENCH)
SKIP = 77

PROFILE = {"INSTR_ENABLE_PROFILING": "1", "INSTR_ENABLE_TRACING": "0"}
TRACE = {"INSTR_ENABLE_PROFILING": "0", "INSTR_ENABLE_TRACING": "1"}
BOTH = {"INSTR_ENABLE_PROFILING": "1", "INSTR_ENABLE_TRACING": "1"}
# metric: the profile with one strictly synchronous metric of an empty plugin that answers
# in one call (bench/metrics/empty_plugin.c; docs/performance.md, "Metrics"). It guards that
# path against regressions: GCC 170, LLVM 166 since the hooks jump through instr_event_path_table
# without a test of the mode (204 and 200 when the path was made; before it, every event
# with a metric took the generic path: 605 with -finstrument-functions), with a few
# instructions' margin for other compiler versions.
# plugin: the profile with one empty substrate plugin registered for enter and exit, which
# declares itself reentrant (bench/substrate_plugins/empty_plugin.c; docs/performance.md,
# "Substrate plugins"), on the cursor path with plugins, called last; plugin_protected: the
# same plugin without the flag (-DEMPTY_PROTECTED), called with the cursor taken;
# plugin_alone: the reentrant plugin with INSTR_ENABLE_PROFILING=0, called directly on the
# core's stack. GCC 97, 107 and 120, LLVM 93, 103 and 116 (155 and 148 with GCC when the
# protected and the direct paths were made; 314 and 216 on the generic path before them),
# with a few instructions' margin.
# profile_trace: the profile and the trace together, on the cursor path with records
# (runtime/profile/cct_trace.c): GCC 128, LLVM 124 when the path was made (303 and 299 on the
# generic path before it); budget 150 (docs/architecture.md, "Budgets").
# throttle: the profile with run-time throttling armed but never reached (INSTR_THROTTLE with
# 10^12 visits), on the cursor path with counts (runtime/profile/cct_counts.c): 389 and 385
# on the generic path before it; budget 100 (docs/performance.md). throttle_trace: the same
# with the trace, on that path with records.
# critpath: the profile with the critical path on (INSTR_CRITICAL_PATH=1), on the cursor path
# with events (runtime/profile/cct_events.c), which calls the critical path's own enter and
# exit: GCC 208, LLVM 204 when the path was made (410 and 406 on the generic path before it),
# 195 and 191 with the path's enter and exit calling nothing in their common case, 147 and 143
# with their common case done by the cursor inline (core/xcharge.h); budget 150.
# metric_trace: the profile with one metric (as `metric`) and the trace, on the cursor path
# with metrics and records (runtime/profile/cct_metrics.c), which appends the value and the
# event at once: GCC 242, LLVM 238 when the path was made (755 and 751 on the generic path
# before it); budget 255, below the parts alone (170 + 95), with a few instructions' margin.
# trace_metric: the trace with one metric (as `metric`) and without the profile, on the
# metrics' and the trace's path on the core's stack (runtime/metrics/trace_direct.c): GCC
# 228, LLVM 224 when the path was made (587 and 583 on the generic path before it); budget
# 240, with a few instructions' margin.
# openmp_trace: the trace alone in an OpenMP program on LLVM's libomp, whose OMPT tool is
# active (bench/callheavy_omp.c: the calls inside a parallel region, clang-19 -fopenmp with
# the LLVM plugin's hooks; one thread, so that callgrind's count inside main is the master's
# and exact): the direct trace path since the master closes its workers' constructs in
# their records (runtime/ompt/callbacks.c); before, the OMPT tool turned that path off and
# every event took the generic path. Budget: the trace's.
# xray: XRay mode patched (instr --mode=xray, clang 14 and clang-19), profile: 145 per call
# with both, of which 78 are LLVM's trampolines (__xray_FunctionEntry/Exit, compiler-rt) and
# 57 the adapter's handler of the inline cursor path (xray_adapter/xray.c handler_profile,
# installed while the path flag is that path's; 63 for the general handler, 72 before it
# handed the handle straight to the inline paths: 160 per call, 167 before that); budget 150,
# a few instructions' margin.
BUDGET = {"profile": 80, "trace": 130, "metric": 175, "plugin": 100, "plugin_protected": 110,
          "plugin_alone": 124, "profile_trace": 150, "throttle": 100, "throttle_trace": 160,
          "critpath": 150, "metric_trace": 255, "openmp_trace": 130,
          "trace_metric": 240, "profile_clock": 140, "trace_clock": 145,
          "profile_trace_clock": 165, "xray": 150}
THROTTLE_ARMED = dict(PROFILE, INSTR_THROTTLE="1000000000000,1")
THROTTLE_ARMED_TRACE = dict(BOTH, INSTR_THROTTLE="1000000000000,1")
CRITPATH = dict(PROFILE, INSTR_CRITICAL_PATH="1")
ONE_METRIC = dict(PROFILE, INSTR_PLUGIN_PATH="@plugins", INSTR_METRIC_PLUGINS="empty",
                  INSTR_METRIC_EMPTY="1")
ONE_METRIC_TRACE = dict(ONE_METRIC, INSTR_ENABLE_TRACING="1")
TRACE_METRIC = dict(ONE_METRIC_TRACE, INSTR_ENABLE_PROFILING="0")
# Another timer than the TSC (clock_gettime's vDSO at every event): the profile, the trace,
# both.
MONO = {"INSTR_TIMER": "monotonic"}
EMPTY_PLUGIN = dict(PROFILE, INSTR_PLUGIN_PATH="@plugins", INSTR_SUBSTRATE_PLUGINS="empty")
EMPTY_PLUGIN_ALONE = dict(EMPTY_PLUGIN, INSTR_ENABLE_PROFILING="0")
EMPTY_PROTECTED = dict(EMPTY_PLUGIN, INSTR_SUBSTRATE_PLUGINS="empty_protected")
# Nothing to record (no substrate): the baseline of "that plugin alone".
NO_SUBSTRATE = {"INSTR_ENABLE_PROFILING": "0", "INSTR_ENABLE_TRACING": "0"}


class Variant:
    def __init__(self, name, build, env=None, budget=None, needs=()):
        self.name, self.build, self.env = name, build, dict(env or {})
        self.budget = budget   # "profile" | "trace" | None
        self.needs = needs     # tools that must exist


def variants(instr):
    src = os.path.join(BENCH, "callheavy.c")
    empty = os.path.join(BENCH, "empty_hooks.c")
    clock = os.path.join(BENCH, "clock_hooks.c")
    hooks_gcc = [instr, "--mode=hooks", "gcc", "-O2", src]
    hooks_clang = [instr, "--mode=hooks", "clang", "-O2", src]
    v = [
        Variant("uninstrumented (gcc -O2)", ["gcc", "-O2", src]),
        # the hooks themselves must not call the hooks
        Variant("-finstrument-functions, empty hooks",
                ["gcc", "-O2", "-finstrument-functions",
                 "-finstrument-functions-exclude-file-list=empty_hooks.c", src, empty]),
        Variant("-finstrument-functions, hooks reading the TSC",
                ["gcc", "-O2", "-finstrument-functions",
                 "-finstrument-functions-exclude-file-list=clock_hooks.c", src, clock]),
    ]
    for cc, b in (("gcc", hooks_gcc), ("clang", hooks_clang)):
        plugin = "GCC" if cc == "gcc" else "LLVM"
        v.append(Variant("instr %s plugin hooks, profile" % plugin, b, PROFILE, "profile", (cc,)))
        v.append(Variant("instr %s plugin hooks, trace" % plugin, b, TRACE, "trace", (cc,)))
        # the same with the converter thread (docs/tracing.md): end/record counts all threads
        v.append(Variant("instr %s plugin hooks, trace, converter thread" % plugin, b,
                         dict(TRACE, INSTR_TRACE_CONVERT="thread"), None, (cc,)))
        v.append(Variant("instr %s plugin hooks, profile+trace" % plugin, b, BOTH,
                         "profile_trace", (cc,)))
        v.append(Variant("instr %s plugin hooks, profile, 1 metric" % plugin, b, ONE_METRIC,
                         "metric", (cc,)))
        v.append(Variant("instr %s plugin hooks, profile+trace, 1 metric" % plugin, b,
                         ONE_METRIC_TRACE, "metric_trace", (cc,)))
        v.append(Variant("instr %s plugin hooks, trace, 1 metric" % plugin, b, TRACE_METRIC,
                         "trace_metric", (cc,)))
        v.append(Variant("instr %s plugin hooks, profile, monotonic timer" % plugin, b,
                         dict(PROFILE, **MONO), "profile_clock", (cc,)))
        v.append(Variant("instr %s plugin hooks, trace, monotonic timer" % plugin, b,
                         dict(TRACE, **MONO), "trace_clock", (cc,)))
        v.append(Variant("instr %s plugin hooks, profile+trace, monotonic timer" % plugin, b,
                         dict(BOTH, **MONO), "profile_trace_clock", (cc,)))
        v.append(Variant("instr %s plugin hooks, profile, empty substrate plugin" % plugin, b,
                         EMPTY_PLUGIN, "plugin", (cc,)))
        v.append(Variant("instr %s plugin hooks, profile, empty protected plugin" % plugin, b,
                         EMPTY_PROTECTED, "plugin_protected", (cc,)))
        v.append(Variant("instr %s plugin hooks, empty substrate plugin alone" % plugin, b,
                         EMPTY_PLUGIN_ALONE, "plugin_alone", (cc,)))
        v.append(Variant("instr %s plugin hooks, no substrate" % plugin, b, NO_SUBSTRATE, None,
                         (cc,)))
        v.append(Variant("instr %s plugin hooks, profile, throttling armed" % plugin, b,
                         THROTTLE_ARMED, "throttle", (cc,)))
        v.append(Variant("instr %s plugin hooks, profile+trace, throttling armed" % plugin, b,
                         THROTTLE_ARMED_TRACE, "throttle_trace", (cc,)))
        v.append(Variant("instr %s plugin hooks, profile, critical path" % plugin, b,
                         CRITPATH, "critpath", (cc,)))
    omp = [instr, "--mode=hooks", "clang-19", "-O2", "-fopenmp",
           os.path.join(BENCH, "callheavy_omp.c")]
    v.append(Variant("instr LLVM plugin hooks, OpenMP (OMPT), trace", omp,
                     dict(TRACE, OMP_NUM_THREADS="1"), "openmp_trace", ("clang-19",)))
    v.append(Variant("instr LLVM plugin hooks, OpenMP (OMPT), profile+trace", omp,
                     dict(BOTH, OMP_NUM_THREADS="1"), None, ("clang-19",)))
    v.append(Variant("instr cyg (gcc -finstrument-functions), profile",
                     [instr, "--mode=cyg", "gcc", "-O2", src], PROFILE))
    v.append(Variant("instr cyg (gcc -finstrument-functions), profile, throttling armed",
                     [instr, "--mode=cyg", "gcc", "-O2", src], THROTTLE_ARMED))
    for cc in ("clang", "clang-19"):
        xray = [instr, "--mode=xray", cc, "-O2", src]
        v.append(Variant("instr XRay mode patched (%s), profile" % cc, xray,
                         dict(PROFILE, INSTR_XRAY_PATCH="startup"), "xray", (cc,)))
        v.append(Variant("instr XRay mode patched (%s), trace" % cc, xray,
                         dict(TRACE, INSTR_XRAY_PATCH="startup"), None, (cc,)))
    v.append(Variant("instr GCC plugin hooks, leaf excluded at run time", hooks_gcc,
                     dict(PROFILE, INSTR_FILTERING_FILE="@exclude"), None, ("gcc",)))
    return v


def run(cmd, env=None, cwd=None):
    full = {k: val for k, val in os.environ.items() if not k.startswith("INSTR_")}
    full.update(env or {})
    return subprocess.run(cmd, env=full, cwd=cwd, capture_output=True, text=True, timeout=600)


def instructions(exe, n, env, cwd, whole=False):
    """Instructions inside main, or with whole=True of the whole process."""
    out = os.path.join(cwd, "callgrind.out")
    only_main = [] if whole else ["--toggle-collect=main"]
    p = run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out] + only_main +
            [exe, str(n)], dict(env, INSTR_VERBOSE="quiet"), cwd)
    m = re.search(r"Collected : (\d+)", p.stderr)
    if p.returncode != 0 or not m:
        raise RuntimeError("callgrind of %s failed: %s" % (exe, p.stderr[-500:]))
    os.unlink(out)
    return int(m.group(1))


def ns_per_call(exe, n, env, cwd, reps):
    best = None
    for _ in range(reps):
        p = run([exe, str(n)], dict(env, INSTR_VERBOSE="quiet"), cwd)
        m = re.search(r"ns_per_call=([0-9.]+)", p.stdout)
        if p.returncode != 0 or not m:
            raise RuntimeError("%s failed: %s" % (exe, p.stderr[-500:]))
        t = float(m.group(1))
        best = t if best is None else min(best, t)
        for d in os.listdir(cwd):
            if d.startswith("instr-"):
                shutil.rmtree(os.path.join(cwd, d))
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--n1", type=int, default=100000)
    ap.add_argument("--n2", type=int, default=200000)
    ap.add_argument("--n", type=int, default=20000000, help="calls for ns/call")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--only", help="comma-separated substrings of variant names")
    ap.add_argument("--check", action="store_true",
                    help="budgeted variants only, instructions only; exit 1 when over budget")
    ap.add_argument("--budget", choices=sorted(BUDGET),
                    help="with --check: only the variants of this budget")
    a = ap.parse_args()

    instr = os.path.join(os.path.abspath(a.build), "bin", "instr")
    if not shutil.which("valgrind"):
        print("SKIP: valgrind is not installed (scripts/install-deps.sh installs it); "
              "the instruction budget is not checked")
        return SKIP if a.check else 1
    if not os.access(instr, os.X_OK):
        print("SKIP: no instr wrapper at %s" % instr)
        return SKIP if a.check else 1
    vs = variants(instr)
    if a.check:
        vs = [v for v in vs if v.budget and (not a.budget or v.budget == a.budget)]
    if a.only:
        keys = a.only.split(",")
        vs = [v for v in vs if any(k in v.name for k in keys)]

    work = tempfile.mkdtemp(prefix="instr-hotpath-")
    spec = os.path.join(work, "exclude_leaf.spec")
    with open(spec, "w") as f:
        f.write("exclude function leaf\n")
    if any(val == "@plugins" for v in vs for val in v.env.values()):
        for kind in ("metric", "substrate"):
            folder = "metrics" if kind == "metric" else "substrate_plugins"
            builds = [([], "empty")]
            if kind == "substrate":
                builds.append((["-DEMPTY_PROTECTED"], "empty_protected"))
            for defs, name in builds:
                p = run(["gcc", "-O2", "-shared", "-fPIC", "-I" +
                         os.path.join(os.path.abspath(a.build), "include")] + defs +
                        [os.path.join(BENCH, folder, "empty_plugin.c"),
                         "-o", os.path.join(work, "libinstr_%s_%s.so" % (kind, name))],
                        cwd=work)
                if p.returncode != 0:
                    raise RuntimeError("the %s %s plugin did not build: %s" %
                                       (name, kind, p.stderr[-500:]))
    rows, over, skipped = [], [], []
    try:
        for i, v in enumerate(vs):
            missing = [t for t in v.needs if not shutil.which(t)]
            if missing:
                skipped.append("%s: %s not installed" % (v.name, ", ".join(missing)))
                continue
            exe = os.path.join(work, "v%d" % i)
            p = run(v.build + ["-o", exe], cwd=work)
            if p.returncode != 0:
                skipped.append("%s: build failed: %s" % (v.name, (p.stdout + p.stderr)[-300:]))
                continue
            env = {k: {"@exclude": spec, "@plugins": work}.get(val, val)
                   for k, val in v.env.items()}
            def per_call(whole=False):
                i1 = instructions(exe, a.n1, env, work, whole)
                i2 = instructions(exe, a.n2, env, work, whole)
                return (i2 - i1) * 10 / (11 * (a.n2 - a.n1))  # 1.1 calls per iteration, exact

            per = per_call()
            end = None
            if env.get("INSTR_ENABLE_TRACING") == "1":
                end = (per_call(whole=True) - per) / 2  # an enter and an exit record per call
            ns = None if a.check else ns_per_call(exe, a.n, env, work, a.reps)
            rows.append((v, per, end, ns))
            # At the printed precision: the two runs may differ by a few instructions once
            # (not per call; e.g. where a chunk is taken), which must not decide the budget.
            if v.budget and round(per, 1) > BUDGET[v.budget]:
                over.append("%s: %.1f instructions per call, budget %d" %
                            (v.name, per, BUDGET[v.budget]))
    finally:
        shutil.rmtree(work, ignore_errors=True)

    base = {r[0].name: r for r in rows}
    tsc = base.get("-finstrument-functions, hooks reading the TSC")
    plain = base.get("uninstrumented (gcc -O2)")
    print("%-52s %12s %11s %9s %12s" % ("variant", "instr/call", "end/record", "ns/call",
                                        "x TSC pair"))
    for v, per, end, ns in rows:
        ratio = "-"
        if ns is not None and tsc and plain and tsc[3] > plain[3]:
            ratio = "%.2f" % ((ns - plain[3]) / (tsc[3] - plain[3]))
        print("%-52s %12.1f %11s %9s %12s" % (v.name, per, "-" if end is None else "%.1f" % end,
                                               "-" if ns is None else "%.2f" % ns, ratio))
    for s in skipped:
        print("not measured: " + s)
    if over:
        print("OVER BUDGET (docs/architecture.md, 'Budgets'):\n  " + "\n  ".join(over))
        return 1 if a.check else 0
    if a.check and (skipped or not rows):
        print("SKIP: a budgeted variant could not be built: " + "; ".join(skipped))
        return SKIP
    return 0


if __name__ == "__main__":
    sys.exit(main())
