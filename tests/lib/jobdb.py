#!/usr/bin/env python3
"""jobdb.py — the tests' own reader and checker of a job database (profile.jdb, format of
docs/profile-format.md "Job database"), standard library only.

  jobdb.py check FILE [--ranks N] [--pruned 0|1]
                                         validate; the summary == the reduction of the rows;
                                         the pruned section, when present, == the rule and the
                                         rows (--pruned 1: it must be there, 0: not)
  jobdb.py check-job EXPDIR --ranks N [--absent R,R] [--summary 1] [--rank-dirs DIR]
                                         the same for EXPDIR/profile.jdb, and every present
                                         rank's rows == its own EXPDIR/rank-N/profile.json
                                         exactly (visits, times, metrics); message columns
                                         summed per region == the job's profile.json flat;
                                         the job's profile.json tree == the summary's sums
                                         (--summary 1: written from the summary);
                                         --rank-dirs: the ranks' profiles in DIR/rank-N/
Exit status 0 when everything holds, 1 with the problems listed.
"""
import json
import os
import struct
import sys

HEADER = 256
PARADIGM = {"hooks": 0, "cyg": 0, "xray": 0, "mpi": 1, "openmp": 2, "manual": 3}
NONE = 0xFFFFFFFF


class JdbError(Exception):
    pass


def _str(strings, off, path, what):
    if off >= len(strings) or (off and strings[off - 1] != 0):
        raise JdbError("%s: %s: string offset %d is not the start of a string" % (path, what, off))
    end = strings.find(b"\0", off)
    if end < 0:
        raise JdbError("%s: %s: string at %d is not NUL-terminated" % (path, what, off))
    return strings[off:end].decode("utf-8")


def read(path):
    """The whole database as a dict; JdbError naming the file and what is wrong."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < HEADER:
        raise JdbError("%s: %d bytes, shorter than the %d-byte header" % (path, len(data), HEADER))
    if data[:8] != b"INSTRJDB":
        raise JdbError("%s: magic %r is not INSTRJDB" % (path, data[:8]))
    version, hsize, fsize = struct.unpack_from("<IIQ", data, 8)
    if version != 1 or hsize != HEADER:
        raise JdbError("%s: version %d / header size %d, this reader knows 1 / 256"
                       % (path, version, hsize))
    if fsize != len(data):
        raise JdbError("%s: size field %d but the file has %d bytes (unfinished or truncated)"
                       % (path, fsize, len(data)))
    (nranks, npresent, nregions, npaths, ncols, rowsize, duration, soff, slen, roff, poff,
     coff, sumoff, ioff, rowsoff, rounds, flags) = struct.unpack_from("<IIIIIIQQQQQQQQQII",
                                                                        data, 24)
    if flags & ~1:
        raise JdbError("%s: header flags 0x%x: only bit 0 (the pruned section) is known"
                       % (path, flags))
    pruned_hdr = None
    if flags & 1:
        pruned_hdr = struct.unpack_from("<QIIQQQ", data, 128)
    if any(data[168 if flags & 1 else 128:256]):
        raise JdbError("%s: reserved header bytes are not zero" % path)
    if rowsize != 8 + 8 * ncols:
        raise JdbError("%s: row size %d is not 8 + 8 * %d" % (path, rowsize, ncols))
    sumrec = 8 + 32 * ncols
    for name, off, size in (("strings", soff, slen), ("regions", roff, 32 * nregions),
                            ("paths", poff, 8 * npaths), ("columns", coff, 16 * ncols),
                            ("summary", sumoff, sumrec * npaths), ("rank index", ioff, 32 * nranks),
                            ("rows", rowsoff, 0)):
        if off % 8 or off < HEADER or off + size > len(data):
            raise JdbError("%s: section %s at %d (+%d) is not 8-aligned inside the file after "
                           "the header" % (path, name, off, size))
    strings = data[soff:soff + slen]
    if not strings or strings[0] != 0 or strings[-1] != 0:
        raise JdbError("%s: string section does not begin and end with a NUL" % path)
    regions = []
    for i in range(nregions):
        name, mangled, file_, obj, lb, le, par, fl = struct.unpack_from("<8I", data, roff + 32 * i)
        regions.append({"name": _str(strings, name, path, "region %d name" % i),
                        "mangled": _str(strings, mangled, path, "region %d mangled" % i),
                        "file": _str(strings, file_, path, "region %d file" % i),
                        "object": _str(strings, obj, path, "region %d object" % i),
                        "line_begin": lb, "line_end": le, "paradigm": par, "flags": fl})
    paths = []
    for i in range(npaths):
        parent, region = struct.unpack_from("<II", data, poff + 8 * i)
        if (parent != NONE and parent >= i) or region >= nregions:
            raise JdbError("%s: path %d: parent %d not before it or region %d out of range"
                           % (path, i, parent, region))
        paths.append((parent, region))
    cols = []
    for i in range(ncols):
        name, unit, kind, fl = struct.unpack_from("<4I", data, coff + 16 * i)
        cols.append({"name": _str(strings, name, path, "column %d" % i),
                     "unit": _str(strings, unit, path, "column %d unit" % i),
                     "kind": kind, "flags": fl})
    summary = []
    for p in range(npaths):
        base = sumoff + sumrec * p
        nvis, zero = struct.unpack_from("<II", data, base)
        per = []
        for c in range(ncols):
            fmt = "<dddd" if cols[c]["kind"] == 4 else "<QQQd"
            per.append(struct.unpack_from(fmt, data, base + 8 + 32 * c))
        summary.append((nvis, per))
    index, rows = [], {}
    for r in range(nranks):
        off, n, nthreads, fl, dur = struct.unpack_from("<QQIIQ", data, ioff + 32 * r)
        index.append({"offset": off, "rows": n, "threads": nthreads, "flags": fl,
                      "duration": dur})
        if not fl & 1:
            if n:
                raise JdbError("%s: rank %d is absent but has %d rows" % (path, r, n))
            continue
        if off < rowsoff or off + n * rowsize > len(data):
            raise JdbError("%s: rank %d's rows (%d at %d) are outside the rows area"
                           % (path, r, n, off))
        rr, last = [], None
        for k in range(n):
            vals = struct.unpack_from("<II%dQ" % ncols, data, off + k * rowsize)
            key = (vals[0], vals[1])
            if last is not None and key <= last:
                raise JdbError("%s: rank %d row %d: (path, thread) %r not after %r"
                               % (path, r, k, key, last))
            if vals[0] >= npaths or vals[1] >= nthreads:
                raise JdbError("%s: rank %d row %d: path %d or thread %d out of range"
                               % (path, r, k, vals[0], vals[1]))
            last = key
            rr.append(vals)
        rows[r] = rr
    if sum(1 for e in index if e["flags"] & 1) != npresent:
        raise JdbError("%s: header says %d ranks present, the index %d"
                       % (path, npresent, sum(1 for e in index if e["flags"] & 1)))
    pruned = None
    if pruned_hdr:
        pruned = _read_pruned(path, data, pruned_hdr, summary, paths, cols, index, rows,
                              rowsize, ncols, rowsoff,
                              [(soff, slen), (roff, 32 * nregions), (poff, 8 * npaths),
                               (coff, 16 * ncols), (sumoff, sumrec * npaths),
                               (ioff, 32 * nranks)])
    return {"path": path, "nranks": nranks, "pruned": pruned, "present": npresent, "duration": duration,
            "rounds": rounds, "regions": regions, "paths": paths, "cols": cols,
            "summary": summary, "index": index, "rows": rows, "size": len(data)}


def pruned_set_of(summary, paths, cols, threshold):
    """The paths whose summary sum of time_incl is at least threshold / 100 % of the run's,
    with the reader's doubles in its order (select: the total over the top-level paths in id
    order for an inclusive column, every path's otherwise; X / 100.0 * total)."""
    def value(p):
        return float(summary[p][1][1][0])
    inclusive = cols[1]["flags"] & 1
    total = 0.0
    for p in range(len(paths)):
        if not inclusive or paths[p][0] == NONE:
            total += value(p)
    bound = threshold / 100.0 / 100.0 * total
    return [p for p in range(len(paths)) if value(p) >= bound]


def _read_pruned(path, data, hdr, summary, paths, cols, index, rows, rowsize, ncols, rowsoff,
                 others):
    """The pruned section (header flags bit 0): every field as the format promises, the set
    == the rule over the summary, each rank's pruned rows == its rows of the set, in order."""
    set_off, nset, threshold, pidx_off, prows_off, prows_len = hdr
    nranks = len(index)
    secs = [("pruned set", set_off, 4 * nset), ("pruned index", pidx_off, 16 * nranks),
            ("pruned rows", prows_off, prows_len)]
    for name, off, size in secs:
        if off % 8 or off < HEADER or off + size > rowsoff:
            raise JdbError("%s: section %s at %d (+%d) is not 8-aligned after the header and "
                           "before the rows area (%d)" % (path, name, off, size, rowsoff))
        for o, n in others:
            if size and n and off < o + n and o < off + size:
                raise JdbError("%s: section %s at %d (+%d) overlaps another at %d (+%d)"
                               % (path, name, off, size, o, n))
    spans = sorted((o, n) for _, o, n in secs if n)
    for (o1, n1), (o2, _) in zip(spans, spans[1:]):
        if o1 + n1 > o2:
            raise JdbError("%s: the pruned section's parts overlap at %d" % (path, o2))
    if prows_len % rowsize:
        raise JdbError("%s: pruned rows of %d bytes are not whole rows" % (path, prows_len))
    pset = list(struct.unpack_from("<%dI" % nset, data, set_off))
    want = pruned_set_of(summary, paths, cols, threshold)
    if pset != want:
        raise JdbError("%s: pruned set %r is not the paths with time_incl >= %g %% %r"
                       % (path, pset[:10], threshold / 100.0, want[:10]))
    inset = set(pset)
    at, per_rank = prows_off, {}
    for r in range(nranks):
        off, n = struct.unpack_from("<QQ", data, pidx_off + 16 * r)
        if off != at:
            raise JdbError("%s: pruned index of rank %d: offset %d, the previous rank's rows "
                           "end at %d" % (path, r, off, at))
        got = [struct.unpack_from("<II%dQ" % ncols, data, off + k * rowsize) for k in range(n)]
        wantrows = [row for row in rows.get(r, []) if row[0] in inset]
        if got != wantrows:
            raise JdbError("%s: rank %d: its %d pruned rows are not its %d rows of the pruned "
                           "set" % (path, r, n, len(wantrows)))
        per_rank[r] = got
        at += n * rowsize
    if at != prows_off + prows_len:
        raise JdbError("%s: the pruned index's rows end at %d, the pruned rows at %d"
                       % (path, at, prows_off + prows_len))
    return {"set": pset, "threshold": threshold, "rows": per_rank}


def _f(bits):
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def check_summary(db):
    """The summary == the reduction of the rows (sums, min, max exact; squares within 1e-9)."""
    problems = []
    cols = db["cols"]
    nc = len(cols)
    acc = {}
    for r, rr in db["rows"].items():
        per = {}
        for row in rr:
            v = per.setdefault(row[0], [0.0 if cols[c]["kind"] == 4 else 0 for c in range(nc)])
            for c in range(nc):
                v[c] += _f(row[2 + c]) if cols[c]["kind"] == 4 else row[2 + c]
        for p, v in per.items():
            # u64 columns add modulo 2^64 (a signed metric's two's complement stays right)
            acc.setdefault(p, []).append([x if cols[c]["kind"] == 4 else x % (1 << 64)
                                          for c, x in enumerate(v)])
    for p, (nvis, per) in enumerate(db["summary"]):
        vals = acc.get(p, [])
        if nvis != len(vals):
            problems.append("path %d: %d ranks visited in the summary, %d in the rows"
                            % (p, nvis, len(vals)))
            continue
        for c in range(nc):
            xs = [v[c] for v in vals]
            s, lo, hi, sq = per[c]
            exact = cols[c]["kind"] != 4
            want = (sum(xs) % (1 << 64) if exact else sum(xs), min(xs) if xs else 0,
                    max(xs) if xs else 0)
            got = (s, lo, hi)
            if exact and got != want or not exact and any(
                    abs(a - b) > 1e-9 * max(1.0, abs(b)) for a, b in zip(got, want)):
                problems.append("path %d column %s: summary (sum, min, max) %r, rows %r"
                                % (p, cols[c]["name"], got, want))
            wsq = sum(float(x) * float(x) for x in xs)
            if abs(sq - wsq) > 1e-9 * max(1.0, wsq):
                problems.append("path %d column %s: sum of squares %r, rows %r"
                                % (p, cols[c]["name"], sq, wsq))
    return problems


def _path_keys(db):
    keys = []
    for parent, region in db["paths"]:
        r = db["regions"][region]
        k = (r["name"], r["mangled"], r["file"], r["paradigm"])
        keys.append((keys[parent] if parent != NONE else ()) + (k,))
    return keys


def _signed(x):
    return x - (1 << 64) if x >= 1 << 63 else x


def check_rank(db, rank, rank_dir):
    """Rank `rank`'s rows == its own profile.json, per (call path, thread), exactly."""
    problems = []
    with open(os.path.join(rank_dir, "profile.json"), encoding="utf-8") as f:
        prof = json.load(f)
    regs = {r["id"]: r for r in prof["regions"]}
    metrics = prof.get("metrics", [])
    colidx = {c["name"]: i for i, c in enumerate(db["cols"])}
    want, nkeys = {}, {}
    for n in prof["tree"]:
        r = regs[n["region"]]
        k = (r["name"], r["mangled"], r["file"], PARADIGM.get(r["source"], 4))
        nkeys[n["id"]] = (nkeys[n["parent"]] if n["parent"] is not None else ()) + (k,)
        for l in n["locations"]:
            v = {"visits": l["visits"], "time_incl": l["inclusive"], "time_excl": l["exclusive"],
                 "time_incl_min": l["min_inclusive"], "time_incl_max": l["max_inclusive"],
                 "time_excl_min": l["min_exclusive"], "time_excl_max": l["max_exclusive"]}
            # message fields: left out of profile.json where zero
            for name in ("bytes_sent", "bytes_received", "messages_sent", "messages_received",
                         "collectives"):
                if name in colidx:
                    v[name] = l.get(name, 0)
            for i, m in enumerate(metrics):
                v[m["name"]] = l["metrics"]["inclusive"][i]
                v[m["name"] + ":excl"] = l["metrics"]["exclusive"][i]
                v[m["name"] + ":min_incl"] = l["metrics"]["min_inclusive"][i]
                v[m["name"] + ":max_incl"] = l["metrics"]["max_inclusive"][i]
            # the extremes are columns a writer adds: compared when the database has them
            v = {k: x for k, x in v.items()
                 if k in colidx or not k.endswith(("_min", "_max", ":min_incl", ":max_incl"))}
            want[(nkeys[n["id"]], l["location"])] = v
    keys = _path_keys(db)
    got = {}
    for row in db["rows"].get(rank, []):
        v = {}
        for name, c in colidx.items():
            x = row[2 + c]
            kind = db["cols"][c]["kind"]
            v[name] = _f(x) if kind == 4 else x
        got[(keys[row[0]], row[1])] = v
    if set(got) != set(want):
        only_db = sorted(set(got) - set(want))[:3]
        only_prof = sorted(set(want) - set(got))[:3]
        problems.append("rank %d: (path, thread) sets differ: only in the database %r, only in "
                        "its profile.json %r" % (rank, only_db, only_prof))
    types = {m["name"]: m["type"] for m in metrics}
    for key in set(got) & set(want):
        for name, w in want[key].items():
            g = got[key].get(name)
            base = name.split(":")[0]
            if types.get(base) == "int64":
                g = _signed(g)
            if types.get(base) == "double":
                ok = g is not None and abs(g - w) <= 1e-12 * max(1.0, abs(w))
            else:
                ok = g == w
            if not ok:
                problems.append("rank %d path %s thread %d: %s is %r in the database, %r in "
                                "rank-%d/profile.json" % (rank, ";".join(k[0] for k in key[0]),
                                                          key[1], name, g, w, rank))
    if db["index"][rank]["threads"] != len(prof["locations"]):
        problems.append("rank %d: %d threads in the index, %d locations in its profile"
                        % (rank, db["index"][rank]["threads"], len(prof["locations"])))
    return problems


def check_messages(db, job_json):
    """Message columns summed per region name == the job profile.json's flat entries."""
    with open(job_json, encoding="utf-8") as f:
        prof = json.load(f)
    regs = {r["id"]: r["name"] for r in prof["regions"]}
    want = {}
    fields = [n for n in ("bytes_sent", "bytes_received", "messages_sent",
                          "messages_received", "collectives")
              if any(c["name"] == n for c in db["cols"])]
    zero = (0,) * len(fields)
    for fl in prof["flat"]:
        want[regs[fl["region"]]] = tuple(fl.get(k, 0) for k in fields)
    ci = [next(i for i, c in enumerate(db["cols"]) if c["name"] == n) for n in fields]
    got = {}
    for rr in db["rows"].values():
        for row in rr:
            name = db["regions"][db["paths"][row[0]][1]]["name"]
            g = got.setdefault(name, [0] * len(fields))
            for j, c in enumerate(ci):
                g[j] += row[2 + c]
    problems = []
    for name in set(got) | set(want):
        g = tuple(got.get(name, zero))
        w = want.get(name, zero)
        if g != w:
            problems.append("region %s: messages (%s) %r in the database, %r in the job's "
                            "profile.json" % (name, ", ".join(fields), g, w))
    return problems


def check_job_profile(db, job_json, summary):
    """The job's profile.json (read back from the database by rank 0) against the database:
    per call path visits, inclusive and exclusive == the summary's sums; per path as many
    locations as rows (none when written from the summary, which run.mpi says)."""
    with open(job_json, encoding="utf-8") as f:
        prof = json.load(f)
    regs = {r["id"]: r for r in prof["regions"]}
    keys, got = {}, {}
    for n in prof["tree"]:
        r = regs[n["region"]]
        k = (r["name"], r["mangled"], r["file"], PARADIGM.get(r["source"], 4))
        keys[n["id"]] = (keys[n["parent"]] if n["parent"] is not None else ()) + (k,)
        got[keys[n["id"]]] = (n["visits"], n["inclusive"], n["exclusive"], len(n["locations"]))
    nrows = {}
    for rr in db["rows"].values():
        for row in rr:
            nrows[row[0]] = nrows.get(row[0], 0) + 1
    want = {}
    for p, key in enumerate(_path_keys(db)):
        s = db["summary"][p][1]
        want[key] = (s[0][0], s[1][0], s[2][0], 0 if summary else nrows.get(p, 0))
    problems = []
    if set(got) != set(want):
        problems.append("job profile.json has call paths %r the database has not, and lacks %r"
                        % (sorted(set(got) - set(want))[:3], sorted(set(want) - set(got))[:3]))
    for k in set(got) & set(want):
        if got[k] != want[k]:
            problems.append("job profile.json path %s: (visits, inclusive, exclusive, locations) "
                            "%r, database %r" % (";".join(x[0] for x in k), got[k], want[k]))
    if bool(prof["run"]["mpi"].get("summary_over_ranks")) != summary:
        problems.append("run.mpi %r: summary_over_ranks should be %r" % (prof["run"]["mpi"], summary))
    if summary and prof["locations"]:
        problems.append("a job profile from the summary lists %d locations" % len(prof["locations"]))
    return problems


def main(argv):
    if len(argv) < 3 or argv[1] not in ("check", "check-job"):
        print(__doc__)
        return 2
    opts = {}
    i = 3
    while i < len(argv):
        opts[argv[i].lstrip("-")] = argv[i + 1]
        i += 2
    target = argv[2]
    path = target if argv[1] == "check" else os.path.join(target, "profile.jdb")
    try:
        db = read(path)
    except (JdbError, OSError) as e:
        print("FAIL: %s" % e)
        return 1
    problems = []
    nranks = int(opts.get("ranks", db["nranks"]))
    if db["nranks"] != nranks:
        problems.append("%d ranks in the header, expected %d" % (db["nranks"], nranks))
    want_rounds = (nranks - 1).bit_length()
    if db["rounds"] != want_rounds:
        problems.append("%d unification rounds in the header, expected %d"
                        % (db["rounds"], want_rounds))
    absent = set(int(x) for x in opts.get("absent", "").split(",") if x)
    for r in range(db["nranks"]):
        if bool(db["index"][r]["flags"] & 1) == (r in absent):
            problems.append("rank %d is %s, expected %s" % (
                r, "present" if db["index"][r]["flags"] & 1 else "absent",
                "absent" if r in absent else "present"))
    if "pruned" in opts and bool(db["pruned"]) != (opts["pruned"] == "1"):
        problems.append("pruned section %s, expected %s" % (
            "present" if db["pruned"] else "absent", "present" if opts["pruned"] == "1" else
            "absent"))
    problems += check_summary(db)
    nrows = sum(len(rr) for rr in db["rows"].values())
    if argv[1] == "check-job":
        # --rank-dirs DIR: the ranks' profiles are DIR/rank-N/profile.json (made on demand)
        for r in db["rows"]:
            problems += check_rank(db, r, os.path.join(opts.get("rank-dirs", target),
                                                       "rank-%d" % r))
        job_json = os.path.join(target, "profile.json")
        summary = opts.get("summary") == "1"
        if not os.path.exists(job_json):
            problems.append("no job profile.json next to the database")
        else:
            problems += check_job_profile(db, job_json, summary)
            if not absent and not summary:
                problems += check_messages(db, job_json)
    if problems:
        print("FAIL: %s: %d problem(s):\n  %s" % (path, len(problems), "\n  ".join(problems[:30])))
        return 1
    print("%s: %d ranks (%d present), %d regions, %d call paths, %d columns, %d rows, %d rounds, "
          "%d bytes: valid; summary == reduction of the rows%s%s"
          % (path, db["nranks"], db["present"], len(db["regions"]), len(db["paths"]),
             len(db["cols"]), nrows, db["rounds"], db["size"],
             "; pruned section: %d paths (time_incl >= %g %%), %d rows == the rows area's"
             % (len(db["pruned"]["set"]), db["pruned"]["threshold"] / 100.0,
                sum(len(v) for v in db["pruned"]["rows"].values()))
             if db["pruned"] else "; no pruned section",
             "; every rank == its own profile.json" if argv[1] == "check-job" else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
