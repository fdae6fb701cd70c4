#!/usr/bin/env python3
"""The build-system recipes of docs/build-systems.md, each on the small project in project/:
CMake, autotools, Meson and plain make build it through the installed-style compiler wrappers
(bin/instr-cc) with INSTR_WRAPPER=off while they configure; the program they build is
instrumented (its profile has the project's functions) and no configure step leaves an
experiment directory behind.
find_package(instr) with instr_instrument(), pkg-config and instr-config are checked on
the same sources (package/, project/manual.c).
Usage: check_buildsys.py CASE --prefix DIR --src DIR --work DIR [--libdir REL] [--clang C]
                         [--source-root DIR] [--mpirun R]
A case whose tool is missing exits 77 (a ctest skip) saying which package has it.
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


class Skip(Exception):
    """A case that cannot run here: main() says why and exits 77 (a ctest skip)."""


def need(tool, package):
    if not shutil.which(tool):
        raise Skip("%s not found (Debian: %s)" % (tool, package))


def project(name, src_dir=None):
    """A fresh copy of a project (autotools and Meson write into their source tree): the
    C project in project/ unless src_dir names another."""
    wd = fresh_dir(os.path.join(A.work, A.case, name))
    src = os.path.join(wd, "src")
    shutil.copytree(src_dir or A.src, src)
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


ADVICE = "__instr_compiled_with_instr_but_not_linked_with_it__link_through_instr_or_add_linstr_rt"


def expect_link_advice(p, what):
    """A link of instrumented objects without the runtime fails, and the linker's own error
    names the symbol whose name says what to do."""
    out = p.stdout + p.stderr
    expect(p.returncode != 0, "%s linked without the runtime" % what)
    expect("undefined reference to `%s'" % ADVICE in out or
           "undefined symbol: %s" % ADVICE in out,
           "%s: the linker does not name %s:\n%s" % (what, ADVICE, out[-3000:]))


def case_link_advice():
    """Compiled with instr, linked without it: the link error says what to do, with the GCC
    and the LLVM plugin, with ld and lld, for make's LINK= and for a CMake compiler launcher
    without the linker launcher. Either fix then links and records: linking through instr,
    or adding -linstr-rt (shared) or libinstr-rt.a with what it needs (static)."""
    wd, src = project("link")
    lib = os.path.join(A.prefix, A.libdir)
    # make with LINK= lacking instr
    p = sh(["make", "-f", "Makefile.plain", "CC=instr cc", "LINK=cc"], src, ok=False)
    expect_link_advice(p, "make LINK=cc")
    # each plugin, ld (and lld where clang has it)
    compilers = [("gcc", [])]
    if A.clang:
        compilers.append((A.clang, []))
        if shutil.which("ld.lld"):
            compilers.append((A.clang, ["-fuse-ld=lld"]))
    else:
        print("no LLVM plugin in this build: the clang part is not checked")
    for cc, ld in compilers:
        objs = []
        for c in ("app.c", "kernel.c"):
            o = os.path.join(wd, "%s-%s.o" % (os.path.basename(cc), c[:-2]))
            sh(["instr", cc, "-c", "-O1", c, "-o", o], src)
            objs.append(o)
        exe = os.path.join(wd, "app-" + os.path.basename(cc))
        p = sh([cc] + ld + objs + ["-o", exe], wd, ok=False)
        expect_link_advice(p, "%s %s" % (cc, " ".join(ld)))
        sh([cc] + ld + objs + ["-o", exe, "-L" + lib, "-Wl,-rpath," + lib, "-linstr-rt"], wd)
        expect_instrumented(exe, wd)
    # through instr, and the static runtime with what instr-config --static says it needs
    exe = os.path.join(wd, "app-instr")
    sh(["instr", "gcc", os.path.join(wd, "gcc-app.o"),
        os.path.join(wd, "gcc-kernel.o"), "-o", exe], wd)
    expect_instrumented(exe, wd)
    st = sh([os.path.join(A.bindir, "instr-config"), "--libs", "--static"], wd).stdout.split()
    exe = os.path.join(wd, "app-static")
    sh(["gcc", os.path.join(wd, "gcc-app.o"), os.path.join(wd, "gcc-kernel.o"), "-o", exe] + st,
       wd)
    expect("libinstr-rt" not in sh(["ldd", exe], wd).stdout, "app-static links libinstr-rt.so")
    expect_instrumented(exe, wd)
    # CMake with the compiler launcher only
    build = os.path.join(wd, "build")
    sh(["cmake", "-S", src, "-B", build, "-DCMAKE_C_COMPILER_LAUNCHER=instr"], wd,
       {"INSTR_WRAPPER": "off"})
    p = sh(["cmake", "--build", build], wd, ok=False)
    expect_link_advice(p, "CMake with CMAKE_C_COMPILER_LAUNCHER=instr alone")


def case_autotools():
    need("autoreconf", "autoconf automake")
    wd, src = project("autotools")
    sh(["autoreconf", "-i"], src)
    build = os.path.join(wd, "build")
    os.makedirs(build)
    sh([os.path.join(src, "configure"), "CC=instr-cc"], build, {"INSTR_WRAPPER": "off"})
    expect_no_experiment(wd, "./configure (INSTR_WRAPPER=off)")
    sh(["make"], build)
    expect_instrumented(os.path.join(build, "app"), wd)


def case_autotools_probe():
    need("autoreconf", "autoconf automake")
    wd, src = project("autotools")
    sh(["autoreconf", "-i"], src)
    sh(["./configure", "CC=instr-cc"], src)
    expect_no_experiment(wd, "./configure (INSTR_WRAPPER unset)")
    sh(["make"], src)
    expect_instrumented(os.path.join(src, "app"), wd)


def case_meson():
    need("meson", "meson")
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


# A Makefile that picks its flags by the compiler's name in $(CC), as real ones do for
# OpenMP and LTO: with instr-gcc or instr-clang it must find the name (docs/build-systems.md).
BY_NAME_MAKEFILE = """\
ifneq ($(findstring clang,$(CC)),)
FLAVOUR = clang
else ifneq ($(findstring gcc,$(CC)),)
FLAVOUR = gcc
else ifneq ($(findstring g++,$(CC)),)
FLAVOUR = gcc
else
FLAVOUR = unknown
endif
flavour:
\t@echo $(FLAVOUR)
"""


def case_wrapper_names():
    """instr-gcc, instr-g++, instr-clang and instr-clang++: named after the compiler a
    Makefile looks for in $(CC), calling that compiler (clang's predefined macros or
    not), instrumenting as instr-cc does: the C project built by make with CC=instr-gcc and
    CC=instr-clang runs and records; the C++ program built by instr-g++ and instr-clang++
    too."""
    for w, family in (("instr-gcc", "gcc"), ("instr-clang", "clang"), ("instr-g++", "gcc"),
                      ("instr-clang++", "clang")):
        path = os.path.join(A.bindir, w)
        expect(os.path.islink(path) and os.readlink(path) == "instr",
               "%s is not a relative link to instr" % path)
        wd, src = project("names-" + w.replace("+", "x"))
        with open(os.path.join(src, "Makefile.byname"), "w") as f:
            f.write(BY_NAME_MAKEFILE)
        got = sh(["make", "-s", "-f", "Makefile.byname", "CC=" + w], src).stdout.strip()
        expect(got == family, "make found %r in CC=%s, expected %r" % (got, w, family))
        lang = "c++" if w.endswith("++") else "c"
        macros = sh([w, "-dM", "-E", "-x", lang, "/dev/null"], src).stdout
        expect(("__clang__" in macros) == (family == "clang"),
               "%s did not call %s (its predefined macros say otherwise)" % (w, family))
        if lang == "c":
            sh(["make", "-f", "Makefile.plain", "CC=" + w], src)
            expect_instrumented(os.path.join(src, "app"), wd)
            continue
        cxx = os.path.join(os.path.dirname(A.src), "project_cxx", "grid.cpp")
        sh([w, "-O1", cxx, "-o", os.path.join(wd, "grid")], wd)
        exp = os.path.join(wd, "exp")
        p = sh([os.path.join(wd, "grid")], wd, {"INSTR_EXPERIMENT_DIRECTORY": exp})
        expect(p.stdout == "grid 8.000 caught 1\n", "grid printed %r" % p.stdout)
        visits = P.visits_by_region(P.load(os.path.join(exp, "profile.json")))
        expect(visits.get("heat::Grid::step(double)") == 4,
               "%s: grid's step visited %r times, expected 4" % (w, visits))
    print("wrapper names: instr-gcc, instr-g++, instr-clang, instr-clang++ found by name and "
          "instrumenting")


def case_cxx():
    """instr-c++ as CMake's C++ compiler (project_cxx/): configured plainly, built
    instrumented; the profile names the C++ functions as C++ does."""
    wd, src = project("cxx", os.path.join(os.path.dirname(A.src), "project_cxx"))
    build = os.path.join(wd, "build")
    sh(["cmake", "-S", src, "-B", build, "-DCMAKE_CXX_COMPILER=instr-c++"], wd,
       {"INSTR_WRAPPER": "off"})
    expect_no_experiment(wd, "cmake configure with instr-c++ (INSTR_WRAPPER=off)")
    sh(["cmake", "--build", build], wd)
    exp = os.path.join(wd, "exp")
    p = sh([os.path.join(build, "grid")], wd, {"INSTR_EXPERIMENT_DIRECTORY": exp})
    expect(p.stdout == "grid 8.000 caught 1\n", "grid printed %r" % p.stdout)
    visits = P.visits_by_region(P.load(os.path.join(exp, "profile.json")))
    for name, n in (("main", 1), ("heat::Grid::step(double)", 4),
                    ("heat::Grid::sum() const", 1), ("double heat::checked<double>(double)", 2)):
        expect(visits.get(name) == n, "grid: %s visited %r times, expected %d (%r)"
               % (name, visits.get(name), n, visits))


def case_mpicc():
    """instr-mpicc as make's CC (project_mpi/), run under mpirun with 2 ranks: one job
    profile with the program's functions and its MPI calls."""
    if not A.mpirun:
        raise Skip("this instr has no MPI layer, or mpirun was not found when it was "
                   "configured (Debian: libopenmpi-dev openmpi-bin)")
    wd, src = project("mpi", os.path.join(os.path.dirname(A.src), "project_mpi"))
    sh(["make", "CC=instr-mpicc"], src)
    run_dir = fresh_dir(os.path.join(wd, "run"))
    p = sh([A.mpirun, "-np", "2", "--oversubscribe", "--allow-run-as-root", "--bind-to", "none",
            os.path.join(src, "ring")], run_dir, {"OMPI_MCA_btl": "self,vader"})
    expect(p.stdout == "ring token 3 sum 1\n", "ring printed %r" % p.stdout)
    exps = experiments_under(run_dir)
    expect(len(exps) >= 1 and all(e.startswith(exps[0]) for e in exps),
           "expected one job experiment directory, found %r" % exps)
    prof = P.load(os.path.join(exps[0], "profile.json"))
    expect(prof["run"]["mpi"]["ranks"] == 2, "run.mpi: %r" % prof["run"]["mpi"])
    visits = P.visits_by_region(prof)
    for name, n in (("main", 2), ("pass_token", 6), ("MPI_Send", 6), ("MPI_Recv", 6),
                    ("MPI_Allreduce", 2), ("MPI_Init", 2)):
        expect(visits.get(name) == n, "ring: %s visited %r times, expected %d (%r)"
               % (name, visits.get(name), n, visits))


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
    # instrumented libraries: the consumers themselves are not (no main in the profile)
    for consumer in ("static_consumer", "shared_consumer"):
        exe = os.path.join(build, consumer)
        exp = os.path.join(wd, "exp-" + consumer)
        p = sh([exe], wd, {"INSTR_EXPERIMENT_DIRECTORY": exp})
        expect(p.stdout == "kernel 1.998\n", "%s printed %r" % (consumer, p.stdout))
        visits = P.visits_by_region(P.load(os.path.join(exp, "profile.json")))
        expect(visits == {"kernel_run": 1, "kernel_step": 10},
               "%s: %r (expected the library's kernel_run once and kernel_step 10 times, "
               "main not instrumented)" % (consumer, visits))
    # MODE cyg: -finstrument-functions, the functions named from the ELF symbols
    cyg = os.path.join(build, "cygapp")
    nm = sh(["nm", "-u", cyg], wd).stdout
    expect("__cyg_profile_func_enter" in nm and "__instr_enter" not in nm,
           "cygapp is not a -finstrument-functions build:\n%s" % nm)
    exp = os.path.join(wd, "exp-cyg")
    sh([cyg], wd, {"INSTR_EXPERIMENT_DIRECTORY": exp})
    visits = P.visits_by_region(P.load(os.path.join(exp, "profile.json")))
    expect(visits.get("main") == 1 and visits.get("kernel_run") == 1 and
           visits.get("kernel_step") == 10, "cygapp: %r" % visits)


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
    # Libs.private: what the static runtime needs, as instr-config --static says
    pcs = sh(["pkg-config", "--static", "--libs", "instr"], A.work,
             {"PKG_CONFIG_PATH": os.path.join(A.prefix, A.libdir, "pkgconfig")}).stdout.split()
    needed = [f for f in st if f.startswith("-l")]
    expect(needed and all(f in pcs for f in needed),
           "pkg-config --static --libs instr: %r lacks some of instr-config --static's %r"
           % (pcs, needed))
    bad = sh([os.path.join(A.prefix, "bin", "instr-config"), "--libs", "--static", "--mpi"],
             A.work, ok=False)
    expect(bad.returncode == 2 and "shared library only" in bad.stderr,
           "instr-config --static --mpi: %d %r" % (bad.returncode, bad.stderr))
    v = sh([os.path.join(A.prefix, "bin", "instr-config"), "--version"], A.work).stdout.strip()
    pv = sh(["pkg-config", "--modversion", "instr"], A.work,
            {"PKG_CONFIG_PATH": os.path.join(A.prefix, A.libdir, "pkgconfig")}).stdout.strip()
    expect(v and v == pv, "instr-config --version %r, pkg-config --modversion %r" % (v, pv))
    bad = sh([os.path.join(A.prefix, "bin", "instr-config"), "--clfags"], A.work, ok=False)
    expect(bad.returncode == 2 and "--clfags" in bad.stderr, "a bad option: %d %r"
           % (bad.returncode, bad.stderr))


SUMMARY_PARTS = ("LLVM plugin", "GCC plugin", "XRay adapter", "trace (OTF2)", "MPI",
                 "OpenMP (OMPT)")


def summary(info):
    """instr-info config-summary as {section: text}, after checking its shape."""
    p = sh([info, "config-summary"], A.work)
    lines = p.stdout.splitlines()
    expect(lines and lines[0].startswith("instr ") and "build)" in lines[0],
           "config-summary's first line: %r" % lines[:1])
    got = {}
    for line in lines[1:]:
        key, _, value = line.strip().partition(":")
        got[key] = value.strip()
    for part in ("built with",) + SUMMARY_PARTS + ("prefix", "plugins here"):
        expect(got.get(part), "config-summary has no '%s:' line:\n%s" % (part, p.stdout))
    for part in SUMMARY_PARTS:
        v = got[part]
        expect(not v.startswith("not built") or
               (v.startswith("not built (") and v.endswith(")") and len(v) > 14),
               "%s: %r is not built without a reason" % (part, v))
    return got


def case_info_summary():
    """config-summary of this tree: every section, the prefix and the plugins beside it; and
    of a tree configured without plugins and without MPI: each of those says why (the XRay
    adapter is built either way: plain -fxray-instrument builds use it, docs/xray.md)."""
    got = summary(os.path.join(A.bindir, "instr-info"))
    expect(got["prefix"] == os.path.realpath(A.prefix), "prefix %r, expected %r"
           % (got["prefix"], os.path.realpath(A.prefix)))
    plugdir = os.path.join(A.prefix, A.libdir, "instr")
    here = sorted(os.listdir(plugdir)) if os.path.isdir(plugdir) else []
    expect(got["plugins here"].split() == (here or ["none"]),
           "plugins here: %r, %s holds %r" % (got["plugins here"], plugdir, here))
    # a tree with parts left out, configured from the same sources
    wd = fresh_dir(os.path.join(A.work, A.case))
    build = os.path.join(wd, "build")
    sh(["cmake", "-S", A.source_root, "-B", build, "-DINSTR_BUILD_PLUGINS=OFF",
        "-DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON", "-DBUILD_TESTING=OFF"], wd)
    sh(["cmake", "--build", build, "--target", "instr-info"], wd)
    got = summary(os.path.join(build, "bin", "instr-info"))
    for part, reason in (("LLVM plugin", "INSTR_BUILD_PLUGINS=OFF"),
                         ("GCC plugin", "INSTR_BUILD_PLUGINS=OFF"),
                         ("MPI", "libopenmpi-dev")):
        expect(got[part].startswith("not built (") and reason in got[part],
               "%s in a tree without it: %r (expected the reason to name %s)"
               % (part, got[part], reason))
    expect(got["plugins here"] == "none", "plugins here: %r in a tree without plugins"
           % got["plugins here"])


def main():
    global A
    ap = argparse.ArgumentParser()
    ap.add_argument("case")
    ap.add_argument("--prefix", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--libdir", default="lib", help="the tree's lib directory, relative")
    ap.add_argument("--clang", help="a clang with an LLVM plugin in the tree")
    ap.add_argument("--source-root", help="instr's source tree (info_summary configures it)")
    ap.add_argument("--mpirun", help="mpirun, where this instr has its MPI layer")
    A = ap.parse_args()
    A.bindir = os.path.join(A.prefix, "bin")
    try:
        return run_case(globals(), A.case)
    except Skip as e:
        print("SKIP %s: %s" % (A.case, e))
        return 77


if __name__ == "__main__":
    sys.exit(main())
