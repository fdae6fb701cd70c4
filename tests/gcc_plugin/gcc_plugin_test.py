#!/usr/bin/env python3
"""Tests of the GCC plugin (instr.so). One test case per invocation; exit 0 = pass.

    gcc_plugin_test.py CASE [SRC OPT] --gcc GCC --gxx GXX --plugin instr.so --src DIR --work DIR
                       [--inline after|before] [...]

Cases
  object SRC OPT      (OPT e.g. O2) compile SRC with SRC's spec; in the object, section
                      instr_regions holds one descriptor (48 bytes) per emitted body of an
                      included function (inline=after, the default: clones and split parts
                      are bodies, a function inlined everywhere has none) or per included
                      function (inline=before); no hook call in an excluded function, enter
                      and exit calls in every included one; with inline=after no function's
                      code refers to another function's descriptor; every descriptor has
                      handle 0 and flags INSTR_REGION_ABI_BITS (instr_abi.h's version)
  run SRC OPT         build SRC plain and instrumented (hooks: count_hooks.c); same stdout
                      and exit code; visit counts exactly as SRC's VISITS lines; ABSENT
                      functions never entered; every exit closes the innermost open region
  runtime-exclusion   a region excluded at run time (handle UINT32_MAX) gets no hook calls
  e2e SRC OPT         like run, against the real runtime (--rt): profile.json visits exact,
                      consistent, no unmatched exits
  errors              bad spec / unknown argument / bad mode / missing values fail the compile
                      with the documented messages
  report              verbose line and report TSV format (docs/gcc-plugin.md)
--inline PLACEMENT passes -fplugin-arg-instr-inline=PLACEMENT (default: none, the plugin's
default, after). Expected counts: "VISITS n name" lines of SRC, overridden by
"VISITS[after-O2] n name" (placement and level) or "VISITS[after] n name" (placement) lines;
"VISITS 0" = never entered. A "CFLAGS ..." line adds compiler flags to both builds; a
"SYMBOL[O3] name" line makes the object test require that function at that level.
Python 3 standard library only; needs objdump and readelf (binutils).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

HOOKS = ("__instr_enter", "__instr_exit")
REGION_SIZE = 48  # sizeof(struct instr_region) on LP64
ABI_HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "runtime",
                          "include", "instr_abi.h")


def abi_version():
    """INSTR_ABI_VERSION of runtime/include/instr_abi.h."""
    with open(ABI_HEADER) as f:
        m = re.search(r"^#define INSTR_ABI_VERSION (\d+)$", f.read(), re.M)
    return int(m.group(1))


def section_bytes(obj, name, work):
    out = os.path.join(work, name + ".bin")
    run(["objcopy", "-O", "binary", "--only-section=" + name, obj, out])
    with open(out, "rb") as f:
        return f.read()


class Failure(Exception):
    pass


def exit_status(fn, *fn_args):
    """Runs fn(*fn_args): 0, or 1 after printing "FAIL: why" for a Failure (the drivers of
    tests/gcc_plugin share this ending)."""
    try:
        fn(*fn_args)
    except Failure as e:
        print("FAIL: %s" % e)
        return 1
    return 0


def run(cmd, env=None, check=True, cwd=None):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd,
                       universal_newlines=True)
    if check and p.returncode != 0:
        raise Failure("command failed (%d): %s\n%s%s" % (p.returncode, " ".join(cmd), p.stdout,
                                                         p.stderr))
    return p


def compiler_for(args, src):
    return args.gxx if src.endswith((".cpp", ".cc", ".C")) else args.gcc


def spec_for(args, src):
    spec = os.path.join(args.src, os.path.splitext(os.path.basename(src))[0] + ".spec")
    return spec if os.path.exists(spec) else None


def plugin_flags(args, spec=None, report=None, extra=()):
    flags = ["-fplugin=" + args.plugin]
    if args.inline:
        flags.append("-fplugin-arg-instr-inline=" + args.inline)
    if spec:
        flags.append("-fplugin-arg-instr-filter=" + spec)
    if report:
        flags.append("-fplugin-arg-instr-report=" + report)
    return flags + list(extra)


def read_report(path):
    rows = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.endswith("\n"):
                raise Failure("%s:%d: line not terminated" % (path, n))
            fields = line[:-1].split("\t")
            if len(fields) != 8:
                raise Failure("%s:%d: %d fields, expected 8: %r" % (path, n, len(fields), line))
            rows.append(fields)
    return rows


def in_names(signature, names):
    """signature is one of names, or one of them with a parameter list ("swallow(int)")."""
    return any(signature == n or signature.startswith(n + "(") for n in names)


def placement(args):
    return args.inline or "after"  # the plugin's default


def source_cflags(src):
    """Compiler flags of a "CFLAGS ..." line in a test program (both builds get them)."""
    with open(src) as f:
        for line in f:
            m = re.search(r"\bCFLAGS (\S.*?)\s*(\(.*)?$", line)
            if m:
                return m.group(1).split()
    return []


def expectations(src, args=None):
    """VISITS <n> <name> and ABSENT <name> annotations of a test program. A tagged line
    VISITS[after-O2] / VISITS[after] overrides the plain one for that placement (and level);
    the most specific line wins."""
    visits, absent = {}, set()
    rank = {}
    tags = {}
    if args is not None:
        tags = {placement(args): 1, "%s-%s" % (placement(args), args.opt.lstrip("-")): 2}
    with open(src) as f:
        for line in f:
            m = re.search(r"VISITS(?:\[([\w-]+)\])? (\d+) (.*?)\s*(\*/)?$", line)
            if m:
                level = tags.get(m.group(1), -1) if m.group(1) else 0
                name = m.group(3)
                if level >= 0 and level >= rank.get(name, 0):
                    visits[name] = int(m.group(2))
                    rank[name] = level
            m = re.search(r"ABSENT (\S+)", line)
            if m:
                absent.add(m.group(1))
    if not visits:
        raise Failure("%s has no VISITS lines" % src)
    return visits, absent


# ------------------------------------------------------------------------------------------
# object

CLONE_SUFFIX = re.compile(r"\.(cold|part|constprop|isra|lto_priv|localalias)(\.\d+)?$")


def base_function(name):
    """A function's own name for a piece GCC split off or cloned: f.cold, f.part.0 -> f."""
    while True:
        m = CLONE_SUFFIX.search(name)
        if not m:
            return name
        name = name[: m.start()]


class ElfObject:
    """The parts of a relocatable object the checks need, from readelf -SW/-sW/-rW."""

    def __init__(self, path):
        self.sections = {}  # index -> name
        for line in run(["readelf", "-SW", path]).stdout.splitlines():
            m = re.match(r"\s*\[\s*(\d+)\]\s+(\S+)\s+\S+\s+[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)",
                         line)
            if m:
                self.sections[int(m.group(1))] = (m.group(2), int(m.group(3), 16))
        self.functions = []  # (section name, value, size, name)
        for line in run(["readelf", "-sW", path]).stdout.splitlines():
            f = line.split()
            if len(f) >= 8 and f[3] == "FUNC" and f[6].isdigit():
                sec = self.sections[int(f[6])][0]
                self.functions.append((sec, int(f[1], 16), int(f[2]), f[7]))
        self.relocs = {}  # section name -> [(offset, symbol, addend)]
        current = None
        for line in run(["readelf", "-rW", path]).stdout.splitlines():
            m = re.match(r"Relocation section '\.rela(.*)' at", line)
            if m:
                current = self.relocs.setdefault(m.group(1), [])
                continue
            m = re.match(r"([0-9a-f]+)\s+[0-9a-f]+\s+(R_X86_64_\w+)\s+[0-9a-f]+\s+(\S+)\s*"
                         r"([-+])\s*([0-9a-f]+)$", line)
            if m and current is not None:
                add = int(m.group(5), 16) * (-1 if m.group(4) == "-" else 1)
                current.append((int(m.group(1), 16), m.group(3), add))

    def section_size(self, name):
        for sec, size in self.sections.values():
            if sec == name:
                return size
        return None

    def function_at(self, section, offset):
        """Names (aliases included) of the function covering section+offset, else []."""
        best = [f for f in self.functions
                if f[0] == section and f[1] <= offset < f[1] + max(f[2], 1)]
        return sorted({f[3] for f in best})

    def descriptors(self):
        """[names (with aliases) of the function each descriptor's addr points to]"""
        out = {}
        for off, sym, add in self.relocs.get("instr_regions", []):
            if off % REGION_SIZE != 40:
                continue
            if sym.startswith("."):  # a local function, referenced as section + offset
                out[off // REGION_SIZE] = self.function_at(sym, add)
                continue
            places = {(f[0], f[1]) for f in self.functions if f[3] == sym}
            out[off // REGION_SIZE] = sorted(
                {f[3] for f in self.functions if (f[0], f[1]) in places} | {sym})
        return [out.get(i, []) for i in range(max(out) + 1 if out else 0)]

    def _code_relocs(self):
        for sec, relocs in self.relocs.items():
            if not sec.startswith(".text"):
                continue
            for off, sym, add in relocs:
                for name in self.function_at(sec, off):
                    yield base_function(name), sym, add

    def hook_calls(self):
        """{function name: set of hooks it calls} (pieces split off count for their function)"""
        calls = {}
        for name, sym, _ in self._code_relocs():
            if sym in HOOKS:
                calls.setdefault(name, set()).add(sym)
        return calls

    def descriptor_refs(self):
        """{function name: set of descriptor indices its code refers to}"""
        refs = {}
        for name, sym, add in self._code_relocs():
            if sym == "instr_regions":
                # a PC-relative reference to d: addend = offset of d (or of d.handle) minus
                # 4..8 bytes (displacement and immediate)
                refs.setdefault(name, set()).add((add + 8) // REGION_SIZE)
        return refs

def case_object(args):
    src = os.path.join(args.src, args.source)
    obj = os.path.join(args.work, "t.o")
    report = os.path.join(args.work, "report.tsv")
    spec = spec_for(args, src)
    run([compiler_for(args, src), args.opt, "-c", src, "-o", obj] + source_cflags(src) +
        plugin_flags(args, spec, report))
    rows = read_report(report)
    included = [r for r in rows if r[0] == "include"]
    excluded = [r for r in rows if r[0] == "exclude"]
    if spec and not any(r[1] == "name" for r in excluded):
        raise Failure("the spec excluded nothing by name; the test would prove nothing")
    elf = ElfObject(obj)
    size = elf.section_size("instr_regions") or 0
    after = placement(args) == "after"
    included_names = {r[3] for r in included}
    # inline=after: one descriptor per body GCC emits of an included function (a clone or
    # split part is a body of its own; the cold part f.cold is a piece of f's body);
    # inline=before: one per included function, emitted or not.
    bodies = {}
    for sec, value, _, name in elf.functions:
        if base_function(name) in included_names and not re.search(r"\.cold(\.\d+)?$", name):
            bodies.setdefault((sec, value), set()).add(name)
    expected = len(bodies) if after else len(included)
    if size != REGION_SIZE * expected:
        raise Failure("section instr_regions has %r bytes, expected %d descriptors of %d"
                      % (size, expected, REGION_SIZE))
    # Every descriptor carries the ABI version in its flags' top byte, handle 0.
    data = section_bytes(obj, "instr_regions", args.work)
    want = abi_version() << 24
    for i in range(0, len(data), REGION_SIZE):
        handle = int.from_bytes(data[i:i + 4], "little")
        flags = int.from_bytes(data[i + 4:i + 8], "little")
        if handle != 0 or flags != want:
            raise Failure("descriptor %d: handle %#x flags %#x, expected 0 and %#x (ABI %d)"
                          % (i // REGION_SIZE, handle, flags, want, abi_version()))
    owners = elf.descriptors()
    owner_of = {}
    for i, names in enumerate(owners):
        for n in names:
            owner_of[n] = i
    calls = elf.hook_calls()
    refs = elf.descriptor_refs()
    defined = {base_function(f[3]) for f in elf.functions}
    _, absent = expectations(src) if args.source != "names.cpp" else ({}, set())
    problems = []
    for r in excluded:
        if r[3] in owner_of:
            problems.append("excluded %s has descriptor %d" % (r[3], owner_of[r[3]]))
        mine = calls.get(r[3], set())
        # inline=before: no inlining at -O0, so an excluded function calls no hook at all;
        # after inlining it may hold the hooks of an included callee (docs/gcc-plugin.md);
        # the functions the test program marks ABSENT inline nothing instrumented and must
        # stay clean. inline=after: no excluded function calls a hook, at any level.
        strict = args.opt == "-O0" or in_names(r[2], absent) or after
        if strict and mine:
            problems.append("excluded %s calls %s" % (r[3], sorted(mine)))
    for names in bodies.values() if after else []:
        hits = [i for i, o in enumerate(owners) if set(o) & names]
        if len(hits) != 1:
            problems.append("body %s has %d descriptors, expected 1" % (sorted(names), len(hits)))
    for r in included:
        if r[3] not in defined:
            if after and r[3] in owner_of:
                problems.append("%s is not out of line but has descriptor %d"
                                % (r[3], owner_of[r[3]]))
            if not after and r[3] not in owner_of:
                problems.append("included %s has no descriptor pointing at it" % r[3])
            continue  # GCC inlined it everywhere (or the body is an alias of another)
        if after:
            # every body of it (the function, its clones, split parts) has its descriptor
            # (checked above); its code calls both hooks and refers to its descriptors
            mine = [i for i, o in enumerate(owners) if r[3] in {base_function(n) for n in o}]
            hooks = calls.get(r[3], set())
            if hooks != set(HOOKS):
                problems.append("included %s calls only %s" % (r[3], sorted(hooks)))
            if not mine or not set(mine) <= refs.get(r[3], set()):
                problems.append("included %s does not refer to its descriptors %s"
                                % (r[3], mine))
            continue
        if r[3] not in owner_of:
            problems.append("included %s has no descriptor pointing at it" % r[3])
            continue
        names = set(owners[owner_of[r[3]]]) | {r[3]}
        hooks = set().union(*[calls.get(n, set()) for n in names])
        if hooks != set(HOOKS):
            problems.append("included %s calls only %s" % (r[3], sorted(hooks)))
        if not any(owner_of[r[3]] in refs.get(n, set()) for n in names):
            problems.append("included %s never refers to its own descriptor" % r[3])
    if after:
        # Every function's code refers to its own descriptor only (clones and split-off
        # pieces have their own; the cold part counts for its function), an excluded one to
        # none: no hook of an inlined callee exists, at any level.
        for fn, idx in sorted(refs.items()):
            own = {i for i, o in enumerate(owners) if fn in {base_function(n) for n in o}}
            if idx - own:
                problems.append("%s refers to descriptor(s) %s of %s (hooks of an inlined "
                                "callee)"
                                % (fn, sorted(idx - own),
                                   [owners[i] for i in sorted(idx - own) if i < len(owners)]))
    # "SYMBOL[O3] name" lines: GCC made that function (e.g. an IPA clone) at that level, so
    # the checks above covered it
    with open(src) as f:
        for line in f:
            m = re.search(r"\bSYMBOL\[(\w+)\] (\S+)", line)
            if m and "-" + m.group(1) == args.opt and \
                    m.group(2) not in {fn[3] for fn in elf.functions}:
                problems.append("no function %s in the object" % m.group(2))
    if problems:
        raise Failure("\n".join(problems))
    print("%d included (%d descriptors), %d excluded: no descriptor and no own hook call"
          % (len(included), size // REGION_SIZE, len(excluded)))


# ------------------------------------------------------------------------------------------
# run / e2e

def build_pair(args, src, link_extra, instr_extra=()):
    cc = compiler_for(args, src)
    plain = os.path.join(args.work, "plain")
    instr = os.path.join(args.work, "instr")
    report = os.path.join(args.work, "report.tsv")
    cflags = source_cflags(src)
    run([cc, args.opt, src, "-o", plain] + cflags)
    run([cc, args.opt, src, "-o", instr] + cflags +
        plugin_flags(args, spec_for(args, src), report) + list(instr_extra) + link_extra)
    return plain, instr, read_report(report)


def compare_runs(plain, instr, env):
    a = run([plain], check=False)
    b = run([instr], check=False, env=env)
    if (a.returncode, a.stdout) != (b.returncode, b.stdout):
        raise Failure("behaviour changed:\nplain rc=%d\n%s\ninstrumented rc=%d\n%s%s"
                      % (a.returncode, a.stdout, b.returncode, b.stdout, b.stderr))
    return b


def check_counts(visits, absent, counts, what):
    problems = []
    for name, n in sorted(visits.items()):
        if counts.get(name, 0 if n == 0 else None) != n:
            problems.append("%s: %r visits in %s, expected %d" % (name, counts.get(name), what, n))
    for name in sorted(counts):
        if in_names(name, absent):
            problems.append("%s: excluded at compile time, but in %s" % (name, what))
    return problems


def hooks_object(args):
    obj = os.path.join(args.work, "count_hooks.o")
    run([args.gcc, "-O2", "-c", os.path.join(args.src, "count_hooks.c"), "-o", obj,
         "-I" + os.path.dirname(ABI_HEADER)])
    return obj


def read_counts(path):
    counts, errors = {}, []
    with open(path) as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if fields[0] == "ERROR":
                errors.append(fields[1])
                continue
            enters, exits, name = int(fields[0]), int(fields[1]), fields[2]
            if enters != exits:
                errors.append("%s: %d enters, %d exits" % (name, enters, exits))
            counts[name] = counts.get(name, 0) + enters
    return counts, errors


def case_run(args):
    src = os.path.join(args.src, args.source)
    visits, absent = expectations(src, args)
    plain, instr, rows = build_pair(args, src, [hooks_object(args)])
    counts_file = os.path.join(args.work, "counts.tsv")
    env = dict(os.environ, INSTR_TEST_COUNTS=counts_file)
    compare_runs(plain, instr, env)
    counts, errors = read_counts(counts_file)
    problems = errors + check_counts(visits, absent, counts, "the hooks' counts")
    instrumented = {r[2] for r in rows if r[0] == "include"}
    for name in counts:
        if name not in instrumented:
            problems.append("%s entered but not reported as included" % name)
    if problems:
        raise Failure("\n".join(problems))
    print("same output and exit code; %d regions balanced; %d expected counts exact"
          % (len(counts), len(visits)))


def case_runtime_exclusion(args):
    src = os.path.join(args.src, "calls.c")
    plain, instr, _ = build_pair(args, src, [hooks_object(args)])
    counts_file = os.path.join(args.work, "counts.tsv")
    env = dict(os.environ, INSTR_TEST_COUNTS=counts_file, INSTR_TEST_EXCLUDE="fib")
    compare_runs(plain, instr, env)
    counts, errors = read_counts(counts_file)
    if errors:
        raise Failure("\n".join(errors))
    if "fib" in counts or counts.get("main") != 1:
        raise Failure("fib should be excluded at run time, main counted once: %r" % counts)
    print("the guard kept all hook calls of a run-time excluded region away")


def case_e2e(args):
    if not args.rt or not os.path.exists(args.rt):
        raise Failure("runtime library %r not built" % args.rt)
    sys.path.insert(0, os.path.join(args.src, "..", "lib"))
    import profile as P  # tests/lib/profile.py (runtime engineer)

    src = os.path.join(args.src, args.source)
    visits, absent = expectations(src, args)
    rtdir = os.path.dirname(args.rt)
    link = ["-L" + rtdir, "-linstr-rt", "-Wl,-rpath," + rtdir]
    plain, instr, rows = build_pair(args, src, link)
    expdir = os.path.join(args.work, "experiments")
    shutil.rmtree(expdir, ignore_errors=True)
    os.makedirs(expdir)
    env = dict(os.environ)
    for k in list(env):
        if k.startswith("INSTR_"):
            del env[k]
    env.update(INSTR_EXPERIMENT_DIRECTORY=os.path.join(expdir, "exp"),
               INSTR_ENABLE_PROFILING="1", INSTR_ENABLE_TRACING="0")
    compare_runs(plain, instr, env)
    prof = P.load(P.find_experiment(expdir))
    problems = list(P.check_consistency(prof))
    counts = P.visits_by_region(prof)
    problems += check_counts(visits, absent, counts, "profile.json")
    if prof["run"].get("unmatched_exits", 0) != 0:
        problems.append("unmatched exits: %r" % prof["run"]["unmatched_exits"])
    if prof["run"].get("closed_at_end", 0) != 0:
        problems.append("regions left open: %r" % prof["run"]["closed_at_end"])
    instrumented = {r[2] for r in rows if r[0] == "include"}
    for name in counts:
        if name not in instrumented:
            problems.append("%s in the profile but not reported as included" % name)
    if problems:
        raise Failure("\n".join(problems))
    print("same output and exit code; profile consistent; %d expected counts exact"
          % len(visits))


# ------------------------------------------------------------------------------------------
# errors / report

def expect_failure(args, extra, patterns, src_name="calls.c"):
    src = os.path.join(args.src, src_name)
    p = run([args.gcc, "-c", src, "-o", os.path.join(args.work, "x.o"),
             "-fplugin=" + args.plugin] + extra, check=False)
    if p.returncode == 0:
        raise Failure("compile with %s succeeded" % extra)
    for pat in patterns:
        if not re.search(pat, p.stderr, re.M):
            raise Failure("compile with %s: stderr lacks /%s/:\n%s" % (extra, pat, p.stderr))


def case_errors(args):
    bad = os.path.join(args.work, "bad.spec")
    with open(bad, "w") as f:
        f.write("exclude function ok_*\n# comment\n  include  bogus x\n")
    expect_failure(args, ["-fplugin-arg-instr-filter=" + bad],
                   [r"^" + re.escape(bad) + r":3:\d+: error: ", r"instr: the selection spec"])
    bad_glob = os.path.join(args.work, "glob.spec")
    with open(bad_glob, "w") as f:
        f.write("exclude function f[oo\n")
    expect_failure(args, ["-fplugin-arg-instr-filter=" + bad_glob],
                   [r"^" + re.escape(bad_glob) + r":1:\d+: error: "])
    expect_failure(args, ["-fplugin-arg-instr-filter=" + os.path.join(args.work, "none.spec")],
                   [r"none\.spec.*error", r"could not be loaded"])
    expect_failure(args, ["-fplugin-arg-instr-fliter=x.spec"],
                   [r"error: instr: unknown argument .-fplugin-arg-instr-fliter."])
    expect_failure(args, ["-fplugin-arg-instr-mode=xray"], [r"supports only .hooks."])
    expect_failure(args, ["-fplugin-arg-instr-filter"], [r"needs a spec file"])
    expect_failure(args, ["-fplugin-arg-instr-report"], [r"needs a file"])
    expect_failure(args, ["-fplugin-arg-instr-verbose=maybe"], [r"expected no value, 1 or 0"])
    expect_failure(args, ["-fplugin-arg-instr-inline=sideways"],
                   [r"instr-inline=sideways.*expected .after. \(the default\) or .before."])
    expect_failure(args, ["-fplugin-arg-instr-inline"], [r"expected .after."])
    expect_failure(args, ["-fplugin-arg-instr-report=" + os.path.join(args.work, "no", "dir",
                                                                    "r.tsv")],
                   [r"cannot open the report"])
    # and the good spellings compile
    good = os.path.join(args.work, "good.spec")
    with open(good, "w") as f:
        f.write("exclude function excluded_*\n")
    run([args.gcc, "-c", os.path.join(args.src, "calls.c"), "-o", os.path.join(args.work, "y.o"),
         "-fplugin=" + args.plugin, "-fplugin-arg-instr-filter=" + good,
         "-fplugin-arg-instr-mode=hooks", "-fplugin-arg-instr-verbose=0",
         "-fplugin-arg-instr-inline=before", "-fplugin-arg-instr-inline=after"])
    print("all bad arguments and specs fail the compile with their message")


def case_report(args):
    src = os.path.join(args.src, "calls.c")
    report = os.path.join(args.work, "report.tsv")
    if os.path.exists(report):
        os.unlink(report)
    spec2 = os.path.join(args.work, "second.spec")
    with open(spec2, "w") as f:
        f.write("min-instructions 5\ninclude function leaf\n")
    cmd = [args.gcc, "-O2", "-c", src, "-o", os.path.join(args.work, "r.o")] + plugin_flags(
        args, spec_for(args, src), report,
        ["-fplugin-arg-instr-filter=" + spec2, "-fplugin-arg-instr-verbose"])
    p = run(cmd, cwd=args.src)
    # twice: the report is appended to, never truncated
    run(cmd, cwd=args.src)
    rows = read_report(report)
    if len(rows) % 2 or rows[: len(rows) // 2] != rows[len(rows) // 2:]:
        raise Failure("two identical compiles did not append identical blocks")
    rows = rows[: len(rows) // 2]
    m = re.search(r"^instr: (\S+): instrumented (\d+) of (\d+) functions \(excluded: file (\d+), "
                  r"name (\d+), size (\d+), built-in (\d+)\)$", p.stderr, re.M)
    if not m:
        raise Failure("no verbose line in:\n" + p.stderr)
    if m.group(1) != src:
        raise Failure("verbose names %r, not the translation unit %r" % (m.group(1), src))
    n, total, f, nm, sz, bi = (int(m.group(i)) for i in range(2, 8))
    by = lambda cat: sum(1 for r in rows if r[0] == "exclude" and r[1] == cat)
    if (total, n, f, nm, sz, bi) != (len(rows), sum(1 for r in rows if r[0] == "include"),
                                     by("file"), by("name"), by("size"), by("built-in")):
        raise Failure("verbose line %r disagrees with the report %r" % (m.group(0), rows))
    problems = []
    seen = {}
    for r in rows:
        verdict, cat, sig, mangled, file, count, reason, tu = r
        seen[sig] = r
        if verdict not in ("include", "exclude"):
            problems.append("bad verdict %r" % verdict)
        if cat not in ("default", "file", "name", "size", "built-in"):
            problems.append("bad category %r" % cat)
        if file != os.path.realpath(src) and file != os.path.abspath(src):
            problems.append("file %r is not the absolute source path" % file)
        if not count.isdigit() or int(count) <= 0:
            problems.append("instruction count %r" % count)
        if tu != src:
            problems.append("TU column %r" % tu)
        if reason.startswith(("include ", "exclude ")):
            problems.append("reason keeps its first word: %r" % reason)
    want = {
        "excluded_fn": ("exclude", "name", "function excluded_* (%s:2:" % spec_for(args, src)),
        "leaf": ("include", "name", "function leaf (%s:2:" % spec2),
        "main": ("include", "default", "default"),
        "tiny": ("exclude", "size", None),
    }
    for name, (verdict, cat, reason) in want.items():
        r = seen.get(name)
        if not r or r[0] != verdict or r[1] != cat or (reason and not r[6].startswith(reason)):
            problems.append("%s: %r, expected %s %s %s" % (name, r, verdict, cat, reason))
    if problems:
        raise Failure("\n".join(problems))
    print("verbose line and %d report lines in the shared format" % len(rows))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case")
    ap.add_argument("source", nargs="?")
    ap.add_argument("opt", nargs="?", default="O0", help="optimisation level without '-': O0")
    ap.add_argument("--gcc", required=True)
    ap.add_argument("--gxx", required=True)
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--rt")
    ap.add_argument("--inline", choices=("after", "before"))
    args = ap.parse_args()
    args.src = os.path.abspath(args.src)
    args.opt = "-" + args.opt.lstrip("-")
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    cases = {"object": case_object, "run": case_run, "e2e": case_e2e, "errors": case_errors,
             "report": case_report, "runtime-exclusion": case_runtime_exclusion}
    return exit_status(cases[args.case], args)


if __name__ == "__main__":
    sys.exit(main())
