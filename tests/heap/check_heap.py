#!/usr/bin/env python3
"""The program's heap stays the program's (docs/runtime.md, "The runtime's memory"): trim.c,
whose heap sits on glibc's trim threshold, is built plain and instrumented by one front end
and run under strace in one mode; its own brk/mmap/munmap/mremap calls must be the same
sequence in both runs, and its minor page faults within 5 %.

Whose call is it? strace -k prints the stack of every call. A call with a frame in the
runtime (libinstr-rt, a function named instr_* or __instr_*) or in XRay's own runtime
(__xray_*) is the instrumentation's: the runtime's page allocator maps its chunks with mmap,
and those calls are left out. Every other call is the program's, made by malloc and free for
the program. A block the runtime took from malloc would not hide behind this: the calls that
block causes are the runtime's, but it changes where the program's heap grows and when it is
trimmed, and so the program's own calls. The sequence is compared from the program's marker
"main" (main has begun) to its marker "end" (written with write(2) on fd -1; trim.c), with
brk addresses relative to the break before main, and mmap, munmap and mremap by length
(addresses differ with the runtime's mappings); the plain run needs no stacks (every call is
the program's). The faults are those of the measured
iterations (after one warm-up iteration: first visits are allowed to cost the runtime pages).

Usage: check_heap.py FRONT MODE --wrapper W --cc CC --src trim.c --work DIR
  FRONT: gcc (GCC plugin hooks), clang (LLVM plugin hooks), xray, cyg
  MODE:  profile (the default) or trace (INSTR_ENABLE_TRACING=1, INSTR_ENABLE_PROFILING=0)
"""
import argparse
import os
import re
import subprocess
import sys

ITERATIONS = 100
MARK = "instr-heap-test:"
CALL = re.compile(r'^(?:\d+ +)?(brk|mmap|munmap|mremap|write)\((.*)\) += (\S+)')
OURS = re.compile(r'libinstr-rt|\((?:__)?instr_|\(__xray_')


def fail(why):
    print("FAIL:", why)
    sys.exit(1)


def sh(cmd, env=None):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    if p.returncode != 0:
        fail("%s: exit %d\n%s%s" % (" ".join(cmd), p.returncode, p.stdout, p.stderr))
    return p


def calls(trace_file):
    """[(name, args, result, frames)] in order."""
    out = []
    with open(trace_file) as f:
        for line in f:
            if line.startswith(" > "):
                if out:
                    out[-1][3].append(line)
                continue
            if "<unfinished" in line or "resumed>" in line:
                fail("interleaved calls of two threads in %s: %s" % (trace_file, line))
            m = CALL.match(line)
            if m:
                out.append((m.group(1), m.group(2), m.group(3), []))
            elif not line.startswith(("+++", "---")) and "exited" not in line:
                out.append(("other", line, "", []))
    return out


def program_calls(trace_file):
    """The program's own calls between its markers, normalised; and how many of the
    instrumentation's were left out."""
    seq, base, inside, left_out = [], None, False, 0
    for name, args, res, frames in calls(trace_file):
        if name == "write":
            if MARK + "main" in args:
                inside = True
            elif MARK + "end" in args:
                return seq, left_out
            continue
        if name == "brk" and not inside:
            base = int(res, 16)
        if not inside or name == "other":
            continue
        if any(OURS.search(f) for f in frames):
            left_out += 1
            continue
        a = [x.strip() for x in args.split(",")]
        if name == "brk":
            seq.append(("brk", None if a[0] == "NULL" else int(a[0], 16) - base))
        elif name == "mmap":
            seq.append(("mmap", int(a[1]), a[2], a[3]))
        elif name == "munmap":
            seq.append(("munmap", int(a[1])))
        else:
            seq.append(("mremap", int(a[1]), int(a[2])))
    fail("%s: no end marker" % trace_file)


def run(exe, work, env, stacks):
    """stacks: with strace -k (slow), to tell the instrumentation's calls from the program's;
    a plain run has only the program's."""
    st = os.path.join(work, os.path.basename(exe) + ".strace")
    p = sh(["strace", "-f"] + (["-k"] if stacks else []) +
           ["-qq", "-e", "trace=brk,mmap,munmap,mremap,write", "-o", st, exe, str(ITERATIONS)],
           env)
    m = re.search(r"minor faults (\d+)", p.stdout)
    if not m:
        fail("%s printed no fault count: %r" % (exe, p.stdout))
    return program_calls(st), int(m.group(1)), p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("front", choices=["gcc", "clang", "xray", "cyg"])
    ap.add_argument("mode", choices=["profile", "trace"])
    ap.add_argument("--wrapper", required=True)
    ap.add_argument("--cc", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    work = os.path.join(a.work, a.front + "-" + a.mode)
    os.makedirs(work, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("INSTR_", "GLIBC_TUNABLES",
                                                                     "MALLOC_"))}
    plain = os.path.join(work, "plain")
    inst = os.path.join(work, "inst")
    sh([a.cc, "-O1", a.src, "-o", plain], env)
    wmode = {"gcc": [], "clang": [], "xray": ["--mode=xray"], "cyg": ["--mode=cyg"]}[a.front]
    p = sh([a.wrapper] + wmode + [a.cc, "-O1", a.src, "-o", inst], env)
    if p.stderr.strip():
        fail("the wrapper fell back or warned: %s" % p.stderr)

    (ref, ref_out), ref_faults, _ = run(plain, work, env, False)
    exp = os.path.join(work, "experiment")
    subprocess.run(["rm", "-rf", exp])
    ienv = dict(env, INSTR_EXPERIMENT_DIRECTORY=exp)
    if a.mode == "trace":
        ienv.update(INSTR_ENABLE_TRACING="1", INSTR_ENABLE_PROFILING="0")
    (got, got_out), got_faults, err = run(inst, work, ienv, True)

    # The pattern is what it should be, and the runtime measured.
    if sum(1 for c in ref if c[0] == "brk") < 2 * ITERATIONS:
        fail("the plain program does not grow and trim its heap every iteration (%d brk)"
             % sum(1 for c in ref if c[0] == "brk"))
    made = os.listdir(exp) if os.path.isdir(exp) else []
    want = "traces.otf2" if a.mode == "trace" else "profile.json"
    if want not in made:
        fail("the instrumented run wrote no %s (%s): %s" % (want, made, err))

    if got != ref:
        i = next((k for k in range(min(len(got), len(ref))) if got[k] != ref[k]),
                 min(len(got), len(ref)))
        fail("the program's own calls differ: %d plain, %d instrumented; first difference at "
             "call %d: plain %r, instrumented %r"
             % (len(ref), len(got), i, ref[i:i + 3], got[i:i + 3]))
    if abs(got_faults - ref_faults) > 0.05 * ref_faults:
        fail("minor faults: %d plain, %d instrumented (more than 5 %% apart)"
             % (ref_faults, got_faults))
    print("ok %s %s: %d calls of the program's the same (%d of the runtime's left out), "
          "minor faults %d plain, %d instrumented" % (a.front, a.mode, len(ref), got_out,
                                                      ref_faults, got_faults))


if __name__ == "__main__":
    main()
