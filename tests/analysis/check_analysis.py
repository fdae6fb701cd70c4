#!/usr/bin/env python3
"""The Python module instr_analysis on the test double's sample databases
(tests/lib/jdb_testdouble.py; its comments give the values, the answers here are computed by
hand from them), and on any job database:

    check_analysis.py CASE --samples DIR --work DIR
    check_analysis.py invariants --jdb FILE     # a real profile.jdb: the checks that hold for
                                                # every database (summary = reduction of rows)
"""
import argparse
import math
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from cases import Fail, expect, fresh_dir, run_case  # noqa: E402
import jdb_testdouble as T  # noqa: E402

import numpy as np  # noqa: E402
import instr_analysis as ia  # noqa: E402

A = None


def sample():
    return ia.open("sample.jdb")  # relative: the messages name it so (main() is in --samples)


def sample_b():
    return ia.open("sample_b.jdb")


def expect_error(fn, start, what):
    try:
        fn()
    except ia.Error as e:
        expect(str(e).startswith(start), "%s: message %r does not start %r" % (what, str(e), start))
        return str(e)
    raise Fail("%s: no ia.Error" % what)


def case_tree():
    db = sample()
    t = db.tree()
    expect(list(t["context"]) == T.SAMPLE_PATHS, "contexts %r" % list(t["context"]))
    expect(list(t["parent"]) == [-1, 0, 1, 1, 3, 0, 0], "parents %r" % list(t["parent"]))
    expect(list(t["depth"]) == [0, 1, 2, 2, 3, 1, 1], "depths")
    expect(list(t["paradigm"]) == ["user", "user", "mpi", "user", "mpi", "user", "mpi"],
           "paradigms %r" % list(t["paradigm"]))
    expect(t.loc[1, "file"] == "solve.c" and t.loc[1, "line"] == 20, "solve's file and line")
    expect((db.nranks, db.nranks_present, db.npaths) == (5, 4, 7), "sizes")
    expect(list(db.select("function(MPI_*)")) == [2, 4, 6], "function(MPI_*)")
    expect(list(db.select("time_incl >= 10%")) == [0, 1, 2, 3, 4, 6], "pruned to 10 %")
    expect(list(db.select("function(MPI_*) and time_incl > 10%")) == [2, 4], "combination")
    expect(db.total("time_incl") == 4000, "total")
    s = db.summary("time_incl", "function(MPI_Allreduce)")
    expect(list(s["sum"]) == [800, 400] and list(s["nranks_visited"]) == [4, 3], "summary %r" % s)
    expect(list(s["mean"]) == [160, 80], "summary mean over the job's 5 ranks")
    cols = db.columns()
    expect(list(cols["name"])[:3] == ["visits", "time_incl", "time_excl"] and
           cols["inclusive"][1] and list(cols["name"])[-1] == "ipc", "columns %r" % cols)
    expect(db.rank(4)["present"] is False and db.rank(1)["threads"] == 2, "rank index")


def case_query():
    db = sample()
    # MPI_* time per rank as a DataFrame
    df = db.query(metric="time_incl", paths="function(MPI_*)")
    expect(list(df.columns) == ["path", "name", "rank", "time_incl"],
           "columns %r" % list(df.columns))
    got = {(int(r.path), int(r.rank)): r.time_incl for r in df.itertuples()}
    want = {(p, r): v for r, rows in T.SAMPLE_TIME.items() for (p, _t), v in rows.items()
            if p in (2, 4, 6)}
    expect(got == want, "MPI time per rank %r, want %r" % (got, want))
    wide = df.pivot(index="rank", columns="path", values="time_incl")
    expect(wide.loc[3, 2] == 400 and math.isnan(wide.loc[1, 6]), "pivot %r" % wide)
    # per thread: rank 1's two threads of solve; per rank: their sum
    th = db.query("time_incl", paths=[1], ranks=[1], per="thread")
    expect([(r.thread, r.time_incl) for r in th.itertuples()] == [(0, 700), (1, 400)],
           "threads %r" % th)
    pr = db.query("time_incl", paths=[1], ranks=[1])
    expect(list(pr["time_incl"]) == [1100], "rank sum %r" % pr)
    t1 = db.query("time_incl", paths="all", threads=[1], per="thread")
    expect(sorted(zip(t1["path"], t1["time_incl"])) == [(1, 400), (3, 100)], "thread 1 %r" % t1)
    ex = db.query("time_excl", paths=[0])
    expect(list(ex["time_excl"]) == [50, 200, 100, 100], "time_excl of main %r" % ex)
    ipc = db.query("ipc", paths="path(main)")
    expect(list(ipc["ipc"]) == [0.5, 1.0, 1.5, 2.0], "a double column %r" % ipc)
    dense = db.rank_values("time_incl", "function(MPI_Allreduce)")
    expect(dense.shape == (5, 2) and list(dense[6]) [:4] == [50, 0, 50, 300] and
           math.isnan(dense.loc[4, 2]), "dense %r" % dense)
    expect(len(db.query("time_incl", paths=[], ranks=[0])) == 0, "empty selection")


def case_stats():
    db = sample()
    st = db.stats(metric="time_incl", k=1.5)
    expect(list(st.index) == list(range(7)), "paths %r" % list(st.index))
    s = st.loc[1]
    expect((s["min"], s["min_rank"], s["max"], s["max_rank"], s["mean"], s["balance"]) ==
           (600, 3, 1100, 1, 825, 0.75), "solve %r" % s)
    expect(abs(s["std"] - math.sqrt(31875)) < 1e-9, "solve's std")
    expect(list(st["outliers"]) == [[], [1], [3], [3], [3], [3], [3]],
           "outliers %r" % list(st["outliers"]))
    expect(st.loc[0, "balance"] == 1 and st.loc[2, "balance"] == 0.5, "balance")
    expect(st.loc[5, "nvisited"] == 3 and st.loc[5, "mean"] == 62.5, "io")
    # balance ratio per MPI call site
    mpi = db.stats("time_incl", "function(MPI_*)")
    expect([round(b, 4) for b in mpi["balance"]] == [0.5, 0.73, 0.3333], "MPI balance %r" % mpi)
    expect(all(o == [] for o in mpi["outliers"]), "k = 3: no outliers among 4 ranks")
    some = db.stats("time_incl", [1], ranks=[0, 2])
    expect(some.loc[1, "mean"] == 800 and some.loc[1, "std"] == 0, "some ranks %r" % some)
    expect_error(lambda: db.stats("time_incl", k=-1), "sample.jdb: outlier factor k = -1",
                 "negative k")


def case_context():
    db = sample()
    c = db.context(4)
    expect(list(c["name"]) == ["main", "solve", "exchange", "MPI_Send"], "context %r" % c)
    expect(list(c["path"]) == [0, 1, 3, 4] and list(c["depth"]) == [0, 1, 2, 3], "ids")
    expect(list(db.context(0)["name"]) == ["main"], "top-level")
    expect_error(lambda: db.context(7), "sample.jdb: no path 7: the database has paths 0..6",
                 "out of range")


def case_compare():
    a, b = sample(), sample_b()
    c = ia.compare(a, b, metric="time_incl", stat="sum")
    rows = [(r.context, r.path_a, r.path_b, r.a, r.b, r.diff) for r in c.itertuples()]
    nan = float("nan")
    want = [("main", 0, 0, 4000, 4000, 0), ("main/solve", 1, 2, 3300, 3000, -300),
            ("main/solve/MPI_Allreduce", 2, 6, 800, 600, -200),
            ("main/solve/exchange", 3, 4, 1100, 1200, 100),
            ("main/solve/exchange/MPI_Send", 4, 5, 730, 800, 70),
            ("main/io", 5, -1, 250, nan, -250), ("main/MPI_Allreduce", 6, 1, 400, 200, -200),
            ("main/solve/MPI_Barrier", -1, 3, nan, 200, 200)]

    def same(x, y):
        return all((isinstance(u, float) and math.isnan(u) and math.isnan(v)) or u == v
                   for u, v in zip(x, y))
    expect(len(rows) == len(want) and all(same(x, y) for x, y in zip(rows, want)),
           "compare %r" % rows)
    m = ia.compare(a, b, "time_incl", stat="mean")
    expect((m["a"][1], m["b"][1]) == (660, 1500), "means over each job's ranks %r" % m)
    expect_error(lambda: ia.compare(a, b, "ipc"), "sample_b.jdb: no column \"ipc\"", "column")
    expect_error(lambda: ia.compare(a, b, stat="median"), "compare: stat='median'", "stat")


def case_errors():
    db = sample()
    expect_error(lambda: db.query("cycles"), "sample.jdb: no column \"cycles\"; the columns are: "
                 "visits, time_incl", "unknown metric")
    expect_error(lambda: db.select("function(MPI_*"),
                 "sample.jdb: query \"function(MPI_*\": at character 15: expected ')'", "query")
    for query, where in (("not " * 30000 + "all", 1028), ("(" * 30000 + "all" + ")" * 30000, 258)):
        m = expect_error(lambda: db.select(query), "sample.jdb: query \"", "deep query")
        expect(("at character %d: nested deeper than 256 levels" % where) in m, "deep query: %r" % m)
    # ids above 2**32 are refused, never wrapped onto path 1 (ctypes' c_uint32 would)
    for call, what in ((lambda: db.context(2**32 + 1), "context"),
                       (lambda: db.name(2**32 + 1), "name"),
                       (lambda: db.region(2**32), "region"),
                       (lambda: db.rank(-1), "rank"),
                       (lambda: db.query("time_incl", paths=[2**32 + 1]), "query")):
        expect_error(call, "ids must be between 0 and 4294967295", what)
    expect_error(lambda: db.query("time_incl", ranks=[7]), "sample.jdb: no rank 7: the job had "
                 "ranks 0..4", "rank")
    expect_error(lambda: db.query("time_incl", paths=[9]), "sample.jdb: no path 9", "path")
    expect_error(lambda: db.query("time_incl", per="node"), "query: per='node'", "per")
    expect_error(lambda: ia.open(os.path.join(A.work, "missing.jdb")), os.path.join(
        A.work, "missing.jdb") + ": cannot open: No such file", "missing file")
    fifo = os.path.join(A.work, "errors.fifo")
    if os.path.exists(fifo):
        os.unlink(fifo)
    os.mkfifo(fifo)
    expect_error(lambda: ia.open(fifo), fifo + ": not a regular file (a FIFO)", "FIFO")
    db.close()
    expect_error(lambda: db.tree(), "sample.jdb: the database is closed", "closed")


def damaged_copy(name, mutate):
    data = bytearray(open("sample.jdb", "rb").read())
    mutate(data)
    path = os.path.join(A.work, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def case_damage():
    """A damaged field of each kind: the library's message, as a Python exception."""
    good = open("sample.jdb", "rb").read()
    import struct
    hdr = struct.unpack_from("<8sIIQIIIIIIQ8QII", good, 0)
    regions, paths, index, rows = hdr[13], hdr[14], hdr[17], hdr[18]
    cases = [
        ("magic", lambda d: d.__setitem__(0, ord("X")), "not a job database"),
        ("version", lambda d: struct.pack_into("<I", d, 8, 2), "format version 2, this reader "
         "knows version 1"),
        ("unfinished", lambda d: struct.pack_into("<Q", d, 16, 0), "unfinished: the file size "
         "field is 0"),
        ("paradigm", lambda d: struct.pack_into("<I", d, regions + 24, 9), "damaged: region 0 "
         "(main): paradigm 9 is not 0..4"),
        ("parent", lambda d: struct.pack_into("<I", d, paths + 8 * 2, 5), "damaged: path 2: its "
         "parent 5 does not come before it"),
        ("rank flag", lambda d: struct.pack_into("<I", d, index + 20, 0), "damaged: rank 0 is "
         "marked absent but has 7 rows"),
        ("row order", lambda d: struct.pack_into("<I", d, rows + 72, 0), "damaged: rank 0 row 1 "
         "(path 0, thread 0) is not after the row before it"),
        ("row thread", lambda d: struct.pack_into("<I", d, rows + 4, 3), "damaged: rank 0 row 0: "
         "path 0 of 7, thread 3 of the rank's 1"),
    ]
    for name, mutate, message in cases:
        path = damaged_copy(name.replace(" ", "_") + ".jdb", mutate)
        expect_error(lambda: ia.open(path), path + ": " + message, name)


def case_truncation():
    good = open("sample.jdb", "rb").read()
    path = os.path.join(A.work, "cut.jdb")
    for length in range(0, len(good), 7):
        with open(path, "wb") as f:
            f.write(good[:length])
        want = (path + ": truncated: file size field says %d bytes, the file has %d"
                % (len(good), length)) if length >= 256 else \
            (path + ": truncated: the file has %d bytes, less than the 256-byte header" % length)
        msg = expect_error(lambda: ia.open(path), want, "cut at %d" % length)
        expect(msg == want, "cut at %d: %r" % (length, msg))


def case_shrink():
    """A file truncated after a lazy open: each query fails with a message (the mapping would
    raise SIGBUS on the first page past the new end and kill python)."""
    good = open("sample.jdb", "rb").read()
    path = os.path.join(A.work, "shrink.jdb")
    with open(path, "wb") as f:
        f.write(good)
    db = ia.open(path, lazy_rows=True)
    os.truncate(path, 0)
    want = (path + ": the file shrank from %d to 0 bytes since it was opened (truncated or "
            "rewritten in place?): reopen it" % len(good))
    for what, fn in (("query", lambda: db.query("time_incl")),
                     ("stats", lambda: db.stats("time_incl")),
                     ("select", lambda: db.select("path(main/*)")),
                     ("tree", lambda: db.tree()), ("context", lambda: db.context(4)),
                     ("summary", lambda: db.summary("time_incl")),
                     ("rank", lambda: db.rank(0)), ("region", lambda: db.region(0))):
        msg = expect_error(fn, want, what)
        expect(msg == want, "%s: %r" % (what, msg))
    # back to its size: the queries read again
    with open(path, "wb") as f:
        f.write(good)
    expect(list(db.select("function(MPI_*)")) == [2, 4, 6], "the restored file")
    db.close()


def case_lazy():
    """lazy_rows: a damaged row is reported by the query that reads it, not at open."""
    import struct
    good = open("sample.jdb", "rb").read()
    rows = struct.unpack_from("<Q", good, 112)[0]
    path = damaged_copy("lazy.jdb", lambda d: struct.pack_into("<I", d, rows + 4, 3))
    expect_error(lambda: ia.open(path), path + ": damaged: rank 0 row 0", "full check")
    db = ia.open(path, lazy_rows=True)
    expect(list(db.query("time_incl", paths=[1], ranks=[0])["time_incl"]) == [800],
           "an undamaged row reads")
    for paths in ([0], [0, 1, 2]):  # searched; scanned (3 paths x log2(7 rows) > 7 rows)
        expect_error(lambda: db.query("time_incl", paths=paths, ranks=[0]), path + ": damaged: "
                     "rank 0 row 0: path 0 of 7, thread 3 of the rank's 1", "the damaged row")
    expect_error(lambda: db.query("time_incl", paths=[6, 0], ranks=[0]), path + ": damaged: "
                 "rank 0 row 0: path 0 of 7, thread 3 of the rank's 1", "searched, unsorted")
    # the answers are the same as with the full check
    full = sample()
    lz = ia.open("sample.jdb", lazy_rows=True)
    expect(full.stats("time_incl").equals(lz.stats("time_incl")), "lazy and full agree")


def check_invariants(db):
    """What holds for every database: the summary is the reduction of the rows, the tree and
    the contexts agree, stats agree with the per-rank values, a run compared with itself
    differs by nothing."""
    tree = db.tree()
    step = max(1, db.npaths // 200)  # contexts of at most ~200 paths: each is a DataFrame
    for q in range(0, db.npaths, step):
        ctx = db.context(q)
        expect(ctx["path"].iloc[-1] == q and len(ctx) == tree.loc[q, "depth"] + 1,
               "context of %d" % q)
        expect("/".join(ctx["name"]) == tree.loc[q, "context"], "context string of %d" % q)
    cols = db.columns()
    for metric in cols["name"]:
        rows = db.query(metric, paths="all")
        summ = db.summary(metric)
        rows["sq"] = rows[metric].astype(float) ** 2
        agg = rows.groupby("path").agg(n=(metric, "size"), sum=(metric, "sum"),
                                       min=(metric, "min"), max=(metric, "max"), sq=("sq", "sum"))
        agg = agg.reindex(range(db.npaths), fill_value=0)
        bad = np.flatnonzero((summ["nranks_visited"].to_numpy() != agg["n"].to_numpy()) |
                             ~np.isclose(summ["sum"], agg["sum"]) |
                             ~np.isclose(summ["sum_squares"], agg["sq"]) |
                             ((agg["n"] > 0) & ((summ["min"] != agg["min"]) |
                                                (summ["max"] != agg["max"]))).to_numpy())
        expect(len(bad) == 0, "%s: the summary of %d paths is not the reduction of the rows, "
               "first path %s: summary %r, rows %r" % (
                   metric, len(bad), bad[:1], bad[:1].size and dict(summ.iloc[bad[0]]),
                   bad[:1].size and dict(agg.iloc[bad[0]])))
    st = db.stats("time_incl")
    dense = db.rank_values("time_incl").dropna()
    expect(np.allclose(st["mean"], dense.mean(axis=0)) and
           np.allclose(st["max"], dense.max(axis=0)) and
           np.allclose(st["std"], dense.std(axis=0, ddof=0)), "stats vs the per-rank values")
    c = ia.compare(db, db)
    expect((c["diff"] == 0).all() and (c["path_a"] == c["path_b"]).all(), "self-comparison")
    if db.pruned() is not None:
        check_pruned(db)


def check_pruned(db):
    """A database with a pruned section (docs/profile-format.md): its set is the query's
    time_incl >= T%; a pruned query gives exactly the same DataFrame from the section as from
    the rows area (rows_area=True), per rank and per thread, lazily checked or not; the section
    is what such a query reads (a value changed in a copy's pruned rows shows in its answer,
    and the full check refuses the copy); a damaged pruned index or set is refused with the
    file's name and the fault."""
    import struct
    pr = db.pruned()
    t = pr["threshold_percent"]
    expect(list(pr["paths"]) == list(db.select("time_incl >= %g%%" % t)),
           "the pruned set is not select(time_incl >= %g%%)" % t)
    queries = ["time_incl >= %g%%" % t, "time_incl >= %g%%" % (5 * t),
               "time_incl >= %g%% and not paradigm(mpi)" % t]
    for lazy in (False, True):
        a = ia.open(db.path, lazy_rows=lazy)
        b = ia.open(db.path, lazy_rows=lazy, rows_area=True)
        for q in queries:
            for metric in ("time_incl", "visits", "time_excl"):
                for per in ("rank", "thread"):
                    x = a.query(metric, paths=q, per=per)
                    y = b.query(metric, paths=q, per=per)
                    expect(x.equals(y), "%s %s per %s (lazy %s): the pruned section's answer "
                           "differs from the rows area's:\n%r\n%r" % (q, metric, per, lazy, x, y))
        expect(a.stats("time_incl", paths=queries[0]).equals(
            b.stats("time_incl", paths=queries[0])), "stats from the section and the area")
        expect(a.rank_values("time_excl", paths=queries[0]).equals(
            b.rank_values("time_excl", paths=queries[0])), "rank_values from the section")
        a.close()
        b.close()
    good = open(db.path, "rb").read()
    (set_off, nset, _thr, pidx, prows, prows_len) = struct.unpack_from("<QIIQQQ", good, 128)
    if not prows_len:
        return
    ncols = struct.unpack_from("<I", good, 40)[0]
    r0 = next(r for r in range(db.nranks) if struct.unpack_from("<Q", good, pidx + 16 * r + 8)[0])
    first = struct.unpack_from("<Q", good, pidx + 16 * r0)[0]
    p0, t0 = struct.unpack_from("<II", good, first)
    col = db.column("time_incl")

    def copy(name, mutate):
        data = bytearray(good)
        mutate(data)
        path = os.path.join(A.work, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    # the section is read: a value changed in a pruned row shows in the pruned query only
    old = struct.unpack_from("<Q", good, first + 8 + 8 * col)[0]
    changed = copy("pruned_value.jdb", lambda d: struct.pack_into("<Q", d, first + 8 + 8 * col,
                                                                   old + 12345))
    a = ia.open(changed, lazy_rows=True)
    b = ia.open(changed, lazy_rows=True, rows_area=True)
    x = a.query("time_incl", paths=[p0], ranks=[r0], per="thread")
    y = b.query("time_incl", paths=[p0], ranks=[r0], per="thread")
    xv = dict(zip(x["thread"], x["time_incl"]))
    yv = dict(zip(y["thread"], y["time_incl"]))
    expect(xv[t0] == old + 12345 and yv[t0] == old, "a pruned query does not read the pruned "
           "section: %r from it, %r from the rows area, %d written" % (xv, yv, old + 12345))
    a.close()
    b.close()
    expect_error(lambda: ia.open(changed), changed + ": damaged: rank %d pruned row 0 is not its "
                 "row" % r0, "full check of a changed pruned row")
    # a damaged pruned index, set or header field: refused at open, lazily too
    rows_r0 = struct.unpack_from("<Q", good, pidx + 16 * r0 + 8)[0]
    cases = [
        ("pruned index offset", lambda d: struct.pack_into("<Q", d, pidx + 16 * r0, first + 8),
         "damaged: pruned index of rank %d: %d rows at offset %d" % (r0, rows_r0, first + 8)),
        ("pruned index rows", lambda d: struct.pack_into("<Q", d, pidx + 16 * r0 + 8, 1 << 40),
         "damaged: pruned index of rank %d: %d rows at offset %d" % (r0, 1 << 40, first)),
        ("pruned index offset outside", lambda d: struct.pack_into(
            "<Q", d, pidx + 16 * r0, (1 << 64) - 8), "damaged: pruned index of rank %d" % r0),
        ("pruned set order", lambda d: struct.pack_into("<I", d, set_off, db.npaths),
         "damaged: pruned set entry 0: path %d is not after" % db.npaths),
        ("pruned set member", lambda d: struct.pack_into("<I", d, 136, nset - 1),
         "damaged: path "),
        ("pruned rows length", lambda d: struct.pack_into("<Q", d, 160, prows_len + 1),
         "damaged: the pruned rows"),
        ("pruned index in the rows area", lambda d: struct.pack_into(
            "<Q", d, 144, struct.unpack_from("<Q", good, 112)[0]), "damaged: the pruned index"),
    ]
    for name, mutate, message in cases:
        path = copy(name.replace(" ", "_") + ".jdb", mutate)
        for lazy in (False, True):
            expect_error(lambda: ia.open(path, lazy_rows=lazy), path + ": " + message, name)
    # a pruned row whose path is not in the set: reported by the query that reads it
    outside = next(p for p in range(db.npaths) if p not in set(pr["paths"].tolist()))
    path = copy("pruned_row_path.jdb", lambda d: struct.pack_into("<I", d, first, outside))
    lz = ia.open(path, lazy_rows=True)
    expect_error(lambda: lz.query("time_incl", paths=pr["paths"], ranks=[r0]),
                 path + ": damaged: rank %d pruned row 0" % r0, "a lazily read pruned row")
    expect_error(lambda: ia.open(path), path + ": damaged: rank %d pruned row 0" % r0,
                 "a fully checked pruned row")


def case_chunks():
    """The rows of a selection that reads most of each rank's pages are read with pread in
    pieces of several ranks (8 MiB: docs/analysis.md, "Access pattern"); a small selection
    reads through the mapping, and so does a piece already in memory. A database of ~24 MiB
    of rows (several pieces a thread), an absent rank and ranks of two threads, read cold
    (its pages dropped) and warm: every row exact, whichever way it was read."""
    nranks, npaths, absent = 450, 1000, 7
    db = T.JobDB(nranks=nranks)
    main_r = db.region("main")
    work = db.region("work")
    paths = [db.path(None, main_r)] + [db.path(0, work) for _ in range(npaths - 1)]
    db.absent.add(absent)
    want = {}  # (rank, path, thread) -> time_incl
    for r in range(nranks):
        if r == absent:
            continue
        for p in paths:
            if (p * 7 + r) % 5 == 0 and p != 0:
                continue
            for t in ((0, 1) if r % 11 == 0 and p % 3 == 0 else (0,)):
                v = r * 100003 + p * 7 + t
                db.row(r, p, t, visits=1, time_incl=v)
                want[(r, p, t)] = v
    filename = os.path.join(A.work, "chunks.jdb")
    db.write(filename)
    expect(os.path.getsize(filename) > 2 * (8 << 20), "size %d" % os.path.getsize(filename))
    for warm in (False, True):
        check_chunks(filename, warm, nranks, paths, absent, want)


def drop_pages(filename):
    """The file's pages out of the page cache (where the file system lets them go), so that
    the reader finds them cold and reads the pieces with O_DIRECT."""
    fd = os.open(filename, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def check_chunks(filename, warm, nranks, paths, absent, want):
    if warm:
        with open(filename, "rb") as fh:  # every page resident: read through the mapping
            while fh.read(1 << 20):
                pass
    else:
        drop_pages(filename)
    f = ia.open(filename, lazy_rows=True)  # open reads no row: the queries find them cold

    def rows(df):
        return {(int(x.rank), int(x.path), int(x.thread)): x.time_incl for x in df.itertuples()}

    def subset(ranks, sel):
        return {k: v for k, v in want.items() if k[0] in ranks and k[1] in sel}

    def cold():  # before each query of the cold round: its pages out again (open's included)
        if not warm:
            drop_pages(filename)

    # every path of every rank: read in pieces
    cold()
    got = rows(f.query("time_incl", paths="all", per="thread"))
    expect(got == want, "all rows: %d of %d, first difference %r" % (
        len(got), len(want), next((k for k in want if got.get(k) != want[k]), None)))
    # ranks out of order and with gaps, the absent one among them: pieces end at each gap
    ranks = [449, 150, 3, 4, 5, 9, absent, 200, 201, 230]
    cold()
    df = f.query("time_incl", paths="all", ranks=ranks, per="thread")
    expect(rows(df) == subset(ranks, set(paths)), "ranks %r" % ranks)
    expect([int(r) for r in dict.fromkeys(df["rank"])] == [r for r in ranks if r != absent],
           "rank order %r" % list(dict.fromkeys(df["rank"])))
    # a small selection: through the mapping
    few = [5, 500, 999]
    cold()
    expect(rows(f.query("time_incl", paths=few, per="thread")) == subset(range(nranks), few),
           "paths %r" % few)
    # the dense form: sums over threads, 0 without a row, NaN for the absent rank
    cold()
    dense = f.rank_values("time_incl", "all")
    for r in (0, 1, absent, 11, 448, 449):
        for p in (0, 3, 4, 999):
            v = dense.loc[r, p]
            if r == absent:
                expect(math.isnan(v), "absent rank %d path %d: %r" % (r, p, v))
            else:
                w = sum(want.get((r, p, t), 0) for t in (0, 1))
                expect(v == w, "rank %d path %d: %r, want %r" % (r, p, v, w))


def case_invariants():
    check_invariants(ia.open(A.jdb) if A.jdb else sample())
    if not A.jdb:
        check_invariants(sample_b())


def main():
    global A
    ap = argparse.ArgumentParser()
    ap.add_argument("case")
    ap.add_argument("--samples", default=".")
    ap.add_argument("--work", default="work")
    ap.add_argument("--jdb", help="a real profile.jdb for the case invariants")
    A = ap.parse_args()
    A.work = os.path.abspath(A.work)
    A.jdb = A.jdb and os.path.abspath(A.jdb)
    fresh_dir(A.work)
    os.chdir(A.samples)
    status = run_case(globals(), A.case, failures=(ia.Error,))
    if status == 0:
        shutil.rmtree(A.work, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
