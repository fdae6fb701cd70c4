#!/usr/bin/env python3
"""A job database of K times the ranks of another (not in CI; docs/performance.md "Cold pages"):
the ranks' rows repeated K times, rank r of the copy k being rank r of the original (rank
index and rows), the summary's sums, squares and visiting ranks times K (minima and maxima
unchanged), so that the result is a consistent database of K x ranks with the original's rows
per rank. Written with copy_file_range (the rows never pass through this process): a quick
way to a 100,000-rank file of the generator's shape where the generator takes too long.

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
        f.seek(columns)
        kinds = [struct.unpack_from("<IIII", f.read(16))[2] for _ in range(ncols)]
        assert 4 not in kinds, "double columns are not supported"
        f.seek(0)
        prefix = bytearray(f.read(index))
        rec = np.frombuffer(f.read(32 * nranks), dtype=np.uint64).reshape(nranks, 4).copy()
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
    new_rows = (index + 32 * nranks * k + 7) // 8 * 8
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
    with open(a.dst, "wb") as out, open(a.src, "rb") as src:
        out.write(prefix)
        out.write(index_out.tobytes())
        out.write(b"\0" * (new_rows - out.tell()))
        out.flush()
        for c in range(k):
            left, at = rows_len, rows
            while left:
                n = os.copy_file_range(src.fileno(), out.fileno(), min(left, 1 << 30), at)
                assert n > 0, "copy_file_range"
                left -= n
                at += n
        assert out.tell() == new_size, (out.tell(), new_size)
    print("%s: %d ranks, %d bytes" % (a.dst, nranks * k, new_size))


if __name__ == "__main__":
    main()
