#!/usr/bin/env python3
"""A job database of K times the ranks of another (not in CI; docs/performance.md "Cold pages"):
the ranks' rows repeated K times, rank r of the copy k being rank r of the original (rank
index and rows), the summary's sums, squares and visiting ranks times K (minima and maxima
unchanged), so that the result is a consistent database of K x ranks with the original's rows
per rank. Written with copy_file_range (the rows never pass through this process): a quick
way to a 100,000-rank file of the generator's shape where the generator takes too long.
A pruned section (docs/profile-format.md) is repeated the same way: its set is computed again
from the K-fold summary by the format's rule (the same doubles as the reader's select) and must
be the original's (else the script stops: the rows would have to be filtered again), each
copy's pruned rows are the original ranks' pruned rows, in front of the rows area.

    python3 bench/jobdb/repeat_ranks.py -k 10 g10k.jdb g100k.jdb

Needs numpy. Only the seven fixed columns' integer kinds are supported (the generator's).
"""
import argparse
import math
import os
import struct

import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-k", type=int, default=10)
    ap.add_argument("src")
    ap.add_argument("dst")
    a = ap.parse_args()
    with open(a.src, "rb") as f:
        h = bytearray(f.read(256))
        (magic, version, hsize, size, nranks, present, nregions, npaths, ncols,
         row_size) = struct.unpack_from("<8sIIQIIIIII", h, 0)
        strings_off, strings_len, regions, paths, columns, summary, index, rows = \
            struct.unpack_from("<QQQQQQQQ", h, 56)
        assert magic == b"INSTRJDB" and version == 1 and size == os.path.getsize(a.src)
        assert regions < paths < columns < summary < index < rows, "section order"
        flags = struct.unpack_from("<I", h, 124)[0]
        assert flags in (0, 1), "header flags %#x" % flags
        pruned = struct.unpack_from("<QIIQQQ", h, 128) if flags & 1 else None
        f.seek(columns)
        colrecs = [struct.unpack_from("<IIII", f.read(16)) for _ in range(ncols)]
        kinds = [c[2] for c in colrecs]
        assert 4 not in kinds, "double columns are not supported"
        f.seek(0)
        prefix = bytearray(f.read(index))
        rec = np.frombuffer(f.read(32 * nranks), dtype=np.uint64).reshape(nranks, 4).copy()
        if pruned:
            set_off, nset, threshold, pidx, prows, prows_len = pruned
            f.seek(set_off)
            pset = list(struct.unpack("<%dI" % nset, f.read(4 * nset)))
            f.seek(pidx)
            prec = np.frombuffer(f.read(16 * nranks), dtype=np.uint64).reshape(nranks, 2).copy()
    k = a.k
    # the summary: per path u32 visited, u32 0, per column u64 sum, min, max, double squares
    width = (8 + 32 * ncols) // 8
    s = np.frombuffer(bytes(prefix[summary:summary + 8 * width * npaths]),
                      dtype=np.uint64).reshape(npaths, width).copy()
    visited = (s[:, 0] & np.uint64(0xFFFFFFFF)) * np.uint64(k)
    s[:, 0] = (s[:, 0] & ~np.uint64(0xFFFFFFFF)) | visited
    for c in range(ncols):
        s[:, 1 + 4 * c] *= np.uint64(k)
        sq = s[:, 4 + 4 * c].view(np.float64) * k
        s[:, 4 + 4 * c] = sq.view(np.uint64)
    prefix[summary:summary + 8 * width * npaths] = s.tobytes()
    n = nranks * k
    after_index = (index + 32 * n + 7) // 8 * 8
    new_rows = after_index
    if pruned:
        # the rule again on the K-fold summary: the reader's doubles, in its order
        parents = struct.unpack_from("<%dI" % (2 * npaths), prefix, paths)[0::2]
        incl = [float(x) for x in s[:, 1 + 4 * 1]]
        inclusive = colrecs[1][3] & 1
        total = 0.0
        for p in range(npaths):
            if not inclusive or parents[p] == 0xFFFFFFFF:
                total += incl[p]
        bound = threshold / 100.0 / 100.0 * total
        want = [p for p in range(npaths) if incl[p] >= bound]
        if want != pset:
            raise SystemExit("repeat_ranks: the pruned set of the %d-fold summary (%d paths) is "
                             "not the source's (%d): write the file with instr-jobdb-gen"
                             % (k, len(want), len(pset)))
        new_set = after_index
        new_pidx = (new_set + 4 * nset + 7) // 8 * 8
        new_prows = new_pidx + 16 * n
        new_rows = new_prows + k * prows_len
        struct.pack_into("<QIIQQQ", h, 128, new_set, nset, threshold, new_pidx, new_prows,
                         k * prows_len)
    rows_len = size - rows
    new_size = new_rows + k * rows_len
    struct.pack_into("<Q", h, 16, new_size)
    struct.pack_into("<II", h, 24, nranks * k, present * k)
    struct.pack_into("<Q", h, 112, new_rows)
    struct.pack_into("<I", h, 120, math.ceil(math.log2(nranks * k)))
    prefix[:256] = h
    index_out = np.empty((nranks * k, 4), dtype=np.uint64)
    for c in range(k):
        part = rec.copy()
        part[:, 0] = part[:, 0] - np.uint64(rows) + np.uint64(new_rows + c * rows_len)
        index_out[c * nranks:(c + 1) * nranks] = part

    def copy(src, out, at, left):
        while left:
            m = os.copy_file_range(src.fileno(), out.fileno(), min(left, 1 << 30), at)
            assert m > 0, "copy_file_range"
            left -= m
            at += m

    with open(a.dst, "wb") as out, open(a.src, "rb") as src:
        out.write(prefix)
        out.write(index_out.tobytes())
        if pruned:
            pindex_out = np.empty((n, 2), dtype=np.uint64)
            for c in range(k):
                part = prec.copy()
                part[:, 0] = part[:, 0] - np.uint64(prows) + np.uint64(new_prows + c * prows_len)
                pindex_out[c * nranks:(c + 1) * nranks] = part
            out.write(b"\0" * (new_set - out.tell()))
            out.write(struct.pack("<%dI" % nset, *pset))
            out.write(b"\0" * (new_pidx - out.tell()))
            out.write(pindex_out.tobytes())
            out.flush()
            for c in range(k):
                copy(src, out, prows, prows_len)
        out.write(b"\0" * (new_rows - out.tell()))
        out.flush()
        for c in range(k):
            copy(src, out, rows, rows_len)
        assert out.tell() == new_size, (out.tell(), new_size)
    print("%s: %d ranks, %d bytes" % (a.dst, nranks * k, new_size))


if __name__ == "__main__":
    main()
