#!/usr/bin/env python3
"""One C++ file, one spec, both compiler plugins: the same selection.

    compare_plugins.py --gxx G++ --gcc-plugin instr.so --clangxx CLANG++ \
                       --llvm-plugin libinstr.so --source names.cpp --spec names.spec --work DIR

Compiles SOURCE at -O0 with g++ + instr.so and with clang++ -g + libinstr.so (the LLVM
plugin reads INSTR_FILTER / INSTR_REPORT), then compares the two reports (the shared TSV of
docs/gcc-plugin.md) for the functions defined in SOURCE itself (the libstdc++ headers differ
between the compilers, so what they instantiate does):
  1. the sets of instrumented (include) signatures are identical;
  2. every signature both reports have got the same decisions (verdict, category, reason);
  3. a signature only one compiler reports is a built-in exclusion there (each compiler
     generates its own helpers: g++'s lambda _FUN, clang's __invoke and so on).
Names are compared as the plugins report them, after filter/'s instr_demangled_normalize
(libiberty's spelling). The one exception is a lambda of a non-inline function, which the
compilers *mangle* differently (see pair_internal_lambdas); those are paired and must have
equal decisions. Any other difference in spelling is a failure, listed with both spellings
and the mangled names. Exit 0 = identical.
"""
import argparse
import os
import re
import subprocess
import sys


def run(cmd, env=None):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                       universal_newlines=True)
    if p.returncode != 0:
        sys.exit("FAIL: %s\n%s%s" % (" ".join(cmd), p.stdout, p.stderr))
    return p


def load(path, source):
    rows = []
    with open(path) as f:
        for line in f:
            r = line.rstrip("\n").split("\t")
            if len(r) != 8:
                sys.exit("FAIL: %s: malformed line %r" % (path, line))
            if r[4] == source:
                rows.append(r)
    if not rows:
        sys.exit("FAIL: %s has no function of %s" % (path, source))
    return rows


def by_signature(rows):
    out = {}
    for r in rows:
        out.setdefault(r[2], set()).add((r[0], r[1], r[6]))
    return out


LAMBDA = re.compile(r"\{lambda\([^{}]*\)#\d+\}|\$_\d+")


def pair_internal_lambdas(g, l, mangled, problems, known):
    """The one difference no demangler can remove: clang mangles a lambda of a non-inline
    function as "$_N", numbered per translation unit, where GCC writes the ABI's
    "{lambda(int)#K}", numbered per scope. Pair the two spellings of such functions (the
    same name with every lambda written <lambda>, as many on each side), require equal
    decisions, and take them out of the comparison; every other difference still fails."""
    def only(mine, other, tag, marker):
        out = {}
        for sig in set(mine) - set(other):
            if marker in sig and any("$_" in m if tag == "llvm" else "Ul" in m
                                     for m in mangled[(tag, sig)]):
                out.setdefault(LAMBDA.sub("<lambda>", sig), []).append(sig)
        return out
    g_only, l_only = only(g, l, "gcc", "{lambda("), only(l, g, "llvm", "$_")
    for key in sorted(set(g_only) & set(l_only)):
        gs, ls = sorted(g_only[key]), sorted(l_only[key])
        g_dec = sorted(sorted(g[x]) for x in gs)
        l_dec = sorted(sorted(l[x]) for x in ls)
        if len(gs) != len(ls) or g_dec != l_dec:
            problems.append("internal lambdas %s differ: gcc %s %s, llvm %s %s"
                            % (key, gs, g_dec, ls, l_dec))
        else:
            known.append("%s = %s" % (" ".join(gs), " ".join(ls)))
        for x in gs:
            del g[x]
        for x in ls:
            del l[x]


def main():
    ap = argparse.ArgumentParser()
    for a in ("gxx", "gcc-plugin", "clangxx", "llvm-plugin", "source", "spec", "work"):
        ap.add_argument("--" + a, required=True)
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    source = os.path.realpath(args.source)
    spec = os.path.realpath(args.spec)
    gcc_report = os.path.join(args.work, "gcc.tsv")
    llvm_report = os.path.join(args.work, "llvm.tsv")
    for p in (gcc_report, llvm_report):
        if os.path.exists(p):
            os.unlink(p)

    env = {k: v for k, v in os.environ.items() if not k.startswith("INSTR_")}
    run([args.gxx, "-O0", "-c", source, "-o", os.path.join(args.work, "gcc.o"),
         "-fplugin=" + args.gcc_plugin, "-fplugin-arg-instr-filter=" + spec,
         "-fplugin-arg-instr-report=" + gcc_report], env=env)
    llvm_env = dict(env, INSTR_FILTER=spec, INSTR_REPORT=llvm_report)
    run([args.clangxx, "-O0", "-g", "-c", source, "-o", os.path.join(args.work, "llvm.o"),
         "-fpass-plugin=" + args.llvm_plugin], env=llvm_env)

    g_rows, l_rows = load(gcc_report, source), load(llvm_report, source)
    g, l = by_signature(g_rows), by_signature(l_rows)
    mangled = {}
    for tag, rows in (("gcc", g_rows), ("llvm", l_rows)):
        for r in rows:
            mangled.setdefault((tag, r[2]), set()).add(r[3])

    problems, known = [], []
    pair_internal_lambdas(g, l, mangled, problems, known)
    g_inc = {s for s, d in g.items() if any(v == "include" for v, _, _ in d)}
    l_inc = {s for s, d in l.items() if any(v == "include" for v, _, _ in d)}
    for s in sorted(g_inc - l_inc):
        problems.append("instrumented by gcc only:  %s  [%s]"
                        % (s, " ".join(sorted(mangled[("gcc", s)]))))
    for s in sorted(l_inc - g_inc):
        problems.append("instrumented by llvm only: %s  [%s]"
                        % (s, " ".join(sorted(mangled[("llvm", s)]))))
    for s in sorted(set(g) & set(l)):
        if g[s] != l[s]:
            problems.append("different decisions for %s:\n    gcc:  %s\n    llvm: %s"
                            % (s, sorted(g[s]), sorted(l[s])))
    for tag, mine, other in (("gcc", g, l), ("llvm", l, g)):
        for s in sorted(set(mine) - set(other)):
            if any(not (v == "exclude" and c == "built-in") for v, c, _ in mine[s]):
                if s not in g_inc ^ l_inc:  # not already listed above
                    problems.append("only %s reports %s: %s" % (tag, s, sorted(mine[s])))

    print("%s: gcc %d functions (%d instrumented), llvm %d functions (%d instrumented)"
          % (os.path.basename(source), len(g), len(g_inc), len(l), len(l_inc)))
    for k in known:
        print("  known difference (clang mangles lambdas of non-inline functions per "
              "translation unit): " + k)
    if problems:
        print("FAIL: the plugins disagree (%d differences):" % len(problems))
        for p in problems:
            print("  " + p)
        return 1
    print("identical instrumented sets and decisions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
