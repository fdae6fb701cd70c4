#!/usr/bin/env python3
"""The instrumented program has the shape of the uninstrumented one (docs/architecture.md,
"Budgets"; docs/gcc-plugin.md "Where the hooks end up"): every SRC is compiled at -O2 and
-O3 without and with the GCC plugin (everything instrumented, no spec), and the sets of functions the
two objects define (nm: text, weak and ifunc symbols, local ones included) must be
identical; the descriptors are data and not compared. A function that GCC inlines without
the plugin but leaves out of line with it (or the reverse, or a clone or split part made in
one build only) fails the test, named.

With the default placement (inline=after) the instrumented object must also hold exactly
one descriptor per emitted body of an included function (a clone or split part is a body
of its own) and none for anything else, so the test cannot pass with a plugin that
instruments nothing.

--openmp SRC (C, compiled with -fopenmp): the same, and the OpenMP construct markers
(gcc_plugin/omp_constructs.cc) change nothing but themselves: the objects call the same
GOMP_* entry points, the instrumented one the markers too; compiled without -fopenmp, the
plugin inserts no marker.

--inline before --expect-difference is the negative control: with the hooks in place before
inlining, GCC inlines less, and the test then requires that the comparison finds it.

usage: out_of_line.py --gcc GCC --gxx GXX [--gfortran GFORTRAN] --plugin instr.so --work DIR
                      [--inline after|before] [--expect-difference] [--openmp SRC]... SRC...
"""
import argparse
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gcc_plugin_test import (ElfObject, Failure, base_function, exit_status,  # noqa: E402
                             read_report, run)

FUNCTION_TYPES = set("tTwWi")


def is_cold_part(name):
    """f.cold: the part of f's body GCC moved to .text.unlikely (code that runs rarely, e.g.
    the landing pads of unwinding paths); a piece of f, not a function of its own. The exit
    on an unwinding path the plugin adds is such code, so f.cold may exist with the plugin
    only."""
    return name.endswith(".cold") or ".cold." in name


def functions(obj):
    names = set()
    for line in run(["nm", "--defined-only", obj]).stdout.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in FUNCTION_TYPES and not is_cold_part(f[2]):
            names.add(f[2])
    return names


def undefined(obj):
    return {f.split()[-1] for f in run(["nm", "--undefined-only", obj]).stdout.splitlines()
            if f.strip()}


MARKERS = {"__instr_gomp_construct_begin", "__instr_gomp_construct_end"}


def check_openmp(args, src, opt, plain, instr):
    """The markers are the only calls the plugin adds to an OpenMP program's constructs, and
    none without -fopenmp."""
    problems = []
    a, b = undefined(plain), undefined(instr)
    gomp = lambda names: {n for n in names if n.startswith("GOMP_")}  # noqa: E731
    if gomp(a) != gomp(b):
        problems.append("GOMP_* calls differ: only with the plugin %s, only without %s"
                        % (shortlist(gomp(b) - gomp(a)), shortlist(gomp(a) - gomp(b))))
    if not MARKERS <= b:
        problems.append("no construct markers with -fopenmp: %s" % shortlist(b - a))
    serial = instr.replace(".instr.o", ".serial.o")
    run([args.gcc, opt, "-c", src, "-o", serial, "-fplugin=" + args.plugin], cwd=args.work)
    if MARKERS & undefined(serial):
        problems.append("construct markers without -fopenmp")
    return problems


def shortlist(names, n=6):
    names = sorted(names)
    if not names:
        return "none"
    more = " and %d more" % (len(names) - n) if len(names) > n else ""
    return ", ".join(names[:n]) + more


def check_descriptors(obj, report):
    """One descriptor per emitted body of an included function, none for anything else."""
    included = {r[3] for r in read_report(report) if r[0] == "include"}
    if not included:
        raise Failure("%s: the plugin included no function: the comparison proves nothing"
                      % report)
    elf = ElfObject(obj)
    bodies = {}
    for sec, value, _, name in elf.functions:
        if is_cold_part(name):
            continue
        if base_function(name) in included:
            bodies.setdefault((sec, value), set()).add(name)
    owners = elf.descriptors()
    problems = []
    for i, names in enumerate(owners):
        if not names:
            problems.append("descriptor %d points at no function" % i)
        elif not any(base_function(n) in included for n in names):
            problems.append("descriptor %d points at %s, which is not included" % (i, names))
    for names in bodies.values():
        hits = [i for i, o in enumerate(owners) if set(o) & names]
        if len(hits) != 1:
            problems.append("%s has %d descriptors, expected 1" % (sorted(names), len(hits)))
    if len(owners) != len(bodies):
        problems.append("%d descriptors for %d emitted included bodies"
                        % (len(owners), len(bodies)))
    return problems, len(bodies)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gcc", required=True)
    ap.add_argument("--gxx", required=True)
    ap.add_argument("--gfortran", help="for .f90 sources")
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--inline", default="after")
    ap.add_argument("--expect-difference", action="store_true")
    ap.add_argument("--openmp", action="append", default=[], help="compiled with -fopenmp")
    ap.add_argument("sources", nargs="+")
    args = ap.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)

    differences, problems = [], []
    for src in args.openmp + args.sources:
        flags = ["-fopenmp"] if src in args.openmp else []
        cc = args.gxx if src.endswith((".cpp", ".cc")) else args.gcc
        if src.endswith(".f90"):
            if not args.gfortran:
                raise Failure("%s needs --gfortran" % src)
            cc = args.gfortran
        base = os.path.splitext(os.path.basename(src))[0]
        for opt in ("-O2", "-O3"):
            plain = os.path.join(args.work, "%s%s.plain.o" % (base, opt))
            instr = os.path.join(args.work, "%s%s.instr.o" % (base, opt))
            report = os.path.join(args.work, "%s%s.tsv" % (base, opt))
            # in the work directory: gfortran writes its .mod files there
            run([cc, opt, "-c", src, "-o", plain] + flags, cwd=args.work)
            run([cc, opt, "-c", src, "-o", instr, "-fplugin=" + args.plugin] + flags + [
                 "-fplugin-arg-instr-inline=" + args.inline,
                 "-fplugin-arg-instr-report=" + report], cwd=args.work)
            a, b = functions(plain), functions(instr)
            what = "%s %s" % (os.path.basename(src), opt)
            if flags:
                problems += ["%s: %s" % (what, x) for x in check_openmp(args, src, opt, plain,
                                                                       instr)]
            if a != b:
                differences.append("%s: out of line only with the plugin: %s; only without: %s"
                                   % (what, shortlist(b - a), shortlist(a - b)))
            if args.inline == "after":
                p, n = check_descriptors(instr, report)
                problems += ["%s: %s" % (what, x) for x in p]
                print("%s: %d functions out of line in both builds, %d instrumented bodies"
                      % (what, len(a), n))
    if args.expect_difference:
        if not differences:
            raise Failure("inline=%s changed no inlining decision: the check would not notice "
                          "a plugin that changes them" % args.inline)
        print("inline=%s changes GCC's decisions, as expected:\n  %s"
              % (args.inline, "\n  ".join(differences)))
        return
    if differences or problems:
        raise Failure("\n".join(differences + problems))


if __name__ == "__main__":
    sys.exit(exit_status(main))
