"""Dense score rows for the terms in at least half of a BM25 index's documents.

A term in most documents ("brand", "also", "bought": the relation names of an SKB's node
documents are in nearly all of them) costs a query a posting (8 bytes: a document id and a
score) and a scattered add per document holding it. Its scores laid out as one float32 row
over every document (0 where the term is absent) are added a block at a time in one
vectorised pass instead: 4 bytes per document, no document id, no scatter. The sums stay
bit-identical: a document
without the term adds 0.0, which leaves its sum as it is, and the terms are still added in
query order.

Rows are built on a term's first use (after its postings are checked), kept for the
index's life, and take at most a quarter of the bytes of the index's postings
(:data:`BUDGET_SHARE`); terms beyond that budget stay postings. Once a row is built from a
memory-mapped index, the process lets go of the term's posting pages (:func:`release_pages`:
they stay in the page cache, and a later reader maps them again), so the row replaces them
in memory instead of adding to them.
"""

from __future__ import annotations

import mmap
import threading

import numpy as np

#: the dense rows of an index take at most this share of the bytes of its postings
BUDGET_SHARE = 0.25


class DenseTerms:
    """The dense rows of one index's common terms (see the module's doc).

    Args:
        indptr: the score matrix's term pointers.
        num_docs: its documents.
        posting_bytes: the bytes of its postings (document ids and scores).
    """

    def __init__(self, indptr: np.ndarray, num_docs: int, posting_bytes: int) -> None:
        df = np.diff(np.asarray(indptr))
        n = max(int(num_docs), 1)
        self._want = df * 2 >= n  # in at least half the documents
        self._want &= df > 0
        cap = min(int(self._want.sum()), int(posting_bytes * BUDGET_SHARE) // (4 * n))
        #: per term, its row in :attr:`rows` (-1: none, the term is read from its postings)
        self.slot = np.full(len(df), -1, dtype=np.int32)
        #: the rows (allocated zeroed, so pages of rows not built yet take no memory)
        self.rows = np.zeros((max(cap, 1), n if cap else 1), dtype=np.float32)
        self._cap = cap
        self._used = 0
        self._lock = threading.Lock()

    def slots(self, indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, toks: np.ndarray) -> np.ndarray:
        """Each query term's row (int32, -1 where none), building the rows of common terms on
        their first use while the budget lasts (their postings checked already)."""
        got = self.slot[toks]
        if self._used < self._cap:
            todo = toks[(got < 0) & self._want[toks]]
            if len(todo):
                for t in np.unique(todo).tolist():
                    self._build(indptr, indices, data, t)
                got = self.slot[toks]
        return got

    def _build(self, indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, t: int) -> None:
        with self._lock:
            if self.slot[t] >= 0 or self._used >= self._cap:
                return
            a, b = int(indptr[t]), int(indptr[t + 1])
            rows = indices[a:b]
            if b - a > 1 and not bool((rows[1:] > rows[:-1]).all()):
                self._want[t] = False  # a document twice: its postings add up in order, keep them
                return
            self.rows[self._used, rows] = data[a:b]
            self.slot[t] = self._used  # published once the row is complete
            self._used += 1
        release_pages(indices, a, b)
        release_pages(data, a, b)


def _read_only_map(arr: np.ndarray) -> mmap.mmap | None:
    """The file mapping ``arr`` reads, if it is a view of a read-only ``np.memmap`` (as
    ``np.load(mmap_mode="r")`` makes); ``None`` for memory of the process's own."""
    b: object = arr
    while b is not None:
        if isinstance(b, np.memmap):
            mm = b.base
            return mm if b.mode == "r" and isinstance(mm, mmap.mmap) else None
        b = getattr(b, "base", None)
    return None


def release_pages(arr: np.ndarray, start: int, stop: int) -> None:
    """Let go of this process's resident pages of ``arr[start:stop]`` (whole pages inside the
    range) when ``arr`` is read from a read-only file mapping: its RSS drops, the file's
    pages stay in the page cache, and a later read maps them again. A no-op for any other
    array (dropping pages of the process's own memory would lose them) and where the
    platform has no ``madvise``."""
    mm = _read_only_map(arr)
    if mm is None or not hasattr(mm, "madvise") or stop <= start:
        return
    base = np.frombuffer(mm, np.uint8).ctypes.data
    page = mmap.PAGESIZE
    lo = arr.ctypes.data + start * arr.itemsize - base
    hi = arr.ctypes.data + stop * arr.itemsize - base
    lo = -(-lo // page) * page
    hi = hi // page * page
    if hi > lo:
        mm.madvise(mmap.MADV_DONTNEED, lo, hi - lo)
