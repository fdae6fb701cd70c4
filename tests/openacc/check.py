#!/usr/bin/env python3
"""OpenACC's Profiling Interface (runtime/openacc, docs/openacc.md) end to end: progs/
constructs.c, built with gcc -fopenacc and run on the host (GCC's libgomp without an offload
device), with the profile and the trace on. Exactly the events docs/openacc.md lists as
delivered must be `!$acc` regions of source "openacc" at their call paths with exact visits;
the trace must read with otf2-print -A -Werror with paradigm OPENACC. Usage:
check.py CASE --wrapper bin/instr --runtime libinstr-rt.so --src DIR --work DIR
Exit 77 (skipped) when gcc cannot build -fopenacc.
"""
import argparse
import os
import re
import subprocess
import sys
import tarfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from cases import Fail, clean_env, expect, fresh_dir, run_case  # noqa: E402  tests/lib/cases.py
import otf2check as T  # noqa: E402  tests/lib/otf2check.py
import recorded as R  # noqa: E402  tests/lib/recorded.py

A = None
SKIP = 77
OUTPUT = "sum 2007996"


def pragma_line(text):
    """The line of progs/constructs.c that is `text` (stripped)."""
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "progs",
                           "constructs.c")) as f:
        for i, line in enumerate(f, 1):
            if line.strip() == text:
                return i
    raise Fail("constructs.c has no line %r" % text)


def at(what, pragma):
    """A construct's region name: "!$acc <what> @constructs.c:<line of its pragma>"."""
    return "!$acc %s @constructs.c:%d" % (what, pragma_line(pragma))


# What libgomp delivers on the host (docs/openacc.md): device init once (at the first
# construct), each compute construct as "parallel" (kernels and serial too), a data construct
# from its entry to its exit, enter data, exit data, update; nothing for wait. Each region is
# named by the source line of its construct's call into libgomp.
PAR_LOOP = at("parallel", "#pragma acc parallel loop copyin(a) copyout(b)")
INIT = at("device init", "#pragma acc parallel loop copyin(a) copyout(b)")
KERNELS = at("parallel", "#pragma acc kernels")
SERIAL = at("parallel", "#pragma acc serial")
DATA = at("data", "#pragma acc data copy(a)")
PAR_IN_DATA = at("parallel", "#pragma acc parallel loop")
UPDATE = at("update", "#pragma acc update self(a)")
ENTER = at("enter data", "#pragma acc enter data copyin(b)")
EXIT = at("exit data", "#pragma acc exit data copyout(b)")
PAR_ASYNC = at("parallel", "#pragma acc parallel loop async(1)")
# Call path (region names, outermost first) -> visits: every node of the program built
# through instr (progs/constructs.c counts the constructs of each function).
TREE = {
    ("main",): 1,
    ("main", "parallel_loops"): 1,
    ("main", "parallel_loops", INIT): 1,
    ("main", "parallel_loops", PAR_LOOP): 3,
    ("main", "kernels_part"): 1,
    ("main", "kernels_part", KERNELS): 1,
    ("main", "serial_part"): 1,
    ("main", "serial_part", SERIAL): 1,
    ("main", "data_region"): 2,
    ("main", "data_region", DATA): 2,
    ("main", "data_region", DATA, PAR_IN_DATA): 2,
    ("main", "data_region", DATA, UPDATE): 2,
    ("main", "unstructured"): 1,
    ("main", "unstructured", ENTER): 1,
    ("main", "unstructured", EXIT): 1,
    ("main", "waits"): 1,
    ("main", "waits", PAR_ASYNC): 1,
}
# The same program not built through instr: the OpenACC regions alone.
TREE_PLAIN = {p[2:]: v for p, v in TREE.items() if len(p) > 2}
# Region -> OTF2 role (runtime/trace/defs.c)
ROLES = {PAR_LOOP: "PARALLEL", KERNELS: "PARALLEL", SERIAL: "PARALLEL",
         PAR_IN_DATA: "PARALLEL", PAR_ASYNC: "PARALLEL", DATA: "CODE",
         UPDATE: "DATA_TRANSFER", ENTER: "DATA_TRANSFER", EXIT: "DATA_TRANSFER", INIT: "CODE"}


def can_build_openacc():
    """None when gcc builds and runs an OpenACC program, else the reason it does not."""
    wd = fresh_dir(os.path.join(A.work, A.case, "probe"))  # cases run in parallel
    src = os.path.join(wd, "probe.c")
    with open(src, "w") as f:
        f.write("int main(void)\n{\n    int x = 0;\n#pragma acc parallel copy(x)\n"
                "    x = 1;\n    return x - 1;\n}\n")
    try:
        p = subprocess.run(["gcc", "-fopenacc", src, "-o", os.path.join(wd, "probe")],
                           cwd=wd, capture_output=True, text=True)
    except OSError as e:
        return "gcc cannot be run: %s" % e
    if p.returncode != 0:
        return "gcc cannot build -fopenacc: %s" % p.stderr.strip()[-500:]
    p = subprocess.run([os.path.join(wd, "probe")], cwd=wd, capture_output=True, text=True)
    if p.returncode != 0:
        return "an OpenACC program built by gcc does not run: %s" % p.stderr.strip()[-500:]
    return None


def build(name, through_instr=True, prog="constructs.c", flags=("-fopenacc", "-g")):
    wd = fresh_dir(os.path.join(A.work, A.case, "build"))
    exe = os.path.join(wd, name)
    cmd = ["gcc", "-O1"] + list(flags) + [os.path.join(A.src, prog), "-o", exe]
    R.sh(([A.wrapper] if through_instr else []) + cmd, wd, tail=3000)
    return exe


def run(exe, env=None, output=OUTPUT):
    rd = fresh_dir(os.path.join(A.work, A.case, "run"))
    exp = os.path.join(rd, "exp")
    e = {"INSTR_EXPERIMENT_DIRECTORY": exp, "INSTR_ENABLE_TRACING": "1", "INSTR_VERBOSE": "2"}
    e.update(env or {})
    p = subprocess.run([exe], cwd=rd, env=clean_env(e, ("ACC_PROFLIB", "LD_PRELOAD")),
                       capture_output=True, text=True, timeout=240)
    expect(p.returncode == 0, "exit %d: %s" % (p.returncode, p.stderr[-3000:]))
    expect(output in p.stdout, "output lacks %r: %r" % (output, p.stdout))
    return exp, p.stderr


def tree(exp):
    prof = R.load(exp)
    return {r["id"]: r for r in prof["regions"]}, R.visits_by_chain(prof)


def check_profile(exp, want, what):
    regions, got = tree(exp)
    for r in regions.values():
        if r["name"].startswith("!$acc"):
            expect(r["source"] == "openacc", "%s: region %r" % (what, r))
    expect(got == want, "%s: call tree\n  got  %r\n  want %r" % (what, sorted(got.items()),
                                                               sorted(want.items())))


def check_trace(exp, want, what):
    try:
        tr = T.load(os.path.join(exp, "traces.otf2"))
    except T.TraceError as e:
        raise Fail("%s: %s" % (what, e))
    probs = tr.problems()
    expect(not probs, "%s: trace: %s" % (what, probs[:5]))
    enters = tr.enters_by_region()
    for name, role in ROLES.items():
        r = tr.region_by_name(name)
        expect(r and r["role"] == role and r["paradigm"] == "OPENACC" and
               r["description"] == "openacc", "%s: trace region %r" % (what, r))
        n = sum(v for p, v in want.items() if p[-1] == name)
        expect(enters.get(name) == n, "%s: %s entered %r times, expected %d"
               % (what, name, enters.get(name), n))


def check_cube(exp, what):
    """profile.cubex's anchor.xml: each OpenACC region with paradigm openacc."""
    with tarfile.open(os.path.join(exp, "profile.cubex")) as t:
        xml = t.extractfile("anchor.xml").read().decode()
    regions = re.findall(r"<region [^>]*>\s*<name>([^<]*)</name>\s*<mangled_name>[^<]*"
                         r"</mangled_name>\s*<paradigm>([^<]*)</paradigm>", xml)
    got = {n: p for n, p in regions}
    for name in ROLES:
        expect(got.get(name) == "openacc", "%s: profile.cubex region %r: paradigm %r"
               % (what, name, got.get(name)))


def check_all(exp, want, what):
    check_profile(exp, want, what)
    check_cube(exp, what)
    check_trace(exp, want, what)


def case_gcc():
    """Built through the instr wrapper: the runtime registers by itself at start-up."""
    exp, err = run(build("constructs"))
    expect("openacc: callbacks registered" in err, "gcc: no registration: %s" % err[-2000:])
    check_all(exp, TREE, "gcc")


def compute(n=1):
    return ["compute_construct_start 0 0", "compute_construct_end 0 0"] * n


def data_construct():
    return (["enter_data_start 3 0", "enter_data_end 3 0"] + compute() +
            ["update_start 12 0", "update_end 12 0", "exit_data_start 3 0", "exit_data_end 3 0"])


# Every delivery of progs/events.c (a callback registered for every event) on the host, in
# order: "<event> <parent construct> <implicit>", each without a source file, line -1. The
# constructs.c functions in main's order: device init at the first construct, 3 parallel,
# kernels, serial (all acc_construct_parallel, 0), 2 data constructs (3) around a parallel
# and an update (12), enter data (4), exit data (5), the async parallel; the waits, launches,
# uploads, downloads, create/delete/alloc/free and shutdown deliver nothing.
EVENTS = (["device_init_start 0 1", "device_init_end 0 1"] + compute(3) + compute() +
          compute() + data_construct() + data_construct() +
          ["enter_data_start 4 0", "enter_data_end 4 0", "exit_data_start 5 0",
           "exit_data_end 5 0"] + compute())


def case_events():
    """Which events libgomp delivers on the host: all registered, exactly EVENTS arrive."""
    exe = build("events", through_instr=False, prog="events.c")
    rd = fresh_dir(os.path.join(A.work, A.case, "run"))
    p = subprocess.run([exe], cwd=rd, env=clean_env(None, ("ACC_PROFLIB", "LD_PRELOAD")),
                       capture_output=True, text=True, timeout=240)
    expect(p.returncode == 0, "events: exit %d: %s" % (p.returncode, p.stderr[-2000:]))
    expect(OUTPUT in p.stdout, "events: output lacks %r: %r" % (OUTPUT, p.stdout))
    got = [line.split(" ", 1)[1] for line in p.stdout.splitlines() if line.startswith("event ")]
    want = [e + " - -1" for e in EVENTS]
    expect(got == want, "events: delivered\n  got  %r\n  want %r" % (got, want))


def case_no_debug():
    """Built without -g: no line table, the constructs are named without their place."""
    exp, _ = run(build("constructs_nodebug", flags=("-fopenacc",)))
    want = {}
    for p, v in TREE.items():
        key = tuple(re.sub(r" @constructs\.c:\d+$", "", n) for n in p)
        want[key] = want.get(key, 0) + v
    check_profile(exp, want, "without -g")


def case_proflib():
    """Plain gcc, the runtime loaded by libgomp from ACC_PROFLIB alone (its static TLS
    needs the tunable: docs/openacc.md)."""
    exp, _ = run(build("constructs_plain", through_instr=False),
                 {"ACC_PROFLIB": A.runtime,
                  "GLIBC_TUNABLES": "glibc.rtld.optional_static_tls=16384"})
    check_all(exp, TREE_PLAIN, "ACC_PROFLIB")


def case_preload():
    """Plain gcc, the runtime preloaded: it registers at start-up, and ACC_PROFLIB naming
    it too registers nothing twice."""
    exe = build("constructs_plain", through_instr=False)
    exp, _ = run(exe, {"LD_PRELOAD": A.runtime})
    check_all(exp, TREE_PLAIN, "preloaded")
    exp, _ = run(exe, {"LD_PRELOAD": A.runtime, "ACC_PROFLIB": A.runtime})
    check_all(exp, TREE_PLAIN, "preloaded and ACC_PROFLIB")


def case_no_openacc():
    """An OpenMP program (libgomp loaded, no OpenACC in it) built through instr: nothing
    registered, so libgomp's interface stays off and allocates nothing."""
    exp, err = run(build("openmp", prog="no_openacc.c", flags=("-fopenmp",)),
                   output="sum 4950")
    expect("openacc: callbacks registered" not in err, "no_openacc: %s" % err[-2000:])
    regions, got = tree(exp)
    expect(not any(r["name"].startswith("!$acc") for r in regions.values()),
           "no_openacc: OpenACC regions %r" % sorted(got))


def main():
    global A
    ap = argparse.ArgumentParser()
    ap.add_argument("case")
    ap.add_argument("--wrapper", required=True)
    ap.add_argument("--runtime", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--work", required=True)
    A = ap.parse_args()
    why = can_build_openacc()
    if why:
        print("skipped: %s" % why)
        return SKIP
    return run_case(globals(), A.case)


if __name__ == "__main__":
    sys.exit(main())
