#!/usr/bin/env python3
"""check_jobdb_api.py — the Python module instr_analysis (docs/analysis.md) on a real job's
profile.jdb, every answer checked against the ranks' own rank-N/profile.json (read here with
json, independent of the database and of its readers):

  check_jobdb_api.py EXPDIR --ranks N [--absent R] [--second EXPDIR2] [--work DIR]

- query: per (path, rank, thread) and per (path, rank) values of visits, time_incl and
  time_excl for `function(MPI_*)`, a name glob `function(leaf_*)` and `all` == the ranks' own;
- stats: min, max (and their ranks), mean, std, balance = mean/max, nvisited and the outlier
  ranks (k = 3 and k = 1) == those computed here from the ranks' own values;
- context of every call path == its chain in a rank's profile that has it;
- `time_incl >= 1%` keeps exactly the paths whose inclusive time summed over ranks and threads
  is >= 1 % of the run (the top-level paths' sum);
- --absent R: rank R is reported absent, has no rows, NaN (not 0) in rank_values, and is left
  out of stats' ranks; the summary's sum and mean (sum / all the job's ranks) as documented;
- --second: compare() of two runs of the same program matches every call path, its values
  being each run's summary mean;
- a copy of the database cut inside its rows fails to open with the library's message naming
  the copy and saying it is truncated.
Needs numpy, pandas and instr_analysis on PYTHONPATH. Exit status 0, or 1 with the problems.
"""
import argparse
import fnmatch
import json
import math
import os
import struct
import sys

import numpy as np
import instr_analysis as ia

PROBLEMS = []


def problem(msg):
    PROBLEMS.append(msg)


def rank_profiles(exp, nranks, absent):
    """Per present rank: {(chain, thread): {visits, time_incl, time_excl}} where chain is the
    tuple of (name, file) from the top to the node."""
    ranks = {}
    for r in range(nranks):
        if r in absent:
            continue
        with open(os.path.join(exp, "rank-%d" % r, "profile.json"), encoding="utf-8") as f:
            prof = json.load(f)
        regs = {g["id"]: g for g in prof["regions"]}
        chains, values = {}, {}
        for n in prof["tree"]:
            g = regs[n["region"]]
            chains[n["id"]] = (chains[n["parent"]] if n["parent"] is not None else ()) + \
                ((g["name"], g["file"]),)
            for loc in n["locations"]:
                key = (chains[n["id"]], loc["location"])
                if key in values:
                    sys.exit("FAIL: rank %d: two nodes with the calling context %r: this check "
                             "keys call paths by region name and file" % (r, key))
                values[key] = {"visits": loc["visits"], "time_incl": loc["inclusive"],
                               "time_excl": loc["exclusive"]}
        ranks[r] = values
    return ranks


def path_ids(db):
    """{chain: path id} from the database's tree."""
    tree = db.tree()
    chains = {}
    for p, row in tree.iterrows():
        chains[p] = (chains[row["parent"]] if row["parent"] >= 0 else ()) + \
            ((row["name"], row["file"]),)
    ids = {c: p for p, c in chains.items()}
    if len(ids) != len(chains):
        sys.exit("FAIL: %s: two call paths with the same chain of (name, file)" % db.path)
    return ids, chains


def check_query(db, ranks, ids):
    for sel, glob in (("function(MPI_*)", "MPI_*"), ("function(leaf_*)", "leaf_*"),
                      ("all", "*")):
        for metric in ("visits", "time_incl", "time_excl"):
            want = {}
            for r, values in ranks.items():
                for (chain, t), v in values.items():
                    if fnmatch.fnmatchcase(chain[-1][0], glob):
                        want[(ids.get(chain), r, t)] = v[metric]
            if sel != "all" and not want:
                problem("query %s: no call path of the ranks' profiles matches: the test "
                        "program was meant to have some" % sel)
            df = db.query(metric, paths=sel, per="thread")
            got = {(int(x.path), int(x.rank), int(x.thread)): getattr(x, metric)
                   for x in df.itertuples()}
            if got != want:
                diff = sorted(set(got.items()) ^ set(want.items()), key=str)[:4]
                problem("query(%r, %r, per='thread'): %d rows, the ranks' profiles %d; first "
                        "differences (path, rank, thread), value: %r"
                        % (metric, sel, len(got), len(want), diff))
            per_rank = {}
            for (p, r, _t), v in want.items():
                per_rank[(p, r)] = per_rank.get((p, r), 0) + v
            df = db.query(metric, paths=sel)
            got = {(int(x.path), int(x.rank)): getattr(x, metric) for x in df.itertuples()}
            if got != per_rank:
                diff = sorted(set(got.items()) ^ set(per_rank.items()), key=str)[:4]
                problem("query(%r, %r) per rank: first differences (path, rank), value: %r"
                        % (metric, sel, diff))


def rank_values(ranks, ids, metric):
    """{path: {rank: value summed over threads}} for every present rank (0: not visited)."""
    out = {p: {r: 0 for r in ranks} for p in ids.values()}
    for r, values in ranks.items():
        for (chain, _t), v in values.items():
            out[ids[chain]][r] += v[metric]
    return out


def close(a, b):
    return a == b or (isinstance(a, float) and isinstance(b, float) and
                      (math.isnan(a) and math.isnan(b) or
                       abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))))


def check_stats(db, ranks, ids):
    vals = rank_values(ranks, ids, "time_incl")
    for k in (3.0, 1.0):
        st = db.stats("time_incl", k=k)
        if sorted(st.index) != sorted(vals):
            problem("stats: paths %r, the tree's %r" % (sorted(st.index), sorted(vals)))
            continue
        noutliers = 0
        for p, per in vals.items():
            xs = [per[r] for r in sorted(per)]
            n = len(xs)
            mean = sum(xs) / n
            std = math.sqrt(sum((x - mean) ** 2 for x in xs) / n)
            lo, hi = min(xs), max(xs)
            s = st.loc[p]
            want = {"nranks": n, "nvisited": sum(1 for x in xs if x != 0), "min": float(lo),
                    "max": float(hi), "mean": mean, "std": std,
                    "balance": mean / hi if hi else float("nan")}
            for name, w in want.items():
                g = s[name]
                if not close(float(g), float(w)):
                    problem("stats(k=%g) path %d (%s) %s: %r, from the ranks' profiles %r"
                            % (k, p, s["name"], name, g, w))
            if s["min_rank"] is None or per.get(int(s["min_rank"])) != lo or \
                    s["max_rank"] is None or per.get(int(s["max_rank"])) != hi:
                problem("stats path %d: min_rank %r / max_rank %r do not hold the min %r / max "
                        "%r" % (p, s["min_rank"], s["max_rank"], lo, hi))
            # outliers: |x - mean| > k * std; a rank within rounding of the bound is not judged
            sure = [r for r in sorted(per)
                    if abs(abs(per[r] - mean) - k * std) > 1e-9 * max(1.0, abs(mean))]
            want_out = [r for r in sure if std and abs(per[r] - mean) > k * std]
            got_out = [r for r in s["outliers"] if r in sure]
            if got_out != want_out:
                problem("stats(k=%g) path %d (%s): outliers %r, from the ranks' profiles %r"
                        % (k, p, s["name"], list(s["outliers"]), want_out))
            noutliers += len(want_out)
        if k == 1.0 and not noutliers:
            problem("stats(k=1): no outlier rank on any path: the check of outliers tested "
                    "nothing")


def check_context(db, ids, chains):
    for p, chain in chains.items():
        ctx = db.context(p)
        got = tuple(zip(ctx["name"], ctx["file"]))
        if got != chain or list(ctx["path"])[-1] != p:
            problem("context(%d): %r, its chain in the ranks' profiles %r" % (p, got, chain))


def check_pruning(db, ranks, ids):
    total, per_path = 0, {}
    for values in ranks.values():
        for (chain, _t), v in values.items():
            if len(chain) == 1:
                total += v["time_incl"]
            per_path[ids[chain]] = per_path.get(ids[chain], 0) + v["time_incl"]
    want = sorted(p for p, s in per_path.items() if s >= 0.01 * total)
    got = [int(p) for p in db.select("time_incl >= 1%")]
    if got != want:
        problem("time_incl >= 1%%: paths %r, from the ranks' profiles (total %d) %r"
                % (got, total, want))
    if len(want) == len(ids):
        problem("time_incl >= 1%: every path kept: the pruning was tested on nothing")
    if db.total("time_incl") != total:
        problem("total(time_incl) %r, the ranks' top-level paths %r"
                % (db.total("time_incl"), total))


def check_absent(db, absent, ranks, ids):
    for r in absent:
        info = db.rank(r)
        if info["present"] or info["rows"]:
            problem("rank %d: rank() says %r, expected absent without rows" % (r, info))
        if len(db.query("time_incl", ranks=[r])):
            problem("rank %d: the absent rank has rows in query()" % r)
        dense = db.rank_values("time_incl", ranks=[r])
        if not dense.isna().all().all():
            problem("rank %d: rank_values gives %r, expected NaN (missing, not 0)"
                    % (r, dense.iloc[0].tolist()[:5]))
    present = db.nranks - len(absent)
    st = db.stats("time_incl")
    if (st["nranks"] != present).any():
        problem("stats counts %r ranks, %d are present" % (sorted(set(st["nranks"])), present))
    # the summary's mean: over all the job's ranks, the absent ones included (docs/analysis.md)
    summ = db.summary("time_incl")
    for p, per in rank_values(ranks, ids, "time_incl").items():
        total = sum(per.values())
        if summ.loc[p, "sum"] != total or not close(summ.loc[p, "mean"], total / db.nranks):
            problem("summary path %d: sum %r mean %r, from the ranks' profiles %r and %r / %d"
                    % (p, summ.loc[p, "sum"], summ.loc[p, "mean"], total, total, db.nranks))


def check_compare(a, b):
    c = ia.compare(a, b, metric="time_incl", stat="mean")
    ids_a, _ = path_ids(a)
    ids_b, _ = path_ids(b)
    if set(ids_a) != set(ids_b):
        problem("the two runs have different call trees: %r" % sorted(set(ids_a) ^ set(ids_b))[:4])
    unmatched = c[(c["path_a"] < 0) | (c["path_b"] < 0)]
    if len(unmatched) or len(c) != len(ids_a):
        problem("compare: %d rows for %d paths, unmatched %r"
                % (len(c), len(ids_a), list(unmatched["context"])[:4]))
    sa = a.summary("time_incl")["mean"]
    sb = b.summary("time_incl")["mean"]
    for x in c.itertuples():
        if x.path_a < 0 or x.path_b < 0:
            continue
        if not (close(x.a, float(sa[x.path_a])) and close(x.b, float(sb[x.path_b])) and
                close(x.diff, x.b - x.a)):
            problem("compare %s: a %r b %r diff %r, the summaries' means %r %r"
                    % (x.context, x.a, x.b, x.diff, sa[x.path_a], sb[x.path_b]))


def check_cut(jdb, work):
    with open(jdb, "rb") as f:
        data = f.read()
    rows = struct.unpack_from("<Q", data, 112)[0]
    cut = os.path.join(work, "cut_in_rows.jdb")
    length = rows + (len(data) - rows) // 2
    with open(cut, "wb") as f:
        f.write(data[:length])
    want = "%s: truncated: file size field says %d bytes, the file has %d" % (
        cut, len(data), length)
    for lazy in (False, True):
        try:
            ia.open(cut, lazy_rows=lazy)
            problem("%s (cut in its rows) opened without an error" % cut)
        except ia.Error as e:
            if str(e) != want:
                problem("the cut database's error %r, expected %r" % (str(e), want))
            else:
                print("cut in the rows: %s" % e)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("exp")
    ap.add_argument("--ranks", type=int, required=True)
    ap.add_argument("--absent", type=int, action="append", default=[])
    ap.add_argument("--second")
    ap.add_argument("--work", default=".")
    a = ap.parse_args()
    jdb = os.path.join(a.exp, "profile.jdb")
    db = ia.open(jdb)
    ranks = rank_profiles(a.exp, a.ranks, set(a.absent))
    ids, chains = path_ids(db)
    missing = {c for values in ranks.values() for c, _t in values} - set(ids)
    if missing:
        sys.exit("FAIL: %s lacks call paths of the ranks' profiles: %r" % (jdb, sorted(missing)[:3]))
    if db.nranks != a.ranks or db.nranks_present != len(ranks):
        problem("nranks %d (%d present), expected %d (%d)" % (db.nranks, db.nranks_present,
                                                              a.ranks, len(ranks)))
    check_query(db, ranks, ids)
    check_stats(db, ranks, ids)
    check_context(db, ids, chains)
    check_pruning(db, ranks, ids)
    check_absent(db, a.absent, ranks, ids)
    if a.second:
        check_compare(db, ia.open(os.path.join(a.second, "profile.jdb")))
    check_cut(jdb, a.work)
    if PROBLEMS:
        print("FAIL: %s: the Python API's answers, %d problem(s):\n  %s"
              % (jdb, len(PROBLEMS), "\n  ".join(PROBLEMS[:30])))
        return 1
    print("%s: the Python API's query, stats, context, pruning%s%s == the ranks' own profiles"
          % (jdb, ", absent ranks" if a.absent else "", ", compare" if a.second else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
