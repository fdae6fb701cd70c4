"""tests/cube: profile.cubex end to end. Each case runs a measured program, reads the archive
with the test reader (cubex.py: every invariant of the format the writer relies on) and
compares it with profile.json of the same run.

    check_cube.py --bin BUILD_TESTS_DIR --work DIR [--instr ... --mpicc ... --mpirun ...] CASE"""
import argparse
import glob
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import cubex  # noqa: E402
from cases import Fail, clean_env, expect, fresh_dir, run_case  # noqa: E402

A = None


def measure(prog, case, env=None, args=(), prog_path=False):
    d = os.path.join(A.work, case) if prog_path else fresh_dir(os.path.join(A.work, case))
    exp = os.path.join(d, "exp")
    r = subprocess.run([prog if prog_path else os.path.join(A.bin, prog)] + list(args), cwd=d,
                       capture_output=True,
                       text=True, env=clean_env(dict(env or {}, INSTR_EXPERIMENT_DIRECTORY=exp)),
                       timeout=120)
    expect(r.returncode == 0, f"{prog} exited {r.returncode}: {r.stderr}")
    return exp, r.stderr


def agrees(exp, stats=None):
    cube = cubex.read(os.path.join(exp, "profile.cubex"))
    with open(os.path.join(exp, "profile.json")) as f:
        prof = json.load(f)
    bad = cubex.check_against_json(cube, prof, stats)
    expect(not bad, f"profile.cubex differs from profile.json: {bad[:10]}")
    return cube, prof


def case_threads():
    exp, _ = measure("runtime/rt_threads_inst", "threads")
    cube, prof = agrees(exp)
    expect(len(cube.locations) == len(prof["locations"]) > 1, "one location per thread")
    expect(len(cube.groups) == 1 and cube.groups[0]["rank"] == 0, "one process")
    total = sum(sum(r) for r in cube.metrics["visits"])
    expect(total == sum(n["visits"] for n in prof["tree"]), "total visits")
    print(f"threads: {len(cube.locations)} locations, {total} visits, agree with profile.json")


def case_cxx():
    exp, _ = measure("runtime/rt_cxx_inst", "cxx")
    cube, _ = agrees(exp)
    expect(any(r["mangled"].startswith("_Z") and r["name"] != r["mangled"] for r in cube.regions),
           "C++ regions carry demangled and mangled names")
    print(f"cxx: {len(cube.regions)} regions, {len(cube.cnodes)} cnodes agree with profile.json")


def profile_files(exp):
    return sorted(f for f in os.listdir(exp) if f.startswith("profile."))


def case_formats():
    want = {"cubex": ["profile.cubex"], "json, CUBEX": ["profile.cubex", "profile.json"],
            "all": ["profile.cubex", "profile.folded", "profile.html", "profile.json", "profile.txt"],
            "none": [], "txt,folded": ["profile.folded", "profile.txt"]}
    for i, (value, files) in enumerate(want.items()):
        exp, err = measure("runtime/rt_counts_inst", f"formats{i}", {"INSTR_PROFILING_FORMAT": value})
        expect(profile_files(exp) == files, f"INSTR_PROFILING_FORMAT={value}: {profile_files(exp)}, expected {files}")
        expect("instr: warning" not in err, f"INSTR_PROFILING_FORMAT={value}: {err}")
    exp, err = measure("runtime/rt_counts_inst", "formats_bad", {"INSTR_PROFILING_FORMAT": "json,cube"})
    expect(profile_files(exp) == ["profile.json"], f"bad word: {profile_files(exp)}")
    expect("INSTR_PROFILING_FORMAT" in err and "'cube' is not a profile format" in err
           and "json, txt, folded, cubex, html, all, none" in err, f"no clear warning: {err!r}")
    with open(os.path.join(exp, "profile.json")) as f:
        conf = json.load(f)["run"]["configuration"]
    expect(conf.get("INSTR_PROFILING_FORMAT") == "json,cube", f"recorded value {conf}")
    print("formats: every spelling writes exactly its files; an unknown word is named and left out")


def rewrite(src, dst, member, change):
    """A copy of archive src with member's bytes passed through change()."""
    with tarfile.open(src) as t, tarfile.open(dst, "w", format=tarfile.USTAR_FORMAT) as out:
        for m in t.getmembers():
            data = t.extractfile(m).read()
            if m.name == member:
                data = change(data)
            m.size = len(data)
            out.addfile(m, io.BytesIO(data))


def case_damaged():
    """The reader fails on each kind of damage it claims to check: a check that cannot fail
    would prove nothing."""
    exp, _ = measure("runtime/rt_cxx_inst", "damaged")
    good = os.path.join(exp, "profile.cubex")
    bad = os.path.join(exp, "bad.cubex")
    damages = {
        "index marker": ("0.index", lambda d: b"CUBEX.INDEY" + d[11:]),
        "endianness word": ("1.index", lambda d: d[:11] + b"\x02\x00\x00\x00" + d[15:]),
        "index order": ("0.index", lambda d: d[:22] + d[26:30] + d[22:26] + d[30:]),
        "data size": ("1.data", lambda d: d[:-8]),
        "data marker": ("2.data", lambda d: b"CUBEX.DATB" + d[10:]),
        "calleeId": ("anchor.xml", lambda d: d.replace(b'calleeId="0"', b'calleeId="99999"', 1)),
        "cnode order": ("anchor.xml", lambda d: d.replace(b'<cnode id="1"', b'<cnode id="7"', 1)),
        "metric type": ("anchor.xml", lambda d: d.replace(b'type="EXCLUSIVE"', b'type="INCLUSIVE"', 1)),
        "time's kind": ("anchor.xml", lambda d: d.replace(b'type="INCLUSIVE"', b'type="EXCLUSIVE"', 1)),
    }
    for what, (member, change) in damages.items():
        rewrite(good, bad, member, change)
        try:
            cubex.read(bad)
        except cubex.CubeError as e:
            print(f"damaged ({what}): rejected: {e}")
            continue
        raise Fail(f"the reader accepted an archive with a damaged {what}")
    with open(good, "rb") as f:
        raw = f.read()
    with open(bad, "wb") as f:
        f.write(raw[:len(raw) // 2])
    try:
        cubex.read(bad)
        raise Fail("the reader accepted a truncated archive")
    except (cubex.CubeError, tarfile.TarError) as e:
        print(f"damaged (truncated): rejected: {e}")
    # Values: one visit more on one cell is a mismatch with profile.json.
    cube, prof = agrees(exp)
    cube.metrics["visits"][0][0] += 1
    expect(cubex.check_against_json(cube, prof), "a changed visit count went unnoticed")
    # The rows of the INCLUSIVE time in depth-first order (as an EXCLUSIVE metric's), not in
    # CUBE's wide order: the values land on the wrong call paths.
    cube, prof = agrees(exp)
    wide = cube.wide_order()
    expect(wide != list(range(len(cube.cnodes))), "the test tree has no depth where the orders differ")
    stored = [cube.metrics["time"][c] for c in wide]
    cube.metrics["time"] = stored
    expect(cubex.check_against_json(cube, prof), "time rows in depth-first order went unnoticed")
    # A region's file or lines that differ from profile.json's.
    cube, prof = agrees(exp)
    cube.regions[cube.cnodes[0][1]]["begin"] += 1
    expect(cubex.check_against_json(cube, prof), "a changed region line went unnoticed")


def count_env(extra=None):
    """The exact count plugin (examples/metric_plugins/count.c): `events` counts the thread's
    enters and exits, so a region making k instrumented calls has 2k + 1 per visit."""
    return dict(extra or {}, INSTR_PLUGIN_PATH=A.plugins, INSTR_METRIC_PLUGINS="count")


def metric_rows(cube, name):
    """The cube metric whose display name is name."""
    uniq = [u for u, i in cube.metric_info.items() if i["disp"] == name]
    expect(len(uniq) == 1, f"metric {name}: {uniq}")
    return cube.metric_info[uniq[0]], cube.metrics[uniq[0]]


def case_metrics():
    d = fresh_dir(os.path.join(A.work, "metrics"))
    exp = os.path.join(d, "exp")
    r = subprocess.run([A.metrics_prog, "0"], cwd=d, capture_output=True, text=True, timeout=120,
                       env=clean_env(count_env({"INSTR_EXPERIMENT_DIRECTORY": exp,
                                                "INSTR_METRIC_RUSAGE": "all"})))
    expect(r.returncode == 0, f"metrics_calls exited {r.returncode}: {r.stderr}")
    cube, prof = agrees(exp)
    names = [m["name"] for m in prof["metrics"]]
    expect(names[:3] == ["ru_utime", "ru_stime", "ru_maxrss"] and
           names[-3:] == ["events", "events_neg", "events_half"], f"metrics {names}")
    dtypes = {n: metric_rows(cube, n)[0]["dtype"] for n in ("events", "events_neg", "events_half")}
    expect(dtypes == {"events": "UINT64", "events_neg": "INT64", "events_half": "DOUBLE"}, f"{dtypes}")
    info, _ = metric_rows(cube, "ru_utime")
    expect(info["uom"] == prof["metrics"][0]["unit"] and info["kind"] == "INCLUSIVE", f"ru_utime {info}")
    # The exact values: inclusive and, derived as Cube does, exclusive (tests/metrics'
    # count_exact: main makes 9 calls, each a() 2).
    want = {("main",): (19, 4), ("main", "a"): (15, 9), ("main", "a", "b"): (6, 6)}
    for path, (incl, excl) in want.items():
        c = [k for k in range(len(cube.cnodes)) if cube.path(k) == path]
        expect(len(c) == 1, f"call path {path}: {c}")
        for name, sign in (("events", 1), ("events_neg", -1), ("events_half", 0.5)):
            _, rows = metric_rows(cube, name)
            uniq = [u for u, i in cube.metric_info.items() if i["disp"] == name][0]
            got = (rows[c[0]][0], cube.exclusive(uniq, c[0], 0))
            expect(got == (incl * sign, excl * sign), f"{'/'.join(path)} {name}: {got}, "
                   f"expected {(incl * sign, excl * sign)}")
    print(f"metrics: {len(names)} metrics ({', '.join(names)}) agree with profile.json; "
          f"events exact on main, a and b")


# The OpenMP adapter's regions and the roles Score-P gives the same constructs.
OMP_ROLES = {"!$omp parallel": "parallel", "!$omp implicit task": "task", "!$omp for": "loop",
             "!$omp implicit barrier": "implicit barrier", "!$omp barrier": "barrier",
             "!$omp critical": "critical", "!$omp critical (wait)": "critical",
             "!$omp single": "single", "!$omp task": "task", "!$omp task (create)": "task create",
             "!$omp taskwait": "taskwait", "!$omp masked": "master", "omp_set_lock": "wrapper",
             "omp_set_lock (wait)": "wrapper"}


def case_openmp():
    """tests/openmp's constructs.c on libomp (clang -fopenmp through instr, 4 threads): the
    cubex agrees with profile.json, its OpenMP regions have paradigm openmp and Score-P's
    roles, the program's functions paradigm compiler and role function."""
    d = fresh_dir(os.path.join(A.work, "openmp"))
    exe = os.path.join(d, "constructs")
    c = subprocess.run([A.instr, A.omp_cc, "-fopenmp", "-g", "-O1", A.omp_source, "-o", exe],
                       cwd=d, capture_output=True, text=True, timeout=300, env=clean_env())
    expect(c.returncode == 0, f"instr {A.omp_cc} -fopenmp failed: {c.stderr}")
    exp, _ = measure(exe, "openmp", {"OMP_NUM_THREADS": "4"}, prog_path=True)
    stats = {}
    cube, prof = agrees(exp, stats)
    expect(len(cube.locations) == 4, f"{len(cube.locations)} locations for 4 threads")
    seen = {}
    for r in cube.regions:
        construct = r["name"].split(" @")[0]
        if construct in OMP_ROLES:
            seen[construct] = (r["paradigm"], r["role"])
            expect((r["paradigm"], r["role"]) == ("openmp", OMP_ROLES[construct]),
                   f"{r['name']}: paradigm {r['paradigm']}, role {r['role']}; expected openmp, "
                   f"{OMP_ROLES[construct]}")
        elif r["name"] in ("main", "kernel", "leaf", "task_body"):
            expect((r["paradigm"], r["role"]) == ("compiler", "function"), f"{r}")
    for must in ("!$omp parallel", "!$omp implicit task", "!$omp for", "!$omp implicit barrier",
                 "!$omp task", "!$omp task (create)"):
        expect(must in seen, f"no {must} region in the cubex: {sorted(seen)}")
    print(f"openmp: {len(cube.regions)} regions ({len(seen)} OpenMP constructs with Score-P's "
          f"roles), {len(cube.cnodes)} cnodes on 4 threads agree with profile.json; "
          f"{stats.get('task_bookkeeping', 0)} task-running node(s) whose exclusive time differs")


def case_mpi():
    d = fresh_dir(os.path.join(A.work, "mpi"))
    exe = os.path.join(d, "halo")
    env = clean_env({"OMPI_MCA_btl": "self,vader"})
    c = subprocess.run([A.instr, A.mpicc, "-O1", A.mpi_source, "-o", exe], cwd=d, env=env,
                       capture_output=True, text=True, timeout=300)
    expect(c.returncode == 0, f"instr mpicc failed: {c.stderr}")
    # With the count plugin when it is built: the job's cubex carries the metric too.
    counted = count_env() if A.plugins else {}
    env.update(counted)
    forward = [a for k in counted for a in ("-x", k)]
    r = subprocess.run([A.mpirun, "-np", "4", "--oversubscribe", "--allow-run-as-root",
                        "--bind-to", "none"] + forward + [exe], cwd=d, env=env,
                       capture_output=True, text=True, timeout=300)
    expect(r.returncode == 0, f"mpirun exited {r.returncode}: {r.stderr}")
    exps = glob.glob(os.path.join(d, "instr-*"))
    expect(len(exps) == 1, f"one experiment directory, found {exps}")
    cube, prof = agrees(exps[0])
    expect([(g["rank"], g["name"]) for g in cube.groups] ==
           [(r, f"MPI Rank {r}") for r in range(4)], f"groups {cube.groups}")
    for m in ("bytes_sent", "bytes_received", "messages_sent", "messages_received"):
        expect(m in cube.metrics, f"message metric {m} missing")
    sent = sum(sum(r) for r in cube.metrics["bytes_sent"])
    recv = sum(sum(r) for r in cube.metrics["bytes_received"])
    expect(sent == recv > 0, f"bytes sent {sent}, received {recv}")
    nsent = sum(sum(r) for r in cube.metrics["messages_sent"])
    nrecv = sum(sum(r) for r in cube.metrics["messages_received"])
    jsent = sum(n.get("messages_sent", 0) for n in prof["tree"])
    expect(nsent == nrecv == jsent > 0, f"messages sent {nsent}, received {nrecv}, profile.json {jsent}")
    if counted:
        _, events = metric_rows(cube, "events")
        mains = [c for c in range(len(cube.cnodes)) if cube.path(c) == ("main",)]
        expect(len(mains) == 1 and all(v > 0 for v in events[mains[0]]),
               f"main's events per rank: {mains and events[mains[0]]}")
    par = {r["name"]: r["paradigm"] for r in cube.regions}
    expect(par.get("MPI_Send") == "mpi" and par.get("main") == "compiler", f"paradigms {par}")
    mpi_time = scorep_attributes(cube)
    print(f"mpi: 4 ranks, {len(cube.locations)} locations, {len(cube.cnodes)} cnodes, "
          f"{sent} bytes and {nsent} messages sent = received; agrees with the job's profile.json")


# The roles Score-P's MPI adapter gives the calls of tests/mpi/progs/halo.c.
MPI_ROLES = {"MPI_Init": "function", "MPI_Finalize": "function", "MPI_Comm_rank": "function",
             "MPI_Comm_size": "function", "MPI_Send": "point2point", "MPI_Recv": "point2point",
             "MPI_Isend": "point2point", "MPI_Irecv": "point2point",
             "MPI_Sendrecv": "point2point", "MPI_Waitall": "function",
             "MPI_Allreduce": "all2all"}


def scorep_attributes(cube):
    """The MPI regions have the attributes Score-P's CUBE4 writer gives them (mod MPI, lines
    0, paradigm mpi, Score-P's roles), and the call paths that Cube's Score-P remapping
    (scorep.spec: the callee's mod is "MPI", or in older specs its paradigm is "mpi") counts
    as MPI hold MPI time: the sum of their exclusive time (a cell less its children's). Returns
    that time."""
    roles = {}
    for r in cube.regions:
        if r["paradigm"] == "mpi":
            expect((r["file"], r["begin"], r["end"]) == ("MPI", 0, 0),
                   f"{r['name']}: mod {r['file']!r}, lines {r['begin']}..{r['end']}")
            roles[r["name"]] = r["role"]
        else:
            expect(r["file"] != "MPI", f"{r['name']}: mod MPI, paradigm {r['paradigm']}")
    want = {n: MPI_ROLES[n] for n in roles if n in MPI_ROLES}
    expect(len(want) >= 8 and {n: roles[n] for n in want} == want,
           f"MPI roles {roles}, expected {want}")
    time = cube.metrics["time"]
    mpi = 0.0
    for c, (_, callee) in enumerate(cube.cnodes):
        if cube.regions[callee]["file"] == "MPI":
            mpi += sum(time[c]) - sum(sum(time[k]) for k in cube.children(c))
    expect(mpi > 0, f"MPI time as scorep.spec classifies it: {mpi}")
    return mpi


def case_scorep_remap():
    """Cube's own Score-P remapping (CubeLib's cube_remap2 with its scorep.spec) on the MPI
    job's profile.cubex (case mpi's): its `mpi` metric is not 0. Skipped (77) where CubeLib is
    not installed."""
    remap = shutil.which("cube_remap2")
    if not remap:
        print("SKIP scorep_remap: cube_remap2 (CubeLib) is not installed; case mpi checks the "
              "attributes scorep.spec reads (docs/profile-format.md says how to check by hand)")
        sys.exit(77)
    spec = os.environ.get("INSTR_TEST_SCOREP_SPEC")
    if not spec:
        prefix = os.path.dirname(os.path.dirname(os.path.realpath(remap)))
        found = sorted(glob.glob(os.path.join(prefix, "share", "**", "scorep.spec"), recursive=True))
        expect(found, f"cube_remap2 at {remap}, but no scorep.spec under {prefix}/share "
                      "(set INSTR_TEST_SCOREP_SPEC)")
        spec = found[0]
    exps = glob.glob(os.path.join(A.work, "mpi", "instr-*"))
    expect(len(exps) == 1, f"case mpi's experiment: {exps}")
    d = fresh_dir(os.path.join(A.work, "scorep_remap"))
    out = os.path.join(d, "remapped")
    r = subprocess.run([remap, "-r", spec, "-o", out, os.path.join(exps[0], "profile.cubex")],
                       cwd=d, capture_output=True, text=True, timeout=300)
    expect(r.returncode == 0, f"cube_remap2 exited {r.returncode}: {r.stderr}")
    dump = shutil.which("cube_dump")
    expect(dump, "cube_remap2 without cube_dump")
    r = subprocess.run([dump, "-m", "mpi", "-c", "roots", "-x", "incl", "-z", "incl", "-s",
                        "csv2", out + ".cubex"], cwd=d, capture_output=True, text=True,
                       timeout=300)
    expect(r.returncode == 0, f"cube_dump exited {r.returncode}: {r.stderr}")
    values = [float(x) for x in re.findall(r"(?<![\w.])\d+\.\d+(?:e[-+]?\d+)?", r.stdout)]
    expect(any(v > 0 for v in values), f"the remapped mpi metric is 0:\n{r.stdout}")
    print(f"scorep_remap: cube_remap2 with {spec}: mpi metric {max(values)} s")


def main():
    global A
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", required=True)
    for a in ("instr", "mpicc", "mpirun", "mpi-source", "plugins", "metrics-prog", "omp-cc",
              "omp-source"):
        ap.add_argument("--" + a)
    ap.add_argument("case")
    A = ap.parse_args()
    return run_case(globals(), A.case, (cubex.CubeError,))


if __name__ == "__main__":
    sys.exit(main())
