#!/usr/bin/env python3
"""Ingestion benchmark of the job database reader (not in CI; docs/performance.md).

Opens a profile.jdb, prunes to the call paths with time_incl >= 1 % of the run (from the
summary), loads one metric for those paths over every rank (instr_jdb_rows_load through the
Python module: the rank loop in C with OpenMP, a binary search per path in each rank's rows,
the rows read as docs/analysis.md "Access pattern" says), builds
the DataFrame, and prints the time of each step and the peak resident memory. --unpruned loads
the metric for every path instead. A file with a pruned section is read there when the
selection is all in it; --rows-area reads the rows area instead.

    PYTHONPATH=build/lib/python python3 bench/jobdb/ingest.py profile.jdb
    PYTHONPATH=build/lib/python python3 bench/jobdb/ingest.py --make 10000 big.jdb
        (--make N: first writes a synthetic database of N ranks with the test double
         tests/lib/jdb_testdouble.py: 100,000 call paths, ~2,000 rows a rank)

The first run after writing reads from the page cache; --cold first writes back and drops the
file's pages from it (sync, then posix_fadvise POSIX_FADV_DONTNEED: no root needed) for a cold
figure, as the first read on another node would see. OMP_NUM_THREADS sets the threads.
"""
import argparse
import os
import resource
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def peak_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def resident_now():
    """RssAnon and RssFile (MiB) from /proc/self/status: the process's own memory and the
    mapped file's pages it has read; None where /proc does not say."""
    found = {}
    try:
        with open("/proc/self/status") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key in ("RssAnon", "RssFile"):
                    found[key] = int(value.split()[0]) / 1024.0
    except OSError:
        pass
    return found.get("RssAnon"), found.get("RssFile")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("jdb")
    ap.add_argument("--make", type=int, metavar="NRANKS",
                    help="first write a synthetic database of NRANKS ranks to JDB")
    ap.add_argument("--paths", type=int, default=100000, help="call paths of --make")
    ap.add_argument("--rows", type=int, default=2000, help="rows a rank of --make")
    ap.add_argument("--metric", default="time_incl")
    ap.add_argument("--threshold", default="1%", help="prune: time_incl >= THRESHOLD")
    ap.add_argument("--unpruned", action="store_true", help="every path, no pruning")
    ap.add_argument("--full-check", action="store_true",
                    help="check every row at open (reads the whole file) instead of the rows "
                         "the queries read")
    ap.add_argument("--rows-area", action="store_true",
                    help="read the rows area even where the file's pruned section holds the "
                         "query's rows (open(rows_area=True)): the read before the section")
    ap.add_argument("--cold", action="store_true",
                    help="drop the file's pages from the page cache first (a cold read)")
    a = ap.parse_args()

    if a.make:
        sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "lib"))
        import jdb_testdouble
        t = time.perf_counter()
        size = jdb_testdouble.write_synthetic(a.jdb, a.make, npaths=a.paths,
                                              rows_per_rank=a.rows)
        print("made %s: %d ranks, %.1f MiB in %.1f s" % (a.jdb, a.make, size / 2**20,
                                                         time.perf_counter() - t))

    if a.cold:
        os.sync()
        fd = os.open(a.jdb, os.O_RDONLY)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)

    import instr_analysis as ia
    t0 = time.perf_counter()
    db = ia.open(a.jdb, lazy_rows=not a.full_check, rows_area=a.rows_area)
    t1 = time.perf_counter()
    query = "all" if a.unpruned else "time_incl >= %s" % a.threshold
    paths = db.select(query)
    t2 = time.perf_counter()
    df = db.query(metric=a.metric, paths=paths, per="thread")
    t3 = time.perf_counter()
    print("file: %s, %d ranks (%d present), %d call paths, %.1f MiB"
          % (a.jdb, db.nranks, db.nranks_present, db.npaths, os.path.getsize(a.jdb) / 2**20))
    print("pages: %s" % ("dropped first (cold)" if a.cold else "as found"))
    pr = db.pruned()
    print("rows read from: %s" % (
        "the rows area (--rows-area)" if a.rows_area or pr is None else
        "the pruned section (%d paths, time_incl >= %g %%, %.1f MiB)"
        % (len(pr["paths"]), pr["threshold_percent"], pr["rows_bytes"] / 2**20)
        if set(paths.tolist()) <= set(pr["paths"].tolist()) and len(paths) else
        "the rows area (the selection is not all in the pruned section)"))
    print("threads: %s" % os.environ.get("OMP_NUM_THREADS", "all cores (%d)" % os.cpu_count()))
    print("open (%s): %.3f s" % ("every row checked" if a.full_check else "rows checked as read",
                                 t1 - t0))
    print("select %r: %d paths, %.3f s" % (query, len(paths), t2 - t1))
    print("load %s of %d rows into a DataFrame: %.3f s" % (a.metric, len(df), t3 - t2))
    anon, mapped = resident_now()
    print("total: %.3f s, peak resident memory %.0f MiB (mapped file pages read count too)"
          % (t3 - t0, peak_mib()))
    if anon is not None:
        print("resident now: %.0f MiB own (DataFrame, interpreter), %.0f MiB of mapped file "
              "pages" % (anon, mapped))


if __name__ == "__main__":
    main()
