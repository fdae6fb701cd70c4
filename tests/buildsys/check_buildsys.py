#!/usr/bin/env python3
"""The build-system recipes of docs/build-systems.md, each on the small project in project/:
CMake, autotools, Meson and plain make build it through the installed-style compiler wrappers
(bin/instr-cc) with INSTR_WRAPPER=off while they configure; the program they build is
instrumented (its profile has the project's functions) and no configure step leaves an
experiment directory behind.
find_package(instr) with instr_instrument(), pkg-config and instr-config are checked on
the same sources (package/, project/manual.c).
Usage: check_buildsys.py CASE --prefix DIR --src DIR --work DIR [--libdir REL]
       (--prefix: a build or install tree; --libdir: its lib directory, default lib)
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from cases import Fail, expect, fresh_dir, run_case, clean_env  # noqa: E402  tests/lib/cases.py
import profile as P  # noqa: E402  tests/lib/profile.py

A = None


def env(extra=None):
    e = clean_env(extra)
    e["PATH"] = A.bindir + os.pathsep + e.get("PATH", "")
    return e


def sh(cmd, cwd, extra=None, ok=True):
    p = subprocess.run(cmd, cwd=cwd, env=env(extra), capture_output=True, text=True,
                       timeout=300)
    if ok:
        expect(p.returncode == 0, "%s failed (%d):\n%s%s" % (" ".join(cmd), p.returncode,
                                                             p.stdout[-4000:], p.stderr[-4000:]))
    return p


def project(name):
    """A fresh copy of the project (autotools and Meson write into their source tree)."""
    wd = fresh_dir(os.path.join(A.work, A.case, name))
    src = os.path.join(wd, "src")
    shutil.copytree(A.src, src)
    return wd, src


def experiments_under(top):
    """Every experiment directory anywhere under top (the runtime's default name
    instr-<date>_<time>-<pid>, or any directory holding instr.cfg)."""
    found = []
    for root, dirs, files in os.walk(top):
        if "instr.cfg" in files or "profile.json" in files:
            found.append(root)
        found += [os.path.join(root, d) for d in dirs if d.startswith("instr-2")]
    return sorted(set(found))


def expect_no_experiment(top, when):
    found = experiments_under(top)
    expect(not found, "%s left experiment directories: %s" % (when, found))


def expect_instrumented(exe, wd):
    exp = os.path.join(wd, "exp")
    p = subprocess.run([exe], cwd=wd, env=env({"INSTR_EXPERIMENT_DIRECTORY": exp}),
                       capture_output=True, text=True, timeout=60)
    expect(p.returncode == 0, "%s exited %d:\n%s" % (exe, p.returncode, p.stderr))
    expect(p.stdout == "kernel 1.998\n", "%s printed %r" % (exe, p.stdout))
    expect(os.path.isfile(os.path.join(exp, "profile.json")),
           "%s wrote no profile (is it instrumented?):\n%s" % (exe, p.stderr))
    visits = P.visits_by_region(P.load(os.path.join(exp, "profile.json")))
    for fn, n in (("main", 1), ("kernel_run", 1)):
        expect(visits.get(fn) == n, "%s: %s visited %r times, expected %d (profile: %r)"
               % (exe, fn, visits.get(fn), n, visits))


def case_cmake():
    wd, src = project("cmake")
    build = os.path.join(wd, "build")
    sh(["cmake", "-S", src, "-B", build, "-DCMAKE_C_COMPILER=instr-cc"], wd,
       {"INSTR_WRAPPER": "off"})
    expect_no_experiment(wd, "cmake configure (INSTR_WRAPPER=off)")
    sh(["cmake", "--build", build], wd)
    expect_no_experiment(wd, "cmake --build")
    expect_instrumented(os.path.join(build, "app"), wd)


def case_cmake_probe():
    """Without INSTR_WRAPPER at all, the wrapper recognises CMake's probes and keeps them
    plain: nothing is left behind, and the build is still instrumented."""
    wd, src = project("cmake")
    build = os.path.join(wd, "build")
    sh(["cmake", "-S", src, "-B", build, "-DCMAKE_C_COMPILER=instr-cc"], wd)
    expect_no_experiment(wd, "cmake configure (INSTR_WRAPPER unset)")
    sh(["cmake", "--build", build], wd)
    expect_instrumented(os.path.join(build, "app"), wd)


def case_cmake_launcher():
    """instr as CMake's compiler launcher needs it as the linker launcher too (CMake 3.21)."""
    wd, src = project("cmake")
    build = os.path.join(wd, "build")
    sh(["cmake", "-S", src, "-B", build, "-DCMAKE_C_COMPILER_LAUNCHER=instr",
        "-DCMAKE_C_LINKER_LAUNCHER=instr"], wd, {"INSTR_WRAPPER": "off"})
    expect_no_experiment(wd, "cmake configure with launchers (INSTR_WRAPPER=off)")
    sh(["cmake", "--build", build], wd)
    expect_instrumented(os.path.join(build, "app"), wd)


def case_make_link():
    """A Makefile with a separate link variable gets instr there too."""
    wd, src = project("make")
    sh(["make", "-f", "Makefile.plain", "CC=instr cc", "LINK=instr cc"], src)
    expect_instrumented(os.path.join(src, "app"), wd)


def case_autotools():
    wd, src = project("autotools")
    sh(["autoreconf", "-i"], src)
    build = os.path.join(wd, "build")
    os.makedirs(build)
    sh([os.path.join(src, "configure"), "CC=instr-cc"], build, {"INSTR_WRAPPER": "off"})
    expect_no_experiment(wd, "./configure (INSTR_WRAPPER=off)")
    sh(["make"], build)
    expect_instrumented(os.path.join(build, "app"), wd)


def case_autotools_probe():
    wd, src = project("autotools")
    sh(["autoreconf", "-i"], src)
    sh(["./configure", "CC=instr-cc"], src)
    expect_no_experiment(wd, "./configure (INSTR_WRAPPER unset)")
    sh(["make"], src)
    expect_instrumented(os.path.join(src, "app"), wd)


def case_meson():
    wd, src = project("meson")
    build = os.path.join(wd, "build")
    sh(["meson", "setup", build, src], wd, {"INSTR_WRAPPER": "off", "CC": "instr-cc"})
    expect_no_experiment(wd, "meson setup (INSTR_WRAPPER=off)")
    sh(["meson", "compile", "-C", build], wd)
    expect_instrumented(os.path.join(build, "app"), wd)


def case_make():
    wd, src = project("make")
    sh(["make", "-f", "Makefile.plain", "CC=instr-cc"], src)
    expect_instrumented(os.path.join(src, "app"), wd)


def case_wrapper_off():
    """INSTR_WRAPPER=off is the plain compiler: no hooks in the objects, no runtime linked,
    nothing recorded."""
    wd, src = project("off")
    sh(["make", "-f", "Makefile.plain", "CC=instr-cc"], src, {"INSTR_WRAPPER": "off"})
    nm = sh(["nm", os.path.join(src, "app")], wd).stdout
    expect("__instr_" not in nm, "INSTR_WRAPPER=off still instrumented:\n%s" % nm)
    ldd = sh(["ldd", os.path.join(src, "app")], wd).stdout
    expect("libinstr" not in ldd, "INSTR_WRAPPER=off still linked the runtime:\n%s" % ldd)
    p = sh([os.path.join(src, "app")], wd)
    expect(p.stdout == "kernel 1.998\n", "printed %r" % p.stdout)
    expect_no_experiment(wd, "an INSTR_WRAPPER=off program")


def case_wrapper_args():
    """INSTR_WRAPPER_ARGS carries instr's options (here a compile-time spec) and
    INSTR_WRAPPER_COMPILER the compiler; both reach the build."""
    wd, src = project("args")
    spec = os.path.join(wd, "app.spec")
    with open(spec, "w") as f:
        f.write("exclude function kernel_*\n")
    sh(["make", "-f", "Makefile.plain", "CC=instr-cc"], src,
       {"INSTR_WRAPPER_ARGS": "--filter=%s --verbose" % spec, "INSTR_WRAPPER_COMPILER": "gcc"})
    exp = os.path.join(wd, "exp")
    p = sh([os.path.join(src, "app")], wd, {"INSTR_EXPERIMENT_DIRECTORY": exp})
    visits = P.visits_by_region(P.load(os.path.join(exp, "profile.json")))
    expect(visits.get("main") == 1 and "kernel_run" not in visits,
           "the spec in INSTR_WRAPPER_ARGS did not apply: %r" % visits)
    bad = sh(["instr-cc", "-c", "kernel.c"], src, {"INSTR_WRAPPER_ARGS": "-O2"}, ok=False)
    expect(bad.returncode == 2 and "INSTR_WRAPPER_ARGS" in bad.stderr and "'-O2'" in bad.stderr,
           "a compiler option in INSTR_WRAPPER_ARGS: %d %r" % (bad.returncode, bad.stderr))
    bad = sh(["instr-cc", "-c", "kernel.c"], src, {"INSTR_WRAPPER": "maybe"}, ok=False)
    expect(bad.returncode == 2 and "INSTR_WRAPPER='maybe'" in bad.stderr,
           "a bad INSTR_WRAPPER: %d %r" % (bad.returncode, bad.stderr))
    bad = sh(["instr-cc", "-c", "kernel.c"], src, {"INSTR_WRAPPER_COMPILER": "no-such-cc"},
             ok=False)
    expect(bad.returncode == 127 and "no-such-cc" in bad.stderr,
           "a missing INSTR_WRAPPER_COMPILER: %d %r" % (bad.returncode, bad.stderr))


def case_cmake_package():
    """find_package(instr) from the tree's lib/cmake/instr; instr_instrument(app SPEC ...)
    instruments app as the spec says, and other not at all."""
    wd = fresh_dir(os.path.join(A.work, A.case))
    src = os.path.join(os.path.dirname(A.src), "package")
    build = os.path.join(wd, "build")
    where = ["-DCMAKE_PREFIX_PATH=" + A.prefix]
    if A.libdir != "lib":
        # CMake searches <prefix>/lib64/cmake only where the platform uses lib64 (not Debian)
        where.append("-Dinstr_DIR=" + os.path.join(A.prefix, A.libdir, "cmake", "instr"))
    sh(["cmake", "-S", src, "-B", build] + where, wd)
    expect_no_experiment(wd, "cmake configure with find_package(instr)")
    sh(["cmake", "--build", build], wd)
    exp = os.path.join(wd, "exp")
    sh([os.path.join(build, "app")], wd, {"INSTR_EXPERIMENT_DIRECTORY": exp})
    visits = P.visits_by_region(P.load(os.path.join(exp, "profile.json")))
    expect(visits.get("main") == 1 and visits.get("kernel_run") == 1
           and "kernel_step" not in visits, "app: %r (expected main and kernel_run, "
           "kernel_step excluded by app.spec)" % visits)
    other = os.path.join(build, "other")
    nm = sh(["nm", other], wd).stdout
    expect("__instr_" not in nm, "other is instrumented too:\n%s" % nm)
    ldd = sh(["ldd", other], wd).stdout
    expect("libinstr" not in ldd, "other links the runtime:\n%s" % ldd)
    p = sh([other], wd, {"INSTR_EXPERIMENT_DIRECTORY": os.path.join(wd, "exp-other")})
    expect(p.stdout == "other 42\n", "other printed %r" % p.stdout)
    expect_no_experiment(os.path.join(wd, "build"), "running other")
    expect(not os.path.exists(os.path.join(wd, "exp-other")), "other recorded an experiment")


def manual_api(flags, name):
    wd = fresh_dir(os.path.join(A.work, A.case, name))
    exe = os.path.join(wd, "manual")
    sh(["cc", os.path.join(A.src, "manual.c"), "-o", exe] + flags, wd)
    exp = os.path.join(wd, "exp")
    p = sh([exe], wd, {"INSTR_EXPERIMENT_DIRECTORY": exp})
    expect(p.stdout == "manual\n", "printed %r" % p.stdout)
    visits = P.visits_by_region(P.load(os.path.join(exp, "profile.json")))
    expect(visits.get("manual_phase") == 1, "%s: manual_phase not recorded: %r" % (name, visits))


def case_pkg_config():
    """pkg-config instr and instr-config give the flags of the manual API."""
    pc = sh(["pkg-config", "--cflags", "--libs", "instr"], A.work,
            {"PKG_CONFIG_PATH": os.path.join(A.prefix, A.libdir, "pkgconfig")}).stdout.split()
    manual_api(pc, "pkg-config")
    ic = sh([os.path.join(A.prefix, "bin", "instr-config"), "--cflags", "--libs"],
            A.work).stdout.split()
    manual_api(ic, "instr-config")
    st = sh([os.path.join(A.prefix, "bin", "instr-config"), "--cflags", "--libs", "--static"],
            A.work).stdout.split()
    manual_api(st, "instr-config-static")
    v = sh([os.path.join(A.prefix, "bin", "instr-config"), "--version"], A.work).stdout.strip()
    pv = sh(["pkg-config", "--modversion", "instr"], A.work,
            {"PKG_CONFIG_PATH": os.path.join(A.prefix, A.libdir, "pkgconfig")}).stdout.strip()
    expect(v and v == pv, "instr-config --version %r, pkg-config --modversion %r" % (v, pv))
    bad = sh([os.path.join(A.prefix, "bin", "instr-config"), "--clfags"], A.work, ok=False)
    expect(bad.returncode == 2 and "--clfags" in bad.stderr, "a bad option: %d %r"
           % (bad.returncode, bad.stderr))


def main():
    global A
    ap = argparse.ArgumentParser()
    ap.add_argument("case")
    ap.add_argument("--prefix", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--libdir", default="lib", help="the tree's lib directory, relative")
    A = ap.parse_args()
    A.bindir = os.path.join(A.prefix, "bin")
    return run_case(globals(), A.case)


if __name__ == "__main__":
    sys.exit(main())
