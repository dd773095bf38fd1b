"""Compiled BM25 kernel: the exact top ``k`` of one query in one pass (numba).

:func:`top_k_one_query` reads a term x document score matrix in CSC form (bm25s's
``indptr``/``indices``/``data``: per term, its postings) and returns the ``k`` best
matching documents of one query, best first, ties to the lower row:

1. every query term's postings are added into a dense score array, in query order (so
   the scores are bit-identical to bm25s's ``get_scores``);
2. one scan keeps the ``k`` best allowed documents in a heap; only documents above a
   threshold read off a strided sample of the sums enter it, so its work does not depend
   on the order of the rows (a node-type-ordered index can have scores rising with the
   row); if fewer than ``k`` documents reach the threshold, a second scan takes them all.

On a 1M-document index this is ~2x faster than numpy's ``np.add.at`` for the sums, and
the scan replaces the numpy passes that find, mask and select the matching rows (~3x
faster end to end). Compiled with ``cache=True``: the machine code is written beside this
file (or to numba's user cache directory) on first use, and later processes load it in
milliseconds. Without numba, :data:`AVAILABLE` is False and callers use their numpy path.
"""

from __future__ import annotations

import numpy as np

try:
    from numba import njit, prange

    AVAILABLE = True
except ImportError:  # pragma: no cover - depends on the environment
    AVAILABLE = False

    def njit(*args, **kwargs):  # type: ignore[no-redef]  # the stand-in where numba is missing
        """Without numba: the function stays plain Python (the index then takes its numpy
        paths; the postings passes of bm25_postings run as Python loops: right, but slow)."""
        return lambda f: f

    prange = range  # type: ignore[misc]  # without numba: a plain loop (numba types prange as a class)


@njit(cache=True, nogil=True)
def _worse(hs, hr, a, b):  # pragma: no cover - compiled
    """Heap order: entry ``a`` ranks below ``b`` (lower score, or same score, higher row)."""
    return hs[a] < hs[b] or (hs[a] == hs[b] and hr[a] > hr[b])


@njit(cache=True, nogil=True)
def _sift_down(hs, hr, i, n):  # pragma: no cover - compiled
    while True:
        lo = i
        left = 2 * i + 1
        right = left + 1
        if left < n and _worse(hs, hr, left, lo):
            lo = left
        if right < n and _worse(hs, hr, right, lo):
            lo = right
        if lo == i:
            return
        hs[i], hs[lo] = hs[lo], hs[i]
        hr[i], hr[lo] = hr[lo], hr[i]
        i = lo


@njit(cache=True, nogil=True)
def _select(acc, reached, track, m, thr, mask, use_mask, k, hs, hr):  # pragma: no cover - compiled
    """Keep the ``k`` best allowed documents scoring at least ``thr`` (and > 0) in the heap
    ``hs``/``hr`` (root: the worst kept); returns how many it holds."""
    n = 0
    for j in range(m):
        d = reached[j] if track else j
        s = acc[d]
        if s < thr or s <= 0 or (use_mask and not mask[d]):
            continue
        if n < k:
            hs[n] = s
            hr[n] = d
            n += 1
            if n == k:
                for i in range(k // 2 - 1, -1, -1):
                    _sift_down(hs, hr, i, k)
        elif s > hs[0] or (s == hs[0] and d < hr[0]):
            hs[0] = s
            hr[0] = d
            _sift_down(hs, hr, 0, k)
    return n


@njit(cache=True, nogil=True)
def top_k_one_query(indptr, indices, data, toks, mask, use_mask, k, n_docs):  # pragma: no cover - compiled
    """Rows (int64) and scores (float32) of the ``k`` best documents with a positive
    score, best first, ties to the lower row; ``mask``: allowed rows (when ``use_mask``)."""
    acc = np.zeros(n_docs, np.float32)
    total = 0
    for q in range(len(toks)):
        total += indptr[toks[q] + 1] - indptr[toks[q]]
    # few postings: remember the documents they reach and select among those only
    track = 16 * total < n_docs
    reached = np.empty(total if track else 0, np.int64)
    n_reached = 0
    if track:
        seen = np.zeros(n_docs, np.bool_)
        for q in range(len(toks)):
            t = toks[q]
            for p in range(indptr[t], indptr[t + 1]):
                d = indices[p]
                acc[d] += data[p]
                if not seen[d]:
                    seen[d] = True
                    reached[n_reached] = d
                    n_reached += 1
    else:
        for q in range(len(toks)):
            t = toks[q]
            for p in range(indptr[t], indptr[t + 1]):
                acc[indices[p]] += data[p]
    m = n_reached if track else n_docs
    # a threshold read off a strided sample: only the documents above it enter the heap,
    # so its work does not depend on the order of the rows (exact: if fewer than k
    # documents reach it, a second pass takes every document)
    stride = max(1, m // 1024)
    sample = np.empty(m // stride + 1, np.float32)
    n_s = 0
    for j in range(0, m, stride):
        d = reached[j] if track else j
        if acc[d] > 0 and (not use_mask or mask[d]):
            sample[n_s] = acc[d]
            n_s += 1
    thr = np.float32(0.0)
    if n_s > 0:
        r = min(n_s - 1, (2 * k) // stride + 16)
        thr = np.partition(sample[:n_s], n_s - 1 - r)[n_s - 1 - r]
    hs = np.empty(k, np.float32)
    hr = np.empty(k, np.int64)
    n = _select(acc, reached, track, m, thr, mask, use_mask, k, hs, hr)
    if n < k and thr > 0:
        n = _select(acc, reached, track, m, np.float32(0.0), mask, use_mask, k, hs, hr)
    order = np.argsort(hr[:n])  # by row, then stably by descending score
    rows = hr[:n][order]
    scores = hs[:n][order]
    best = np.argsort(-scores, kind="mergesort")
    return rows[best], scores[best]
