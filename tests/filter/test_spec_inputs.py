#!/usr/bin/env python3
"""Inputs that never end or never come, through every front end that reads a spec, and the
wrapper's reading of its command line (issue 27 items 3, 4, 6):

  /dev/zero, /dev/urandom and a FIFO given as the spec to instr-spec, instr --filter,
  gcc -fplugin-arg-instr-filter, clang -mllvm -instr-filter and INSTR_FILTERING_FILE fail at
  once with "not a regular file" (a hang is caught by the subprocess timeout);
  @file arguments (nested, quoted) are looked into and passed on unchanged;
  a missing compiler is reported alone, /bin/true is not taken for GCC;
  clang shows one "error:" per spec error.

usage: test_spec_inputs.py INSTR_SPEC INSTR"""
import glob
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from tally import Tally  # noqa: E402

SPEC_TOOL, WRAPPER = sys.argv[1], sys.argv[2]
LIB = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(WRAPPER))), "lib")


tally = Tally()
check = tally.check


def run(args, cwd, env=None):
    try:
        p = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=60,
                           env=env)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return None, "", "timed out"


def which(*names):
    for n in names:
        for d in os.environ.get("PATH", "").split(":"):
            if os.access(os.path.join(d, n), os.X_OK):
                return n
    return None


with tempfile.TemporaryDirectory() as tmp:
    fifo = os.path.join(tmp, "spec.fifo")
    os.mkfifo(fifo)
    with open(os.path.join(tmp, "a.c"), "w") as f:
        f.write("int work(int x) { return x + 1; }\nint main(void) { return work(-1); }\n")
    bad_inputs = [("/dev/zero", "a character device"), ("/dev/urandom", "a character device"),
                  (fifo, "a FIFO")]

    # instr-spec
    for path, kind in bad_inputs:
        rc, _, err = run([SPEC_TOOL, "check", path], tmp)
        check(rc == 1 and f"not a regular file ({kind})" in err, f"instr-spec {path}: {rc} {err!r}")

    # the wrapper
    for path, kind in bad_inputs:
        rc, _, err = run([WRAPPER, "--filter=" + path, "gcc", "-c", "a.c"], tmp)
        check(rc == 1 and f"not a regular file ({kind})" in err,
              f"instr --filter={path}: {rc} {err!r}")

    # the GCC plugin
    gcc_plugins = glob.glob(os.path.join(LIB, "instr", "gcc-*", "instr.so"))
    if gcc_plugins:
        for path, kind in bad_inputs:
            rc, _, err = run(["gcc", "-fplugin=" + gcc_plugins[0],
                              "-fplugin-arg-instr-filter=" + path, "-c", "a.c"], tmp)
            check(rc not in (0, None) and f"not a regular file ({kind})" in err,
                  f"gcc -fplugin-arg-instr-filter={path}: {rc} {err!r}")

    # the LLVM plugin, as the wrapper loads it; one "error:" per message
    for plugin in glob.glob(os.path.join(LIB, "instr", "llvm-*", "libinstr.so")):
        version = plugin.split("llvm-")[1].split("/")[0]
        clang = which(f"clang-{version}")
        if not clang:
            continue
        load = ["-fpass-plugin=" + plugin, "-Xclang", "-load", "-Xclang", plugin]
        for path, kind in bad_inputs:
            rc, _, err = run([clang, *load, "-mllvm", "-instr-filter=" + path, "-c", "a.c"], tmp)
            check(rc not in (0, None) and f"not a regular file ({kind})" in err,
                  f"{clang} -mllvm -instr-filter={path}: {rc} {err!r}")
        with open(os.path.join(tmp, "nul.spec"), "w") as f:
            f.write("exclude function a[\nexclud function b\n")
        rc, _, err = run([clang, *load, "-mllvm", "-instr-filter=nul.spec", "-c", "a.c"], tmp)
        lines = [l for l in err.splitlines() if "nul.spec" in l]
        check(rc not in (0, None) and len(lines) == 2 and
              all(l.count("error:") == 1 for l in lines) and
              "error: nul.spec:1:19: unterminated '['" in err,
              f"{clang} with a bad spec: one error: per message: {err!r}")

    # the runtime: the program runs and says why it has no run-time filter
    rc, _, err = run([WRAPPER, "gcc", "a.c", "-o", "a.out"], tmp)
    check(rc == 0, f"build a.out: {err!r}")
    for path, kind in bad_inputs:
        env = dict(os.environ, INSTR_FILTERING_FILE=path,
                   INSTR_EXPERIMENT_DIRECTORY=os.path.join(tmp, "exp"))
        rc, _, err = run(["./a.out"], tmp, env)
        check(rc == 0 and "INSTR_FILTERING_FILE" in err and f"not a regular file ({kind})" in err,
              f"INSTR_FILTERING_FILE={path}: {rc} {err!r}")

    # response files: nested, quoted, and passed on unchanged
    os.mkdir(os.path.join(tmp, "src dir"))
    with open(os.path.join(tmp, "src dir", "b.c"), "w") as f:
        f.write("int b(void) { return 2; }\n")
    with open(os.path.join(tmp, "inner.rsp"), "w") as f:
        f.write("'src dir/b.c'\n")
    with open(os.path.join(tmp, "outer.rsp"), "w") as f:
        f.write('-c @inner.rsp -o "b out.o"\n')
    rc, _, err = run([WRAPPER, "--verbose", "gcc", "@outer.rsp"], tmp)
    check(rc == 0 and "-fplugin=" in err and err.rstrip().endswith("@outer.rsp"),
          f"instr gcc @outer.rsp instruments and passes @outer.rsp on: {err!r}")
    check(os.path.exists(os.path.join(tmp, "b out.o")), "b out.o was written")
    nm = subprocess.run(["nm", os.path.join(tmp, "b out.o")], capture_output=True, text=True)
    check("__instr_enter" in nm.stdout, f"b out.o calls the hooks: {nm.stdout!r}")
    with open(os.path.join(tmp, "self.rsp"), "w") as f:
        f.write("@self.rsp\n")
    rc, _, err = run([WRAPPER, "gcc", "@self.rsp"], tmp)
    check(rc == 1 and "nested more than 32 deep" in err, f"@self.rsp: {rc} {err!r}")

    # compilers: a missing one is reported first and alone; coreutils are no GCC
    rc, _, err = run([WRAPPER, "no-such-cc-xyz", "-c", "a.c"], tmp)
    check(rc == 127 and err.count("\n") == 1 and "cannot run 'no-such-cc-xyz'" in err,
          f"missing compiler: {rc} {err!r}")
    rc, _, err = run([WRAPPER, "/bin/true", "-c", "a.c"], tmp)
    check("GCC plugin" not in err and "does not say it is gcc or clang" in err,
          f"/bin/true: {rc} {err!r}")

sys.exit(tally.report("test_spec_inputs"))
