"""A matrix whose rows are another matrix's rows plus a few appended ones, merged at read.

What a dense index that followed an update holds (:mod:`skbsearch.index.dense_live`): the
base matrix (memory-mapped, never copied), a small matrix of the vectors embedded since
(new and changed nodes) and, per live row, where its vector is (``pos``: a base row, or
``len(base) + j`` for appended row ``j``). Deleted and replaced base rows are simply not
referenced (tombstones). Inner products are computed against the base and the appended rows
and gathered into live order, so a search costs what it costs on a plain matrix; rows are
gathered on demand; ``np.asarray`` folds it into one matrix (what saving an index does, so
a compaction writes a plain matrix).
"""

from __future__ import annotations

from typing import Any

import numpy as np


class RowMappedMatrix:
    """``concat(base, appended)[pos]`` without building it (see the module docstring)."""

    def __init__(self, base: np.ndarray, appended: np.ndarray, pos: np.ndarray) -> None:
        self.base, self.appended = base, np.asarray(appended, np.float32)
        self.pos = np.asarray(pos, np.int64)
        self.shape = (len(self.pos), int(base.shape[1]))
        self.ndim, self.dtype = 2, np.dtype(np.float32)

    def __len__(self) -> int:
        return self.shape[0]

    def __getitem__(self, rows: Any) -> np.ndarray:
        """The vectors of live ``rows`` (an index array, a slice or an int)."""
        src = self.pos[rows]
        nb = len(self.base)
        if np.ndim(src) == 0:
            i = int(src)
            return np.asarray(self.base[i] if i < nb else self.appended[i - nb], np.float32)
        src = np.asarray(src, np.int64)
        out = np.empty((len(src), self.shape[1]), np.float32)
        in_base = src < nb
        out[in_base] = self.base[src[in_base]]
        out[~in_base] = self.appended[src[~in_base] - nb]
        return out

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        out = self[np.arange(self.shape[0])]
        return out if dtype is None else out.astype(dtype, copy=False)

    def inner(self, queries: np.ndarray) -> np.ndarray:
        """``queries @ self.T`` (``(n_queries, rows)``): base and appended rows scored
        separately, then gathered into live order."""
        q = np.asarray(queries, np.float32)
        both = np.concatenate([q @ np.asarray(self.base).T, q @ self.appended.T], axis=1)
        return both[:, self.pos]
