#!/usr/bin/env python3
"""I/O recording (INSTR_IO, docs/io.md) end to end: programs with known I/O per function,
built by the instr compiler wrapper with each front end, run with recording on; the
operations, failed operations and bytes per call path and paradigm, per file and per
function must be exact, and the POSIX files' figures equal what strace sees for the same
run. Usage: check.py CASE --wrapper bin/instr --src DIR --work DIR [--mpirun M --mpicc C]
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from cases import Fail, clean_env, expect, fresh_dir, run_case  # noqa: E402  tests/lib/cases.py
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cube"))
import cubex  # noqa: E402  tests/cube/cubex.py
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "report"))
import browser  # noqa: E402  tests/report/browser.py
import jobdb  # noqa: E402  tests/lib/jobdb.py
import recorded as R  # noqa: E402  tests/lib/recorded.py

A = None

# (innermost region, paradigm) -> (operations, failed, bytes read, bytes written); io_c.c
# says where each comes from. data.bin is 3500 bytes (the writev rewrites 3000..3300, the
# pwritev 0..100). A mapping's bytes are the function's only, neither read nor written.
C_PATHS = {
    ("posix_write", "posix"): (9, 0, 0, 3900),
    ("posix_read", "posix"): (13, 0, 3710, 0),
    ("posix_fail", "posix"): (3, 3, 0, 0),
    ("posix_map_stat", "posix"): (14, 2, 100, 0),
    ("posix_unlink", "posix"): (3, 0, 0, 0),
    ("io_thread", "posix"): (408, 0, 0, 25600),
    ("on_signal", "posix"): (1, 0, 0, 16),
    ("main", "posix"): (1, 0, 0, 0),
    ("stdio_write", "stdio"): (7, 0, 0, 64),
    ("stdio_read", "stdio"): (7, 0, 65, 0),
    ("stdio_fail", "stdio"): (1, 1, 0, 0),
    ("main", "stdio"): (1, 0, 0, 7),
}
C_FILES = {
    ("data.bin", "posix"): (34, 0, 3810, 3900),
    ("thread0.bin", "posix"): (102, 0, 0, 6400),
    ("thread1.bin", "posix"): (102, 0, 0, 6400),
    ("thread2.bin", "posix"): (102, 0, 0, 6400),
    ("thread3.bin", "posix"): (102, 0, 0, 6400),
    ("scratch.tmp", "posix"): (3, 0, 0, 0),
    ("no/such/file", "posix"): (2, 2, 0, 0),
    ("/dev/null", "posix"): (2, 0, 0, 16),
    ("<no descriptor>", "posix"): (2, 2, 0, 0),
    ("<fd 12345>", "posix"): (1, 1, 0, 0),
    ("text.txt", "stdio"): (14, 0, 65, 64),
    ("no/such/file", "stdio"): (1, 1, 0, 0),
    ("<stdout>", "stdio"): (1, 0, 0, 7),
}
# Functions whose name no compiler changes: (calls, failed, bytes).
C_FUNCTIONS = {
    "open": (9, 1, 0), "creat": (1, 0, 0), "close": (10, 1, 0), "read": (7, 1, 3510),
    "write": (404, 0, 28616), "pread": (1, 0, 100), "pwrite": (1, 0, 500),
    "readv": (1, 0, 100), "writev": (1, 0, 300), "lseek": (1, 0, 0), "fsync": (1, 0, 0),
    "dup": (1, 0, 0), "unlink": (1, 0, 0), "fopen": (3, 1, 0), "fclose": (2, 0, 0),
    "fread": (1, 0, 57), "fgets": (1, 0, 7), "fprintf": (1, 0, 7), "printf": (1, 0, 7),
    "fflush": (1, 0, 0), "fseek": (1, 0, 0), "preadv": (1, 0, 100), "pwritev": (1, 0, 100),
    "mmap": (2, 1, 3500), "stat": (2, 1, 0), "lstat": (1, 0, 0), "fstat": (1, 0, 0),
    "fstatat": (2, 0, 0), "__xstat": (1, 0, 0), "mmap64": (1, 0, 100), "fstat64": (1, 0, 0),
}
FIGURES = ("operations", "failed", "bytes_read", "bytes_written")


def run_recorded(exe, name, env=None, prefix=()):
    return R.run_recorded(A, exe, name, dict({"INSTR_IO": "all"}, **(env or {})), prefix)


def figures(row):
    return tuple(row[k] for k in FIGURES)


def by_function(prof):
    """(innermost region, paradigm) -> figures, summed over call paths."""
    ps = R.chains(prof)
    out = {}
    for c in prof["io"]["call_paths"]:
        key = (ps[c["node"]][-1] if c["node"] is not None else None, c["paradigm"])
        v = out.get(key, (0, 0, 0, 0))
        out[key] = tuple(a + b for a, b in zip(v, figures(c)))
    return out


def check_c(prof, exp, what):
    io = prof["io"]
    got = by_function(prof)
    expect(got == C_PATHS, "%s: call paths %r, expected %r" % (what, got, C_PATHS))
    files = {(f["name"], f["paradigm"]): figures(f) for f in io["files"]}
    expect(files == C_FILES, "%s: files %r, expected %r" % (what, files, C_FILES))
    fns = {f["function"]: (f["calls"], f["failed"], f["bytes"]) for f in io["functions"]}
    for fn, v in C_FUNCTIONS.items():
        expect(fns.get(fn) == v, "%s: %s: %r, expected %r" % (what, fn, fns.get(fn), v))
    # The paradigms' totals are the call paths' sums; the functions' calls too.
    for par in ("posix", "stdio"):
        tot = [p for p in io["paradigms"] if p["paradigm"] == par]
        want = [sum(v[i] for k, v in C_PATHS.items() if k[1] == par) for i in range(4)]
        expect(len(tot) == 1 and list(figures(tot[0])) == want,
               "%s: %s totals %r, expected %r" % (what, par, tot, want))
        expect(sum(f["calls"] for f in io["functions"] if f["paradigm"] == par) == want[0],
               "%s: %s functions %r" % (what, par, io["functions"]))
    expect(io["dropped_in_handlers"] == 0, what)
    expect(all(p["time_ns"] > 0 for p in io["paradigms"]), "%s: time %r" % (what, io))
    with open(os.path.join(exp, "profile.txt")) as f:
        text = f.read()
    for line in ("\nI/O (INSTR_IO", "\nI/O per file", "| main > posix_read\n", "| data.bin\n",
                 "  posix           13        0            3710               0 "):
        expect(line in text, "%s: profile.txt lacks %r:\n%s" % (what, line, text))
    check_cube(prof, exp, what)


def check_cube(prof, exp, what):
    """profile.cubex has the I/O metrics, equal to profile.json's io (tests/cube/cubex.py)."""
    try:
        cube = cubex.read(os.path.join(exp, "profile.cubex"))
    except cubex.CubeError as e:
        raise Fail("%s: profile.cubex: %s" % (what, e))
    expect("io_bytes_written" in cube.metrics, "%s: no I/O metrics in profile.cubex" % what)
    bad = cubex.check_against_json(cube, prof) + cubex.check_io(cube, prof)
    expect(not bad, "%s: profile.cubex vs profile.json: %s" % (what, bad[:10]))


def html_rows(dom):
    """The I/O tables of a rendered profile.html: {table: [cell texts of each row]}."""
    out, row = {}, None
    for tag, attrs, text in dom.elements:
        if tag == "tr":
            row = None
            if attrs.get("data-io"):
                row = []
                out.setdefault(attrs["data-io"], []).append(row)
        elif tag == "td" and row is not None:
            row.append(text)
    return out


def check_html(prof, exp, what):
    """profile.html in headless Chromium shows the I/O section as profile.txt does: per
    paradigm, the top 25 call paths by time with their path, the files, the functions (a
    job's: the slowest rank and the ranks), each row's figures those of profile.json."""
    chromium = browser.find()
    if not chromium:
        print("chromium not found: profile.html's I/O section not checked")
        return
    work = fresh_dir(os.path.join(A.work, A.case, "html_" + what))
    dom, reqs = browser.render(chromium, "file://" + os.path.join(exp, "profile.html"), work)
    expect(not reqs, "%s: profile.html made requests %r" % (what, reqs))
    d = browser.Dom(dom)
    sec = d.by_id("io-section")
    expect(sec is not None and "hidden" not in sec[1], "%s: no I/O section shown" % what)
    got = html_rows(d)
    io = prof["io"]
    ps = R.chains(prof)

    def fig(r):
        return [r["paradigm"], str(r["operations"]), str(r["failed"]), str(r["bytes_read"]),
                str(r["bytes_written"])]
    want = {"paradigms": [fig(r) for r in io["paradigms"]],
            "paths": [fig(r) + [" > ".join(ps[r["node"]]) if r["node"] is not None
                                else "(outside any region)"] for r in io["call_paths"][:25]]}
    if "files" in io:
        want["files"] = [fig(r) + [r["name"]] for r in io["files"][:25]]
    if "functions" in io:
        want["functions"] = [[f["paradigm"], f["function"], str(f["calls"]), str(f["failed"]),
                              str(f["bytes"])] for f in io["functions"]]
    if "ranks" in io:
        want["ranks"] = [fig(r) + ["rank %d" % rk["rank"]] for rk in io["ranks"]
                         for r in rk["paradigms"]]
        slow = d.by_id("io-slowest")
        expect(slow is not None and slow[1].get("data-rank") == str(io["slowest_rank"]["rank"]),
               "%s: slowest rank %r, profile.json %r" % (what, slow, io["slowest_rank"]))
    for table, rows in want.items():
        # every column but the time, which the page writes rounded
        shown = [r[:5] + r[6:] for r in got.get(table, [])]
        expect(shown == rows, "%s: profile.html's I/O %s %r, profile.json's %r"
               % (what, table, shown, rows))
    print("%s: profile.html shows %s" % (what, {k: len(v) for k, v in got.items()}))


SYSCALL = re.compile(r'^(\w+)\((?:(-?\d+)<([^>]*)>|AT_FDCWD<[^>]*>, "([^"]*)"|"([^"]*)")'
                     r'.*\)\s+= (-?\d+)')
READS = {"read", "pread64", "readv", "preadv"}
WRITES = {"write", "pwrite64", "writev", "pwritev"}
# mmap's descriptor is its fifth argument, its result an address
MMAP = re.compile(r'^mmap\([^,]+, \d+, [^,]+, [^,]+, -?\d+<([^>]*)>, \w+\)\s+= (0x[0-9a-f]+|-1)')


def strace_files(path, run_dir, names):
    """Per file of names (relative to run_dir): (system calls, failed, bytes read, bytes
    written) as strace -y saw them."""
    out = {}
    lines = []
    for fn in os.listdir(os.path.dirname(path)):
        if fn.startswith(os.path.basename(path) + "."):
            with open(os.path.join(os.path.dirname(path), fn)) as f:
                lines += f.readlines()
    for line in lines:
        m = SYSCALL.match(line)
        mm = MMAP.match(line)
        if mm:
            call, fd, fdpath, atpath, argpath = "mmap", 0, mm.group(1), None, None
            res = -1 if mm.group(2) == "-1" else 0
        elif not m:
            continue
        else:
            call, fd, fdpath, atpath, argpath, res = m.groups()
            res = int(res)
        name = fdpath if fd is not None else (atpath or argpath)
        if name is None:
            continue
        if name.startswith(run_dir + "/"):
            name = name[len(run_dir) + 1:]
        if name not in names:
            continue
        v = list(out.get(name, (0, 0, 0, 0)))
        v[0] += 1
        v[1] += res < 0
        if call in READS and res > 0:
            v[2] += res
        if call in WRITES and res > 0:
            v[3] += res
        out[name] = tuple(v)
    return out


def check_strace(exe, name):
    """The POSIX files' figures equal strace's for the same run (stdio's do not: the C
    library's buffers turn a stream's calls into other system calls)."""
    strace = shutil.which("strace")
    if not strace:
        print("strace not found: cross-check skipped")
        return
    out = os.path.join(fresh_dir(os.path.join(A.work, A.case, "strace_" + name)), "st")
    exp, _, rd = run_recorded(exe, name, prefix=(
        strace, "-ff", "-qq", "-y", "-o", out, "-e",
        "trace=openat,creat,read,write,pread64,pwrite64,readv,writev,preadv,pwritev,lseek,fsync,"
        "close,dup,unlink,mmap,stat,fstat,lstat,newfstatat,statx"))
    prof = R.load(exp)
    check_c(prof, exp, name)
    names = [k[0] for k in C_FILES if k[1] == "posix" and not k[0].startswith("<")
             and k[0] not in ("no/such/file", "/dev/null")]
    seen = strace_files(out, os.path.realpath(rd), set(names))
    mine = {f["name"]: figures(f) for f in prof["io"]["files"]
            if f["paradigm"] == "posix" and f["name"] in names}
    expect(seen == mine, "%s: strace %r, recorded %r" % (name, seen, mine))


def case_c():
    for mode, cc in (("hooks", "gcc"), ("hooks", "clang"), ("cyg", "gcc")):
        name = "c_%s_%s" % (mode, cc)
        exe = R.build(A, "io_c.c", mode, cc, name)
        exp, _, _ = run_recorded(exe, name)
        check_c(R.load(exp), exp, name)
        if mode == "hooks" and cc == "gcc":
            check_html(R.load(exp), exp, name)
            check_strace(exe, name + "_strace")
            check_sampling(exe, name + "_sampling")


def check_sampling(exe, name):
    """With sampling on (its unwinder, libunwind, reads and maps files from the profiling
    signal's handler), the program's POSIX figures are exactly those without: libunwind's own
    calls are the runtime's."""
    exp, _, _ = run_recorded(exe, name, {"INSTR_IO": "posix", "INSTR_SAMPLING": "1",
                                         "INSTR_SAMPLING_PERIOD": "100us",
                                         "INSTR_SAMPLING_CLOCK": "wall"})
    got = by_function(R.load(exp))
    want = {k: v for k, v in C_PATHS.items() if k[1] == "posix"}
    expect(got == want, "%s: %r, expected %r" % (name, got, want))


IO_FUNCTIONS = set(C_FUNCTIONS) | {"fwrite", "fputs", "fputc", "putc", "fgetc", "getc", "puts",
                                   "open64", "openat", "dup2", "fdopen", "vfprintf"}
EVENT = re.compile(r'^(\w+)\s+(\d+)\s+(\d+)\s+(.*)$')


def check_trace(exp, prof, what):
    """otf2-print -A -Werror reads the trace; every I/O operation's begin has its completion
    (same location, matching id), the bytes per handle are the profile's per file, and every
    recorded call is an Enter of its function's region."""
    p = subprocess.run(["otf2-print", "-A", "-Werror", os.path.join(exp, "traces.otf2")],
                       capture_output=True, text=True)
    expect(p.returncode == 0 and "warning" not in p.stderr,
           "%s: otf2-print: %d %s" % (what, p.returncode, p.stderr[-2000:]))
    paradigm = {"POSIX I/O": "posix", "ISO C I/O": "stdio", "MPI I/O": "mpiio"}
    handles = {}
    for m in re.finditer(r'^IO_HANDLE\s+(\d+)\s+Name: "([^"]*)".*I/O Paradigm: "([^"]*)"',
                         p.stdout, re.M):
        handles[int(m.group(1))] = (m.group(2), paradigm[m.group(3)])
    open_ops = {}
    moved = {}
    enters = 0
    for line in p.stdout.splitlines():
        m = EVENT.match(line)
        if not m:
            continue
        ev, loc, _, rest = m.groups()
        if ev == "ENTER":
            r = re.search(r'Region: "([^"]*)"', rest)
            enters += r is not None and r.group(1) in IO_FUNCTIONS
        elif ev == "IO_OPERATION_BEGIN":
            h = int(re.search(r'Handle: "[^"]*" <(\d+)>', rest).group(1))
            mode = re.search(r'Mode: (\w+)', rest).group(1)
            mid = int(re.search(r'Matching Id: (\d+)', rest).group(1))
            expect((loc, mid) not in open_ops, "%s: matching id reused: %s" % (what, line))
            open_ops[(loc, mid)] = (h, mode)
        elif ev == "IO_OPERATION_COMPLETE":
            h = int(re.search(r'Handle: "[^"]*" <(\d+)>', rest).group(1))
            mid = int(re.search(r'Matching Id: (\d+)', rest).group(1))
            res = re.search(r'Bytes Result: (\w+)', rest).group(1)
            begun = open_ops.pop((loc, mid), None)
            expect(begun is not None and begun[0] == h, "%s: unmatched: %s" % (what, line))
            if begun[1] in ("READ", "WRITE") and res.isdigit() and int(res) < 2**64 - 1:
                key = handles[h] + (begun[1],)
                moved[key] = moved.get(key, 0) + int(res)
    expect(not open_ops, "%s: operations not completed: %r" % (what, open_ops))
    io = prof["io"]
    want = {}
    for f in io["files"]:
        if f["bytes_read"]:
            want[(f["name"], f["paradigm"], "READ")] = f["bytes_read"]
        if f["bytes_written"]:
            want[(f["name"], f["paradigm"], "WRITE")] = f["bytes_written"]
    expect(moved == want, "%s: trace bytes %r, profile %r" % (what, moved, want))
    ops = sum(x["operations"] for x in io["paradigms"])
    expect(enters == ops, "%s: %d I/O regions entered, %d operations" % (what, enters, ops))


def case_trace():
    """Profile and trace (the generic path), with GCC's and LLVM's hooks."""
    for cc in ("gcc", "clang"):
        name = "trace_" + cc
        exe = R.build(A, "io_c.c", "hooks", cc, name)
        exp, _, _ = run_recorded(exe, name, {"INSTR_ENABLE_TRACING": "1"})
        prof = R.load(exp)
        check_c(prof, exp, name)
        check_trace(exp, prof, name)


NRANKS = 4


def mpi_build(prog, tag):
    """progs/PROG.c built by the wrapper with mpicc in build_TAG: (build dir, executable)."""
    wd = R.workdir(A, "build_" + tag)
    exe = os.path.join(wd, prog)
    R.sh([A.wrapper, A.mpicc, "-O1", os.path.join(A.src, prog + ".c"), "-o", exe], wd)
    return wd, exe


def mpi_run(exe, rd, name, env, n):
    """exe on n ranks in rd with env, every rank's own profile too (INSTR_RANK_FILES), the
    experiment in rd/NAME: its path."""
    exp = os.path.join(rd, name)
    e = dict(env, INSTR_EXPERIMENT_DIRECTORY=exp, INSTR_RANK_FILES="1")
    p = subprocess.run([A.mpirun, "--oversubscribe", "--allow-run-as-root", "-np", str(n), exe],
                       cwd=rd, env=clean_env(e), capture_output=True, text=True, timeout=240)
    expect(p.returncode == 0, "mpirun: %d %s" % (p.returncode, p.stderr[-3000:]))
    return exp


def case_mpi():
    """A job of 4 ranks with MPI-IO (INSTR_IO=mpiio): each rank's own profile has its call
    paths' exact operations and bytes; the job's sums the ranks' and names the slowest, per
    paradigm and per call path (from the job database's io_ columns); the job's and the
    ranks' profile.cubex carry the figures as metrics, profile.html shows them."""
    mpi_job(summary=False)


def case_mpi_summary():
    """The same job above INSTR_JOB_PROFILE_MAX_RANKS (2): the job's profile from the
    database's summary still has the job's I/O totals, the sums over all ranks (not rank 0's
    alone), the slowest rank and each rank's figures, the call paths' sums; its
    profile.cubex, written from the database, has every rank's I/O metrics per call path and
    thread equal to the rank's own profile.cubex."""
    mpi_job(summary=True)


def check_cube_ranks(exp, what):
    """The job's profile.cubex's I/O metrics per (call path, rank, thread) == each rank's own
    rank-N/profile.cubex's (per (call path, thread))."""
    metrics = ("io_operations", "io_operations_failed", "io_bytes_read", "io_bytes_written")

    def cells(cube, rank_of):
        out = {}
        for c in range(len(cube.cnodes)):
            for k, (gi, _, thread) in enumerate(cube.locations):
                v = tuple(cube.metrics[m][c][k] for m in metrics)
                if any(v):
                    out[(cube.path(c), rank_of(gi), thread)] = v
        return out
    try:
        job = cubex.read(os.path.join(exp, "profile.cubex"))
        want = {}
        for r in range(NRANKS):
            own = cubex.read(os.path.join(exp, "rank-%d" % r, "profile.cubex"))
            want.update(cells(own, lambda gi, r=r: r))
    except cubex.CubeError as e:
        raise Fail("%s: profile.cubex: %s" % (what, e))
    expect(all(m in job.metrics for m in metrics), "%s: no I/O metrics in profile.cubex" % what)
    got = cells(job, lambda gi: job.groups[gi]["rank"])
    expect(got and got == want, "%s: profile.cubex I/O per call path, rank and thread %r, the "
           "ranks' own %r" % (what, got, want))


def mpi_job(summary):
    _, exe = mpi_build("mpi_io", "mpi")
    # each rank's own profile.json (INSTR_RANK_FILES) is checked below
    e = {"INSTR_IO": "mpiio"}
    if summary:
        e["INSTR_JOB_PROFILE_MAX_RANKS"] = "2"
    exp = mpi_run(exe, R.workdir(A, "run_mpi"), "exp", e, NRANKS)
    want = {("MPI_File_open", "mpiio"): (1, 0, 0, 0),
            ("MPI_File_write_at_all", "mpiio"): (1, 0, 0, 4000),
            ("MPI_File_sync", "mpiio"): (1, 0, 0, 0),
            ("MPI_File_read_at", "mpiio"): (1, 0, 4000, 0),
            ("MPI_File_iread_at", "mpiio"): (1, 0, 2000, 0),
            ("MPI_File_set_view", "mpiio"): (1, 0, 0, 0),
            ("MPI_File_read", "mpiio"): (1, 0, 40, 0),
            ("MPI_File_close", "mpiio"): (1, 0, 0, 0)}
    ranks = []
    for r in range(NRANKS):
        prof = R.load(os.path.join(exp, "rank-%d" % r))
        got = by_function(prof)
        expect(got == want, "rank %d: %r, expected %r" % (r, got, want))
        files = {(f["name"], f["paradigm"]): figures(f) for f in prof["io"]["files"]}
        expect(files == {("shared.dat", "mpiio"): (8, 0, 6040, 4000)},
               "rank %d: files %r" % (r, files))
        ranks.append({p["paradigm"]: p for p in prof["io"]["paradigms"]})
        if os.path.exists(os.path.join(exp, "rank-%d" % r, "profile.cubex")):
            check_cube(prof, os.path.join(exp, "rank-%d" % r), "rank %d" % r)
    job = R.load(exp).get("io")
    expect(job is not None, "the job's profile.json has no io section")
    tot = {p["paradigm"]: p for p in job["paradigms"]}
    for k in FIGURES + ("time_ns",):
        expect(tot["mpiio"][k] == sum(r["mpiio"][k] for r in ranks),
               "job: %s %r, ranks %r" % (k, tot["mpiio"][k], [r["mpiio"][k] for r in ranks]))
    slow = max(range(NRANKS), key=lambda r: (ranks[r]["mpiio"]["time_ns"], -r))
    expect(job["slowest_rank"]["rank"] == slow and len(job["ranks"]) == NRANKS,
           "job: slowest %r, ranks %r" % (job["slowest_rank"], ranks))
    with open(os.path.join(exp, "profile.txt")) as f:
        text = f.read()
    expect("\nI/O (INSTR_IO" in text and "slowest rank %d:" % slow in text,
           "job's profile.txt: no I/O section:\n" + text)
    # Per call path: the ranks' figures summed (each rank's are `want`).
    jprof = R.load(exp)
    got = by_function(jprof)
    expect(got == {k: tuple(NRANKS * x for x in v) for k, v in want.items()},
           "job's call paths %r, expected %d x %r" % (got, NRANKS, want))
    for line in ("call paths by time in I/O, over the ranks", " | main > read_back > MPI_File_read_at\n"):
        expect(line in text, "job's profile.txt lacks %r:\n%s" % (line, text))
    if summary:
        expect(jprof["run"]["mpi"].get("summary_over_ranks") is True,
               "job: not written from the summary: %r" % jprof["run"]["mpi"])
        check_cube_ranks(exp, "job")
    else:
        check_cube(jprof, exp, "job")
    check_jobdb(os.path.join(exp, "profile.jdb"), jprof)
    if not summary:
        check_html(jprof, exp, "job")


def check_jobdb(path, jprof):
    """The job database's io_ columns, summed per call path over the ranks' rows and in the
    summary, are the job's profile.json io.call_paths."""
    if not os.path.exists(path):
        raise Fail("no job database %s" % path)
    db = jobdb.read(path)
    cols = {c["name"]: i for i, c in enumerate(db["cols"])}
    keys = jobdb._path_keys(db)
    names = {}
    for k in keys:
        names[k] = tuple(x[0] for x in k)
    got, summ = {}, {}
    for par in ("posix", "stdio", "mpiio"):
        ci = [cols.get("io_%s_%s" % (par, f)) for f in ("operations", "failed", "bytes_read",
                                                         "bytes_written")]
        expect(all(c is not None for c in ci), "%s: no io_%s_ columns in %r" % (path, par, cols))
        for rows in db["rows"].values():
            for row in rows:
                v = tuple(row[2 + c] for c in ci)
                if any(v):
                    key = (names[keys[row[0]]], par)
                    got[key] = tuple(a + b for a, b in zip(got.get(key, (0,) * 4), v))
        for p, (nvis, per) in enumerate(db["summary"]):
            v = tuple(per[c][0] for c in ci)
            if any(v):
                summ[(names[keys[p]], par)] = v
    ps = R.chains(jprof)
    want = {(ps[c["node"]], c["paradigm"]): figures(c) for c in jprof["io"]["call_paths"]}
    expect(got == want, "%s: io_ columns per call path %r, the job's profile.json %r"
           % (path, got, want))
    expect(summ == want, "%s: io_ summary per call path %r, the job's profile.json %r"
           % (path, summ, want))


def case_mpi_trace():
    """A job of 4 ranks with MPI-IO and the trace (INSTR_IO=mpiio, INSTR_ENABLE_TRACING=1):
    each rank's bytes exact, the job's totals their sums; otf2-print -A -Werror reads the
    job's archive; one I/O file for the shared file, one
    handle per rank; every operation's begin has its completion on the same location with
    the same matching id (the non-blocking read: begun NON_BLOCKING, issued, completed in
    its MPI_Wait); the bytes each rank's events moved are its profile's. A second program
    tests a non-blocking read (MPI_Testall) before it can complete: IoOperationTest, then
    IoOperationComplete in MPI_Waitall."""
    n = 4
    _, exe = mpi_build("mpi_io", "mpi_trace")
    rd = R.workdir(A, "run_mpi_trace")
    # each rank's own profile.json (INSTR_RANK_FILES) is compared with its trace below
    e = {"INSTR_IO": "mpiio", "INSTR_ENABLE_TRACING": "1"}
    exp = mpi_run(exe, rd, "exp", e, n)
    p = subprocess.run(["otf2-print", "-A", "-Werror", os.path.join(exp, "traces.otf2")],
                       capture_output=True, text=True)
    expect(p.returncode == 0 and "warning" not in p.stderr,
           "otf2-print: %d %s" % (p.returncode, p.stderr[-2000:]))
    files = re.findall(r'^IO_REGULAR_FILE\s+(\d+)\s+Name: "([^"]*)"', p.stdout, re.M)
    expect([f[1] for f in files] == ["shared.dat"], "I/O files: %r" % files)
    handles = {}
    for m in re.finditer(r'^IO_HANDLE\s+(\d+)\s+Name: "([^"]*)".*I/O Paradigm: "([^"]*)"',
                         p.stdout, re.M):
        handles[int(m.group(1))] = (m.group(2), m.group(3))
    expect(len(handles) == n and all(h == ("shared.dat", "MPI I/O") for h in handles.values()),
           "I/O handles: %r" % handles)
    open_ops, issued = {}, set()
    moved = {}
    region = {}  # the innermost region open per location
    stack = {}
    nonblocking = {}
    handle_of_rank = {}
    for line in p.stdout.splitlines():
        m = EVENT.match(line)
        if not m:
            continue
        ev, loc, _, rest = m.groups()
        rank = int(loc) >> 32
        if ev == "ENTER":
            r = re.search(r'Region: "([^"]*)"', rest)
            stack.setdefault(loc, []).append(r.group(1) if r else "?")
        elif ev == "LEAVE":
            stack.get(loc, [None]).pop()
        elif ev.startswith("IO_"):
            h = re.search(r'Handle: "[^"]*" <(\d+)>', rest)
            if h:
                h = int(h.group(1))
                expect(handle_of_rank.setdefault(rank, h) == h,
                       "rank %d uses handles %d and %d" % (rank, handle_of_rank[rank], h))
        if ev == "IO_OPERATION_BEGIN":
            mode = re.search(r'Mode: (\w+)', rest).group(1)
            mid = int(re.search(r'Matching Id: (\d+)', rest).group(1))
            nb = "NON_BLOCKING" in rest
            expect((loc, mid) not in open_ops, "matching id reused: %s" % line)
            open_ops[(loc, mid)] = (h, mode, nb)
            if nb:
                nonblocking[rank] = nonblocking.get(rank, 0) + 1
        elif ev == "IO_OPERATION_ISSUED":
            mid = int(re.search(r'Matching Id: (\d+)', rest).group(1))
            begun = open_ops.get((loc, mid))
            expect(begun is not None and begun[2] and begun[0] == h,
                   "issued, not begun non-blocking: %s" % line)
            issued.add((loc, mid))
        elif ev == "IO_OPERATION_COMPLETE":
            mid = int(re.search(r'Matching Id: (\d+)', rest).group(1))
            res = re.search(r'Bytes Result: (\w+)', rest).group(1)
            begun = open_ops.pop((loc, mid), None)
            expect(begun is not None and begun[0] == h, "unmatched: %s" % line)
            if begun[2]:
                expect((loc, mid) in issued, "completed, never issued: %s" % line)
                expect(stack.get(loc) and stack[loc][-1] == "MPI_Wait",
                       "a non-blocking operation completed outside MPI_Wait: %s (in %r)"
                       % (line, stack.get(loc)))
            if begun[1] in ("READ", "WRITE") and res.isdigit():
                key = (rank, begun[1])
                moved[key] = moved.get(key, 0) + int(res)
    expect(not open_ops, "operations not completed: %r" % open_ops)
    expect(sorted(handle_of_rank) == list(range(n)) and
           len(set(handle_of_rank.values())) == n, "handles per rank: %r" % handle_of_rank)
    expect(nonblocking == {r: 1 for r in range(n)}, "non-blocking operations: %r" % nonblocking)
    for r in range(n):
        prof = R.load(os.path.join(exp, "rank-%d" % r))
        f = {(x["name"], x["paradigm"]): figures(x) for x in prof["io"]["files"]}
        expect(f == {("shared.dat", "mpiio"): (8, 0, 6040, 4000)}, "rank %d: files %r" % (r, f))
        got = (moved.get((r, "READ")), moved.get((r, "WRITE")))
        expect(got == (6040, 4000), "rank %d: the trace read and wrote %r, the profile "
               "(6040, 4000)" % (r, got))
    job = R.load(exp).get("io")
    expect(job is not None, "the job's profile.json has no io section")
    tot = {x["paradigm"]: figures(x) for x in job["paradigms"]}
    expect(tot.get("mpiio") == (8 * n, 0, 6040 * n, 4000 * n), "job's totals: %r" % tot)
    # A non-blocking read tested (MPI_Testall) before it can complete, then completed by
    # MPI_Waitall: IoOperationTest, then IoOperationComplete, with its matching id.
    _, exe = mpi_build("mpi_io_test", "mpi_trace")
    mpi_run(exe, rd, "exp_test", e, n)
    p = subprocess.run(["otf2-print", "-A", "-Werror",
                        os.path.join(rd, "exp_test", "traces.otf2")],
                       capture_output=True, text=True)
    expect(p.returncode == 0 and "warning" not in p.stderr,
           "otf2-print: %d %s" % (p.returncode, p.stderr[-2000:]))
    seq = {}
    stack = {}
    for line in p.stdout.splitlines():
        m = EVENT.match(line)
        if not m:
            continue
        ev, loc, _, rest = m.groups()
        if ev == "ENTER":
            stack.setdefault(loc, []).append(re.search(r'Region: "([^"]*)"', rest).group(1))
        elif ev == "LEAVE":
            stack[loc].pop()
        elif ev == "IO_OPERATION_BEGIN" and "NON_BLOCKING" in rest:
            seq.setdefault(loc, []).append(("BEGIN", stack[loc][-1]))
        elif ev in ("IO_OPERATION_ISSUED", "IO_OPERATION_TEST") or (
                ev == "IO_OPERATION_COMPLETE" and loc in seq):
            mid = re.search(r'Matching Id: (\d+)', rest).group(1)
            seq[loc].append((ev[13:], stack[loc][-1], mid))
    want_regions = ["MPI_File_iread_at", "MPI_File_iread_at", "MPI_Testall", "MPI_Waitall"]
    expect(len(seq) == n, "non-blocking reads on %d locations, not %d: %r" % (len(seq), n, seq))
    for loc, evs in seq.items():
        expect([x[0] for x in evs] == ["BEGIN", "ISSUED", "TEST", "COMPLETE"] and
               [x[1] for x in evs] == want_regions and len({x[2] for x in evs[1:]}) == 1,
               "location %s: %r" % (loc, evs))


def case_mpi_split():
    """A job of 4 ranks with split collective and non-blocking MPI-IO (progs/mpi_io_split.c,
    INSTR_IO=mpiio, the trace on): each rank's profile counts every split collective as one
    operation of its _begin with the bytes its _end moved, and a non-blocking one's bytes at
    its completion, from the status; otf2-print -A -Werror reads the trace, whose operations all
    complete (a split collective's in its _end) with the profile's bytes per rank."""
    n = 4
    _, exe = mpi_build("mpi_io_split", "mpi_split")
    e = {"INSTR_IO": "mpiio", "INSTR_ENABLE_TRACING": "1"}
    exp = mpi_run(exe, R.workdir(A, "run_mpi_split"), "exp", e, n)
    want = {("MPI_File_open", "mpiio"): (1, 0, 0, 0),
            ("MPI_File_write_at_all_begin", "mpiio"): (1, 0, 0, 4000),
            ("MPI_File_read_at_all_begin", "mpiio"): (1, 0, 2000, 0),
            ("MPI_File_seek", "mpiio"): (1, 0, 0, 0),
            ("MPI_File_read_all_begin", "mpiio"): (1, 0, 1000, 0),
            ("MPI_File_write_ordered_begin", "mpiio"): (1, 0, 0, 40),
            ("MPI_File_iwrite_at", "mpiio"): (1, 0, 0, 400),
            ("MPI_File_iread_at", "mpiio"): (1, 0, 400, 0),
            ("MPI_File_close", "mpiio"): (1, 0, 0, 0)}
    for r in range(n):
        prof = R.load(os.path.join(exp, "rank-%d" % r))
        got = by_function(prof)
        expect(got == want, "rank %d: %r, expected %r" % (r, got, want))
        files = {(f["name"], f["paradigm"]): figures(f) for f in prof["io"]["files"]}
        expect(files == {("split.dat", "mpiio"): (9, 0, 3400, 4440)},
               "rank %d: files %r" % (r, files))
    job = R.load(exp).get("io")
    tot = {x["paradigm"]: figures(x) for x in job["paradigms"]}
    expect(tot.get("mpiio") == (9 * n, 0, 3400 * n, 4440 * n), "job's totals: %r" % tot)
    t = subprocess.run(["otf2-print", "-A", "-Werror", os.path.join(exp, "traces.otf2")],
                       capture_output=True, text=True)
    expect(t.returncode == 0 and "warning" not in t.stderr,
           "otf2-print: %d %s" % (t.returncode, t.stderr[-2000:]))
    open_ops, moved, stack, completed_in = {}, {}, {}, {}
    for line in t.stdout.splitlines():
        m = EVENT.match(line)
        if not m:
            continue
        ev, loc, _, rest = m.groups()
        rank = int(loc) >> 32
        if ev == "ENTER":
            stack.setdefault(loc, []).append(re.search(r'Region: "([^"]*)"', rest).group(1))
        elif ev == "LEAVE":
            stack[loc].pop()
        elif ev == "IO_OPERATION_BEGIN":
            mid = int(re.search(r'Matching Id: (\d+)', rest).group(1))
            mode = re.search(r'Mode: (\w+)', rest).group(1)
            open_ops[(loc, mid)] = (mode, stack[loc][-1])
        elif ev == "IO_OPERATION_COMPLETE":
            mid = int(re.search(r'Matching Id: (\d+)', rest).group(1))
            res = re.search(r'Bytes Result: (\w+)', rest).group(1)
            begun = open_ops.pop((loc, mid), None)
            expect(begun is not None, "unmatched: %s" % line)
            if begun[1].endswith("_begin"):
                completed_in[(rank, begun[1])] = stack[loc][-1]
            if begun[0] in ("READ", "WRITE") and res.isdigit():
                moved[(rank, begun[0])] = moved.get((rank, begun[0]), 0) + int(res)
    expect(not open_ops, "operations not completed: %r" % open_ops)
    for r in range(n):
        expect((moved.get((r, "READ")), moved.get((r, "WRITE"))) == (3400, 4440),
               "rank %d: the trace moved %r" % (r, moved))
        ends = {k[1]: v for k, v in completed_in.items() if k[0] == r}
        expect(ends == {b: b[:-len("begin")] + "end" for b in
                        ("MPI_File_write_at_all_begin", "MPI_File_read_at_all_begin",
                         "MPI_File_read_all_begin", "MPI_File_write_ordered_begin")},
               "rank %d: split collectives completed in %r" % (r, ends))


def case_off():
    """INSTR_IO unset: no I/O section; a word it does not know: a warning, recording off;
    one paradigm alone: only its calls."""
    exe = R.build(A, "io_c.c", "hooks", "gcc", "off")
    exp, _, _ = run_recorded(exe, "off", {"INSTR_IO": ""})
    expect("io" not in R.load(exp), "off: an io section")
    exp, p, _ = run_recorded(exe, "bad", {"INSTR_IO": "posix,disk"})
    expect("io" not in R.load(exp) and "INSTR_IO=posix,disk" in p.stderr,
           "bad value: %r" % p.stderr)
    exp, p, _ = run_recorded(exe, "stdio_only", {"INSTR_IO": "stdio"})
    got = by_function(R.load(exp))
    want = {k: v for k, v in C_PATHS.items() if k[1] == "stdio"}
    expect(got == want, "stdio only: %r, expected %r" % (got, want))
    expect("not a variable" not in p.stderr, "INSTR_IO unknown: %s" % p.stderr)


def main():
    global A
    ap = argparse.ArgumentParser()
    ap.add_argument("case")
    ap.add_argument("--wrapper")
    ap.add_argument("--src")
    ap.add_argument("--work")
    ap.add_argument("--mpirun")
    ap.add_argument("--mpicc")
    A = ap.parse_args()
    return run_case(globals(), A.case)


if __name__ == "__main__":
    sys.exit(main())
