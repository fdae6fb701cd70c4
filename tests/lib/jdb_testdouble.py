"""A test double of the job database writer: writes small profile.jdb files by the format
(docs/profile-format.md, version 1) with values the tests know, for the reader's tests
(tests/analysis) and the ingestion benchmark (bench/jobdb). It is not the runtime's writer
(runtime/profile/): the tests of real jobs read what that one writes.

    import jdb_testdouble as T
    db = T.JobDB(nranks=4, metrics=[("ipc", "", T.DOUBLE, 0)])
    main = db.path(None, db.region("main", file="main.c", line=3))
    db.row(0, main, 0, visits=1, time_incl=1000)
    db.write("profile.jdb")            # the summary is computed from the rows
    T.sample("profile.jdb")            # the database tests/analysis checks answers on

Python 3 standard library only (write_synthetic, for the benchmark, needs numpy).
"""
import math
import struct

USER, MPI, OPENMP, MANUAL, OTHER = range(5)
COUNT, TIME_NS, BYTES, UINT, DOUBLE = range(5)
INCLUSIVE = 1
NO_PARENT = 0xFFFFFFFF
HEADER_SIZE = 256
FIXED_COLUMNS = [("visits", "", COUNT, 0), ("time_incl", "ns", TIME_NS, INCLUSIVE),
                 ("time_excl", "ns", TIME_NS, 0), ("bytes_sent", "bytes", BYTES, 0),
                 ("bytes_received", "bytes", BYTES, 0), ("messages_sent", "", COUNT, 0),
                 ("messages_received", "", COUNT, 0)]


def _align8(n):
    return (n + 7) & ~7


class JobDB:
    """The definitions and rows of one job; write() lays them out as the format says."""

    def __init__(self, nranks, metrics=(), duration_ns=0):
        self.nranks = nranks
        self.columns = list(FIXED_COLUMNS) + [tuple(m) for m in metrics]
        self.regions = []   # (name, mangled, file, object, line_begin, line_end, paradigm, flags)
        self.paths = []     # (parent, region)
        self.rows = {}      # rank -> {(path, thread): [values]}
        self.threads = {}   # rank -> number of threads
        self.absent = set()
        self.rank_duration = {}
        self.duration_ns = duration_ns
        self.flags = 0

    def region(self, name, file="", line=0, line_end=None, paradigm=USER, mangled=None,
               object="", flags=0):
        self.regions.append((name, name if mangled is None else mangled, file, object, line,
                             line if line_end is None else line_end, paradigm, flags))
        return len(self.regions) - 1

    def path(self, parent, region):
        self.paths.append((NO_PARENT if parent is None else parent, region))
        return len(self.paths) - 1

    def column(self, name):
        return [c[0] for c in self.columns].index(name)

    def row(self, rank, path, thread, **values):
        """The row of (rank, path, thread): named column values (others 0); floats for DOUBLE
        columns."""
        vals = self.rows.setdefault(rank, {}).setdefault((path, thread), [0] * len(self.columns))
        for name, v in values.items():
            vals[self.column(name)] = v
        self.threads[rank] = max(self.threads.get(rank, 0), thread + 1)

    def _rows_of(self, rank, path):
        """The rows of (rank, path), one per thread: from the index encode() builds once (a
        deep tree's database is written in linear time), else by a scan of the rank's rows."""
        index = getattr(self, "_index", None)
        if index is None:
            return [v for (p, _t), v in self.rows.get(rank, {}).items() if p == path]
        return index.get((rank, path), [])

    def rank_value(self, rank, path, column):
        """A rank's value of a path: the sum over its threads' rows (0 without a row)."""
        c = self.column(column) if isinstance(column, str) else column
        return sum(v[c] for v in self._rows_of(rank, path))

    def summary(self, path):
        """(nranks visited, [(sum, min, max, sum of squares) per column])."""
        present = [r for r in range(self.nranks) if r not in self.absent]
        visited = [r for r in present if self._rows_of(r, path)]
        cols = []
        for c in range(len(self.columns)):
            vals = [self.rank_value(r, path, c) for r in visited]
            sq = float(sum(float(v) * float(v) for v in vals))
            if vals:
                cols.append((sum(vals), min(vals), max(vals), sq))
            else:
                cols.append((0, 0, 0, 0.0))
        return len(visited), cols

    def encode(self):
        """The file's bytes, and the offsets of its sections (for damage tests)."""
        strings = bytearray(b"\0")
        index = {"": 0}

        def s(text):
            if text not in index:
                index[text] = len(strings)
                strings.extend(text.encode() + b"\0")
            return index[text]

        regions = b"".join(struct.pack("<8I", s(r[0]), s(r[1]), s(r[2]), s(r[3]), *r[4:])
                           for r in self.regions)
        paths = b"".join(struct.pack("<2I", *p) for p in self.paths)
        columns = b"".join(struct.pack("<4I", s(c[0]), s(c[1]), c[2], c[3]) for c in self.columns)
        ncols = len(self.columns)

        def value(c, v):
            return struct.pack("<d", float(v)) if self.columns[c][2] == DOUBLE else \
                struct.pack("<Q", int(v))

        summary = bytearray()
        self._index = {}
        for r, rows in self.rows.items():
            for (p, _t), v in rows.items():
                self._index.setdefault((r, p), []).append(v)
        for p in range(len(self.paths)):
            nvis, cols = self.summary(p)
            summary += struct.pack("<2I", nvis, 0)
            for c, (su, mi, ma, sq) in enumerate(cols):
                summary += value(c, su) + value(c, mi) + value(c, ma) + struct.pack("<d", sq)
        row_size = 8 + 8 * ncols
        off = HEADER_SIZE
        layout = {}
        for name, size in (("strings", len(strings)), ("regions", len(regions)),
                           ("paths", len(paths)), ("columns", len(columns)),
                           ("summary", len(summary)), ("rank_index", 32 * self.nranks)):
            layout[name] = off
            off = _align8(off + size)
        layout["rows"] = off
        rank_index = bytearray()
        rows = bytearray()
        present = 0
        for r in range(self.nranks):
            mine = [] if r in self.absent else sorted(self.rows.get(r, {}).items())
            first = off + len(rows)
            for (p, t), vals in mine:
                rows += struct.pack("<2I", p, t) + b"".join(value(c, v) for c, v in enumerate(vals))
            flags = 0 if r in self.absent else 1
            present += flags
            rank_index += struct.pack("<QQIIQ", first if mine else 0, len(mine),
                                      0 if r in self.absent else self.threads.get(r, 1), flags,
                                      self.rank_duration.get(r, self.duration_ns))
        size = off + len(rows)
        rounds = math.ceil(math.log2(self.nranks)) if self.nranks > 1 else 0
        header = bytearray(HEADER_SIZE)
        struct.pack_into("<8sIIQIIIIIIQ", header, 0, b"INSTRJDB", 1, HEADER_SIZE, size,
                         self.nranks, present, len(self.regions), len(self.paths), ncols,
                         row_size, self.duration_ns)
        struct.pack_into("<8Q", header, 56, layout["strings"], len(strings), layout["regions"],
                         layout["paths"], layout["columns"], layout["summary"],
                         layout["rank_index"], layout["rows"])
        struct.pack_into("<II", header, 120, rounds, self.flags)
        out = bytearray(size)
        out[0:HEADER_SIZE] = header
        for name, blob in (("strings", strings), ("regions", regions), ("paths", paths),
                           ("columns", columns), ("summary", summary),
                           ("rank_index", rank_index)):
            out[layout[name]:layout[name] + len(blob)] = blob
        out[layout["rows"]:] = rows
        self._index = None  # rows may be added after this encode
        layout["end"] = size
        return bytes(out), layout

    def write(self, filename):
        data, layout = self.encode()
        with open(filename, "wb") as f:
            f.write(data)
        return layout


# --- the sample database tests/analysis knows the answers of ---------------------------------
# 5 ranks, rank 4 absent (it ended early); rank 1 has two threads. time_incl per rank (thread 0
# unless said):
#   path                              r0     r1 (t0 + t1)    r2     r3
#   0 main                          1000   1000              1000   1000
#   1 main/solve                     800    700 + 400         800    600
#   2 main/solve/MPI_Allreduce       100    200               100    400
#   3 main/solve/exchange            300    300 + 100         300    100
#   4 main/solve/exchange/MPI_Send   200    250               200     80
#   5 main/io                        100    100                50     -
#   6 main/MPI_Allreduce              50     -                 50    300
# visits: 1 per row, MPI_Allreduce rows 10; time_excl = time_incl minus the children's on the
# same thread; bytes_sent of MPI_Send 1000 * (rank + 1); ipc (a DOUBLE column) 0.5 * (rank + 1)
# on main.
SAMPLE_TIME = {
    0: {(0, 0): 1000, (1, 0): 800, (2, 0): 100, (3, 0): 300, (4, 0): 200, (5, 0): 100,
        (6, 0): 50},
    1: {(0, 0): 1000, (1, 0): 700, (1, 1): 400, (2, 0): 200, (3, 0): 300, (3, 1): 100,
        (4, 0): 250, (5, 0): 100},
    2: {(0, 0): 1000, (1, 0): 800, (2, 0): 100, (3, 0): 300, (4, 0): 200, (5, 0): 50,
        (6, 0): 50},
    3: {(0, 0): 1000, (1, 0): 600, (2, 0): 400, (3, 0): 100, (4, 0): 80, (6, 0): 300},
}
SAMPLE_PATHS = ["main", "main/solve", "main/solve/MPI_Allreduce", "main/solve/exchange",
                "main/solve/exchange/MPI_Send", "main/io", "main/MPI_Allreduce"]


def sample_db():
    db = JobDB(nranks=5, metrics=[("ipc", "", DOUBLE, 0)], duration_ns=1000)
    main = db.region("main", file="main.c", line=10, line_end=40)
    solve = db.region("solve", file="solve.c", line=20, line_end=60)
    allreduce = db.region("MPI_Allreduce", paradigm=MPI)
    send = db.region("MPI_Send", paradigm=MPI)
    io = db.region("io", file="io.c", line=5, line_end=9)
    exchange = db.region("exchange", file="solve.c", line=70, line_end=90)
    p_main = db.path(None, main)
    p_solve = db.path(p_main, solve)
    db.path(p_solve, allreduce)
    p_exchange = db.path(p_solve, exchange)
    db.path(p_exchange, send)
    db.path(p_main, io)
    db.path(p_main, allreduce)
    db.absent.add(4)
    db.threads[4] = 0
    children = {}
    for p, (parent, _r) in enumerate(db.paths):
        children.setdefault(parent, []).append(p)
    for rank, rows in SAMPLE_TIME.items():
        for (p, t), incl in sorted(rows.items()):
            excl = incl - sum(rows.get((c, t), 0) for c in children.get(p, []))
            vals = dict(visits=10 if p in (2, 6) else 1, time_incl=incl, time_excl=excl)
            if p == 4:
                vals.update(bytes_sent=1000 * (rank + 1), messages_sent=rank + 1)
            if p == 0:
                vals["ipc"] = 0.5 * (rank + 1)
            db.row(rank, p, t, **vals)
        db.rank_duration[rank] = 1000
    return db


# The second experiment compare() is checked with: 2 ranks with equal rows, its paths numbered
# in another order, main/io gone and main/solve/MPI_Barrier new. time_incl of each rank:
#   0 main 2000, 1 main/MPI_Allreduce 100, 2 main/solve 1500, 3 main/solve/MPI_Barrier 100,
#   4 main/solve/exchange 600, 5 main/solve/exchange/MPI_Send 400, 6 main/solve/MPI_Allreduce 300
SAMPLE_B_TIME = [2000, 100, 1500, 100, 600, 400, 300]


def sample_b_db():
    db = JobDB(nranks=2, duration_ns=2000)
    main = db.region("main", file="main.c", line=10, line_end=40)
    allreduce = db.region("MPI_Allreduce", paradigm=MPI)
    solve = db.region("solve", file="solve.c", line=20, line_end=60)
    barrier = db.region("MPI_Barrier", paradigm=MPI)
    exchange = db.region("exchange", file="solve.c", line=70, line_end=90)
    send = db.region("MPI_Send", paradigm=MPI)
    p_main = db.path(None, main)
    db.path(p_main, allreduce)
    p_solve = db.path(p_main, solve)
    db.path(p_solve, barrier)
    p_exchange = db.path(p_solve, exchange)
    db.path(p_exchange, send)
    db.path(p_solve, allreduce)
    for rank in range(2):
        for p, incl in enumerate(SAMPLE_B_TIME):
            db.row(rank, p, 0, visits=1, time_incl=incl)
    return db


def sample(filename):
    """Writes the sample database; returns the layout (section offsets)."""
    return sample_db().write(filename)


if __name__ == "__main__":
    import sys
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: jdb_testdouble.py OUT.jdb [OUT_B.jdb]  (writes the sample databases)")
    sample(sys.argv[1])
    if len(sys.argv) == 3:
        sample_b_db().write(sys.argv[2])


# --- a big database of realistic shape, for the ingestion benchmark (bench/jobdb) ------------
def write_synthetic(filename, nranks, npaths=100000, rows_per_rank=2000, seed=1):
    """Writes a job database of nranks ranks (one thread each) over a union tree of npaths call
    paths, each rank visiting about rows_per_rank of them: a hot set every rank visits (closed
    under ancestors), plus paths of its own; exclusive times with a rank-dependent imbalance
    and a few outlier ranks (every 997th rank 3x slower in MPI); inclusive = exclusive plus the
    children's. Needs numpy; streams the rows, so memory stays at a rank's rows and the
    per-path summary. Returns the file size."""
    import numpy as np
    rng = np.random.default_rng(seed)
    nregions = max(64, npaths // 20)
    names = ["MPI_%s_%d" % (("Allreduce", "Send", "Recv", "Wait", "Bcast")[i % 5], i)
             if i < 50 else "func_%d" % i for i in range(nregions)]
    # the tree: a random recursive tree (each path's parent uniform among the paths before
    # it): one top-level path, depth about e * ln(npaths), 30 or so for 100,000 paths
    parent = (rng.random(npaths) * np.arange(npaths)).astype(np.int64)
    parent[0] = NO_PARENT
    region = rng.integers(50, nregions, size=npaths)
    mpi = rng.random(npaths) < 0.1
    region[mpi] = rng.integers(0, 50, size=int(mpi.sum()))
    depth = np.zeros(npaths, dtype=np.int64)
    for p in range(1, npaths):
        depth[p] = depth[parent[p]] + 1

    def closure(seeds):
        keep = np.zeros(npaths, dtype=bool)
        stack = list(np.unique(seeds))
        while stack:
            p = int(stack.pop())
            while p != NO_PARENT and not keep[p]:
                keep[p] = True
                p = int(parent[p])
        return keep

    hot = closure(rng.integers(0, npaths, size=rows_per_rank // 8))
    excl_base = rng.exponential(1.0, size=npaths) * 1e6
    excl_base[0] = 1e5
    max_depth = int(depth.max())
    ncols = len(FIXED_COLUMNS)
    row_size = 8 + 8 * ncols

    strings = bytearray(b"\0")
    offs = {}

    def s(text):
        if text not in offs:
            offs[text] = len(strings)
            strings.extend(text.encode() + b"\0")
        return offs[text]
    regions = b"".join(struct.pack("<8I", s(names[r]), s(names[r]), s("app.c"), s("app"), r,
                                   r + 5, MPI if r < 50 else USER, 0) for r in range(nregions))
    paths = np.empty((npaths, 2), dtype="<u4")
    paths[:, 0] = parent.astype(np.uint32)
    paths[:, 1] = region
    columns = b"".join(struct.pack("<4I", s(c[0]), s(c[1]), c[2], c[3]) for c in FIXED_COLUMNS)
    summary_size = 8 + 32 * ncols
    layout = {}
    off = HEADER_SIZE
    for name, size in (("strings", len(strings)), ("regions", len(regions)),
                       ("paths", paths.nbytes), ("columns", len(columns)),
                       ("summary", summary_size * npaths), ("rank_index", 32 * nranks)):
        layout[name] = off
        off = _align8(off + size)
    layout["rows"] = off
    nvis = np.zeros(npaths, dtype=np.uint64)
    ssum = np.zeros((npaths, ncols), dtype=np.uint64)
    smin = np.full((npaths, ncols), np.iinfo(np.uint64).max, dtype=np.uint64)
    smax = np.zeros((npaths, ncols), dtype=np.uint64)
    ssq = np.zeros((npaths, ncols), dtype=np.float64)
    index = np.zeros(nranks, dtype=[("off", "<u8"), ("n", "<u8"), ("threads", "<u4"),
                                    ("flags", "<u4"), ("dur", "<u8")])
    with open(filename, "wb") as f:
        f.seek(off)
        for rank in range(nranks):
            own = closure(rng.integers(0, npaths, size=rows_per_rank // 20))
            visited = np.flatnonzero(hot | own)
            factor = 1.0 + 0.3 * rank / max(1, nranks - 1)
            excl = excl_base[visited] * factor * rng.uniform(0.9, 1.1, size=len(visited))
            if rank % 997 == 3:
                excl[mpi[visited]] *= 3
            excl = excl.astype(np.uint64)
            incl = excl.copy()
            ppos = np.searchsorted(visited, parent[visited] % (1 << 32))
            d = depth[visited]
            for level in range(max_depth, 0, -1):
                m = d == level
                np.add.at(incl, ppos[m], incl[m])
            # a row: u64 key (path in the low word, thread 0 in the high one), ncols values
            rows = np.zeros((len(visited), 1 + ncols), dtype="<u8")
            rows[:, 0] = visited.astype(np.uint64)
            rows[:, 1] = 1 + (visited % 7).astype(np.uint64)       # visits
            rows[:, 2] = incl                                      # time_incl
            rows[:, 3] = excl                                      # time_excl
            rows[:, 4] = np.where(mpi[visited], 1024 * (1 + visited % 5), 0)  # bytes_sent
            rows[:, 5] = rows[:, 4]                                # bytes_received
            rows[:, 6] = mpi[visited]                              # messages_sent
            rows[:, 7] = rows[:, 6]                                # messages_received
            vals = rows[:, 1:]
            index[rank] = (off, len(visited), 1, 1, int(incl[0]))
            f.write(rows.tobytes())
            off += len(visited) * row_size
            nvis[visited] += 1
            ssum[visited] += vals
            smin[visited] = np.minimum(smin[visited], vals)
            smax[visited] = np.maximum(smax[visited], vals)
            ssq[visited] += vals.astype(np.float64) ** 2
        smin[nvis == 0] = 0
        summary = np.zeros((npaths, summary_size // 8), dtype="<u8")
        summary[:, 0] = nvis
        summary[:, 1::4] = ssum
        summary[:, 2::4] = smin
        summary[:, 3::4] = smax
        summary[:, 4::4] = ssq.view("<u8")
        header = bytearray(HEADER_SIZE)
        struct.pack_into("<8sIIQIIIIIIQ", header, 0, b"INSTRJDB", 1, HEADER_SIZE, off, nranks,
                         nranks, nregions, npaths, ncols, row_size, int(index["dur"].max()))
        struct.pack_into("<8Q", header, 56, layout["strings"], len(strings), layout["regions"],
                         layout["paths"], layout["columns"], layout["summary"],
                         layout["rank_index"], layout["rows"])
        struct.pack_into("<II", header, 120, math.ceil(math.log2(nranks)) if nranks > 1 else 0,
                         0)
        for name, blob in (("strings", bytes(strings)), ("regions", regions),
                           ("paths", paths.tobytes()), ("columns", columns),
                           ("summary", summary.tobytes()), ("rank_index", index.tobytes())):
            f.seek(layout[name])
            f.write(blob)
        f.seek(0)
        f.write(header)  # the file size last, as the writer does
    return off
