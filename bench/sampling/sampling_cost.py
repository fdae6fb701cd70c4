#!/usr/bin/env python3
"""sampling_cost.py — what hybrid sampling (INSTR_SAMPLING=1, docs/sampling.md) costs, on
tests/sampling/progs/hybrid.c built with -O2 -g -finstrument-functions (its kernels left out of
the hooks, so that samples fall beneath the instrumented phases):

  - the handler per sample: instructions (callgrind, deterministic: on_sample and everything it
    calls, divided by the samples it took) and time (the runtime's own clock around the handler,
    INSTR_VERBOSE=1), with the system calls the handler makes per sample (strace -c);
  - the resolution at the end: instructions and time per distinct address, and the part that is
    a fixed cost per object (libdw reading, and decompressing, its debug information);
  - the whole run at 1 kHz against the plain run (the same binary, INSTR_SAMPLING=0), CPU time
    (user + system, the children's rusage), alternating runs in this invocation, the median
    ratio of each pair: once for a short run, once for a longer one, whose difference gives the
    cost per second of run (the signals) apart from the fixed cost (start-up, resolution);
  - memory per thread: the buffer written per sample and per second, the state page, and the
    peak resident size against the plain run.

    bench/sampling/sampling_cost.py BUILD_DIR [--repeats N] [--scales 3,12] [--no-callgrind]
                                    [--debuginfo own|all]   (INSTR_SAMPLING_DEBUGINFO)
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "..", "..", "tests", "sampling", "progs", "hybrid.c")
EXTRA = {}  # INSTR_SAMPLING_DEBUGINFO for every run (--debuginfo)
VERBOSE = re.compile(r"sampling: (\d+) samples in (\d+) signals .*?([\d.]+) us per signal in the "
                     r"handler .*?([\d.]+) bytes of buffer per sample; (\d+) distinct addresses "
                     r"resolved in ([\d.]+) s")


def run(exe, scale, sampling, work, extra=None, prefix=()):
    env = dict(os.environ)
    for k in list(env):
        if k.startswith("INSTR_"):
            del env[k]
    exp = os.path.join(work, "exp")
    shutil.rmtree(exp, ignore_errors=True)
    env.update({"INSTR_EXPERIMENT_DIRECTORY": exp, "INSTR_SAMPLING": "1" if sampling else "0",
                "INSTR_SAMPLING_PERIOD": "1ms", "INSTR_VERBOSE": "1"})
    env.update(extra or {})
    env.update(EXTRA)
    p = subprocess.Popen(list(prefix) + [exe, str(scale)], env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    _, err = p.communicate()
    return err, p.returncode


def timed(exe, scale, sampling, work):
    """CPU seconds (user + sys) of one run, its peak RSS (KiB) and its verbose figures."""
    r0 = os.times()
    err, status = run(exe, scale, sampling, work)
    r1 = os.times()
    if status != 0:
        sys.exit("run failed (%d): %s" % (status, err))
    cpu = (r1.children_user - r0.children_user) + (r1.children_system - r0.children_system)
    m = VERBOSE.search(err)
    return cpu, m


def maxrss(exe, scale, sampling, work):
    out = subprocess.run(["/usr/bin/time", "-f", "%M", "env", "INSTR_EXPERIMENT_DIRECTORY=" +
                          os.path.join(work, "exp-rss"), "INSTR_SAMPLING=%d" % sampling,
                          exe, str(scale)], capture_output=True, text=True)
    shutil.rmtree(os.path.join(work, "exp-rss"), ignore_errors=True)
    return int(out.stderr.strip().splitlines()[-1])


def callgrind(exe, scale, work):
    """Inclusive instructions of the handler, of the resolution at the end and of libdw's
    reading of the objects' DWARF (one run), with the run's verbose figures."""
    out = os.path.join(work, "cg.out")
    env = dict(os.environ, INSTR_EXPERIMENT_DIRECTORY=os.path.join(work, "exp-cg"),
               INSTR_SAMPLING="1", INSTR_VERBOSE="1", **EXTRA)
    p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out,
                        exe, str(scale)], env=env, capture_output=True, text=True)
    shutil.rmtree(os.path.join(work, "exp-cg"), ignore_errors=True)
    ann = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", out],
                         capture_output=True, text=True).stdout
    found = {}
    for line in ann.splitlines():
        m = re.match(r"\s*([\d,]+) \(.*?\)\s+\S*:(on_sample|instr_sampling_attach|"
                     r"dwfl_module_getdwarf) ", line)
        if m and m.group(2) not in found:
            found[m.group(2)] = int(m.group(1).replace(",", ""))
    return found, VERBOSE.search(p.stderr)


def syscalls_per_sample(exe, scale, work):
    if not shutil.which("strace"):
        return None
    out = os.path.join(work, "strace.txt")
    env = dict(os.environ, INSTR_EXPERIMENT_DIRECTORY=os.path.join(work, "exp-st"),
               INSTR_SAMPLING="1", INSTR_VERBOSE="1", **EXTRA)
    p = subprocess.run(["strace", "-c", "-o", out, "-e", "trace=rt_sigprocmask,rt_sigreturn",
                        exe, str(scale)], env=env, capture_output=True, text=True)
    shutil.rmtree(os.path.join(work, "exp-st"), ignore_errors=True)
    m = VERBOSE.search(p.stderr)
    calls = {}
    with open(out) as f:
        for line in f:
            parts = line.split()
            if parts and parts[-1] in ("rt_sigprocmask", "rt_sigreturn"):
                calls[parts[-1]] = int(parts[3])
    return {k: v / int(m.group(2)) for k, v in calls.items()} if m else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--scales", default="3,12")
    ap.add_argument("--no-callgrind", action="store_true")
    ap.add_argument("--debuginfo", choices=("own", "all"), default="own")
    a = ap.parse_args()
    EXTRA["INSTR_SAMPLING_DEBUGINFO"] = a.debuginfo
    lib = os.path.join(os.path.abspath(a.build), "lib")
    work = tempfile.mkdtemp(prefix="instr-sampling-bench.")
    try:
        exe = os.path.join(work, "hybrid")
        subprocess.run(["gcc", "-O2", "-g", "-finstrument-functions",
                        "-finstrument-functions-exclude-function-list=excluded_kernel,"
                        "inlined_kernel", SRC, "-o", exe, "-L" + lib, "-linstr-rt",
                        "-Wl,-rpath," + lib, "-lm", "-pthread"], check=True)
        print("benchmark: tests/sampling/progs/hybrid.c, gcc -O2 -g -finstrument-functions, "
              "1 thread, INSTR_SAMPLING_PERIOD=1ms (thread CPU time), "
              "INSTR_SAMPLING_DEBUGINFO=%s" % a.debuginfo)
        if not a.no_callgrind and shutil.which("valgrind"):
            f, m = callgrind(exe, 1, work)
            if m:
                taken, n = int(m.group(2)), int(m.group(5))
                print("handler, instructions per sample (callgrind, %d samples): %.0f"
                      % (taken, f.get("on_sample", 0) / taken))
                r, d = f.get("instr_sampling_attach", 0), f.get("dwfl_module_getdwarf", 0)
                print("resolution at the end (callgrind): %d instructions for %d distinct "
                      "addresses, %.0f per address; of which reading the objects' DWARF once "
                      "(dwfl_module_getdwarf) %d, the rest %.0f per address"
                      % (r, n, r / n, d, (r - d) / n))
        sc = syscalls_per_sample(exe, 1, work)
        if sc:
            print("system calls per sample in the handler (strace -c): %s"
                  % ", ".join("%s %.2f" % kv for kv in sorted(sc.items())))
        scales = [int(s) for s in a.scales.split(",")]
        per_scale = {}
        for scale in scales:
            ratios, plain_cpu, samp_cpu, figs = [], [], [], []
            for _ in range(a.repeats):
                p, _ = timed(exe, scale, False, work)
                s, m = timed(exe, scale, True, work)
                plain_cpu.append(p)
                samp_cpu.append(s)
                ratios.append(s / p)
                if m:
                    figs.append(m)
            med = statistics.median
            handler = med(float(m.group(3)) for m in figs)
            resol = med(float(m.group(6)) for m in figs)
            samples = med(int(m.group(1)) for m in figs)
            per_scale[scale] = (med(plain_cpu), med(samp_cpu))
            print("scale %d: CPU time plain %.3f s, sampled %.3f s (medians of %d alternating "
                  "runs), ratio %.3f (median of the pairs; range %.3f-%.3f); %d samples, "
                  "handler %.1f us per sample, resolution %.3f s (%s distinct addresses)"
                  % (scale, med(plain_cpu), med(samp_cpu), a.repeats, med(ratios), min(ratios),
                     max(ratios), samples, handler, resol, figs[0].group(5)))
            print("  fastest of each: plain %.3f s, sampled %.3f s: %+.1f %% (on a shared machine the "
                  "minimum is the run least disturbed)" % (min(plain_cpu), min(samp_cpu),
                                                           100 * (min(samp_cpu) / min(plain_cpu) - 1)))
            print("  bytes of buffer per sample: %s" % figs[0].group(4))
        if len(scales) >= 2:
            lo, hi = scales[0], scales[-1]
            dp = per_scale[hi][0] - per_scale[lo][0]
            ds = per_scale[hi][1] - per_scale[lo][1]
            if dp > 0:
                print("per second of run (scale %d minus scale %d): %.3f s more CPU for %.3f s "
                      "of plain run: %+.1f %%; fixed part (start-up and resolution) %.3f s"
                      % (hi, lo, ds - dp, dp, 100 * (ds - dp) / dp,
                         (per_scale[lo][1] - per_scale[lo][0]) - (ds - dp) / dp * per_scale[lo][0]))
        rp = maxrss(exe, scales[0], 0, work)
        rs = maxrss(exe, scales[0], 1, work)
        print("peak resident size, scale %d: plain %d KiB, sampled %d KiB (+%d KiB: the buffer "
              "pages written, the state page, libunwind's and libdw's memory)"
              % (scales[0], rp, rs, rs - rp))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
