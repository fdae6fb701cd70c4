"""The context column of Database.tree(): every path's calling context ("main/solve/MPI_Send")
without the strings.

A context is its parent's, "/" and the path's name, so the strings of a deep chain add up to
the square of its depth (hundreds of megabytes at depth 10,000). The column keeps what they are
made of instead, the parent and the name of every path (linear in the number of paths), and
builds one string when it is asked for one: an element (series[p], .loc, iteration), a
conversion (astype(str), to_numpy(), .str methods), a printed row. Comparing with one string
(==, !=) walks the chains with early exits and builds none.
"""
import numbers

import numpy as np
import pandas as pd
from pandas.api.extensions import ExtensionArray, ExtensionDtype, register_extension_dtype

try:  # the .str methods of object columns, applied to the strings built on demand
    from pandas.core.strings.object_array import ObjectStringArrayMixin as _StrMethods
except ImportError:  # a pandas without it: .str is unavailable, astype(str).str is not
    _StrMethods = object

__all__ = ["ContextDtype", "ContextArray"]


class _Chains:
    """The tree the contexts are made of: parent (-1 for a top-level path; a parent comes
    before its children, as in a job database) and name per path, shared by every slice."""

    def __init__(self, parent, names):
        self.parent = parent.tolist() if isinstance(parent, np.ndarray) else list(parent)
        self.names = [str(n) for n in names]
        self._lengths = None

    def __len__(self):
        return len(self.parent)

    def string(self, q):
        if q < 0:
            return None
        parts = []
        while q >= 0:
            parts.append(self.names[q])
            q = self.parent[q]
        parts.reverse()
        return "/".join(parts)

    def strings(self, rows):
        """The strings of many paths (an object array): a path whose parent's string was just
        built appends its name to it instead of walking its chain again."""
        out = np.empty(len(rows), dtype=object)
        built = {}
        for i, q in enumerate(rows):
            q = int(q)
            if q < 0:
                out[i] = None
                continue
            p = self.parent[q]
            s = built.get(p)
            s = self.string(q) if s is None else s + "/" + self.names[q]
            built[q] = out[i] = s
        return out

    def lengths(self):
        """Length of every path's context string, without building it."""
        if self._lengths is None:
            lengths = [0] * len(self.parent)
            for q, (p, name) in enumerate(zip(self.parent, self.names)):
                lengths[q] = len(name) if p < 0 else lengths[p] + 1 + len(name)
            self._lengths = np.array(lengths, dtype=np.int64)
        return self._lengths

    def equals(self, q, s):
        """Whether path q's context is s, from the path up, stopping at the first difference."""
        end = len(s)
        while True:
            name = self.names[q]
            start = end - len(name)
            if start < 0 or not s.startswith(name, start, end):
                return False
            q = self.parent[q]
            if q < 0:
                return start == 0
            if start == 0 or s[start - 1] != "/":
                return False
            end = start - 1


@register_extension_dtype
class ContextDtype(ExtensionDtype):
    """Strings (str elements, None where missing) kept as the tree they are made of."""
    name = "context"
    type = str
    kind = "O"
    na_value = None

    @classmethod
    def construct_array_type(cls):
        return ContextArray


class ContextArray(_StrMethods, ExtensionArray):
    """The contexts of some paths of a _Chains (rows: path ids, -1 for a missing value)."""

    def __init__(self, chains, rows):
        self._chains = chains
        self._rows = np.asarray(rows, dtype=np.int64)

    @classmethod
    def from_tree(cls, parent, names):
        """The contexts of every path of a tree, in path order."""
        chains = _Chains(parent, names)
        return cls(chains, np.arange(len(chains), dtype=np.int64))

    # --- what pandas needs of an ExtensionArray ------------------------------------------
    @classmethod
    def _from_sequence(cls, scalars, dtype=None, copy=False):
        if isinstance(scalars, ContextArray):
            return scalars.copy() if copy else scalars
        values = list(scalars)
        missing = np.array([v is None or (isinstance(v, float) and np.isnan(v))
                            for v in values], dtype=bool)
        chains = _Chains([-1] * len(values), ["" if m else str(v)
                                              for v, m in zip(values, missing)])
        rows = np.arange(len(values), dtype=np.int64)
        rows[missing] = -1
        return cls(chains, rows)

    @classmethod
    def _from_sequence_of_strings(cls, strings, dtype=None, copy=False):
        return cls._from_sequence(strings, dtype=dtype, copy=copy)

    @classmethod
    def _from_factorized(cls, values, original):
        return cls._from_sequence(values)

    @classmethod
    def _concat_same_type(cls, to_concat):
        to_concat = list(to_concat)
        if all(a._chains is to_concat[0]._chains for a in to_concat):
            return cls(to_concat[0]._chains, np.concatenate([a._rows for a in to_concat]))
        parent, names, rows, offset = [], [], [], 0
        for a in to_concat:
            parent.extend(p + offset if p >= 0 else -1 for p in a._chains.parent)
            names.extend(a._chains.names)
            rows.append(np.where(a._rows >= 0, a._rows + offset, -1))
            offset += len(a._chains)
        return cls(_Chains(parent, names), np.concatenate(rows) if rows else np.zeros(0, int))

    @property
    def dtype(self):
        return ContextDtype()

    def __len__(self):
        return len(self._rows)

    def __getitem__(self, item):
        if isinstance(item, numbers.Integral):
            return self._chains.string(int(self._rows[item]))
        if isinstance(item, tuple) and len(item) == 1:
            item = item[0]
        item = pd.api.indexers.check_array_indexer(self, item)
        return ContextArray(self._chains, self._rows[item])

    def __iter__(self):
        for q in self._rows:
            yield self._chains.string(int(q))

    def __array__(self, dtype=None):
        return self._chains.strings(self._rows)

    @property
    def nbytes(self):
        # the shared tree (a parent and a name reference per path) and this array's rows
        return self._rows.nbytes + 16 * len(self._chains)

    def isna(self):
        return self._rows < 0

    def take(self, indices, allow_fill=False, fill_value=None):
        indices = np.asarray(indices, dtype=np.int64)
        if allow_fill:
            if fill_value is not None and not (isinstance(fill_value, float) and
                                               np.isnan(fill_value)):
                values = np.asarray(self, dtype=object)
                return ContextArray._from_sequence(
                    pd.api.extensions.take(values, indices, allow_fill=True,
                                           fill_value=fill_value))
            if (indices < -1).any():
                raise ValueError("take: indices below -1 with allow_fill")
            if len(self._rows) == 0 and (indices >= 0).any():
                raise IndexError("take from an empty array")
            rows = np.where(indices >= 0, self._rows[np.maximum(indices, 0)]
                            if len(self._rows) else -1, -1)
            return ContextArray(self._chains, rows)
        return ContextArray(self._chains, self._rows[indices])

    def copy(self):
        return ContextArray(self._chains, self._rows.copy())

    def _values_for_factorize(self):
        values = np.asarray(self, dtype=object)
        values[self.isna()] = None
        return values, None

    def _values_for_argsort(self):
        values = np.asarray(self, dtype=object)
        values[self.isna()] = ""
        return values

    def value_counts(self, dropna=True):
        return pd.Series(np.asarray(self, dtype=object)).value_counts(dropna=dropna)

    def _formatter(self, boxed=False):
        return str if boxed else repr

    def astype(self, dtype, copy=True):
        if isinstance(dtype, ContextDtype) or (isinstance(dtype, str) and dtype == "context"):
            return self.copy() if copy else self
        return super().astype(dtype, copy=copy)

    # --- comparisons: with one string without building the strings ---------------------
    def _eq_string(self, s):
        out = np.zeros(len(self._rows), dtype=bool)
        present = self._rows >= 0
        lengths = self._chains.lengths()
        rows = np.where(present, self._rows, 0)
        candidates = np.flatnonzero(present & (lengths[rows] == len(s)) if len(rows) else
                                    np.zeros(0, bool))
        for i in candidates:
            out[i] = self._chains.equals(int(self._rows[i]), s)
        return out

    def __eq__(self, other):
        if isinstance(other, (pd.Series, pd.Index, pd.DataFrame)):
            return NotImplemented
        if isinstance(other, str):
            return self._eq_string(other)
        if other is None:
            return np.zeros(len(self), dtype=bool)
        return np.asarray(self, dtype=object) == np.asarray(other, dtype=object)

    def __ne__(self, other):
        eq = self.__eq__(other)
        if eq is NotImplemented:
            return eq
        return ~eq
