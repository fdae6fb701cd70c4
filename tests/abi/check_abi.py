#!/usr/bin/env python3
"""The compiler-runtime ABI check (docs/runtime.md, "ABI"): an object compiled for another
ABI version is refused by the runtime with one line, and the program runs as it does without
instrumentation. One case per invocation; exit 0 = pass.

    check_abi.py CASE --cc CC --plugin-flag FLAG --plugin P --other-plugin P2 --rt LIB
                 --abi N --other-abi M --src DIR --lib DIR --work DIR

CC compiles with FLAG=P (the plugin of this build, ABI N) or FLAG=P2 (the same plugin
compiled for ABI M). Cases:
  dso      the program (ABI N) linked with a library of ABI M
  exe      the program of ABI M linked with a library of ABI N
  dlopen   the program (ABI N) loads a library of ABI M with dlopen, after start-up
Each: stdout and exit code as the plain build's; stderr has exactly one line naming the
object of ABI M and both versions; the profile holds every function of the object of ABI N
with its exact visits, and nothing of the other.
"""
import argparse
import os
import shutil
import subprocess
import sys

# visits of each function per object (progs/main.c, progs/lib.c)
MAIN = {"main": 1, "main_work": 5}
LIB = {"lib_work": 5, "lib_step": 10}


class Failure(Exception):
    pass


def run(cmd, env=None, cwd=None):
    p = subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    return p


def must(cmd):
    p = run(cmd)
    if p.returncode != 0:
        raise Failure("%s\nfailed (%d):\n%s%s" % (" ".join(cmd), p.returncode, p.stdout,
                                                  p.stderr))
    return p


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case", choices=["dso", "exe", "dlopen"])
    for a in ("cc", "plugin_flag", "plugin", "other_plugin", "rt", "src", "lib", "work"):
        ap.add_argument("--" + a.replace("_", "-"), dest=a, required=True)
    ap.add_argument("--abi", type=int, required=True)
    ap.add_argument("--other-abi", dest="other_abi", type=int, required=True)
    args = ap.parse_args()
    sys.path.insert(0, args.lib)
    import profile as P  # tests/lib/profile.py

    work = os.path.abspath(args.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    src = lambda name: os.path.join(args.src, name)
    rtdir = os.path.dirname(os.path.abspath(args.rt))
    rt = ["-L" + rtdir, "-linstr-rt", "-Wl,-rpath," + rtdir]
    this = ["%s=%s" % (args.plugin_flag, args.plugin)]
    other = ["%s=%s" % (args.plugin_flag, args.other_plugin)]
    cc = [args.cc, "-O1", "-g"]
    main_src = src("main_dlopen.c" if args.case == "dlopen" else "main.c")

    # the plain build: no plugin, no runtime
    plain_lib = os.path.join(work, "plain", "libabi.so")
    os.makedirs(os.path.dirname(plain_lib))
    must(cc + ["-shared", "-fPIC", src("lib.c"), "-o", plain_lib])
    plain = os.path.join(work, "plain", "prog")
    if args.case == "dlopen":
        must(cc + [main_src, "-o", plain, "-ldl"])
    else:
        must(cc + [main_src, "-o", plain, plain_lib, "-Wl,-rpath," + os.path.dirname(plain_lib)])

    # the instrumented build: one object of the other ABI version
    lib_flags = other if args.case in ("dso", "dlopen") else this
    main_flags = other if args.case == "exe" else this
    lib = os.path.join(work, "inst", "libabi.so")
    os.makedirs(os.path.dirname(lib))
    must(cc + lib_flags + ["-shared", "-fPIC", src("lib.c"), "-o", lib] + rt)
    prog = os.path.join(work, "inst", "prog")
    if args.case == "dlopen":
        must(cc + main_flags + [main_src, "-o", prog, "-ldl"] + rt)
    else:
        must(cc + main_flags + [main_src, "-o", prog, lib, "-Wl,-rpath," + os.path.dirname(lib)]
             + rt)
    refused, kept = (prog, LIB) if args.case == "exe" else (lib, MAIN)
    gone = MAIN if args.case == "exe" else LIB

    env = {k: v for k, v in os.environ.items() if not k.startswith("INSTR_")}
    exp = os.path.join(work, "experiments")
    os.makedirs(exp)
    env.update(INSTR_EXPERIMENT_DIRECTORY=os.path.join(exp, "exp"),
               INSTR_ENABLE_PROFILING="1", INSTR_ENABLE_TRACING="0")
    extra = [plain_lib] if args.case == "dlopen" else []
    want = run([plain] + extra, env=env)
    # run as ./prog: the line names the object by its path, not by argv[0]
    got = run(["./prog"] + ([lib] if args.case == "dlopen" else []), env=env,
              cwd=os.path.dirname(prog))
    problems = []
    if (got.stdout, got.returncode) != (want.stdout, want.returncode):
        problems.append("output or exit code changed: %r %d, plain %r %d"
                        % (got.stdout, got.returncode, want.stdout, want.returncode))
    line = ("instr: %s: compiled for instrumentation ABI %d, this runtime speaks %d: its "
            "functions are not recorded; rebuild it with this instr"
            % (os.path.realpath(refused), args.other_abi, args.abi))
    lines = got.stderr.splitlines()
    abi_lines = [l for l in lines if "instrumentation ABI" in l]
    if abi_lines != [line]:
        problems.append("expected exactly the line\n  %s\non stderr, got:\n%s"
                        % (line, got.stderr))
    prof = P.load(P.find_experiment(exp))
    problems += list(P.check_consistency(prof))
    counts = P.visits_by_region(prof, short=True)
    for name, n in kept.items():
        if counts.get(name) != n:
            problems.append("%s: %r visits in the profile, expected %d" % (name, counts.get(name), n))
    for name in gone:
        if name in counts:
            problems.append("%s of the refused object is in the profile" % name)
    if problems:
        raise Failure("\n".join(problems))
    print("%s refused with one line; output and exit code unchanged; %s recorded exactly, "
          "nothing of the refused object" % (os.path.basename(refused), sorted(kept)))


if __name__ == "__main__":
    try:
        main()
    except Failure as e:
        print("FAIL: %s" % e)
        sys.exit(1)
