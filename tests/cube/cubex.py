"""A CUBE4 reader for the tests: reads profile.cubex and checks every invariant of the format
that instr's writer relies on (docs/profile-format.md, "profile.cubex"), then compares it with
profile.json of the same experiment.

    python3 cubex.py EXPERIMENT_DIR   # checks, prints a summary, exit 1 with the reason

read(path) -> Cube; check_against_json(cube, profile) -> list of problems."""
import re
import struct
import sys
import tarfile
import xml.etree.ElementTree as ET

DTYPES = {"UINT64": "Q", "INT64": "q", "DOUBLE": "d", "MINDOUBLE": "d", "MAXDOUBLE": "d"}
PARADIGMS = {"compiler", "user", "sampling", "mpi", "openmp", "memory", "io", "kokkos",
             "openacc"}
# CUBE's kind of the built-in metrics, as Score-P writes them; every other metric (the
# metrics substrate's counters) is INCLUSIVE, as Score-P writes its strictly synchronous ones.
KINDS = {"visits": "EXCLUSIVE", "time": "INCLUSIVE", "min_time": "EXCLUSIVE",
         "max_time": "EXCLUSIVE", "bytes_sent": "EXCLUSIVE", "bytes_received": "EXCLUSIVE",
         "messages_sent": "EXCLUSIVE", "messages_received": "EXCLUSIVE",
         # memory recording (INSTR_MEMORY=1): check_memory
         "allocations": "EXCLUSIVE", "frees": "EXCLUSIVE", "allocation_size": "EXCLUSIVE",
         "deallocation_size": "EXCLUSIVE", "maximum_heap_memory_allocated": "EXCLUSIVE",
         "samples": "EXCLUSIVE",
         # I/O recording (INSTR_IO): check_io
         "io_operations": "EXCLUSIVE", "io_operations_failed": "EXCLUSIVE",
         "io_bytes_read": "EXCLUSIVE", "io_bytes_written": "EXCLUSIVE", "io_time": "EXCLUSIVE"}
MEMORY = {"allocations": "allocations", "frees": "frees", "allocation_size": "bytes_allocated",
          "deallocation_size": "bytes_freed"}
IO = {"io_operations": "operations", "io_operations_failed": "failed",
      "io_bytes_read": "bytes_read", "io_bytes_written": "bytes_written"}
# profile.json region source -> CUBE paradigm (Score-P's names).
PARADIGM_OF = {"mpi": "mpi", "openmp": "openmp", "manual": "user", "sampled": "sampling",
               "memory": "memory", "io": "io", "kokkos": "kokkos", "openacc": "openacc"}
# I/O recording's ISO C functions (the others are POSIX's).
ISO_C_IO = {"fopen", "fopen64", "fdopen", "fclose", "fread", "fwrite", "fputs", "puts", "fputc",
            "putc", "fgets", "fgetc", "getc", "fprintf", "vfprintf", "printf", "fflush", "fseek",
            "fseeko", "fseeko64", "__fprintf_chk", "__vfprintf_chk", "__printf_chk",
            "__fgets_chk", "__fread_chk"}


def scorep_attrs(j):
    """(mod, begin, end, paradigm) that Score-P's CUBE4 writer gives profile.json's region j:
    the library's name as mod for the regions of a library, lines 0 when unknown."""
    src, name = j["source"], j["name"]
    mod, par = j["file"], PARADIGM_OF.get(src, "compiler")
    if src == "mpi" or (src == "io" and name.startswith("MPI_File")):
        mod, par = "MPI", "mpi"
    elif src == "io":
        mod = "ISO C I/O" if name in ISO_C_IO else "POSIX I/O"
    elif src == "memory":
        mod = "MEMORY"
    elif src == "kokkos":
        mod = "KOKKOS"
    return (mod, j["line_begin"] or 0, j["line_end"] or 0, par)


class CubeError(Exception):
    pass


def need(cond, what):
    if not cond:
        raise CubeError(what)


class Cube:
    """regions: list of dicts (id = index); cnodes: list of (parent or None, region id) with
    ids = index = depth-first order; locations: list of (group index, name, rank);
    groups: list of dicts; metrics: {uniq_name: rows}, rows[cnode id][location] (rows of an
    INCLUSIVE metric already put back from CUBE's order into cnode ids)."""

    def __init__(self):
        self.regions, self.cnodes, self.locations, self.groups = [], [], [], []
        self.metrics, self.metric_info = {}, {}

    def path(self, c):
        out = []
        while c is not None:
            out.append(self.regions[self.cnodes[c][1]]["name"])
            c = self.cnodes[c][0]
        return tuple(reversed(out))

    def children(self, c):
        if getattr(self, "_kids", None) is None:
            self._kids = {}
            for d, (parent, _) in enumerate(self.cnodes):
                self._kids.setdefault(parent, []).append(d)
        return self._kids.get(c, [])

    def exclusive(self, metric, c, loc):
        """An INCLUSIVE metric's exclusive value: the cell less its children's cells."""
        rows = self.metrics[metric]
        return rows[c][loc] - sum(rows[d][loc] for d in self.children(c))

    def wide_order(self):
        """The order of an INCLUSIVE metric's rows (CubeW's and CubeLib's): per root the root,
        then expand(root) = the node's children, then expand() of each child in turn."""
        kids = {}
        for c, (parent, _) in enumerate(self.cnodes):
            kids.setdefault(parent, []).append(c)
        out = []

        def expand(v):
            out.extend(kids.get(v, []))
            for k in kids.get(v, []):
                expand(k)
        for r in kids.get(None, []):
            out.append(r)
            expand(r)
        return out

    def subtree(self, c):
        """Cnode ids of c's subtree: depth-first numbering makes it a contiguous range."""
        end = c + 1
        while end < len(self.cnodes) and self._below(end, c):
            end += 1
        return range(c, end)

    def _below(self, n, c):
        while n is not None:
            if n == c:
                return True
            n = self.cnodes[n][0]
        return False


def _members(path):
    need(tarfile.is_tarfile(path), f"{path}: not a tar archive")
    out = {}
    with tarfile.open(path, "r:") as tar:
        names = []
        for m in tar.getmembers():
            need(m.isreg(), f"{path}: member {m.name} is not a regular file")
            need("/" not in m.name and m.name not in out, f"{path}: bad or repeated member {m.name}")
            need(tar.fileobj is not None, "archive without a file")
            out[m.name] = tar.extractfile(m).read()
            need(len(out[m.name]) == m.size, f"{path}: {m.name} is shorter than its header says")
            names.append(m.name)
        need(names and names[0] == "anchor.xml", f"{path}: anchor.xml is not the first member")
    with open(path, "rb") as f:
        raw = f.read()
    need(len(raw) % 512 == 0, f"{path}: size {len(raw)} is not a multiple of 512")
    need(raw[-1024:] == bytes(1024), f"{path}: does not end with two zero blocks")
    need(raw[257:263] == b"ustar\0", f"{path}: first header is not ustar")
    return out


def _int(e, attr, what):
    v = e.get(attr)
    need(v is not None and v.lstrip("-").isdigit(), f"{what}: attribute {attr} missing or not a number")
    return int(v)


def _text(e, tag, what):
    c = e.find(tag)
    need(c is not None, f"{what}: <{tag}> missing")
    return c.text or ""


def read(path):
    files = _members(path)
    cube = Cube()
    root = ET.fromstring(files["anchor.xml"])
    need(root.tag == "cube" and root.get("version", "").startswith("4."), "anchor.xml: not <cube version=\"4.x\">")
    sections = [c.tag for c in root if c.tag in ("metrics", "program", "system")]
    need(sections == ["metrics", "program", "system"], f"anchor.xml: sections {sections}")
    # metrics
    for m in root.find("metrics"):
        need(m.tag == "metric", f"anchor.xml: <{m.tag}> inside <metrics>")
        mid = _int(m, "id", "metric")
        uniq = _text(m, "uniq_name", f"metric {mid}")
        dtype = _text(m, "dtype", f"metric {uniq}")
        kind = KINDS.get(uniq, "INCLUSIVE")
        need(m.get("type") == kind, f"metric {uniq}: type {m.get('type')}, expected {kind}")
        need(dtype in DTYPES, f"metric {uniq}: dtype {dtype}")
        need(re.fullmatch(r"[A-Za-z0-9_]+", uniq), f"metric {uniq}: uniq_name is not a CubePL name")
        need(uniq not in cube.metric_info, f"metric {uniq} twice")
        for tag in ("disp_name", "uom", "url", "descr"):
            _text(m, tag, f"metric {uniq}")
        cube.metric_info[uniq] = {"id": mid, "dtype": dtype, "uom": _text(m, "uom", uniq),
                                  "kind": kind, "disp": _text(m, "disp_name", uniq)}
    # regions and cnodes
    prog = root.find("program")
    for r in prog.findall("region"):
        rid = _int(r, "id", "region")
        need(rid == len(cube.regions), f"region id {rid} out of order (expected {len(cube.regions)})")
        _int(r, "begin", f"region {rid}")
        _int(r, "end", f"region {rid}")
        par = _text(r, "paradigm", f"region {rid}")
        need(par in PARADIGMS, f"region {rid}: paradigm {par}")
        cube.regions.append({"name": _text(r, "name", f"region {rid}"),
                             "mangled": _text(r, "mangled_name", f"region {rid}"),
                             "file": r.get("mod"), "begin": int(r.get("begin")),
                             "end": int(r.get("end")), "paradigm": par,
                             "role": _text(r, "role", f"region {rid}"),
                             "descr": _text(r, "descr", f"region {rid}")})

    def walk(e, parent):
        cid = _int(e, "id", "cnode")
        need(cid == len(cube.cnodes), f"cnode id {cid} is not its depth-first position {len(cube.cnodes)}")
        callee = _int(e, "calleeId", f"cnode {cid}")
        need(0 <= callee < len(cube.regions), f"cnode {cid}: calleeId {callee} names no region")
        cube.cnodes.append((parent, callee))
        for c in e.findall("cnode"):
            walk(c, cid)

    for c in prog.findall("cnode"):
        walk(c, None)
    # system tree: machine > node > process > thread
    machines = root.find("system").findall("systemtreenode")
    need(len(machines) == 1 and _text(machines[0], "class", "machine") == "machine", "system: one machine")
    for node in machines[0].findall("systemtreenode"):
        need(_text(node, "class", "node") == "node", "system: second level is not a node")
        for g in node.findall("locationgroup"):
            need(_text(g, "type", "locationgroup") == "process", "locationgroup type")
            gi = len(cube.groups)
            cube.groups.append({"name": _text(g, "name", "locationgroup"),
                                "rank": int(_text(g, "rank", "locationgroup")),
                                "node": _text(node, "name", "node")})
            for loc in g.findall("location"):
                lid = _int(loc, "Id", "location")
                need(lid == len(cube.locations), f"location Id {lid} out of order")
                need(_text(loc, "type", "location") == "thread", "location type")
                cube.locations.append((gi, _text(loc, "name", "location"), int(_text(loc, "rank", "location"))))
    need(cube.locations, "system: no location")
    # index and data per metric
    n, nl = len(cube.cnodes), len(cube.locations)
    ids = {str(i["id"]) for i in cube.metric_info.values()}
    for name in files:
        if name != "anchor.xml":
            stem, _, ext = name.partition(".")
            need(ext in ("index", "data") and stem in ids, f"member {name} belongs to no metric")
    for uniq, info in cube.metric_info.items():
        idx = files.get(f"{info['id']}.index")
        data = files.get(f"{info['id']}.data")
        need(idx is not None and data is not None, f"metric {uniq}: index or data missing")
        need(idx[:11] == b"CUBEX.INDEX", f"metric {uniq}: index marker")
        endian = "<" if struct.unpack("<I", idx[11:15])[0] == 1 else ">"
        need(struct.unpack(endian + "I", idx[11:15])[0] == 1, f"metric {uniq}: endianness word")
        version, fmt = struct.unpack(endian + "HB", idx[15:18])
        need(version == 0 and fmt == 1, f"metric {uniq}: index version {version} format {fmt}")
        count = struct.unpack(endian + "I", idx[18:22])[0]
        need(len(idx) == 22 + 4 * count, f"metric {uniq}: index size {len(idx)} for {count} ids")
        rows = list(struct.unpack(f"{endian}{count}I", idx[22:]))
        need(rows == list(range(n)), f"metric {uniq}: index does not list all {n} positions 0..{n - 1}")
        need(data[:10] == b"CUBEX.DATA", f"metric {uniq}: data marker")
        need(len(data) == 10 + 8 * n * nl, f"metric {uniq}: data size {len(data)}, expected {10 + 8 * n * nl}")
        vals = struct.unpack(f"{endian}{n * nl}{DTYPES[info['dtype']]}", data[10:])
        # Row k is the k-th cnode of the metric's order: depth-first (the cnode ids) for
        # EXCLUSIVE, CubeW's wide order for INCLUSIVE.
        seq = range(n) if info["kind"] == "EXCLUSIVE" else cube.wide_order()
        cube.metrics[uniq] = [None] * n
        for k, c in enumerate(seq):
            cube.metrics[uniq][c] = list(vals[k * nl:(k + 1) * nl])
    for must in ("visits", "time", "min_time", "max_time"):
        need(must in cube.metrics, f"metric {must} missing")
    for c in range(n):
        for loc in range(nl):
            t = cube.metrics["time"][c][loc]
            need(t >= 0, f"cnode {c} location {loc}: negative time")
            if cube.metrics["visits"][c][loc]:
                need(cube.metrics["min_time"][c][loc] <= cube.metrics["max_time"][c][loc],
                     f"cnode {c} location {loc}: min_time > max_time")
    return cube


def ns(seconds):
    return round(seconds * 1e9)


def check_regions(cube, prof):
    """Every region a cnode calls has profile.json's mangled name and the mod, lines and
    paradigm Score-P's writer gives it (scorep_attrs)."""
    bad = []
    by_name = {}
    for r in prof["regions"]:
        by_name.setdefault(r["name"], []).append(r)
    used = {callee for _, callee in cube.cnodes}
    for rid in sorted(used):
        r = cube.regions[rid]
        js = by_name.get(r["name"], [])
        want = [(j["mangled"],) + scorep_attrs(j) for j in js]
        got = (r["mangled"], r["file"], r["begin"], r["end"], r["paradigm"])
        if got not in want:
            bad.append(f"region {rid} {r['name']}: {got}, profile.json has {want}")
    return bad


# OpenMP nodes that may run explicit tasks (docs/openmp.md): a task that ran there is
# grafted under its creation path, and profile.json's inclusive time of the node is reduced
# by the task's time as its own node measured it, while its exclusive time is the node's own
# time on the thread's stack; the two differ by the task switches' bookkeeping, so the
# exclusive time Cube derives there (inclusive less the children's) is larger by that much.
TASK_RUNNERS = ("barrier", "implicit barrier", "taskwait")


def runs_tasks(region):
    return region["paradigm"] == "openmp" and (region["role"] in TASK_RUNNERS or
                                               region["name"].startswith("!$omp taskgroup"))


def node_paths(prof):
    """{tree node id: its call path as a tuple of region names} of profile.json."""
    regions = {r["id"]: r["name"] for r in prof["regions"]}
    paths = {}
    for node in prof["tree"]:
        p = (regions[node["region"]],)
        if node["parent"] is not None:
            p = paths[node["parent"]] + p
        paths[node["id"]] = p
    return paths


def check_against_json(cube, prof, stats=None):
    """Visits, inclusive time, min/max inclusive time and every metric of profile.json's
    `metrics` list (its inclusive sums) per call path and location equal profile.json's
    exactly; exclusive time (a cell less its children's cells) is profile.json's
    `exclusive` up to rounding: each value is rounded down to whole ns on its own, so the
    derived value is at least profile.json's and more by at most the number of children;
    at OpenMP nodes that run tasks (TASK_RUNNERS) it is at least profile.json's. stats, a
    dict, gets the count of such nodes whose exclusive time differs ("task_bookkeeping")."""
    bad = check_regions(cube, prof)
    tree = prof["tree"]
    paths = node_paths(prof)
    by_path = {paths[n["id"]]: n for n in tree}
    if len(by_path) != len(cube.cnodes):
        bad.append(f"{len(cube.cnodes)} cnodes, profile.json has {len(by_path)} call paths")
    # profile.json location id -> cube location index: the same order (process, then thread).
    jlocs = prof["locations"]
    if len(jlocs) != len(cube.locations):
        bad.append(f"{len(cube.locations)} locations, profile.json has {len(jlocs)}")
        return bad
    order = sorted(range(len(jlocs)), key=lambda i: (jlocs[i]["group"], i))
    to_cube = {jlocs[i]["id"]: k for k, i in enumerate(order)}
    # profile.json's metrics -> the cube's, by display name.
    jmetrics = [m["name"] for m in prof.get("metrics", [])]
    by_disp = {info["disp"]: u for u, info in cube.metric_info.items() if u not in KINDS}
    if sorted(by_disp) != sorted(jmetrics):
        bad.append(f"cube metrics {sorted(by_disp)}, profile.json has {jmetrics}")
        jmetrics = [m for m in jmetrics if m in by_disp]
    zero = {"visits": 0, "exclusive": 0, "inclusive": 0, "min_inclusive": 0, "max_inclusive": 0}
    for c in range(len(cube.cnodes)):
        p = cube.path(c)
        node = by_path.get(p)
        if node is None:
            bad.append(f"cnode {c} {';'.join(p)} is not in profile.json")
            continue
        nkids = len(cube.children(c))
        per = {loc["location"]: loc for loc in node["locations"]}
        where = ';'.join(p)
        for jid, k in to_cube.items():
            loc = per.get(jid, zero)
            v = cube.metrics["visits"][c][k]
            if v != loc["visits"]:
                bad.append(f"{where} location {jid}: visits {v} != {loc['visits']}")
            incl = ns(cube.metrics["time"][c][k])
            if incl != loc["inclusive"]:
                bad.append(f"{where} location {jid}: inclusive {incl} != {loc['inclusive']}")
            excl = ns(cube.exclusive("time", c, k))
            tasks = runs_tasks(cube.regions[cube.cnodes[c][1]])
            if tasks and excl - loc["exclusive"] > nkids and stats is not None:
                stats["task_bookkeeping"] = stats.get("task_bookkeeping", 0) + 1
            if not (0 <= excl - loc["exclusive"] <= nkids or (tasks and excl >= loc["exclusive"])):
                bad.append(f"{where} location {jid}: exclusive {excl} vs {loc['exclusive']} "
                           f"({nkids} children)")
            if v:
                for m, key in (("min_time", "min_inclusive"), ("max_time", "max_inclusive")):
                    if ns(cube.metrics[m][c][k]) != loc[key]:
                        bad.append(f"{where} location {jid}: {m} {ns(cube.metrics[m][c][k])} != {loc[key]}")
            jm = loc.get("metrics", {}).get("inclusive")
            for i, name in enumerate(jmetrics):
                want = jm[prof_metric_index(prof, name)] if jm else 0
                got = cube.metrics[by_disp[name]][c][k]
                if got != want:
                    bad.append(f"{where} location {jid}: metric {name} {got!r} != {want!r}")
        for m in KINDS:
            if m.startswith(("bytes_", "messages_")) and m in cube.metrics \
                    and sum(cube.metrics[m][c]) != node.get(m, 0):
                bad.append(f"{where}: {m} {sum(cube.metrics[m][c])} != {node.get(m, 0)}")
        # Sampling (docs/sampling.md): a sampled call path's samples, those beneath it
        # included, are profile.json's "samples" and, per location, its visits; an
        # instrumented call path has no samples of its own.
        if node.get("sampled") and "samples" not in cube.metrics:
            bad.append(f"{where}: sampled in profile.json, no samples metric in the cube")
        elif "samples" in cube.metrics:
            rows = cube.metrics["samples"]
            if node.get("sampled"):
                below = [sum(rows[d][k] for d in cube.subtree(c)) for k in range(len(cube.locations))]
                if sum(below) != node["samples"]:
                    bad.append(f"{where}: samples {sum(below)} != {node['samples']}")
                for jid, k in to_cube.items():
                    if below[k] != per.get(jid, zero)["visits"]:
                        bad.append(f"{where} location {jid}: samples {below[k]} != visits "
                                   f"{per.get(jid, zero)['visits']}")
            elif any(rows[c]):
                bad.append(f"{where}: instrumented call path with samples {rows[c]}")
    return bad


def check_memory(cube, prof):
    """Memory recording's metrics equal profile.json's `memory` exactly: per call path, each
    count summed over the locations is the call path's entry in memory.call_paths (zero when
    it has none); the high-water mark is each thread's (memory.threads) at the root call paths
    the thread visited (so the maximum over the roots is the thread's), zero elsewhere; in an
    MPI job's, each rank's (memory.ranks) at its first thread's roots. The metrics are there
    exactly when profile.json has `memory`."""
    bad = []
    mem = prof.get("memory")
    have = [m for m in list(MEMORY) + ["maximum_heap_memory_allocated"] if m in cube.metrics]
    if mem is None:
        return [f"memory metrics {have} without memory in profile.json"] if have else []
    if len(have) != len(MEMORY) + 1:
        return [f"memory metrics {have}, expected all of {sorted(MEMORY)} and the high-water"]
    paths = node_paths(prof)
    want = {paths[c["node"]]: c for c in mem["call_paths"] if c["node"] is not None}
    jlocs = prof["locations"]
    order = sorted(range(len(jlocs)), key=lambda i: (jlocs[i]["group"], i))
    to_cube = {jlocs[i]["id"]: k for k, i in enumerate(order)}
    if "threads" in mem:
        high = {t["location"]: t["high_water_bytes"] for t in mem["threads"]
                if t["location"] is not None}
    else:
        # An MPI job's: each rank's mark at its first thread's (rank_location 0) roots.
        rank_high = {r["rank"]: r["high_water_bytes"] for r in mem["ranks"]}
        group_rank = {g["id"]: g["rank"] for g in prof["location_groups"]}
        high = {l["id"]: rank_high.get(group_rank[l["group"]], 0) for l in jlocs
                if l.get("rank_location") == 0}
    for c in range(len(cube.cnodes)):
        p = cube.path(c)
        for m, key in MEMORY.items():
            got = sum(cube.metrics[m][c])
            if got != want.get(p, {}).get(key, 0):
                bad.append(f"{';'.join(p)}: {m} {got} != profile.json's {want.get(p, {}).get(key, 0)}")
        for jid, k in to_cube.items():
            got = cube.metrics["maximum_heap_memory_allocated"][c][k]
            root = cube.cnodes[c][0] is None
            if got not in ((0, high.get(jid, 0)) if root else (0,)):
                bad.append(f"{';'.join(p)} location {jid}: high-water {got}, the thread's is "
                           f"{high.get(jid, 0)}{'' if root else ' (not a root)'}")
    roots = [c for c in range(len(cube.cnodes)) if cube.cnodes[c][0] is None]
    for jid, k in to_cube.items():
        top = max((cube.metrics["maximum_heap_memory_allocated"][c][k] for c in roots), default=0)
        if top != high.get(jid, 0):
            bad.append(f"location {jid}: high-water {top} over the roots != {high.get(jid, 0)}")
    return bad


def check_io(cube, prof):
    """I/O recording's metrics equal profile.json's `io` (a process's or an MPI job's): per
    call path, each count summed over the locations is the sum over the paradigms of the call
    path's entries in io.call_paths (zero when it has none); io_time likewise in ns, up to
    the rounding of each location's and paradigm's value to whole ns. The metrics are there
    exactly when profile.json has `io`."""
    bad = []
    io = prof.get("io")
    have = [m for m in list(IO) + ["io_time"] if m in cube.metrics]
    if io is None:
        return [f"I/O metrics {have} without io in profile.json"] if have else []
    if len(have) != len(IO) + 1:
        return [f"I/O metrics {have}, expected all of {sorted(IO)} and io_time"]
    paths = node_paths(prof)
    want = {}
    for c in io.get("call_paths", []):
        if c["node"] is None:
            continue
        w = want.setdefault(paths[c["node"]], dict.fromkeys(list(IO.values()) + ["time_ns"], 0))
        for k in w:
            w[k] += c[k]
    nl = len(cube.locations)
    for c in range(len(cube.cnodes)):
        p = cube.path(c)
        w = want.get(p, {})
        for m, key in IO.items():
            got = sum(cube.metrics[m][c])
            if got != w.get(key, 0):
                bad.append(f"{';'.join(p)}: {m} {got} != profile.json's {w.get(key, 0)}")
        got = sum(ns(x) for x in cube.metrics["io_time"][c])
        if abs(got - w.get("time_ns", 0)) > 3 * nl + 3:
            bad.append(f"{';'.join(p)}: io_time {got} ns != profile.json's {w.get('time_ns', 0)}")
    if io.get("call_paths") and not any(sum(cube.metrics["io_operations"][c])
                                        for c in range(len(cube.cnodes))):
        bad.append("io_operations is zero everywhere")
    return bad


def prof_metric_index(prof, name):
    return [m["name"] for m in prof["metrics"]].index(name)


def main(argv):
    import json
    import os
    if len(argv) != 2:
        print("usage: cubex.py EXPERIMENT_DIR", file=sys.stderr)
        return 2
    d = argv[1]
    try:
        cube = read(os.path.join(d, "profile.cubex"))
    except (CubeError, OSError, ET.ParseError, tarfile.TarError, struct.error) as e:
        print(f"profile.cubex: {e}", file=sys.stderr)
        return 1
    with open(os.path.join(d, "profile.json")) as f:
        prof = json.load(f)
    bad = check_against_json(cube, prof) + check_memory(cube, prof) + check_io(cube, prof)
    for b in bad[:20]:
        print("mismatch:", b, file=sys.stderr)
    print(f"profile.cubex: {len(cube.regions)} regions, {len(cube.cnodes)} cnodes, "
          f"{len(cube.groups)} processes, {len(cube.locations)} locations, "
          f"metrics {', '.join(cube.metrics)}; {'agrees with' if not bad else 'DIFFERS from'} profile.json")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
