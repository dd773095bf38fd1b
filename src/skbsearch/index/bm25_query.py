"""The query side of a BM25 index: the exact top ``k`` of one query or of a batch, and the
scores of given documents, over the term x document score matrix (bm25s's CSC arrays).

With numba, :meth:`BM25Query.top_rows` and :meth:`BM25Query.top_rows_many` run the blocked
kernel of :mod:`skbsearch.index.kernels`: the documents are summed a cache-sized block at a
time (every query term's postings in the block, in query order, as bm25s adds them), so no
query allocates, clears or scans an array over every document in main memory; a block no
posting reaches is skipped, one with few postings reads back only their rows, and the terms
in at least half of the documents are added from dense rows
(:mod:`~skbsearch.index.bm25_dense`); a batch runs its queries in parallel chunks, each with
its own block array. The scores are bit-identical to bm25s's ``get_scores``, the ties go to
the lower row. Without numba, numpy passes give the same rows and scores. A saved index's
postings are checked term by term on first use (:mod:`~skbsearch.index.bm25_checks`).
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Sequence

import bm25s
import numpy as np

from skbsearch.index import kernels
from skbsearch.index.bm25_checks import PostingChecks
from skbsearch.index.bm25_dense import DenseTerms

#: the dense rows of a query without any (what :meth:`BM25Query.warm` compiles with)
_NO_ROWS = np.zeros((1, 1), np.float32)
#: one index's dense rows are made once, whichever thread asks first
_DENSE_LOCK = threading.Lock()


class BM25Query:
    """Query-time scoring of :class:`~skbsearch.index.sparse.BM25Index` (a mixin over its
    ``bm25`` arrays and ``num_docs``). Every path that reads postings reads them through
    :meth:`_postings_of`, which checks a saved index's terms on their first use
    (:mod:`~skbsearch.index.bm25_checks`)."""

    bm25: bm25s.BM25
    #: the checks of a saved index's postings, made per term on first use (``None``: an
    #: index built in this process, nothing to check)
    _checks: PostingChecks | None = None

    @property
    def num_docs(self) -> int:
        """Number of indexed documents (the index's own)."""
        raise NotImplementedError

    def _postings(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(indptr, indices, data)`` of the term x document score matrix as plain arrays
        (views of the memory maps: slicing a ``np.memmap`` costs a Python call each)."""
        sc = self.bm25.scores
        return np.asarray(sc["indptr"]), np.asarray(sc["indices"]), np.asarray(sc["data"])

    def _postings_of(self, toks: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`_postings`, once the postings of ``toks`` (valid term ids) are checked."""
        arrays = self._postings()
        if self._checks is not None:
            self._checks.require(*arrays, toks)
        return arrays

    def check_terms(self, token_ids: Sequence[Sequence[int]]) -> None:
        """Check the postings of these queries' terms before something other than this class
        reads them (bm25s's own retrieval; ids outside the vocabulary are ignored): raises
        :class:`~skbsearch.core.errors.ArtefactError` for a damaged term, as a query would."""
        if self._checks is not None:
            indptr = self._postings()[0]
            self._postings_of(self._flat(token_ids, len(indptr) - 1)[0])

    def score_docs(self, token_ids: Sequence[int], rows: np.ndarray) -> np.ndarray:
        """Sparse (matched-term) BM25 scores of the given document rows, without touching others.

        Cost is ``O(len(rows) * log df)`` per query term: each term's postings are sorted by
        document, so the rows are binary-searched in them (a term read as a dense row by the
        kernels: ``O(len(rows))``, the row read at the given documents).
        """
        n_terms = len(self.bm25.scores["indptr"]) - 1
        toks = self._valid(np.asarray(list(token_ids), dtype=np.int64), n_terms)
        indptr, indices, data = self._postings_of(toks)
        dense = self.__dict__.get("_dense_terms")
        # the rows in the postings' own dtype: searchsorted would otherwise convert (copy)
        # every long posting list it searches
        rows = np.asarray(rows).astype(indices.dtype, copy=False)
        out = np.zeros(len(rows), dtype=np.float32)
        for t in toks.tolist():
            a, b = int(indptr[t]), int(indptr[t + 1])
            if a == b:
                continue
            if dense is not None and dense.slot[t] >= 0:  # 0.0 where absent: the same sums
                out += dense.rows[dense.slot[t]][rows]
                continue
            post = indices[a:b]
            pos = np.searchsorted(post, rows)
            pos_c = np.minimum(pos, b - a - 1)
            hit = post[pos_c] == rows
            out[hit] += data[a:b][pos_c[hit]]
        return out

    def top_rows(self, token_ids: Sequence[int], k: int,
                 mask: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The ``k`` best *matching* rows for one query, best first (ties: lower row first),
        with their sparse scores; ``mask``: the allowed rows.

        With numba, the blocked kernel (see the module's doc); without it, numpy passes. Both
        give the same rows and scores (bit-identical to bm25s).
        """
        toks = np.asarray(list(token_ids), dtype=np.int64)
        if not len(toks) or k <= 0 or self.num_docs == 0:
            return np.zeros(0, np.int64), np.zeros(0, np.float32)
        if kernels.AVAILABLE:
            return self._top_rows_compiled(toks, k, mask)
        toks = self._valid(toks, len(self.bm25.scores["indptr"]) - 1)
        self._postings_of(toks)
        scores = self.bm25.get_scores_from_ids(toks.tolist())
        if mask is not None:
            scores = np.where(mask, scores, np.float32(0))
        rows = np.flatnonzero(scores > 0)
        if len(rows) > k:
            rows = rows[top_k(scores[rows], k)]
        order = np.lexsort((rows, -scores[rows]))
        return rows[order].astype(np.int64), scores[rows[order]]

    def top_rows_many(self, token_ids: Sequence[Sequence[int]], k: int, mask: np.ndarray | None = None,
                      n_threads: int = -1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`top_rows` of many queries: ``(rows, scores, counts)``, row ``i`` of the
        ``(n, k)`` arrays filled up to ``counts[i]``; ``n_threads`` (-1: numba's, 0/1: one)
        work on the queries in parallel. Needs numba (:data:`kernels.AVAILABLE`)."""
        flat, ptr = self._flat(token_ids, len(self.bm25.scores["indptr"]) - 1)
        nq = len(ptr) - 1
        use_mask = mask is not None
        m = np.asarray(mask, dtype=bool) if use_mask else np.zeros(1, bool)
        chunks = min(nq, kernels.threads(n_threads))
        if chunks <= 1:  # one thread: no thread pool
            rows = np.zeros((nq, max(k, 1)), np.int64)
            scores = np.zeros((nq, max(k, 1)), np.float32)
            counts = np.zeros(nq, np.int64)
            for i in range(nq):
                r, s = self._top_rows_compiled(flat[ptr[i]:ptr[i + 1]], k, mask)
                rows[i, : len(r)], scores[i, : len(r)], counts[i] = r, s, len(r)
            return rows, scores, counts
        indptr, indices, data, slots, dense = self._kernel_inputs(flat)
        with kernels.PARALLEL_LOCK:
            return kernels.top_k_batch(indptr, indices, data, flat, slots, dense, ptr, m, use_mask, int(k),
                                       int(self.num_docs), kernels.BLOCK, int(chunks))

    @staticmethod
    def _flat(token_ids: Sequence[Sequence[int]], n_terms: int) -> tuple[np.ndarray, np.ndarray]:
        """Many queries' token ids as one array and the offsets of each query's (ids outside
        the ``n_terms`` terms dropped), in two vectorised passes."""
        lens = np.fromiter(map(len, token_ids), np.int64, len(token_ids))
        ptr = np.zeros(len(token_ids) + 1, np.int64)
        np.cumsum(lens, out=ptr[1:])
        flat = np.fromiter(itertools.chain.from_iterable(token_ids), np.int64, int(ptr[-1]))
        ok = (flat >= 0) & (flat < n_terms)
        if not ok.all():
            kept = np.zeros(len(flat) + 1, np.int64)
            np.cumsum(ok, out=kept[1:])
            flat, ptr = flat[ok], kept[ptr]
        return flat, ptr

    @staticmethod
    def _valid(toks: np.ndarray, n_terms: int) -> np.ndarray:
        return toks[(toks >= 0) & (toks < n_terms)]

    def warm(self, batch: bool = False) -> None:
        """Compile the one-query kernel for this index's array types now (and the batch
        kernel with ``batch``), or load them from numba's disk cache (~10 s the first time on
        a machine, under a second after), so that no query pays for it; reads no posting. A
        no-op without numba.

        An index built in this process (writeable arrays) also compiles the read-only variant
        that its saved, memory-mapped copy will use, so that no later open compiles; a loaded
        index loads only its own."""
        if not (kernels.AVAILABLE and self.num_docs):
            return
        arrays = self._postings()
        variants = [arrays]
        if any(a.flags.writeable for a in arrays):
            # memory-mapped (loaded) indexes hand read-only arrays to the kernel: numba
            # compiles that variant separately
            frozen = []
            for a in arrays:
                v = a.view()
                v.flags.writeable = False
                frozen.append(v)
            variants.append((frozen[0], frozen[1], frozen[2]))
        # a query without terms: no posting read
        none, slots, dense, no = np.zeros(0, np.int64), np.zeros(0, np.int32), _NO_ROWS, np.zeros(1, bool)
        for ip, ix, da in variants:
            kernels.top_k_blocked(ip, ix, da, none, slots, dense, no, False, 1, int(self.num_docs), kernels.BLOCK)
            if batch:
                kernels.top_k_batch(ip, ix, da, none, slots, dense, np.zeros(2, np.int64), no, False, 1,
                                    int(self.num_docs), kernels.BLOCK, 1)

    def _top_rows_compiled(self, toks: np.ndarray, k: int,
                           mask: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        toks = self._valid(toks, len(self.bm25.scores["indptr"]) - 1)
        indptr, indices, data, slots, dense = self._kernel_inputs(toks)
        use_mask = mask is not None
        m = np.asarray(mask, dtype=bool) if use_mask else np.zeros(1, bool)
        return kernels.top_k_blocked(indptr, indices, data, toks, slots, dense, m, use_mask, int(k),
                                     int(self.num_docs), kernels.BLOCK)

    def _kernel_inputs(self, toks: np.ndarray) -> tuple[np.ndarray, ...]:
        """What the kernels read for these (valid) term ids: the postings (checked on first
        use), each term's dense row (-1: none) and the rows (:mod:`~skbsearch.index.bm25_dense`)."""
        indptr, indices, data = self._postings_of(toks)
        dense = self.__dict__.get("_dense_terms")
        if dense is None:
            with _DENSE_LOCK:
                dense = self.__dict__.setdefault(
                    "_dense_terms", DenseTerms(indptr, self.num_docs, indices.nbytes + data.nbytes))
        return indptr, indices, data, dense.slots(indptr, indices, data, toks), dense.rows


def top_k(values: np.ndarray, k: int) -> np.ndarray:
    """Positions of the ``k`` largest values (unordered); ties at the ``k``-th value go to
    the lowest positions, so the choice never depends on the selection algorithm.

    On many values, a threshold read off a strided sample keeps only the values that can
    be in the top ``k`` before the selection (exact: the threshold is used only when at
    least ``k`` values reach it).
    """
    n = len(values)
    if k >= n:
        return np.arange(n)
    if k <= 0:
        return np.zeros(0, np.int64)
    cand = None
    if n > 50_000 and n > 20 * k:
        sample = values[:: max(n // 4096, 1)]
        r = min(len(sample) - 1, int(2 * k * len(sample) / n) + 16)
        thr = np.partition(sample, len(sample) - 1 - r)[len(sample) - 1 - r]
        c = np.flatnonzero(values >= thr)
        if len(c) >= k:
            cand = c
    if cand is None:
        cand = np.arange(n)
    v = values[cand]
    kth = np.partition(v, len(v) - k)[len(v) - k]
    above = cand[v > kth]
    return np.concatenate([above, cand[v == kth][: k - len(above)]])

