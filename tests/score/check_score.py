"""tests/score: instr-score end to end, on programs built with the real instr wrapper.

    check_score.py --instr INSTR --score INSTR_SCORE --spec INSTR_SPEC --src REPO --work DIR CASE

estimate  the estimated trace size is within 10 % of the real trace of the same run, on the
          bench workloads calls, particles, stencil and the accessor code tests/score/progs
estimate_metrics  the same with synchronous metrics on (count plugin, getrusage), from
          profile.json and from profile.cubex
estimate_mpi  the same for a 4-rank MPI job (tests/mpi/progs/halo.c) traced with mpirun
errors    a missing, wrong or damaged experiment and bad options: clear message, exit 1 / 2
filter    -f: the regions a spec leaves out are marked and the totals after it are right
generate  -g and -g --scorep: specs that filter/ reads back and that exclude exactly the
          hot accessors, never main; an existing file is not overwritten
hint      a run dominated by its instrumentation ends with one line naming instr-score -g;
          INSTR_VERBOSE=quiet silences it; a run that is not dominated has none
loop      build, run, -g, rebuild with the spec: the excluded functions have no hooks in the
          new binary, the run records none of their visits, the program's output is the same
cubex     an experiment with only profile.cubex: the same table, -f table and -g spec as from
          profile.json of the same run; a damaged cubex gets a clear message
cubex_mpi the same for a 4-rank MPI job (COM and MPI types, message records)
cubex_foreign  an archive as other CUBE writers make it (big-endian, dense index, nested
          metrics, ...): the values instr-score derives are the archive's
hint_mpi  a 4-rank job dominated on every rank: one hint line, for the job, from rank 0
openmp    the OMP, COM and USR types of an OpenMP program, from profile.json and profile.cubex"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from cases import Fail, clean_env, expect, fresh_dir, run_case  # noqa: E402

A = None
WORKLOADS = {
    "calls": ("gcc", ["bench/workloads/calls.c", "bench/workloads/calls_ops.c"], []),
    "particles": ("g++", ["bench/workloads/particles.cpp"], []),
    "stencil": ("gcc", ["bench/workloads/stencil.c"], ["-lm"]),
    "domain": ("g++", ["tests/score/progs/domain.cpp", "tests/score/progs/main.cpp"], []),
}
ACCESSORS = {"Domain::x(int) const", "Domain::e(int)", "Domain::size() const"}


def run(cmd, cwd, env=None, ok=(0,)):
    r = subprocess.run(cmd, cwd=cwd, env=clean_env(env), capture_output=True, text=True,
                       timeout=600)
    expect(r.returncode in ok, f"{' '.join(cmd)} exited {r.returncode}:\n{r.stdout}{r.stderr}")
    return r


def build(name, d, spec=None, out=None):
    cc, srcs, libs = WORKLOADS[name]
    exe = os.path.join(d, out or name)
    flt = [f"--filter={spec}"] if spec else []
    run([A.instr] + flt + [cc, "-O2", "-Ibench/workloads"] + srcs + ["-o", exe] + libs, A.src)
    return exe


def measure(exe, d, tag, env=None):
    exp = os.path.join(d, "exp-" + tag)
    r = run([exe], d, dict(env or {}, INSTR_EXPERIMENT_DIRECTORY=exp))
    return exp, r.stdout


def score(*args, ok=(0,), cwd=None):
    return run([A.score] + list(args), cwd or A.work, ok=ok)


def trace_bytes(exp):
    total = 0
    for top in ("traces.otf2", "traces.def", "traces"):
        p = os.path.join(exp, top)
        if os.path.isfile(p):
            total += os.path.getsize(p)
        for root, _, files in os.walk(p):
            total += sum(os.path.getsize(os.path.join(root, f)) for f in files)
    return total


def estimate_of(out):
    m = re.search(r"Estimated aggregate size of event trace:\s+([\d,]+) bytes", out)
    expect(m, f"no estimate in:\n{out}")
    return int(m.group(1).replace(",", ""))


def case_estimate():
    d = fresh_dir(os.path.join(A.work, "estimate"))
    for name in WORKLOADS:
        exe = build(name, d)
        exp, _ = measure(exe, d, name, {"INSTR_ENABLE_TRACING": "1"})
        real = trace_bytes(exp)
        est = estimate_of(score(exp).stdout)
        err = 100.0 * (est - real) / real
        print(f"estimate {name}: estimated {est} bytes, real trace {real} bytes ({err:+.2f} %)")
        expect(real > 0 and abs(err) <= 10.0, f"{name}: estimate {est} vs real {real} ({err:+.1f} %)")


def case_estimate_metrics():
    """With synchronous metrics on, a Metric event follows every enter and exit: the estimate
    (from profile.json and from a cubex-only copy) is within 10 % of the real trace, on bench
    calls with the count plugin's three types (uint64, int64, double) and with getrusage
    fields; and a metric adds what it costs (the estimate grows by at least half the real
    growth)."""
    d = fresh_dir(os.path.join(A.work, "estimate_metrics"))
    exe = build("calls", d)
    plain, _ = measure(exe, d, "plain", {"INSTR_ENABLE_TRACING": "1"})
    base_real, base_est = trace_bytes(plain), estimate_of(score(plain).stdout)
    runs = {"count": {"INSTR_PLUGIN_PATH": A.plugins, "INSTR_METRIC_PLUGINS": "count"},
            "rusage": {"INSTR_METRIC_RUSAGE": "ru_utime,ru_minflt,ru_nvcsw"}}
    for tag, env in runs.items():
        exp, _ = measure(exe, d, tag, dict(env, INSTR_ENABLE_TRACING="1",
                                           INSTR_PROFILING_FORMAT="json,cubex"))
        prof = json.load(open(os.path.join(exp, "profile.json")))
        expect(prof["metrics"], f"{tag}: no metric in the profile")
        real = trace_bytes(exp)
        for src, where in (("profile.json", exp), ("profile.cubex", cubex_only(exp, d, tag))):
            est = estimate_of(score(where).stdout)
            err = 100.0 * (est - real) / real
            print(f"estimate_metrics {tag} ({len(prof['metrics'])} metrics, from {src}): "
                  f"estimated {est} bytes, real trace {real} bytes ({err:+.2f} %)")
            expect(abs(err) <= 10.0, f"{tag} from {src}: estimate {est} vs real {real} ({err:+.1f} %)")
            expect(est - base_est >= (real - base_real) / 2,
                   f"{tag} from {src}: the metrics add {est - base_est} bytes to the estimate, "
                   f"{real - base_real} to the trace")


def case_estimate_mpi():
    """A 4-rank job's estimate within 10 % of its real trace, without metrics and with the
    count plugin's synchronous metrics (the job's trace has a Metric event after every enter
    and exit as a process's does), from profile.json and, with metrics, from the cubex."""
    d = fresh_dir(os.path.join(A.work, "estimate_mpi"))
    exe = os.path.join(d, "halo")
    env = {"OMPI_MCA_btl": "self,vader", "INSTR_ENABLE_TRACING": "1"}
    run([A.instr, A.mpicc, "-O1", os.path.join(A.src, "tests/mpi/progs/halo.c"), "-o", exe], d, env)
    runs = [("plain", {})]
    if A.plugins:
        runs.append(("count", {"INSTR_PLUGIN_PATH": A.plugins, "INSTR_METRIC_PLUGINS": "count",
                               "INSTR_PROFILING_FORMAT": "json,cubex"}))
    for tag, extra in runs:
        w = fresh_dir(os.path.join(d, tag))
        e = dict(env, **extra)
        forward = [a for k in ["INSTR_ENABLE_TRACING"] + list(extra) for a in ("-x", k)]
        run([A.mpirun, "-np", "4", "--oversubscribe", "--allow-run-as-root", "--bind-to",
             "none"] + forward + [exe], w, e)
        exps = [os.path.join(w, x) for x in os.listdir(w) if x.startswith("instr-")]
        expect(len(exps) == 1, f"{tag}: one job directory: {exps}")
        if extra:
            prof = json.load(open(os.path.join(exps[0], "profile.json")))
            expect(prof["metrics"], f"{tag}: no metric in the job's profile")
        real = trace_bytes(exps[0])
        sources = [("profile.json", exps[0])]
        if extra:
            sources.append(("profile.cubex", cubex_only(exps[0], d, "mpi-" + tag)))
        for src, where in sources:
            est = estimate_of(score(where).stdout)
            err = 100.0 * (est - real) / real
            print(f"estimate_mpi {tag} (from {src}): estimated {est} bytes, real trace {real} "
                  f"bytes ({err:+.2f} %)")
            expect(abs(err) <= 10.0,
                   f"MPI job, {tag}, from {src}: estimate {est} vs real {real} ({err:+.1f} %)")


def case_errors():
    d = fresh_dir(os.path.join(A.work, "errors"))
    r = score(os.path.join(d, "nowhere"), ok=(1,))
    expect("nowhere" in r.stderr and "No such file" in r.stderr, r.stderr)
    f = os.path.join(d, "file")
    open(f, "w").close()
    r = score(f, ok=(1,))
    expect("not a directory" in r.stderr, r.stderr)
    empty = fresh_dir(os.path.join(d, "empty"))
    r = score(empty, ok=(1,))
    expect("profile.json" in r.stderr and "INSTR_PROFILING_FORMAT" in r.stderr, r.stderr)
    exe = build("stencil", d)
    exp, _ = measure(exe, d, "cut")
    p = os.path.join(exp, "profile.json")
    with open(p) as fh:
        text = fh.read()
    with open(p, "w") as fh:
        fh.write(text[: len(text) // 2])
    r = score(exp, ok=(1,))
    expect("not valid JSON" in r.stderr and re.search(r"line \d+, column \d+", r.stderr), r.stderr)
    with open(p, "w") as fh:
        json.dump({"format": "something else", "version": 1}, fh)
    r = score(exp, ok=(1,))
    expect("not an instr profile" in r.stderr, r.stderr)
    for bad in (["-x", exp], [], [exp, exp], ["--min-visits", "lots", "-g", exp], ["--scorep", exp]):
        r = score(*bad, ok=(2,))
        expect(r.stderr.startswith("instr-score: ") and "--help" in r.stderr, f"{bad}: {r.stderr}")
    expect("usage: instr-score" in score("--help").stdout, "--help")
    spec = os.path.join(d, "bad.spec")
    with open(spec, "w") as fh:
        fh.write("exclude functon foo\n")
    exp, _ = measure(exe, d, "ok")
    r = score("-f", spec, exp, ok=(1,))
    expect("bad.spec:1:" in r.stderr, r.stderr)
    print("errors: each names what and where, exit 1 for input and 2 for usage")


def region_rows(out):
    """{region: (flt, type, visits)} from the -r rows."""
    rows = {}
    for line in out.splitlines():
        m = re.match(r"^\s*([-+*]?)\s+(USR|COM|MPI|OMP)\s+([\d,]+)\s+([\d,]+)\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+(.*)$", line)
        if m and m.group(5) not in ("USR", "COM", "MPI", "OMP"):
            rows[m.group(5)] = (m.group(1), m.group(2), int(m.group(4).replace(",", "")))
    return rows


def case_filter():
    d = fresh_dir(os.path.join(A.work, "filter"))
    exe = build("domain", d)
    exp, _ = measure(exe, d, "run")
    spec = os.path.join(d, "acc.spec")
    with open(spec, "w") as fh:
        fh.write("exclude function Domain::x\nexclude function Domain::e\n")
    out = score("-r", "-f", spec, exp).stdout
    rows = region_rows(out)
    expect(rows.get("Domain::x(int) const", ("",))[0] == "-" and rows.get("Domain::e(int)", ("",))[0] == "-",
           f"accessors not marked: {rows}")
    expect(rows.get("main", ("",))[0] == "+", f"main: {rows.get('main')}")
    prof = json.load(open(os.path.join(exp, "profile.json")))
    names = {r["id"]: r["name"] for r in prof["regions"]}
    left = sum(f["visits"] for f in prof["flat"]
               if names[f["region"]] not in ("Domain::x(int) const", "Domain::e(int)"))
    m = re.search(r"^\s*\*\s+ALL\s+([\d,]+)\s+([\d,]+)", out, re.M)
    expect(m and int(m.group(2).replace(",", "")) == left, f"visits after the filter: {m and m.group(0)}, expected {left}")
    expect(int(m.group(1).replace(",", "")) == 24 * left, "max_buf after the filter: 24 bytes per visit")
    print(f"filter: accessors marked '-', {left} visits left after the spec")


def case_generate():
    d = fresh_dir(os.path.join(A.work, "generate"))
    exe = build("domain", d)
    exp, _ = measure(exe, d, "run")
    mangled = {r["name"]: r["mangled"] for r in json.load(open(os.path.join(exp, "profile.json")))["regions"]}
    for flavour, extra, name in (("native", [], "gen.spec"), ("scorep", ["--scorep"], "gen.filter")):
        out = os.path.join(d, name)
        r = score("-g", *extra, "-o", out, exp)
        expect(os.path.isfile(out) and "written" in r.stdout, r.stdout)
        text = open(out).read()
        chk = run([A.spec, "check", out], d)
        expect(f"{len(ACCESSORS)} rule(s)" in chk.stdout, f"{flavour}: expected one rule per accessor:\n{chk.stdout}")
        for acc in ACCESSORS:
            m = run([A.spec, "match", out, "--function", acc, "--mangled", mangled[acc]], d)
            expect(m.stdout.startswith("exclude"), f"{flavour}: {acc}: {m.stdout}")
        for keep in ("main", "advance(Domain&, double)", "Domain::Domain(int)"):
            m = run([A.spec, "match", out, "--function", keep, "--mangled", mangled.get(keep, keep)], d)
            expect(m.stdout.startswith("include"), f"{flavour}: {keep}: {m.stdout}")
        expect(text.count("visits,") >= len(ACCESSORS), f"{flavour}: every rule has its reason:\n{text}")
        r = score("-g", *extra, "-o", out, exp, ok=(1,))
        expect("never overwritten" in r.stderr, r.stderr)
        print(f"generate ({flavour}):\n{text}")
    # A region whose names hold a newline (a crafted profile): -r escapes it, so no line is
    # forged, and -g writes a spec that parses back, leaving that region out with a line why.
    forged = fresh_dir(os.path.join(d, "forged"))
    prof = json.load(open(os.path.join(exp, "profile.json")))
    for reg in prof["regions"]:
        if reg["name"] == sorted(ACCESSORS)[0]:
            reg["name"] = reg["mangled"] = "evil\n   USR  1  1  0.0  0.0  0.0  forged"
    json.dump(prof, open(os.path.join(forged, "profile.json"), "w"))
    out = score("-r", forged).stdout
    expect("forged" in out and not any(l.lstrip().startswith("USR  1  1") for l in out.splitlines()),
           "-r printed the newline raw:\n" + out)
    expect("evil\\n   USR" in out, "-r does not show the name escaped:\n" + out)
    for flavour, extra, name in (("native", [], "forged.spec"), ("scorep", ["--scorep"], "forged.filter")):
        spec = os.path.join(d, name)
        score("-g", *extra, "-o", spec, forged)
        chk = run([A.spec, "check", spec], d)
        expect(f"{len(ACCESSORS) - 1} rule(s)" in chk.stdout,
               f"{flavour}: the forged name's spec:\n{chk.stdout}\n{open(spec).read()}")
        expect("left out of this spec: the name holds a control character" in open(spec).read(),
               f"{flavour}: no line says why:\n{open(spec).read()}")


def hint_lines(exe, d, tag, env=None):
    exp = os.path.join(d, "exp-" + tag)
    r = run([exe], d, dict(env or {}, INSTR_EXPERIMENT_DIRECTORY=exp))
    return [l for l in r.stderr.splitlines() if "instrumentation dominated" in l], exp


# The hint's time bound is a measured time, which a loaded machine stretches: the dominated
# runs here allow 1 ms per visit, so only the visits decide (the default, 100 ns, is what the
# documentation and users see).
LOAD_PROOF_HINT = {"INSTR_DOMINATED_HINT": "1000000,1000000"}


def case_hint():
    d = fresh_dir(os.path.join(A.work, "hint"))
    dom = build("domain", d)
    lines, exp = hint_lines(dom, d, "dominated", LOAD_PROOF_HINT)
    expect(len(lines) == 1, f"expected one hint line, got {lines}")
    expect(f"instr-score -g {exp}" in lines[0] and "Domain::x(int) const" in lines[0] and
           "more than 1000000 visits of under 1000000 ns each" in lines[0], lines[0])
    quiet, _ = hint_lines(dom, d, "quiet", dict(LOAD_PROOF_HINT, INSTR_VERBOSE="quiet"))
    expect(not quiet, f"INSTR_VERBOSE=quiet still hints: {quiet}")
    off, _ = hint_lines(dom, d, "off", {"INSTR_DOMINATED_HINT": "off"})
    expect(not off, f"INSTR_DOMINATED_HINT=off still hints: {off}")
    few, _ = hint_lines(dom, d, "few", {"INSTR_DOMINATED_HINT": "100000000,1000000"})
    expect(not few, f"regions under the visit bound hint: {few}")
    calm, _ = hint_lines(build("stencil", d), d, "calm", LOAD_PROOF_HINT)
    expect(not calm, f"a run that is not dominated hints: {calm}")
    print(f"hint: {lines[0]}")


def cubex_only(exp, d, tag):
    """A copy of experiment exp without its profile.json: what instr-score sees where a run
    wrote INSTR_PROFILING_FORMAT=cubex."""
    out = fresh_dir(os.path.join(d, "cubex-only-" + tag))
    shutil.copy(os.path.join(exp, "profile.cubex"), out)
    return out


# Columns of a table row: flt, type, max_buf, visits, time[s], time[%], time/visit[us], region.
ROW = re.compile(r"^\s*([-+*]?)\s*(ALL|USR|COM|MPI|OMP|FLT)\s+([\d,]+)\s+([\d,]+)\s+([\d.]+)"
                 r"\s+([\d.]+)\s+([\d.]+)\s+(.*)$")


def same_table(from_json, from_cubex):
    """The two tables agree line by line: the estimates, types, max_buf, visits and regions
    exactly; the time columns up to the rounding of the cubex's exclusive time (profile.json
    has each node's exclusive ns; the cubex has inclusive seconds, and the exclusive time of
    a call path is its inclusive less its children's, each rounded down to whole ns on its
    own: docs/profile-format.md), so within one unit of the last digit of time[s] and
    time[%] and 0.01 us of time/visit."""
    a, b = from_json.splitlines(), from_cubex.splitlines()
    expect(len(a) == len(b), f"{len(a)} lines from profile.json, {len(b)} from profile.cubex")
    rows = 0
    for x, y in zip(a, b):
        if x.startswith("(from profile.json"):
            expect(y == x.replace("profile.json", "profile.cubex"), f"{x!r} vs {y!r}")
            continue
        mx, my = ROW.match(x), ROW.match(y)
        if not mx:
            expect(x == y, f"line differs: {x!r} vs {y!r}")
            continue
        expect(my, f"row {x!r} vs {y!r}")
        rows += 1
        gx, gy = mx.groups(), my.groups()
        expect(gx[:4] + gx[7:] == gy[:4] + gy[7:], f"row differs: {x!r} vs {y!r}")
        for k, tol in ((4, 0.0011), (5, 0.11), (6, 0.011)):
            expect(abs(float(gx[k]) - float(gy[k])) <= tol, f"time columns differ: {x!r} vs {y!r}")
    return rows


def case_cubex():
    """instr-score on an experiment with only profile.cubex: the same table (-r, -f) and the
    same -g spec as from profile.json of the same run; a damaged cubex gets a clear message."""
    d = fresh_dir(os.path.join(A.work, "cubex"))
    exe = build("domain", d)
    exp, _ = measure(exe, d, "run", {"INSTR_PROFILING_FORMAT": "json,cubex"})
    only = cubex_only(exp, d, "domain")
    spec = os.path.join(d, "acc.spec")
    with open(spec, "w") as fh:
        fh.write("exclude function Domain::x\n")
    rows = same_table(score("-r", exp).stdout, score("-r", only).stdout)
    rows += same_table(score("-r", "-f", spec, exp).stdout, score("-r", "-f", spec, only).stdout)
    gj, gc = os.path.join(d, "json.spec"), os.path.join(d, "cubex.spec")
    score("-g", "-o", gj, exp)
    score("-g", "-o", gc, only)
    tj = [l for l in open(gj) if "Generated by" not in l]
    tc = [l for l in open(gc) if "Generated by" not in l]
    expect(tj == tc and any(l.startswith("exclude") for l in tc), f"-g differs:\n{tj}\n{tc}")
    # Damage: cut short, a broken anchor.xml, not a tar archive.
    cube = os.path.join(only, "profile.cubex")
    raw = open(cube, "rb").read()
    for what, data, want in (
            ("cut", raw[: len(raw) // 2], "cut short"),
            ("anchor", raw.replace(b"</region>", b"</regiox>", 1), "anchor.xml: line "),
            ("garbage", b"x" * 4096, "not a tar archive")):
        with open(cube, "wb") as fh:
            fh.write(data)
        r = score(only, ok=(1,))
        expect(want in r.stderr and "profile.cubex" in r.stderr, f"{what}: {r.stderr}")
        print(f"cubex damaged ({what}): {r.stderr.splitlines()[0]}")
    print(f"cubex: {rows} table rows and the -g spec agree with profile.json's")


def write_tar(path, files):
    """A tar archive (USTAR, as CUBE4 writers make them) of {member name: bytes}."""
    import io
    import tarfile
    with tarfile.open(path, "w", format=tarfile.USTAR_FORMAT) as t:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))


def foreign_rows(out):
    """The rows of main, foo, bar and ALL in instr-score -r's table: name -> (max_buf,
    visits, time, type)."""
    rows = {}
    for line in out.splitlines():
        m = ROW.match(line)
        if m and m.group(8) in ("main", "foo", "bar", "ALL"):
            rows[m.group(8)] = (int(m.group(3).replace(",", "")), int(m.group(4).replace(",", "")),
                                m.group(5), m.group(2))
    return rows


def foreign_cubex(path):
    """A CUBE4 archive as other writers make it, which instr's writer never does: big-endian
    numbers, dense indexes (format 0, no row list), metrics nested in metrics, attributes,
    cnode parameters, nested system-tree nodes, an element instr-score does not know, two
    processes (of two threads and of one), location Ids not in document order. The call
    tree: main > foo > bar and main > bar, on each location: main 1 visit, 1.0 s inclusive;
    foo 10 visits, 0.4 s; foo/bar 5 visits, 0.1 s; main/bar 3 visits, 0.2 s; the location
    of Id 1 (rank 1's only thread) makes 4 times the visits."""
    import struct
    anchor = """<?xml version="1.0" encoding="UTF-8"?>
<cube version="4.7">
<attr key="Creator" value="a test of another writer"/>
<doc><mirrors><murl>http://example.org/</murl></mirrors></doc>
<metrics>
  <metric id="0" type="EXCLUSIVE"><disp_name>Visits</disp_name><uniq_name>visits</uniq_name>
    <dtype>UINT64</dtype><uom>occ</uom><url/><descr>Number of visits</descr></metric>
  <metric id="1" type="INCLUSIVE"><disp_name>Time</disp_name><uniq_name>time</uniq_name>
    <dtype>DOUBLE</dtype><uom>sec</uom><url/><descr>Total &amp; more</descr>
    <metric id="2" type="EXCLUSIVE"><disp_name>Part</disp_name><uniq_name>part</uniq_name>
      <dtype>DOUBLE</dtype><uom>sec</uom><url/><descr>a child metric</descr></metric>
  </metric>
</metrics>
<program>
  <region id="0" mod="/src/m.c" begin="1" end="9"><name>main</name><mangled_name>main</mangled_name><paradigm>compiler</paradigm><role>function</role><url/><descr/></region>
  <region id="1" mod="/src/m.c" begin="10" end="12"><name>foo</name><mangled_name>foo</mangled_name><paradigm>compiler</paradigm><role>function</role><url/><descr/></region>
  <region id="2" mod="/src/m.c" begin="13" end="15"><name>bar</name><mangled_name>bar</mangled_name><paradigm>compiler</paradigm><role>function</role><url/><descr/></region>
  <cnode id="7" calleeId="0">
    <cnode id="8" calleeId="1"><parameter partype="numeric" parkey="n" parvalue="3"/>
      <cnode id="9" calleeId="2"/>
    </cnode>
    <cnode id="5" calleeId="2"/>
  </cnode>
</program>
<system>
  <systemtreenode Id="0"><name>machine</name><class>machine</class>
    <systemtreenode Id="1"><name>node a</name><class>node</class><attr key="k" value="v"/>
      <locationgroup Id="0"><name>rank 0</name><rank>0</rank><type>process</type>
        <location Id="2"><name>thread 0</name><rank>0</rank><type>thread</type></location>
        <location Id="0"><name>thread 1</name><rank>1</rank><type>thread</type></location>
      </locationgroup>
      <locationgroup Id="1"><name>rank 1</name><rank>1</rank><type>process</type>
        <location Id="1"><name>thread 0</name><rank>0</rank><type>thread</type></location>
      </locationgroup>
    </systemtreenode>
  </systemtreenode>
  <topologies/>
</system>
<!-- the end -->
</cube>
"""
    # Cnodes in document order: main, foo, foo/bar, main/bar. Depth-first rows for the
    # EXCLUSIVE metrics; CubeW's wide order (main, foo, main/bar, foo/bar) for INCLUSIVE time.
    visits = [1, 10, 5, 3]
    incl = [1.0, 0.4, 0.1, 0.2]
    wide = [0, 1, 3, 2]
    files = {"anchor.xml": anchor.encode()}
    for m, rows, fmt in ((0, [visits[c] for c in range(4)], ">Q"), (1, [incl[c] for c in wide], ">d"),
                         (2, [0.0] * 4, ">d")):
        files[f"{m}.index"] = b"CUBEX.INDEX" + struct.pack(">IHB", 1, 0, 0)
        scale = (1, 4, 1) if m == 0 else (1, 1, 1)  # per column: location Id 0, 1, 2
        files[f"{m}.data"] = b"CUBEX.DATA" + b"".join(
            b"".join(struct.pack(fmt, v * k) for k in scale) for v in rows)
    write_tar(path, files)


def case_cubex_foreign():
    """instr-score on a CUBE4 archive written the way other writers (CubeW) may write it:
    the values it derives are the ones the archive holds."""
    d = fresh_dir(os.path.join(A.work, "cubex_foreign"))
    foreign_cubex(os.path.join(d, "profile.cubex"))
    out = score("-r", d).stdout
    expect("(from profile.cubex: 2 processes, 3 threads, 3 regions, 4 call paths)" in out, out)
    rows = foreign_rows(out)
    # Per region over the locations: visits and exclusive time; max_buf (24 bytes per visit)
    # of the busiest process, rank 1 (4 times one location's visits; rank 0 has 2 times).
    want = {"main": (96, 6, "1.200", "USR"), "foo": (960, 60, "0.900", "USR"),
            "bar": (768, 48, "0.900", "USR"), "ALL": (1824, 114, "3.000", "ALL")}
    expect(rows == want, f"rows {rows}, expected {want}:\n{out}")
    print(f"cubex_foreign: big-endian, dense, nested metrics: {rows}")


def cube43_cubex(path):
    """A CUBE4 archive as Cube 4.3's CubeW writes Score-P's profile (cube version 4.3): the
    type names INTEGER and FLOAT, and a nested metric tree under time, whose own values are
    a part of the time: time (INCLUSIVE, its own half), execution (INCLUSIVE, a fifth, child of
    time), mpi (EXCLUSIVE, the rest, child of execution), and a derived child without data.
    Little-endian, sparse indexes, one process of one thread. The call tree: main > foo > bar
    and main > bar; inclusive time main 1.0 s, foo 0.4 s, foo/bar 0.1 s, main/bar 0.2 s;
    visits 1, 10, 5 and 3."""
    import struct
    anchor = """<?xml version="1.0" encoding="UTF-8"?>
<cube version="4.3">
<attr key="CUBE_CT_AGGR" value="SUM"/>
<doc><mirrors><murl>http://www.scalasca.org/docs</murl></mirrors></doc>
<metrics>
  <metric id="0" type="EXCLUSIVE"><disp_name>Visits</disp_name><uniq_name>visits</uniq_name>
    <dtype>INTEGER</dtype><uom>occ</uom><val></val><url></url><descr>Number of visits</descr></metric>
  <metric id="1" type="INCLUSIVE"><disp_name>Time</disp_name><uniq_name>time</uniq_name>
    <dtype>FLOAT</dtype><uom>sec</uom><val></val><url></url><descr>Total CPU allocation time</descr>
    <metric id="2" type="INCLUSIVE"><disp_name>Execution</disp_name><uniq_name>execution</uniq_name>
      <dtype>FLOAT</dtype><uom>sec</uom><url></url><descr>Execution time</descr>
      <metric id="3" type="EXCLUSIVE"><disp_name>MPI</disp_name><uniq_name>mpi</uniq_name>
        <dtype>FLOAT</dtype><uom>sec</uom><url></url><descr>MPI time</descr></metric>
    </metric>
    <metric id="4" type="PREDERIVED_EXCLUSIVE"><disp_name>Overhead</disp_name>
      <uniq_name>overhead</uniq_name><dtype>FLOAT</dtype><uom>sec</uom><url></url>
      <descr>derived</descr><cubepl>0</cubepl></metric>
  </metric>
</metrics>
<program>
  <region id="0" mod="/src/m.c" begin="1" end="9"><name>main</name><mangled_name>main</mangled_name><paradigm>compiler</paradigm><role>function</role><url></url><descr></descr></region>
  <region id="1" mod="/src/m.c" begin="10" end="12"><name>foo</name><mangled_name>foo</mangled_name><paradigm>compiler</paradigm><role>function</role><url></url><descr></descr></region>
  <region id="2" mod="/src/m.c" begin="13" end="15"><name>bar</name><mangled_name>bar</mangled_name><paradigm>compiler</paradigm><role>function</role><url></url><descr></descr></region>
  <cnode id="0" calleeId="0">
    <cnode id="1" calleeId="1">
      <cnode id="2" calleeId="2"/>
    </cnode>
    <cnode id="3" calleeId="2"/>
  </cnode>
</program>
<system>
  <systemtreenode Id="0"><name>machine Linux</name><class>machine</class>
    <systemtreenode Id="1"><name>node n1</name><class>node</class>
      <locationgroup Id="0"><name>MPI Rank 0</name><rank>0</rank><type>process</type>
        <location Id="0"><name>Master thread</name><rank>0</rank><type>thread</type></location>
      </locationgroup>
    </systemtreenode>
  </systemtreenode>
</system>
</cube>
"""
    visits = [1, 10, 5, 3]
    incl = [1.0, 0.4, 0.1, 0.2]
    excl = [0.4, 0.3, 0.1, 0.2]  # inclusive less the children's
    wide = [0, 1, 3, 2]  # CubeW's row order of an INCLUSIVE metric
    rows = {0: ("<q", visits), 1: ("<d", [0.5 * incl[c] for c in wide]),
            2: ("<d", [0.2 * incl[c] for c in wide]), 3: ("<d", [0.3 * e for e in excl])}
    files = {"anchor.xml": anchor.encode()}
    for m, (fmt, vals) in rows.items():
        files[f"{m}.index"] = (b"CUBEX.INDEX" + struct.pack("<IHBI", 1, 0, 1, 4) +
                               struct.pack("<4I", 0, 1, 2, 3))
        files[f"{m}.data"] = b"CUBEX.DATA" + b"".join(struct.pack(fmt, v) for v in vals)
    write_tar(path, files)


def case_cubex_cube43():
    """instr-score on a Score-P profile as Cube 4.3 writes it (INTEGER and FLOAT, nested
    metrics): visits and the time of the whole time tree per region."""
    d = fresh_dir(os.path.join(A.work, "cubex_cube43"))
    cube43_cubex(os.path.join(d, "profile.cubex"))
    out = score("-r", d).stdout
    expect("(from profile.cubex: 1 processes, 1 threads, 3 regions, 4 call paths)" in out or
           "(from profile.cubex: 1 process, 1 thread, 3 regions, 4 call paths)" in out, out)
    rows = foreign_rows(out)
    # Exclusive time: main 0.4, foo 0.3, bar 0.1 + 0.2; max_buf 24 bytes per visit (no
    # counter: the nested metrics are parts of time).
    want = {"main": (24, 1, "0.400", "USR"), "foo": (240, 10, "0.300", "USR"),
            "bar": (192, 8, "0.300", "USR"), "ALL": (456, 19, "1.000", "ALL")}
    expect(rows == want, f"rows {rows}, expected {want}:\n{out}")
    print(f"cubex_cube43: INTEGER, FLOAT, nested and derived metrics: {rows}")


def case_cubex_mpi():
    """The same for a 4-rank MPI job: types (COM on the paths to MPI, MPI) and the message
    records of the estimate from the job's cubex."""
    d = fresh_dir(os.path.join(A.work, "cubex_mpi"))
    exe = os.path.join(d, "halo")
    env = {"OMPI_MCA_btl": "self,vader"}
    run([A.instr, A.mpicc, "-O1", os.path.join(A.src, "tests/mpi/progs/halo.c"), "-o", exe], d, env)
    run([A.mpirun, "-np", "4", "--oversubscribe", "--allow-run-as-root", "--bind-to", "none",
         exe], d, env)
    exps = [os.path.join(d, e) for e in os.listdir(d) if e.startswith("instr-")]
    expect(len(exps) == 1, f"one job directory: {exps}")
    only = cubex_only(exps[0], d, "halo")
    out = score("-r", only).stdout
    rows = same_table(score("-r", exps[0]).stdout, out)
    types = {name: t for name, (_, t, _) in region_rows(out).items()}
    expect(types.get("main") == "COM" and types.get("MPI_Sendrecv") == "MPI" and
           types.get("MPI_Isend") == "MPI", f"types from the cubex: {types}")
    print(f"cubex_mpi: {rows} rows agree with the job's profile.json; types {types}")


def case_openmp():
    """Score-P's types on an OpenMP program (tests/openmp's constructs.c on libomp, 4
    threads), from profile.json and from profile.cubex: the OpenMP adapter's regions OMP,
    main (on the path to them) COM, the functions called inside USR."""
    d = fresh_dir(os.path.join(A.work, "openmp"))
    exe = os.path.join(d, "constructs")
    run([A.instr, A.omp_cc, "-fopenmp", "-g", "-O1",
         os.path.join(A.src, "tests/openmp/progs/constructs.c"), "-o", exe], d)
    exp, _ = measure(exe, d, "run", {"OMP_NUM_THREADS": "4", "INSTR_PROFILING_FORMAT": "json,cubex"})
    only = cubex_only(exp, d, "openmp")
    for src, where in (("profile.json", exp), ("profile.cubex", only)):
        types = {name: t for name, (_, t, _) in region_rows(score("-r", where).stdout).items()}
        omp = {n: t for n, t in types.items() if n.startswith(("!$omp", "omp_"))}
        expect(len(omp) >= 10 and set(omp.values()) == {"OMP"}, f"{src}: OpenMP regions {omp}")
        want = {"main": "COM", "kernel": "USR", "leaf": "USR", "task_body": "USR"}
        got = {n: types.get(n) for n in want}
        expect(got == want, f"{src}: types {got}, expected {want}")
        print(f"openmp ({src}): {len(omp)} OMP regions, {got}")


def case_hint_mpi():
    """A 4-rank job whose every rank is dominated by its instrumentation: one hint line for
    the job (rank 0, from the merged profile, naming the job's directory), none per rank;
    INSTR_VERBOSE=quiet silences it."""
    d = fresh_dir(os.path.join(A.work, "hint_mpi"))
    exe = os.path.join(d, "hot_mpi")
    env = {"OMPI_MCA_btl": "self,vader"}
    run([A.instr, A.mpicc, "-O2", os.path.join(A.src, "tests/score/progs/hot_mpi.c"), "-o", exe],
        d, env)
    for tag, extra in (("loud", LOAD_PROOF_HINT),
                       ("quiet", dict(LOAD_PROOF_HINT, INSTR_VERBOSE="quiet"))):
        w = fresh_dir(os.path.join(d, tag))
        forward = [a for k in extra for a in ("-x", k)]
        r = run([A.mpirun, "-np", "4", "--oversubscribe", "--allow-run-as-root", "--bind-to",
                 "none"] + forward + [exe], w, dict(env, **extra))
        expect(r.stdout == "total=16800000\n", f"output {r.stdout!r}")
        lines = [l for l in r.stderr.splitlines() if "instrumentation dominated" in l]
        if tag == "quiet":
            expect(not lines, f"INSTR_VERBOSE=quiet still hints: {lines}")
            continue
        jobs = [os.path.join(w, e) for e in os.listdir(w) if e.startswith("instr-")]
        expect(len(jobs) == 1, f"one job directory: {jobs}")
        expect(len(lines) == 1, f"expected one hint line for the job, got {len(lines)}: {lines}")
        expect("this MPI job" in lines[0] and f"instr-score -g {jobs[0]}" in lines[0]
               and "tiny: 4800000 visits" in lines[0], lines[0])
        print(f"hint_mpi: {lines[0]}")


def objdump_calls(exe, symbols):
    """{demangled function: calls of __instr_enter/exit in its body} for the symbols present."""
    dis = run(["objdump", "-d", "-C", "--no-show-raw-insn", exe], A.work).stdout
    out, cur = {}, None
    for line in dis.splitlines():
        m = re.match(r"^[0-9a-f]+ <(.*)>:$", line)
        if m:
            cur = m.group(1) if m.group(1) in symbols else None
            if cur:
                out[cur] = 0
        elif cur and re.search(r"call.*<__instr_(enter|exit)", line):
            out[cur] += 1
    return out


def case_loop():
    d = fresh_dir(os.path.join(A.work, "loop"))
    v1 = build("domain", d, out="v1")
    exp1, out1 = measure(v1, d, "v1")
    spec = os.path.join(d, "gen.spec")
    score("-g", "-o", spec, exp1)
    v2 = build("domain", d, spec=spec, out="v2")
    before = objdump_calls(v1, ACCESSORS)
    after = objdump_calls(v2, ACCESSORS)
    expect(set(before) == ACCESSORS and all(before.values()),
           f"the first build should call the hooks in every accessor: {before}")
    expect(set(after) == ACCESSORS and not any(after.values()),
           f"the rebuilt accessors still call the hooks: {after}")
    exp2, out2 = measure(v2, d, "v2")
    expect(out1 == out2, f"output changed: {out1!r} vs {out2!r}")
    p1 = json.load(open(os.path.join(exp1, "profile.json")))
    p2 = json.load(open(os.path.join(exp2, "profile.json")))

    def visits(p):
        names = {r["id"]: r["name"] for r in p["regions"]}
        return {names[f["region"]]: f["visits"] for f in p["flat"]}
    vis1, vis2 = visits(p1), visits(p2)
    expect(not ACCESSORS & set(vis2), f"the rebuilt run recorded accessors: {vis2}")
    rest = {k: v for k, v in vis1.items() if k not in ACCESSORS}
    expect(rest == vis2, f"the other regions' visits changed: {rest} vs {vis2}")
    expect(not hint_lines(v2, d, "v2-hint")[0], "the rebuilt run still says it is dominated")
    print(f"loop: {sum(vis1.values())} visits before, {sum(vis2.values())} after; accessors "
          f"had {sum(before.values())} hook calls, now none")


def main():
    global A
    ap = argparse.ArgumentParser()
    for a in ("instr", "score", "spec", "src", "work"):
        ap.add_argument("--" + a, required=True)
    ap.add_argument("--mpicc")
    ap.add_argument("--mpirun")
    ap.add_argument("--plugins")
    ap.add_argument("--omp-cc")
    ap.add_argument("case")
    A = ap.parse_args()
    A.work = os.path.abspath(A.work)
    os.makedirs(A.work, exist_ok=True)
    return run_case(globals(), A.case)


if __name__ == "__main__":
    sys.exit(main())
