#!/usr/bin/env python3
"""The install tree is the product: install with `cmake --install` into a fresh prefix, move
the prefix elsewhere, hide the build tree and the source tree (a private mount namespace with
an empty tmpfs over each, so any path left pointing into them fails for real), and use the
moved tree from there as a user would:
  demo      examples/heat built with the moved `instr gcc`, run, profile written; the program's
            run path names the moved prefix
  mpi       tests/mpi/progs/halo.c built with `instr mpicc`, mpirun -np 2, one job profile
  xray      tests/xray/progs/xprog.c built with `instr --mode=xray clang`, run, profile
  packages  instr-config, pkg-config instr and find_package(instr) give the moved prefix's
            paths, and a program built with each records; no installed file (ELF run paths,
            .pc, .cmake, .lua) names the build tree or the source tree
  lmod      `module load instr` (Lmod) from the moved tree's share/modulefiles
  library   libinstr-rt.so is a link to libinstr-rt.so.SOVERSION, the library's SONAME, and
            the library exports exactly the symbols runtime/libinstr-rt.map names (those of
            parts this build lacks, --not-built, excepted)
Usage: check_install.py CASE --build DIR --source DIR --libdir REL --soversion N
                        [--mpicc C --mpirun R] [--clang C] [--not-built SYMBOL...]
Exits 77 (a ctest skip) with the reason when no mount namespace can be made (not root).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP = 77
A = None


class Fail(Exception):
    pass


def expect(cond, what):
    if not cond:
        raise Fail(what)


def run(cmd, cwd, env=None, ok=True, timeout=300):
    e = {k: v for k, v in os.environ.items() if not k.startswith("INSTR_")}
    e.update(env or {})
    p = subprocess.run(cmd, cwd=cwd, env=e, capture_output=True, text=True, timeout=timeout)
    if ok:
        expect(p.returncode == 0, "%s failed (%d):\n%s%s" % (" ".join(cmd), p.returncode,
                                                             p.stdout[-3000:], p.stderr[-3000:]))
    return p


def inside(path, top):
    path, top = os.path.realpath(path), os.path.realpath(top)
    return path == top or path.startswith(top + os.sep)


# ---- outside: install, move, hide, run the case inside ----

def outer():
    build, source = os.path.realpath(A.build), os.path.realpath(A.source)
    if A.case == "mpi" and not A.mpicc:
        print("SKIP: this instr has no MPI layer, or mpicc/mpirun were not found when it was "
              "configured (Debian: libopenmpi-dev openmpi-bin)")
        return SKIP
    if A.case == "lmod":
        A.lmod_init = lmod_init()
        if not A.lmod_init:
            print("SKIP: Lmod not found (Debian: lmod; or set LMOD_PKG)")
            return SKIP
    if A.case == "xray" and not A.clang:
        print("SKIP: no LLVM plugin with a clang and its XRay runtime in this build (Debian: "
              "clang-19 llvm-19-dev libclang-rt-19-dev)")
        return SKIP
    probe = subprocess.run(["unshare", "--mount", "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        print("SKIP: no private mount namespace (unshare --mount: %s); the build and source "
              "trees cannot be hidden, run this test as root" % probe.stderr.strip())
        return SKIP
    top = tempfile.mkdtemp(prefix="instr-install-")
    if inside(top, build) or inside(top, source):
        top2 = tempfile.mkdtemp(prefix="instr-install-", dir="/tmp")
        shutil.rmtree(top)
        top = top2
    try:
        p1, p2 = os.path.join(top, "first"), os.path.join(top, "moved", "instr")
        run(["cmake", "--install", build, "--prefix", p1], top)
        os.makedirs(os.path.dirname(p2))
        os.rename(p1, p2)
        inputs = os.path.join(top, "inputs")
        os.makedirs(inputs)
        for f in (os.path.join(source, "examples", "heat", "heat.c"),
                  os.path.join(source, "tests", "mpi", "progs", "halo.c"),
                  os.path.join(source, "tests", "xray", "progs", "xprog.c"),
                  os.path.join(source, "tests", "buildsys", "project", "manual.c"),
                  os.path.join(source, "tests", "lib", "profile.py"),
                  os.path.join(source, "runtime", "libinstr-rt.map"),
                  os.path.abspath(__file__)):
            shutil.copy(f, inputs)
        # the hidden trees: the build tree first (it may be inside the source tree)
        hide = 'mount -t tmpfs instr-hidden "$1" && mount -t tmpfs instr-hidden "$2" && ' \
               'shift 2 && exec "$@"'
        cmd = ["unshare", "--mount", "--propagation", "private", "sh", "-c", hide, "sh",
               build, source, sys.executable, os.path.join(inputs, "check_install.py"),
               A.case, "--inside", "--prefix", p2, "--top", top, "--libdir", A.libdir,
               "--build", build, "--source", source, "--soversion", A.soversion]
        for sym in A.not_built:
            cmd += ["--not-built", sym]
        for opt in ("mpicc", "mpirun", "clang", "lmod_init"):
            if getattr(A, opt, None):
                cmd += ["--" + opt.replace("_", "-"), getattr(A, opt)]
        p = subprocess.run(cmd, cwd=top, capture_output=True, text=True, timeout=600)
        sys.stdout.write(p.stdout)
        sys.stdout.write(p.stderr)
        if p.returncode != 0:
            print("(the moved install tree is kept in %s)" % top)
            top = None
        return p.returncode
    finally:
        if top:
            shutil.rmtree(top, ignore_errors=True)


# ---- inside: the build and source trees are empty; only the moved prefix is there ----

def P():
    sys.path.insert(0, os.path.join(A.top, "inputs"))
    import profile
    return profile


def src(name):
    return os.path.join(A.top, "inputs", name)


def bin_(tool):
    return os.path.join(A.prefix, "bin", tool)


def lib():
    return os.path.join(A.prefix, A.libdir)


def work(name):
    d = os.path.join(A.top, "work", name)
    os.makedirs(d)
    return d


def expect_runpath(exe, wd):
    """The program finds libinstr-rt in the moved prefix, by its run path."""
    dyn = run(["readelf", "-d", exe], wd).stdout
    expect(("[%s]" % lib()) in dyn or (":%s]" % lib()) in dyn or ("[%s:" % lib()) in dyn,
           "%s: run path does not name %s:\n%s" % (exe, lib(), dyn))
    ldd = run(["ldd", exe], wd).stdout
    soname = "libinstr-rt.so.%s" % A.soversion
    want = "%s => %s/%s" % (soname, lib(), soname)
    expect(want in ldd, "%s: expected '%s' in ldd:\n%s" % (exe, want, ldd))


def one_experiment(wd):
    exps = [os.path.join(wd, d) for d in os.listdir(wd) if d.startswith("instr-")]
    expect(len(exps) == 1, "expected one experiment directory in %s, found %r" % (wd, exps))
    return exps[0]


def case_demo():
    wd = work("demo")
    exe = os.path.join(wd, "heat")
    run([bin_("instr"), "gcc", "-O2", src("heat.c"), "-o", exe, "-lm"], wd)
    expect_runpath(exe, wd)
    p = run([exe, "64", "40"], wd)
    expect("heat:" in p.stdout, "heat printed %r" % p.stdout)
    prof = P().load(os.path.join(one_experiment(wd), "profile.json"))
    v = P().visits_by_region(prof)
    # -O2 inlines sweep; update_row runs for the 62 inner rows of each step
    expect(v.get("main") == 1 and v.get("update_row", 0) > 0 and v["update_row"] % 62 == 0,
           "heat 64: expected main once and update_row 62 times a step: %r" % v)
    # the same through the instr-cc link (a relative symbolic link to instr)
    exe2 = os.path.join(wd, "heat-cc")
    run([bin_("instr-cc"), "-O2", src("heat.c"), "-o", exe2, "-lm"], wd,
        {"INSTR_WRAPPER_COMPILER": "gcc"})
    expect_runpath(exe2, wd)
    expect("__instr_enter" in run(["nm", "-u", exe2], wd).stdout, "instr-cc did not instrument")
    # every wrapper name is installed as a relative link to instr (docs/build-systems.md)
    for w in ("instr-cc", "instr-c++", "instr-mpicc", "instr-mpicxx", "instr-gfortran",
              "instr-gcc", "instr-g++", "instr-clang", "instr-clang++"):
        link = bin_(w)
        expect(os.path.islink(link) and os.readlink(link) == "instr",
               "%s is not installed as a relative link to instr" % link)
    print("demo: heat built by the moved instr gcc, %d steps recorded; instr-cc too"
          % (v["update_row"] // 62))


def case_mpi():
    expect(A.mpicc and A.mpirun, "no --mpicc/--mpirun")
    wd = work("mpi")
    exe = os.path.join(wd, "halo")
    run([bin_("instr"), A.mpicc, "-O1", src("halo.c"), "-o", exe], wd)
    expect_runpath(exe, wd)
    ldd = run(["ldd", exe], wd).stdout
    expect("libinstr-rt-mpi.so => %s/libinstr-rt-mpi.so" % lib() in ldd,
           "the PMPI layer is not the moved prefix's:\n%s" % ldd)
    p = run([A.mpirun, "-np", "2", "--oversubscribe", "--allow-run-as-root", "--bind-to", "none",
             exe], wd, {"OMPI_MCA_btl": "self,vader"})
    exp = one_experiment(wd)
    prof = P().load(exp)
    v = P().visits_by_region(prof)
    expect(prof["run"]["mpi"]["ranks"] == 2 and prof["run"]["mpi"]["complete"],
           "run.mpi: %r" % prof["run"]["mpi"])
    expect(v.get("main") == 2 and v.get("MPI_Init") == 2 and v.get("compute") == 20 and
           v.get("MPI_Allreduce") == 20, "job profile visits: %r" % v)
    expect(re.search(r"MPI job of 2 ranks: [^\n]*profile\.json[^\n]* written to", p.stderr),
           "no job summary:\n" + p.stderr)
    print("mpi: halo built by the moved instr mpicc, job profile of 2 ranks")


def case_xray():
    expect(A.clang, "no --clang")
    wd = work("xray")
    exe = os.path.join(wd, "xprog")
    p = run([bin_("instr"), "--mode=xray", A.clang, "-O1", src("xprog.c"), "-o", exe], wd)
    expect(not p.stderr.strip(), "the wrapper said: %s" % p.stderr)
    expect_runpath(exe, wd)
    run([exe, "run"], wd)
    v = P().visits_by_region(P().load(os.path.join(one_experiment(wd), "profile.json")))
    want = {"main": 1, "phase": 1, "work_a": 6, "work_b": 5, "work_c": 5, "tail_caller": 1}
    expect(v == want, "xprog run: visits %r, expected %r" % (v, want))
    print("xray: xprog built by the moved instr --mode=xray %s, XRay profile recorded"
          % os.path.basename(A.clang))


def manual(flags, wd, name, extra_env=None):
    exe = os.path.join(wd, name)
    run(["cc", src("manual.c"), "-o", exe] + flags, wd, extra_env)
    exp = os.path.join(wd, "exp-" + name)
    run([exe], wd, {"INSTR_EXPERIMENT_DIRECTORY": exp})
    v = P().visits_by_region(P().load(os.path.join(exp, "profile.json")))
    expect(v.get("manual_phase") == 1, "%s: manual_phase not recorded: %r" % (name, v))


def case_packages():
    wd = work("packages")
    for flags_of in (["instr-config", "--cflags", "--libs"],
                     ["instr-config", "--cflags", "--libs", "--static"]):
        flags = run([bin_(flags_of[0])] + flags_of[1:], wd).stdout.split()
        expect(any(f.startswith(A.prefix + "/") or f.startswith("-I" + A.prefix + "/")
                   or f.startswith("-L" + A.prefix + "/") for f in flags),
               "%s names no path in the moved prefix: %r" % (" ".join(flags_of), flags))
        manual(flags, wd, "static" if "--static" in flags_of else "shared")
    pcenv = {"PKG_CONFIG_PATH": os.path.join(lib(), "pkgconfig")}
    pc = run(["pkg-config", "--cflags", "--libs", "instr"], wd, pcenv).stdout.split()
    expect("-L" + lib() in ["-L" + os.path.normpath(f[2:]) for f in pc if f.startswith("-L")],
           "pkg-config instr: %r has no -L%s" % (pc, lib()))
    manual(pc, wd, "pkgconfig")
    prefix = run([bin_("instr-config"), "--prefix"], wd).stdout.strip()
    expect(prefix == A.prefix, "instr-config --prefix: %r, expected %r" % (prefix, A.prefix))
    # find_package(instr) and instr_instrument() from the moved prefix
    proj = os.path.join(wd, "cmake")
    os.makedirs(proj)
    with open(os.path.join(proj, "CMakeLists.txt"), "w") as f:
        f.write("cmake_minimum_required(VERSION 3.21)\nproject(p C)\nfind_package(instr REQUIRED)\n"
                "add_executable(heat %s)\ntarget_link_libraries(heat PRIVATE m)\n"
                "instr_instrument(heat)\n" % src("heat.c"))
    where = ["-DCMAKE_PREFIX_PATH=" + A.prefix]
    if A.libdir != "lib":
        # CMake searches <prefix>/lib64/cmake only where the platform uses lib64 (not Debian)
        where.append("-Dinstr_DIR=" + os.path.join(lib(), "cmake", "instr"))
    run(["cmake", "-S", proj, "-B", os.path.join(proj, "b")] + where, wd)
    run(["cmake", "--build", os.path.join(proj, "b")], wd)
    run([os.path.join(proj, "b", "heat"), "32", "5"], proj)
    v = P().visits_by_region(P().load(os.path.join(one_experiment(proj), "profile.json")))
    expect(v.get("main") == 1 and v.get("update_row"), "find_package build: %r" % v)
    # nothing installed points back into the build or the source tree
    bad = []
    for root, _, files in os.walk(A.prefix):
        for fn in files:
            path = os.path.join(root, fn)
            if os.path.islink(path):
                expect(not os.path.isabs(os.readlink(path)), "%s is an absolute link" % path)
                continue
            with open(path, "rb") as f:
                head = f.read(4)
            if head == b"\x7fELF":
                text = run(["readelf", "-d", path], wd).stdout
                text = "\n".join(l for l in text.splitlines() if "PATH" in l)
            elif fn.endswith((".pc", ".cmake", ".lua", ".h")):
                text = open(path, errors="replace").read()
            else:
                continue
            for tree in (A.build, A.source):
                if tree in text:
                    bad.append("%s names %s" % (path, tree))
    expect(not bad, "installed files point into the hidden trees:\n  " + "\n  ".join(bad))
    print("packages: instr-config, pkg-config and find_package(instr) use the moved prefix")


LMOD_INIT = ("/usr/share/lmod/lmod/init/bash", "/opt/apps/lmod/lmod/init/bash")


def lmod_init():
    pkg = os.environ.get("LMOD_PKG")
    for path in ([os.path.join(pkg, "init", "bash")] if pkg else []) + list(LMOD_INIT):
        if os.path.isfile(path):
            return path
    return None


def case_lmod():
    """The modulefile from the moved tree: `module load instr` puts the moved bin/ on PATH,
    its pkg-config directory on PKG_CONFIG_PATH and the prefix on CMAKE_PREFIX_PATH."""
    wd = work("lmod")
    script = ('source "$1" && module use "$2" && module load instr && '
              'echo "instr=$(command -v instr)" && echo "pkg=$PKG_CONFIG_PATH" && '
              'echo "cmake=$CMAKE_PREFIX_PATH" && echo "version=$(pkg-config --modversion instr)" '
              '&& echo "config=$(instr-config --prefix)"')
    p = run(["bash", "-c", script, "bash", A.lmod_init,
             os.path.join(A.prefix, "share", "modulefiles")], wd)
    got = dict(l.split("=", 1) for l in p.stdout.splitlines() if "=" in l)
    want = {"instr": bin_("instr"), "pkg": os.path.join(lib(), "pkgconfig"), "cmake": A.prefix,
            "config": A.prefix}
    for k, v in want.items():
        expect(got.get(k, "").split(":")[0] == v, "module load instr: %s is %r, expected %r"
               "\n%s%s" % (k, got.get(k), v, p.stdout, p.stderr))
    expect(got.get("version"), "pkg-config found no instr after module load:\n" + p.stderr)
    print("lmod: module load instr from the moved tree, instr %s" % got["version"])


def map_symbols(path):
    """The names a version script exports (its global: part), wildcards refused."""
    with open(path) as f:
        text = re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)
    m = re.search(r"global:(.*?)local:", text, re.S)
    expect(m, "%s: no global: ... local: part" % path)
    names = [n.strip() for n in m.group(1).split(";") if n.strip()]
    wild = [n for n in names if any(c in n for c in "*?[")]
    expect(not wild, "%s exports by wildcard: %r" % (path, wild))
    return set(names)


def case_library():
    soname = "libinstr-rt.so.%s" % A.soversion
    link = os.path.join(lib(), "libinstr-rt.so")
    expect(os.path.islink(link) and os.readlink(link) == soname,
           "%s is not a link to %s" % (link, soname))
    real = os.path.realpath(link)
    expect(os.path.isfile(real) and os.path.basename(real).startswith(soname + "."),
           "%s: the library file is %s" % (soname, real))
    dyn = run(["readelf", "-d", real], lib()).stdout
    expect("Library soname: [%s]" % soname in dyn, "%s: SONAME is not %s:\n%s"
           % (real, soname, dyn))
    nm = run(["nm", "-D", "--defined-only", real], lib()).stdout
    exported = {l.split()[-1] for l in nm.splitlines() if l.strip()}
    named = map_symbols(src("libinstr-rt.map"))
    extra, missing = exported - named, named - exported - set(A.not_built)
    expect(not extra and not missing,
           "libinstr-rt.so exports %r not in libinstr-rt.map; the map names %r it does not "
           "export" % (sorted(extra), sorted(missing)))
    mpi = os.path.join(lib(), "libinstr-rt-mpi.so")
    if os.path.exists(mpi):
        needed = run(["readelf", "-d", mpi], lib()).stdout
        expect("Shared library: [%s]" % soname in needed,
               "libinstr-rt-mpi.so does not need %s:\n%s" % (soname, needed))
    print("%s: SONAME, link and %d exported symbols as the map names them"
          % (soname, len(exported)))


def inner():
    for tree in (A.build, A.source):
        # empty, or gone (a build tree inside the source tree is under the source's mount)
        expect(not os.path.exists(tree) or not os.listdir(tree), "%s is not hidden" % tree)
    fn = globals().get("case_" + A.case)
    if not fn:
        print("unknown case %s" % A.case)
        return 2
    try:
        fn()
    except Fail as e:
        print("FAIL %s: %s" % (A.case, e))
        return 1
    print("ok %s" % A.case)
    return 0


def main():
    global A
    ap = argparse.ArgumentParser()
    ap.add_argument("case")
    ap.add_argument("--build", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--libdir", required=True)
    ap.add_argument("--mpicc")
    ap.add_argument("--mpirun")
    ap.add_argument("--clang")
    ap.add_argument("--lmod-init", dest="lmod_init")
    ap.add_argument("--soversion", required=True)
    ap.add_argument("--not-built", dest="not_built", action="append", default=[])
    ap.add_argument("--inside", action="store_true")
    ap.add_argument("--prefix")
    ap.add_argument("--top")
    A = ap.parse_args()
    try:
        return inner() if A.inside else outer()
    except Fail as e:
        print("FAIL %s: %s" % (A.case, e))
        return 1


if __name__ == "__main__":
    sys.exit(main())
