#!/usr/bin/env python3
"""instr against its peers: three workloads x every configuration, built and run in one session.

Workloads (bench/workloads/):
  calls      C, call-heavy: tiny functions in another translation unit, two recursions
  particles  C++, templates and small inline-able methods (Vec<T,D>, Grid<T>::at, lambdas,
             std::vector, std::sort), the shape of a particle / molecular-dynamics code
  stencil    C, a compute kernel: Jacobi sweeps and a matrix product in a few large functions

Configurations (each against the uninstrumented build of the same compiler):
  uninstrumented (gcc, clang) | -finstrument-functions with empty hooks (gcc, clang: the floor
  of call-based instrumentation) | gcc -pg (gprof) | uftrace record of the -pg build |
  LLVM XRay basic mode (clang -fxray-instrument -fxray-instruction-threshold=1, XRAY_OPTIONS) |
  instr with the LLVM plugin and with the GCC plugin, profile and trace mode, with
  selection_specs/default.spec and with everything instrumented.

Measured per configuration: wall time of the whole process (median over the rounds), its
ratio to the uninstrumented wall time, the workload's own kernel time (kernel_ns=, printed by
the workload around its measured part), the exact number of instrumented calls (from a
counting twin build, the tool's own output or the profile), nanoseconds per instrumented call
((kernel - uninstrumented kernel) / calls), peak resident memory of the process and its
children (wait4), and the bytes the tool wrote. Rounds interleave all configurations, so
drifting machine load hits every configuration alike. Every run's output must carry the
uninstrumented build's checksum: a tool that changed the program's behaviour is reported.

Not a test: no thresholds, no exit status from the figures (the budgets of
docs/architecture.md, "Budgets", are read in docs/performance.md).

Usage: bench/run_all.py [--build DIR] [--rounds N] [--out DIR] [--workloads a,b] [--keep]
Writes DIR/results.csv and DIR/results.md (default DIR: ./bench-results) and prints the table.
"""
import argparse
import glob
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
WL = os.path.join(HERE, "workloads")
ROOT = os.path.dirname(HERE)

WORKLOADS = {
    "calls": {"lang": "c", "srcs": ["calls.c", "calls_ops.c"]},
    "particles": {"lang": "c++", "srcs": ["particles.cpp"]},
    "stencil": {"lang": "c", "srcs": ["stencil.c"]},
}
KERNEL = re.compile(r"kernel_ns=([0-9.]+) checksum=(\S+)")
LAUNCH = re.compile(r"wall_ns=([0-9.]+) maxrss_kib=(\d+) status=(\d+)")
TRACE_SUMMARY = re.compile(r"traces\.otf2: (\d+) events")
PROFILE_ON = {"INSTR_ENABLE_PROFILING": "1", "INSTR_ENABLE_TRACING": "0"}
TRACE_ON = {"INSTR_ENABLE_PROFILING": "0", "INSTR_ENABLE_TRACING": "1"}
# instr's XRay mode: every function gets sleds (no spec); "unpatched" leaves them as no-ops
# (INSTR_XRAY_PATCH=manual and nobody patches), "patched" patches all at start-up.
XRAY_UNPATCHED = dict(PROFILE_ON, INSTR_XRAY_PATCH="manual")
XRAY_PATCHED = dict(PROFILE_ON, INSTR_XRAY_PATCH="startup")
# Below this many instrumented calls per run, the per-call figure would be machine noise.
MIN_CALLS = 100000
XRAY_ENV = {"XRAY_BASIC_OPTIONS": "func_duration_threshold_us=0"}


class Config:
    """One column of the comparison: how to build, how to run, how to count calls."""

    def __init__(self, name, family, build, run="plain", env=None, count="none", base=None):
        self.name = name          # as shown in the table
        self.family = family      # gcc | clang: the compiler, and so the uninstrumented base
        self.build = build        # key of the binary (configs may share one)
        self.run = run            # plain | uftrace | xray
        self.env = env or {}
        self.count = count        # none | twin | uftrace | uftrace-nolib | xray | profile | trace
        self.base = base          # build key of the counting twin, when count == twin


def configs(have):
    c = [Config("uninstrumented", "gcc", "plain-gcc"),
         Config("uninstrumented", "clang", "plain-clang"),
         Config("-finstrument-functions, empty hooks", "gcc", "cyg-gcc", count="twin",
                base="count-gcc"),
         Config("-finstrument-functions, empty hooks", "clang", "cyg-clang", count="twin",
                base="count-clang"),
         Config("-finstrument-functions, hooks reading the TSC", "gcc", "tsc-gcc", count="twin",
                base="count-gcc")]
    if have["pg"]:
        c.append(Config("gcc -pg (gprof)", "gcc", "pg", count="uftrace-nolib"))
    if have["uftrace"]:
        c.append(Config("uftrace record (-pg build)", "gcc", "pg", run="uftrace",
                        count="uftrace"))
    if have["xray"]:
        c.append(Config("XRay basic mode (threshold 1)", "clang", "xray", run="xray",
                        env=XRAY_ENV, count="xray"))
    if have["llvm_plugin"]:
        c.append(Config("instr XRay sleds, unpatched", "clang", "instr-xray",
                        env=XRAY_UNPATCHED))
        c.append(Config("instr XRay sleds, patched, profile", "clang", "instr-xray",
                        env=XRAY_PATCHED, count="profile"))
    for fam, ok in (("clang", have["llvm_plugin"]), ("gcc", have["gcc_plugin"])):
        if not ok:
            continue
        plugin = "instr LLVM plugin" if fam == "clang" else "instr GCC plugin"
        for spec in ("default", "all"):
            what = "default.spec" if spec == "default" else "everything"
            c.append(Config("%s, profile, %s" % (plugin, what), fam, "instr-%s-%s" % (fam, spec),
                            env=PROFILE_ON, count="profile"))
            c.append(Config("%s, trace, %s" % (plugin, what), fam, "instr-%s-%s" % (fam, spec),
                            env=TRACE_ON, count="trace"))
    return c


def sh(cmd, cwd, env=None):
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def clean_env(extra):
    e = {k: v for k, v in os.environ.items()
         if not k.startswith(("INSTR_", "XRAY_", "UFTRACE_"))}
    e.update(extra)
    return e


def dir_bytes(d):
    total = 0
    for root, _, files in os.walk(d):
        for f in files:
            try:
                total += os.lstat(os.path.join(root, f)).st_size
            except OSError:
                pass
    return total


def build_all(a, work, instr, have, spec, workloads):
    """Builds every binary; returns {(workload, build key): path} and the build failures."""
    out, failed = {}, []
    tools = {"gcc": ("gcc", "g++"), "clang": ("clang", "clang++")}
    objs = {}
    rc, _, err = sh(["gcc", "-O2", "-std=c11", os.path.join(HERE, "launch.c"), "-o",
                     os.path.join(work, "launch")], work)
    if rc != 0:
        raise SystemExit("bench: cannot build the launcher: %s" % err.strip()[:300])
    for h in ("empty_hooks", "count_hooks", "clock_hooks"):
        o = os.path.join(work, h + ".o")
        rc, _, err = sh(["gcc", "-O2", "-c", os.path.join(HERE, h + ".c"), "-o", o], work)
        if rc == 0:
            objs[h] = o
        else:
            failed.append("%s.o: %s" % (h, err.strip()[:200]))
    for w in workloads:
        d = WORKLOADS[w]
        srcs = [os.path.join(WL, s) for s in d["srcs"]]
        cxx = d["lang"] == "c++"
        builds = {}
        for fam in ("gcc", "clang"):
            cc = tools[fam][1 if cxx else 0]
            builds["plain-" + fam] = [cc, "-O2"] + srcs
            if "empty_hooks" in objs:
                builds["cyg-" + fam] = [cc, "-O2", "-finstrument-functions"] + srcs + \
                    [objs["empty_hooks"]]
            if "clock_hooks" in objs and fam == "gcc":
                builds["tsc-" + fam] = [cc, "-O2", "-finstrument-functions"] + srcs + \
                    [objs["clock_hooks"]]
            if "count_hooks" in objs:
                builds["count-" + fam] = [cc, "-O2", "-finstrument-functions"] + srcs + \
                    [objs["count_hooks"]]
            plug = have["llvm_plugin"] if fam == "clang" else have["gcc_plugin"]
            if plug:
                builds["instr-%s-default" % fam] = [instr, "--filter=" + spec, cc, "-O2"] + srcs
                builds["instr-%s-all" % fam] = [instr, cc, "-O2"] + srcs
                if fam == "clang":
                    builds["instr-xray"] = [instr, "--mode=xray", cc, "-O2"] + srcs
        if have["pg"]:
            builds["pg"] = [tools["gcc"][1 if cxx else 0], "-O2", "-pg"] + srcs
        if have["xray"]:
            builds["xray"] = [tools["clang"][1 if cxx else 0], "-O2", "-fxray-instrument",
                              "-fxray-instruction-threshold=1"] + srcs
        for key, cmd in builds.items():
            exe = os.path.join(work, "%s.%s" % (w, key))
            rc, _, err = sh(cmd + ["-o", exe], work, clean_env({}))
            if rc == 0:
                out[(w, key)] = exe
            else:
                failed.append("%s %s: %s" % (w, key, err.strip()[:300]))
                print("bench: %s/%s not built: %s" % (w, key, err.strip()[:300]), file=sys.stderr)
    return out, failed


def run_once(exe, cfg, rundir, work):
    """One timed run in a fresh directory; returns (wall s, kernel ns, checksum, maxrss KiB,
    bytes written, stderr)."""
    os.makedirs(rundir)
    env = clean_env(cfg.env)
    env["INSTR_EXPERIMENT_DIRECTORY"] = os.path.join(rundir, "instr-exp")
    if cfg.run == "uftrace":
        argv = ["uftrace", "record", "--no-pager", "-d", os.path.join(rundir, "uftrace.data"),
                exe]
    elif cfg.run == "xray":
        env["XRAY_OPTIONS"] = ("patch_premain=true xray_mode=xray-basic verbosity=0 "
                               "xray_logfile_base=%s/xray-log." % rundir)
        argv = [exe]
    else:
        argv = [exe]
    so, se = os.path.join(work, "stdout.txt"), os.path.join(work, "stderr.txt")
    res = os.path.join(work, "launch.txt")
    with open(so, "w") as fo, open(se, "w") as fe:
        rc = subprocess.run([os.path.join(work, "launch"), res] + argv, cwd=rundir, env=env,
                            stdout=fo, stderr=fe).returncode
    if rc != 0:
        raise RuntimeError("launcher failed: %s" % open(se).read().strip()[:300])
    m = LAUNCH.search(open(res).read())
    wall, maxrss, code = float(m.group(1)) / 1e9, int(m.group(2)), int(m.group(3))
    stdout, stderr = open(so).read(), open(se).read()
    if code != 0:
        raise RuntimeError("%s exited with %d: %s" % (" ".join(argv), code,
                                                      stderr.strip()[:300]))
    m = KERNEL.search(stdout)
    if not m:
        raise RuntimeError("%s printed no kernel_ns=: %r" % (exe, stdout[:200]))
    return wall, float(m.group(1)), m.group(2), maxrss, dir_bytes(rundir), stderr


def count_calls(cfg, w, exes, rundir, work, first_stderr):
    """Exact number of instrumented calls (enter events) of one run of this configuration."""
    if cfg.count == "none":
        return 0
    if cfg.count == "twin":
        exe = exes.get((w, cfg.base))
        if not exe:
            return None
        rc, _, err = sh([exe], work, clean_env({}))
        m = re.search(r"bench-calls=(\d+)", err)
        return int(m.group(1)) if rc == 0 and m else None
    if cfg.count in ("uftrace", "uftrace-nolib"):
        data = os.path.join(rundir, "uftrace.data")
        shutil.rmtree(data, ignore_errors=True)
        rec = ["uftrace", "record", "--no-pager", "-d", data]
        if cfg.count == "uftrace-nolib":
            rec.append("--no-libcall")  # gprof's mcount sits in the program's own functions only
        rc, _, _ = sh(rec + [exes[(w, cfg.build)]], rundir, clean_env({}))
        if rc != 0:
            return None
        rc, out, _ = sh(["uftrace", "report", "--no-pager", "-d", data, "-f", "call"], rundir)
        shutil.rmtree(data, ignore_errors=True)
        if rc != 0:
            return None
        total = 0
        for line in out.splitlines():
            parts = line.split()
            # "linux:schedule" rows are pre-emptions uftrace records, not calls of the program
            if len(parts) >= 2 and parts[0].isdigit() and not parts[1].startswith("linux:"):
                total += int(parts[0])
        return total
    if cfg.count == "xray":
        # xray-basic: a 32-byte file header, then one 32-byte record per entry and per exit
        logs = glob.glob(os.path.join(rundir, "xray-log.*"))
        return sum((os.path.getsize(f) - 32) // 64 for f in logs) if logs else None
    if cfg.count == "profile":
        try:
            with open(os.path.join(rundir, "instr-exp", "profile.json")) as f:
                return sum(r["visits"] for r in json.load(f)["flat"])
        except (OSError, ValueError, KeyError):
            return None
    if cfg.count == "trace":
        m = TRACE_SUMMARY.search(first_stderr)
        return int(m.group(1)) // 2 if m else None
    return None


def machine():
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    def ver(cmd):
        try:
            return subprocess.run(cmd, capture_output=True, text=True).stdout.splitlines()[0]
        except (OSError, IndexError):
            return "absent"
    return {"cpu": model, "cores": os.cpu_count(), "kernel": platform.release(),
            "gcc": ver(["gcc", "-dumpfullversion"]), "clang": ver(["clang", "--version"]),
            "uftrace": ver(["uftrace", "--version"]),
            "load": " ".join("%.2f" % x for x in os.getloadavg())}


def fmt(x, spec):
    return "-" if x is None else spec % x


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"),
                    help="instr build or install tree (holds bin/instr)")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--out", default="bench-results")
    ap.add_argument("--workloads", default=",".join(WORKLOADS))
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    a = ap.parse_args()
    workloads = [w for w in a.workloads.split(",") if w]
    for w in workloads:
        if w not in WORKLOADS:
            ap.error("unknown workload %r (have: %s)" % (w, ", ".join(WORKLOADS)))
    prefix = os.path.abspath(a.build)
    instr = os.path.join(prefix, "bin", "instr")
    if not os.access(instr, os.X_OK):
        ap.error("%s is not an instr build tree (no bin/instr); build it first: "
                 "cmake -S . -B build -G Ninja && cmake --build build" % prefix)
    spec = os.path.join(ROOT, "selection_specs", "default.spec")
    started = time.time()
    clang_major = ""
    m = re.search(r"version (\d+)", machine()["clang"])
    if m:
        clang_major = m.group(1)
    have = {
        "pg": shutil.which("gcc") is not None,
        "uftrace": shutil.which("uftrace") is not None,
        "xray": shutil.which("clang") is not None,
        "llvm_plugin": bool(clang_major) and os.path.exists(
            os.path.join(prefix, "lib", "instr", "llvm-" + clang_major, "libinstr.so")),
        "gcc_plugin": bool(glob.glob(os.path.join(prefix, "lib", "instr", "gcc-*", "instr.so"))),
    }
    cfgs = configs(have)
    work = tempfile.mkdtemp(prefix="instr-bench.")
    try:
        exes, failed = build_all(a, work, instr, have, spec, workloads)
        built = time.time()
        runs = [(w, c) for w in workloads for c in cfgs if (w, c.build) in exes]
        samples = {(w, c.name, c.family): [] for w, c in runs}
        calls, checks, errors = {}, {}, {}
        seq = 0
        for r in range(a.rounds):
            # rotate the order every round: no configuration always runs after the same one
            k = (r * len(runs)) // max(a.rounds, 1)
            for w, c in runs[k:] + runs[:k]:
                key = (w, c.name, c.family)
                if key in errors:
                    continue
                seq += 1
                rundir = os.path.join(work, "run%d" % seq)
                try:
                    res = run_once(exes[(w, c.build)], c, rundir, work)
                except RuntimeError as e:
                    errors[key] = str(e)
                    print("bench: %s / %s (%s): %s" % (w, c.name, c.family, e), file=sys.stderr)
                    shutil.rmtree(rundir, ignore_errors=True)
                    continue
                samples[key].append(res[:5])
                checks.setdefault(key, set()).add(res[2])
                if key not in calls:
                    calls[key] = count_calls(c, w, exes, rundir, work, res[5])
                shutil.rmtree(rundir, ignore_errors=True)
        finished = time.time()
    finally:
        if a.keep:
            print("bench: work directory kept: %s" % work, file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)

    rows = []
    med = {}
    for w, c in runs:
        key = (w, c.name, c.family)
        s = samples[key]
        if not s:
            continue
        med[key] = (statistics.median(x[0] for x in s), statistics.median(x[1] for x in s),
                    statistics.median(x[3] for x in s), statistics.median(x[4] for x in s))
    for w, c in runs:
        key = (w, c.name, c.family)
        if key not in med:
            rows.append({"workload": w, "configuration": c.name, "compiler": c.family,
                         "note": errors.get(key, "no run")})
            continue
        wall, kern, rss, size = med[key]
        base = med.get((w, "uninstrumented", c.family))
        floor = med.get((w, "-finstrument-functions, empty hooks", c.family))
        n = calls.get(key)
        ns = None
        if base and n and n >= MIN_CALLS:
            ns = (kern - base[1]) / n
        floor_ns = None
        fn = calls.get((w, "-finstrument-functions, empty hooks", c.family))
        if floor and base and fn and fn >= MIN_CALLS:
            floor_ns = (floor[1] - base[1]) / fn
        ref = checks.get((w, "uninstrumented", c.family), set())
        note = ""
        if checks.get(key) and ref and checks[key] != ref:
            note = "checksum differs from the uninstrumented build: %s" % sorted(checks[key])
        rows.append({
            "workload": w, "configuration": c.name, "compiler": c.family,
            "runs": len(samples[key]), "wall_ms": wall * 1e3,
            "ratio": wall / base[0] if base else None,
            "kernel_ms": kern / 1e6, "kernel_ratio": kern / base[1] if base and base[1] else None,
            "calls": n, "ns_per_call": ns,
            "vs_empty_hooks": ns / floor_ns if ns is not None and floor_ns and floor_ns > 0
            and c.name != "-finstrument-functions, empty hooks" else None,
            "peak_rss_mib": rss / 1024.0, "output_bytes": size, "note": note})
    for f in failed:
        print("bench: not built: %s" % f, file=sys.stderr)

    mach = machine()
    os.makedirs(a.out, exist_ok=True)
    cols = ["workload", "configuration", "compiler", "runs", "wall_ms", "ratio", "kernel_ms",
            "kernel_ratio", "calls", "ns_per_call", "vs_empty_hooks", "peak_rss_mib",
            "output_bytes", "note"]
    with open(os.path.join(a.out, "results.csv"), "w") as f:
        f.write(",".join(cols) + "\n")
        for r in rows:
            vals = []
            for col in cols:
                v = r.get(col)
                if v is None:
                    v = ""
                elif isinstance(v, float):
                    v = "%.4g" % v
                v = str(v)
                if "," in v or '"' in v:
                    v = '"%s"' % v.replace('"', '""')
                vals.append(v)
            f.write(",".join(vals) + "\n")
    md = []
    md.append("Machine: %s, %d cores, Linux %s; load average at the end %s." %
              (mach["cpu"], mach["cores"], mach["kernel"], mach["load"]))
    md.append("Compilers: gcc %s, %s; %s." % (mach["gcc"], mach["clang"], mach["uftrace"]))
    md.append("Median of %d interleaved rounds; build %.0f s, runs %.0f s." %
              (a.rounds, built - started, finished - built))
    md.append("")
    md.append("| workload | configuration | cc | wall ms | x wall | kernel ms | x kernel | "
              "instrumented calls | ns/call | x empty hooks | peak MiB | output |")
    md.append("|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    for r in rows:
        if "wall_ms" not in r:
            md.append("| %s | %s | %s | not measured: %s |||||||||" %
                      (r["workload"], r["configuration"], r["compiler"], r["note"]))
            continue
        size = r["output_bytes"]
        out = ("%.1f MB" % (size / 1e6)) if size >= 1e5 else ("%d B" % size if size else "-")
        md.append("| %s | %s | %s | %.1f | %s | %.2f | %s | %s | %s | %s | %.1f | %s |%s" % (
            r["workload"], r["configuration"], r["compiler"], r["wall_ms"],
            fmt(r["ratio"], "%.2f"), r["kernel_ms"], fmt(r["kernel_ratio"], "%.1f"),
            fmt(r["calls"], "%d"), fmt(r["ns_per_call"], "%.1f"),
            fmt(r["vs_empty_hooks"], "%.1f"), r["peak_rss_mib"], out,
            (" " + r["note"]) if r["note"] else ""))
    md.append("")
    md.append("wall: the whole process, median; x wall: against the uninstrumented build of the "
              "same compiler. kernel: the workload's measured part (start-up and writing "
              "results excluded). ns/call: (kernel - uninstrumented kernel) / instrumented "
              "calls, shown from %d calls on. x empty hooks: ns/call over the same compiler's "
              "empty -finstrument-functions hook pair. peak: maximum resident set of the "
              "process and its children. output: bytes the tool wrote." % MIN_CALLS)
    text = "\n".join(md) + "\n"
    with open(os.path.join(a.out, "results.md"), "w") as f:
        f.write(text)
    print(text)
    print("bench: wrote %s and %s" % (os.path.join(a.out, "results.csv"),
                                      os.path.join(a.out, "results.md")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
