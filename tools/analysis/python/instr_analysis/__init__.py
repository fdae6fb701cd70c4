"""instr_analysis: job databases (profile.jdb) as pandas DataFrames.

A thin ctypes layer over libinstr-analysis (instr_analysis.h); docs/analysis.md has worked
examples.

    import instr_analysis as ia
    db = ia.open("run/profile.jdb")
    db.tree()                                         # one row per call path
    df = db.query(metric="time_excl", paths="function(MPI_*)")   # path, rank, thread, value
    db.stats(metric="time_incl", paths="time_incl >= 1%")         # per path over ranks
    db.context(path)                                  # the chain from the top to the path
    ia.compare(a, b, metric="time_incl")              # the same call paths in two runs

Errors raise instr_analysis.Error with the library's message (it names the file and what is
wrong).
"""
import ctypes
import ctypes.util
import os

import numpy as np
import pandas as pd

from .contexts import ContextArray, ContextDtype

__all__ = ["Error", "Database", "open", "compare", "NO_PARENT", "PARADIGMS", "ContextDtype"]

NO_PARENT = 0xFFFFFFFF
PARADIGMS = ("user", "mpi", "openmp", "manual", "other")
LAZY_ROWS = 1
ROWS_AREA = 2
_STATS = {"sum": 0, "mean": 1, "min": 2, "max": 3}


class Error(Exception):
    """A failure of the library: the message names the file and what is wrong."""


def _load_library():
    here = os.path.dirname(os.path.abspath(__file__))
    # <libdir>/python/instr_analysis/ -> <libdir>/libinstr-analysis.so (build and install tree)
    candidate = os.path.join(here, "..", "..", "libinstr-analysis.so")
    if os.path.exists(candidate):
        return ctypes.CDLL(os.path.normpath(candidate))
    found = ctypes.util.find_library("instr-analysis")
    if found:
        return ctypes.CDLL(found)
    raise ImportError("instr_analysis: libinstr-analysis.so is neither at %s nor on the library "
                      "path; use the module installed beside the library (<prefix>/lib/python)"
                      % os.path.normpath(candidate))


_lib = _load_library()
_u32p = ctypes.POINTER(ctypes.c_uint32)
_f64p = ctypes.POINTER(ctypes.c_double)


class _Info(ctypes.Structure):
    _fields_ = [("nranks", ctypes.c_uint32), ("nranks_present", ctypes.c_uint32),
                ("nregions", ctypes.c_uint32), ("npaths", ctypes.c_uint32),
                ("ncols", ctypes.c_uint32), ("unification_rounds", ctypes.c_uint32),
                ("duration_ns", ctypes.c_uint64), ("file_size", ctypes.c_uint64)]


class _Region(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("mangled", ctypes.c_char_p),
                ("file", ctypes.c_char_p), ("object", ctypes.c_char_p),
                ("line_begin", ctypes.c_uint32), ("line_end", ctypes.c_uint32),
                ("paradigm", ctypes.c_uint32), ("flags", ctypes.c_uint32)]


class _Path(ctypes.Structure):
    _fields_ = [("parent", ctypes.c_uint32), ("region", ctypes.c_uint32),
                ("depth", ctypes.c_uint32), ("nchildren", ctypes.c_uint32)]


class _Column(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("unit", ctypes.c_char_p),
                ("kind", ctypes.c_uint32), ("flags", ctypes.c_uint32)]


class _Summary(ctypes.Structure):
    _fields_ = [("nranks_visited", ctypes.c_uint32), ("sum", ctypes.c_double),
                ("min", ctypes.c_double), ("max", ctypes.c_double),
                ("sum_squares", ctypes.c_double)]


class _Rank(ctypes.Structure):
    _fields_ = [("nrows", ctypes.c_uint64), ("nthreads", ctypes.c_uint32),
                ("present", ctypes.c_uint32), ("duration_ns", ctypes.c_uint64)]


class _Stats(ctypes.Structure):
    _fields_ = [("path", ctypes.c_uint32), ("nranks", ctypes.c_uint32),
                ("nvisited", ctypes.c_uint32), ("noutliers", ctypes.c_uint32),
                ("min", ctypes.c_double), ("max", ctypes.c_double), ("mean", ctypes.c_double),
                ("std", ctypes.c_double), ("balance", ctypes.c_double),
                ("min_rank", ctypes.c_uint32), ("max_rank", ctypes.c_uint32)]


class _Match(ctypes.Structure):
    _fields_ = [("path_a", ctypes.c_uint32), ("path_b", ctypes.c_uint32),
                ("value_a", ctypes.c_double), ("value_b", ctypes.c_double),
                ("diff", ctypes.c_double)]


def _sig(name, restype, *argtypes):
    f = getattr(_lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


_vp = ctypes.c_void_p
_sz = ctypes.c_size_t
_error = _sig("instr_jdb_error", ctypes.c_char_p)
_open = _sig("instr_jdb_open", _vp, ctypes.c_char_p, ctypes.c_uint)
_close = _sig("instr_jdb_close", None, _vp)
_get_info = _sig("instr_jdb_get_info", None, _vp, ctypes.POINTER(_Info))
_get_region = _sig("instr_jdb_get_region", ctypes.c_int, _vp, ctypes.c_uint32,
                   ctypes.POINTER(_Region))
_get_path = _sig("instr_jdb_get_path", ctypes.c_int, _vp, ctypes.c_uint32, ctypes.POINTER(_Path))
_path_table = _sig("instr_jdb_path_table", ctypes.c_int, _vp, _u32p, _u32p, _u32p)
_context = _sig("instr_jdb_context", ctypes.c_long, _vp, ctypes.c_uint32, _u32p, _sz)
_get_column = _sig("instr_jdb_get_column", ctypes.c_int, _vp, ctypes.c_uint32,
                   ctypes.POINTER(_Column))
_find_column = _sig("instr_jdb_find_column", ctypes.c_long, _vp, ctypes.c_char_p)
_get_summary = _sig("instr_jdb_get_summary", ctypes.c_int, _vp, ctypes.c_uint32, ctypes.c_uint32,
                    ctypes.POINTER(_Summary))
_total = _sig("instr_jdb_total", ctypes.c_double, _vp, ctypes.c_uint32)
_get_rank = _sig("instr_jdb_get_rank", ctypes.c_int, _vp, ctypes.c_uint32, ctypes.POINTER(_Rank))
_select = _sig("instr_jdb_select", ctypes.c_long, _vp, ctypes.c_char_p, _u32p)


class _Pruned(ctypes.Structure):
    _fields_ = [("present", ctypes.c_uint32), ("npaths", ctypes.c_uint32),
                ("threshold_percent", ctypes.c_double), ("rows_bytes", ctypes.c_uint64)]


_get_pruned = _sig("instr_jdb_get_pruned", ctypes.c_int, _vp, ctypes.POINTER(_Pruned), _u32p, _sz)


class _RowSet(ctypes.Structure):
    _fields_ = [("n", ctypes.c_size_t), ("path", _u32p), ("rank", _u32p), ("thread", _u32p),
                ("value", _f64p)]


_rows_load = _sig("instr_jdb_rows_load", ctypes.c_int, _vp, ctypes.c_uint32, _u32p, _sz, _u32p,
                  _sz, _u32p, _sz, ctypes.c_uint, ctypes.POINTER(_RowSet))
_row_set_free = _sig("instr_jdb_row_set_free", None, ctypes.POINTER(_RowSet))
SUM_THREADS = 1
_rank_values = _sig("instr_jdb_rank_values", ctypes.c_int, _vp, ctypes.c_uint32, _u32p, _sz,
                    _u32p, _sz, _u32p, _sz, _f64p)
_path_stats = _sig("instr_jdb_path_stats", ctypes.c_long, _vp, ctypes.c_uint32, _u32p, _sz, _u32p,
                   _sz, _u32p, _sz, ctypes.c_double, ctypes.POINTER(_Stats), _u32p, _u32p, _sz)
_compare = _sig("instr_jdb_compare", ctypes.c_long, _vp, _vp, ctypes.c_char_p, ctypes.c_int,
                ctypes.POINTER(_Match), _sz)


def _raise():
    raise Error(_error().decode("utf-8", "replace"))


def _u32_array(values):
    """A contiguous uint32 array and its pointer (None, 0 for None: every one)."""
    if values is None:
        return None, None, 0
    if isinstance(values, (int, np.integer)):
        values = [values]
    arr = np.ascontiguousarray(np.asarray(list(values) if not isinstance(values, np.ndarray)
                                          else values, dtype=np.int64))
    if arr.size and (arr.min() < 0 or arr.max() > 0xFFFFFFFF):
        raise Error("ids must be between 0 and 4294967295, got %r" % (values,))
    arr = arr.astype(np.uint32)
    return arr, arr.ctypes.data_as(_u32p), arr.size


def _u32(value):
    """One id as the C library takes it: ctypes would wrap 2**32 + 1 to 1 without a word."""
    v = int(value)
    if v < 0 or v > 0xFFFFFFFF:
        raise Error("ids must be between 0 and 4294967295, got %r" % (value,))
    return v


def _decode(b):
    return b.decode("utf-8", "replace") if b is not None else ""


class Database:
    """An open job database. Use open(path) to make one; close() or a with block ends it."""

    def __init__(self, path, lazy_rows=False, rows_area=False):
        self.path = os.fspath(path)
        self._db = _open(os.fsencode(self.path), (LAZY_ROWS if lazy_rows else 0) |
                         (ROWS_AREA if rows_area else 0))
        if not self._db:
            _raise()
        info = _Info()
        _get_info(self._db, ctypes.byref(info))
        self.nranks = info.nranks
        self.nranks_present = info.nranks_present
        self.npaths = info.npaths
        self.nregions = info.nregions
        self.duration_ns = info.duration_ns
        self.unification_rounds = info.unification_rounds
        self._names = None

    def close(self):
        if self._db:
            _close(self._db)
            self._db = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def _handle(self):
        if not self._db:
            raise Error("%s: the database is closed" % self.path)
        return self._db

    # --- definitions -------------------------------------------------------------------
    def columns(self):
        """DataFrame of the value columns: name, unit, kind, inclusive."""
        rows = []
        c = _Column()
        i = 0
        while _get_column(self._handle(), i, ctypes.byref(c)) == 0:
            rows.append((_decode(c.name), _decode(c.unit), c.kind, bool(c.flags & 1)))
            i += 1
        return pd.DataFrame(rows, columns=["name", "unit", "kind", "inclusive"])

    def column(self, metric):
        """The index of a column by name; Error (listing the columns) when there is none."""
        i = _find_column(self._handle(), metric.encode())
        if i < 0:
            _raise()
        return i

    def region(self, region):
        r = _Region()
        if _get_region(self._handle(), _u32(region), ctypes.byref(r)) != 0:
            _raise()
        return {"region": region, "name": _decode(r.name), "mangled": _decode(r.mangled),
                "file": _decode(r.file), "object": _decode(r.object),
                "line_begin": r.line_begin, "line_end": r.line_end,
                "paradigm": PARADIGMS[r.paradigm], "throttled": bool(r.flags & 1)}

    def _path(self, path):
        p = _Path()
        if _get_path(self._handle(), _u32(path), ctypes.byref(p)) != 0:
            _raise()
        return p

    def name(self, path):
        """The region name of a path."""
        return self.region(self._path(path).region)["name"]

    def context(self, path):
        """The calling context of a path: DataFrame of its chain from the top-level path down to
        the path itself (path, name, file, line)."""
        n = _context(self._handle(), _u32(path), None, 0)
        if n < 0:
            _raise()
        chain = np.zeros(n, dtype=np.uint32)
        _context(self._handle(), _u32(path), chain.ctypes.data_as(_u32p), n)
        rows = []
        for depth, p in enumerate(chain):
            r = self.region(self._path(p).region)
            rows.append((int(p), depth, r["name"], r["file"], r["line_begin"]))
        return pd.DataFrame(rows, columns=["path", "depth", "name", "file", "line"])

    def tree(self, context=True):
        """The call tree: one row per path (index: path id) with parent (-1 for a top-level
        path), depth, region, name, file, line, paradigm and the calling context
        as a string ("main/solve/MPI_Allreduce").

        The whole tree costs linear in the number of paths, the context column too: it keeps
        every path's parent and name (a ContextDtype column, instr_analysis.contexts) and builds
        a path's string when it is read (t.loc[p, "context"], iteration, printing, astype(str),
        .str methods); == and != with a string compare without building the strings. Reading
        every string of a deep chain costs what the strings are (a 10,000-deep recursion's hold
        hundreds of megabytes). context=False leaves the column out."""
        parent, region, depth = self._table()
        regions = [self.region(r) for r in range(self.nregions)]
        # per-region values spread over the paths by numpy, not a Python loop per path
        def per_path(key, dtype=object):
            values = np.array([r[key] for r in regions] or [None], dtype=dtype)
            return values[region] if self.npaths else np.zeros(0, dtype=dtype)
        columns = {
            "path": np.arange(self.npaths, dtype=np.int64),
            "parent": np.where(parent == NO_PARENT, -1, parent.astype(np.int64)),
            "depth": depth.astype(np.int64), "region": region.astype(np.int64),
            "name": per_path("name"), "file": per_path("file"),
            "line": per_path("line_begin", np.int64) if regions else np.zeros(0, np.int64),
            "paradigm": per_path("paradigm")}
        if context:
            columns["context"] = ContextArray.from_tree(columns["parent"], columns["name"])
        return pd.DataFrame(columns).set_index("path")

    def _table(self):
        """parent, region, depth of every path (numpy uint32 arrays), read once."""
        if getattr(self, "_tree_table", None) is None:
            arrays = [np.zeros(max(self.npaths, 1), dtype=np.uint32) for _ in range(3)]
            if _path_table(self._handle(), *[a.ctypes.data_as(_u32p) for a in arrays]) != 0:
                _raise()
            self._tree_table = [a[:self.npaths] for a in arrays]
        return self._tree_table

    def _name_codes(self):
        """Per path the code of its region's name among the distinct names (for a categorical
        name column), and those names."""
        if getattr(self, "_codes", None) is None:
            _, region, _ = self._table()
            names = [self.region(r)["name"] for r in range(self.nregions)]
            categories = sorted(set(names))
            index = {name: i for i, name in enumerate(categories)}
            region_code = np.array([index[name] for name in names] or [0], dtype=np.int32)
            self._codes = (region_code[region] if self.npaths else np.zeros(0, dtype=np.int32),
                           categories)
        return self._codes

    def _path_names(self):
        """The name of every path (numpy object array)."""
        codes, categories = self._name_codes()
        return np.array(categories + [""], dtype=object)[codes]

    def summary(self, metric="time_incl", paths=None):
        """The summary of the selected paths: nranks_visited, sum, min, max, mean (over all
        ranks) and sum_squares per path (index: path id)."""
        col = self.column(metric)
        sel = self.select(paths)
        s = _Summary()
        rows = []
        for q in sel:
            if _get_summary(self._handle(), _u32(q), col, ctypes.byref(s)) != 0:
                _raise()
            rows.append((int(q), self.name(q), s.nranks_visited, s.sum, s.min, s.max,
                         s.sum / self.nranks if self.nranks else float("nan"), s.sum_squares))
        return pd.DataFrame(rows, columns=["path", "name", "nranks_visited", "sum", "min", "max",
                                           "mean", "sum_squares"]).set_index("path")

    def total(self, metric="time_incl"):
        """The run's total of an inclusive column (the sum over ranks of the top-level paths)."""
        return _total(self._handle(), self.column(metric))

    def rank(self, rank):
        r = _Rank()
        if _get_rank(self._handle(), _u32(rank), ctypes.byref(r)) != 0:
            _raise()
        return {"rank": rank, "rows": r.nrows, "threads": r.nthreads, "present": bool(r.present),
                "duration_ns": r.duration_ns}

    # --- selection and values ----------------------------------------------------------
    def pruned(self):
        """The file's pruned section (docs/profile-format.md): None when it has none, else
        {"threshold_percent": T, "paths": ascending ids (select("time_incl >= T%")),
        "rows_bytes": N}. A query whose paths are all in it reads its rows there."""
        info = _Pruned()
        if _get_pruned(self._handle(), ctypes.byref(info), None, 0) != 0:
            _raise()
        if not info.present:
            return None
        out = np.zeros(max(info.npaths, 1), dtype=np.uint32)
        if _get_pruned(self._handle(), ctypes.byref(info), out.ctypes.data_as(_u32p),
                       out.size) != 0:
            _raise()
        return {"threshold_percent": info.threshold_percent, "paths": out[:info.npaths],
                "rows_bytes": info.rows_bytes}

    def select(self, paths=None):
        """Path ids (ascending numpy array) for a query string (docs/analysis.md#queries), a
        single id or a list of ids; None selects every path."""
        if paths is None:
            paths = "all"
        if isinstance(paths, str):
            out = np.zeros(max(self.npaths, 1), dtype=np.uint32)
            n = _select(self._handle(), paths.encode(), out.ctypes.data_as(_u32p))
            if n < 0:
                _raise()
            return out[:n]
        arr, _, _ = _u32_array(paths)
        return arr

    def query(self, metric="time_incl", paths=None, ranks=None, threads=None, per="rank"):
        """Metric values of the selected paths over the selected ranks and threads as a
        DataFrame. per="rank" (default): one row per (path, rank) the rank has rows for, the
        value summed over the selected threads; per="thread": one row per (path, rank, thread)
        row of the file. Columns: path, name, rank[, thread], <metric>; ordered by rank (as
        given), then path (as given), then thread."""
        col = self.column(metric)
        sel = self.select(paths)
        p_arr, p_ptr, np_ = _u32_array(sel)
        r_arr, r_ptr, nr = _u32_array(ranks)
        t_arr, t_ptr, nt = _u32_array(threads)
        if per not in ("rank", "thread"):
            raise Error("query: per=%r: it must be 'rank' or 'thread'" % (per,))
        rs = _RowSet()
        if _rows_load(self._handle(), col, p_ptr, np_, r_ptr, nr, t_ptr, nt,
                      SUM_THREADS if per == "rank" else 0, ctypes.byref(rs)) != 0:
            _raise()
        try:
            n = rs.n

            def column(ptr, dtype):
                if n == 0:
                    return np.zeros(0, dtype=dtype)
                return np.array(np.ctypeslib.as_array(ptr, shape=(n,)), dtype=dtype)  # a copy
            data = {"path": column(rs.path, np.uint32), "rank": column(rs.rank, np.uint32)}
            if per == "thread":
                data["thread"] = column(rs.thread, np.uint32)
            data[metric] = column(rs.value, np.float64)
        finally:
            _row_set_free(ctypes.byref(rs))
        # the name as a categorical column: a code per row, not a string per row
        codes, categories = self._name_codes()
        path = data.pop("path")
        names = pd.Categorical.from_codes(np.take(codes, path) if n else
                                          np.zeros(0, dtype=np.int32), categories=categories)
        return pd.DataFrame({"path": path, "name": names, **data}, copy=False)

    def rank_values(self, metric="time_incl", paths=None, ranks=None, threads=None):
        """Dense DataFrame: a row per selected rank (index: rank), a column per selected path
        (path id), the value summed over the selected threads; 0 where the rank did not visit
        the path, NaN for an absent rank."""
        col = self.column(metric)
        sel = self.select(paths)
        p_arr, p_ptr, np_ = _u32_array(sel)
        r_arr, r_ptr, nr = _u32_array(ranks)
        t_arr, t_ptr, nt = _u32_array(threads)
        rank_ids = r_arr if r_arr is not None else np.arange(self.nranks, dtype=np.uint32)
        out = np.zeros((len(rank_ids), np_), dtype=np.float64)
        if out.size and _rank_values(self._handle(), col, p_ptr, np_, r_ptr, nr, t_ptr, nt,
                                     out.ctypes.data_as(_f64p)) != 0:
            _raise()
        df = pd.DataFrame(out, index=pd.Index(rank_ids.astype(np.int64), name="rank"),
                          columns=pd.Index(sel.astype(np.int64), name="path"))
        return df

    def stats(self, metric="time_incl", paths=None, ranks=None, threads=None, k=3.0):
        """Per selected path over the selected present ranks (a rank's value: the sum over the
        selected threads, 0 when it did not visit the path): name, nranks, nvisited, min,
        min_rank, max, max_rank, mean, std (population), balance = mean/max, and outliers: the
        ranks with |x - mean| > k * std (index: path id)."""
        col = self.column(metric)
        sel = self.select(paths)
        p_arr, p_ptr, np_ = _u32_array(sel)
        r_arr, r_ptr, nr = _u32_array(ranks)
        t_arr, t_ptr, nt = _u32_array(threads)
        out = (_Stats * max(np_, 1))()
        n = _path_stats(self._handle(), col, p_ptr, np_, r_ptr, nr, t_ptr, nt, float(k), out,
                        None, None, 0)
        if n < 0:
            _raise()
        o_p = np.zeros(max(n, 1), dtype=np.uint32)
        o_r = np.zeros(max(n, 1), dtype=np.uint32)
        if n and _path_stats(self._handle(), col, p_ptr, np_, r_ptr, nr, t_ptr, nt, float(k), out,
                             o_p.ctypes.data_as(_u32p), o_r.ctypes.data_as(_u32p), n) < 0:
            _raise()
        outliers = {}
        for p, r in zip(o_p[:n], o_r[:n]):
            outliers.setdefault(int(p), []).append(int(r))
        names = self._path_names()
        rows = []
        for i in range(np_):
            s = out[i]
            rows.append((s.path, names[s.path], s.nranks, s.nvisited, s.min,
                         None if s.min_rank == NO_PARENT else s.min_rank, s.max,
                         None if s.max_rank == NO_PARENT else s.max_rank, s.mean, s.std,
                         s.balance, outliers.get(s.path, [])))
        return pd.DataFrame(rows, columns=["path", "name", "nranks", "nvisited", "min", "min_rank",
                                           "max", "max_rank", "mean", "std", "balance",
                                           "outliers"]).set_index("path")


def open(path, lazy_rows=False, rows_area=False):  # noqa: A001  the module's entry point
    """Opens and checks a job database; raises Error naming the file and what is wrong.
    lazy_rows=True checks the rows as queries read them instead of all at open; rows_area=True
    reads every query's rows from the rows area, never from the pruned section (the answers
    are the same: to compare, or where the section is not trusted)."""
    return Database(path, lazy_rows, rows_area)


def compare(a, b, metric="time_incl", stat="mean"):
    """The call paths of two experiments matched by their chain of region names: a row per
    path of a and per path of b without a match, with both values of the statistic (sum,
    mean over the job's ranks, min, max of the summary) and diff = b - a. Columns: context,
    path_a, path_b, a, b, diff (path ids are -1 where the path is missing)."""
    if stat not in _STATS:
        raise Error("compare: stat=%r: it must be one of %s" % (stat, ", ".join(_STATS)))
    n = _compare(a._handle(), b._handle(), metric.encode(), _STATS[stat], None, 0)
    if n < 0:
        _raise()
    out = (_Match * max(n, 1))()
    if n and _compare(a._handle(), b._handle(), metric.encode(), _STATS[stat], out, n) < 0:
        _raise()
    ta, tb = a.tree()["context"].array, b.tree()["context"].array
    rows = []
    for m in out[:n]:
        pa = -1 if m.path_a == NO_PARENT else m.path_a
        pb = -1 if m.path_b == NO_PARENT else m.path_b
        rows.append((ta[pa] if pa >= 0 else tb[pb], pa, pb, m.value_a, m.value_b, m.diff))
    return pd.DataFrame(rows, columns=["context", "path_a", "path_b", "a", "b", "diff"])
