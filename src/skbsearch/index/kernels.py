"""Compiled BM25 kernels: the exact top ``k`` of one query or of a batch (numba).

:func:`top_k_blocked` reads a term x document score matrix in CSC form (bm25s's
``indptr``/``indices``/``data``: per term, its postings sorted by row) and returns the ``k``
best matching documents of one query, best first, ties to the lower row:

1. the documents are taken :data:`BLOCK` rows at a time; each query term keeps a cursor in
   its postings, and the block's postings of every term are added, in query order, into a
   block-sized score array (so the scores are bit-identical to bm25s's ``get_scores``, and
   the adds hit a cache-resident array: at 1M documents a whole-index array of 4 MB misses
   on most of them);
2. the block's positive scores above the ``k``-th best so far are buffered as they are read
   (the buffer cut back to the ``k`` best when full): no heap whose work would depend on the
   order of the rows (a node-type-ordered index can have scores rising with the row);
3. a block that no posting reaches is skipped, and one with fewer postings than an eighth
   of its rows (:data:`SPARSE_SHARE`) reads back only the rows they reach, in the order
   reached (an entry enters when it beats the ``k``-th best so far by score, then by row, so
   the order does not change what is kept): a query of rare terms costs its postings, not a
   scan of every document.

Nothing over every document is allocated or cleared per query. :func:`top_k_batch` runs
many queries in parallel chunks, each with its own block array. Compiled with
``cache=True``: the machine code is written beside this file (or to numba's user cache
directory) on first use, and later processes load it in milliseconds. Without numba,
:data:`AVAILABLE` is False and callers use their numpy path.
"""

from __future__ import annotations

import threading

import numpy as np

try:
    from numba import get_num_threads, njit, prange

    AVAILABLE = True
except ImportError:  # pragma: no cover - depends on the environment
    AVAILABLE = False

    def njit(*args, **kwargs):  # type: ignore[no-redef]  # the stand-in where numba is missing
        """Without numba: the function stays plain Python (the index then takes its numpy
        paths; the postings passes of bm25_postings run as Python loops: right, but slow)."""
        return lambda f: f

    prange = range  # type: ignore[misc]  # without numba: a plain loop (numba types prange as a class)

    def get_num_threads() -> int:
        """Without numba: one thread."""
        return 1

#: numba's default (workqueue) threading layer aborts the process when two threads launch
#: parallel kernels at once: :func:`top_k_batch` runs under this lock
PARALLEL_LOCK = threading.Lock()


def threads(n_threads: int) -> int:
    """Threads for a parallel kernel: ``-1``: numba's thread count (all cores), ``0``/``1``: one."""
    return int(get_num_threads()) if n_threads == -1 else max(1, int(n_threads))


# ---------------------------------------------------------------------- blocked top k
#: documents summed at a time by :func:`top_k_blocked`: their scores (128 KiB) stay in the
#: core's second-level cache while every query term's postings in that range are added
BLOCK = 32768
#: a block of ``block`` rows with at most ``block // SPARSE_SHARE`` postings (all query terms
#: together) is not scanned: the rows its postings reach are read back (a query of rare
#: terms over 1M documents costs its postings, not a scan of 31 blocks, ~0.5 ms)
SPARSE_SHARE = 8


@njit(cache=True, nogil=True)
def _first_at(indices, p, end, d):  # pragma: no cover - compiled
    """The first position in ``p .. end`` whose row is at least ``d`` (``end`` if none)."""
    lo, hi = p, end
    while lo < hi:
        mid = (lo + hi) // 2
        if indices[mid] < d:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True, nogil=True)
def _keep_best(hs, hr, n, k):  # pragma: no cover - compiled
    """Keep the ``k`` best of ``n`` buffered entries (distinct rows, in any order), in place:
    every score above the ``k``-th, then that score's lowest rows. Returns ``(count, k-th
    score, highest row kept at that score)``: a later entry enters only if it beats that pair
    (a higher score, or the same score and a lower row)."""
    kth = np.partition(hs[:n].copy(), n - k)[n - k]
    above = 0
    tied = 0
    for i in range(n):
        if hs[i] > kth:
            above += 1
        elif hs[i] == kth:
            tied += 1
    ties = k - above
    rows = np.empty(tied, np.int64)
    t = 0
    for i in range(n):
        if hs[i] == kth:
            rows[t] = hr[i]
            t += 1
    cut = np.partition(rows, ties - 1)[ties - 1] if ties < tied else rows.max()
    m = 0
    for i in range(n):
        s = hs[i]
        if s > kth or (s == kth and hr[i] <= cut):
            hs[m] = s
            hr[m] = hr[i]
            m += 1
    return m, kth, cut


@njit(cache=True, nogil=True)
def _sparse_block(indices, data, nq, lo, cur, stops, touched, acc, mask, use_mask, k, hs, hr, n, thr,
                  trow):  # pragma: no cover - compiled
    """One block with at most ``len(touched)`` postings: added into ``acc`` as in the full
    pass, then only the rows they reach read back (in the order reached: an entry enters when
    it beats the ``k``-th best so far, score then row, so the order does not matter; a row
    reached twice reads 0 the second time). Returns ``(n, thr, trow)``."""
    nt = 0
    for q in range(nq):
        for i in range(cur[q], stops[q]):
            r = indices[i] - lo
            acc[r] += data[i]
            touched[nt] = r
            nt += 1
        cur[q] = stops[q]
    cap = len(hs)
    for x in range(nt):
        j = touched[x]
        s = acc[j]
        acc[j] = 0.0
        row = lo + j
        if (s > thr or (s == thr and row < trow)) and (not use_mask or mask[row]):
            if n == cap:
                n, thr, trow = _keep_best(hs, hr, n, k)
                if not (s > thr or (s == thr and row < trow)):
                    continue
            hs[n] = s
            hr[n] = row
            n += 1
    return n, thr, trow


@njit(cache=True, nogil=True)
def _add_block(indices, data, slots, dense, nq, lo, hi, cur, stops, acc):  # pragma: no cover - compiled
    """Every query term's scores in rows ``lo .. hi`` added into ``acc``, in query order (as
    bm25s adds them): a term with a dense row (``slots[q] >= 0``) in one vectorised pass, the
    others posting by posting."""
    for q in range(nq):
        sl = slots[q]
        if sl >= 0:
            row = dense[sl]
            for j in range(hi - lo):
                acc[j] += row[lo + j]
            continue
        for i in range(cur[q], stops[q]):
            acc[indices[i] - lo] += data[i]
        cur[q] = stops[q]


@njit(cache=True, nogil=True)
def _blocked_query(indptr, indices, data, toks, slots, dense, mask, use_mask, k, n_docs, block, acc, cur, stops,
                   touched, hs, hr):  # pragma: no cover - compiled
    """The ``k`` best (unordered) into ``hs``/``hr`` (see :func:`top_k_blocked`); returns
    how many. ``acc`` (``block`` zeros, left so), ``cur`` and ``stops`` (a slot per query
    term), ``touched`` (the most postings a block read back row by row has) and ``hs``/``hr``
    (at least ``2 * k`` slots) are work buffers."""
    nq = len(toks)
    has_dense = False
    for q in range(nq):
        cur[q] = indptr[toks[q]]
        has_dense |= slots[q] >= 0
    n = 0
    cap = len(hs)
    # the k-th best (score, row) so far once k are known (before: 0 and no row, so only a
    # positive score enters); in a scanned block rows come in ascending order, above trow,
    # so there an entry needs a higher score
    thr = np.float32(0.0)
    trow = np.int64(-1)
    for lo in range(0, n_docs, block):
        hi = min(lo + block, n_docs)
        m = 0  # the block's postings
        for q in range(nq):
            if slots[q] < 0:
                end = indptr[toks[q] + 1]
                stop = end if hi == n_docs else _first_at(indices, cur[q], end, hi)
                stops[q] = stop
                m += stop - cur[q]
        if not has_dense:
            if m == 0:  # no posting: every score in the block is 0
                continue
            if m <= len(touched):  # fewer postings than rows to scan: read back only the rows they reach
                n, thr, trow = _sparse_block(indices, data, nq, lo, cur, stops, touched, acc, mask, use_mask,
                                             k, hs, hr, n, thr, trow)
                continue
        _add_block(indices, data, slots, dense, nq, lo, hi, cur, stops, acc)
        for j in range(hi - lo):
            s = acc[j]
            acc[j] = 0.0
            if s > thr and (not use_mask or mask[lo + j]):
                if n == cap:  # a full buffer: keep the k best, raise the bar
                    n, thr, trow = _keep_best(hs, hr, n, k)
                    if not s > thr:
                        continue
                hs[n] = s
                hr[n] = lo + j
                n += 1
    if n > k:
        n = _keep_best(hs, hr, n, k)[0]
    return n


@njit(cache=True, nogil=True)
def _ranked(hs, hr, n, out_rows, out_scores):  # pragma: no cover - compiled
    """The heap's entries best first, ties to the lower row, into the outputs."""
    order = np.argsort(hr[:n])  # by row, then stably by descending score
    rows = hr[:n][order]
    scores = hs[:n][order]
    best = np.argsort(-scores, kind="mergesort")
    out_rows[:n] = rows[best]
    out_scores[:n] = scores[best]


@njit(cache=True, nogil=True)
def top_k_blocked(indptr, indices, data, toks, slots, dense, mask, use_mask, k, n_docs,
                  block):  # pragma: no cover - compiled
    """Rows (int64) and scores (float32) of the ``k`` best documents of one query (term ids
    ``toks``, in query order) with a positive score, best first, ties to the lower row;
    ``slots``: each term's row in ``dense`` (its scores over every document) or -1;
    ``mask``: the allowed rows (when ``use_mask``). Summed ``block`` documents at a time:
    each query term keeps a cursor in its postings (sorted by row), the postings of the block
    are added into a block-sized array (cache-resident, so the adds never miss; no array over
    every document is allocated or cleared), and the block's scores above the ``k``-th best
    so far are buffered as they are read (the buffer cut back to the ``k`` best when full: no
    heap, whatever the order of the scores); blocks without postings are skipped, blocks
    with few read back only the rows they reach."""
    hs = np.empty(4 * max(k, 1) + 64, np.float32)
    hr = np.empty(4 * max(k, 1) + 64, np.int64)
    acc = np.zeros(block, np.float32)
    cur = np.empty(len(toks), np.int64)
    stops = np.empty(len(toks), np.int64)
    touched = np.empty(max(1, block // SPARSE_SHARE), np.int32)
    n = _blocked_query(indptr, indices, data, toks, slots, dense, mask, use_mask, k, n_docs, block, acc, cur,
                       stops, touched, hs, hr)
    rows = np.empty(n, np.int64)
    scores = np.empty(n, np.float32)
    _ranked(hs, hr, n, rows, scores)
    return rows, scores


@njit(cache=True, nogil=True, parallel=True)
def top_k_batch(indptr, indices, data, flat, slots, dense, ptr, mask, use_mask, k, n_docs, block,
                n_chunks):  # pragma: no cover - compiled
    """:func:`top_k_blocked` of many queries (query ``i``: ``flat[ptr[i]:ptr[i + 1]]``, its
    dense rows ``slots[ptr[i]:ptr[i + 1]]``), in ``n_chunks`` parallel chunks; returns rows
    ``(n, k)``, scores ``(n, k)`` and how many of each row are filled."""
    nq = len(ptr) - 1
    rows = np.zeros((nq, max(k, 1)), np.int64)
    scores = np.zeros((nq, max(k, 1)), np.float32)
    counts = np.zeros(nq, np.int64)
    for c in prange(n_chunks):
        acc = np.zeros(block, np.float32)
        hs = np.empty(4 * max(k, 1) + 64, np.float32)
        hr = np.empty(4 * max(k, 1) + 64, np.int64)
        cur = np.empty(max(1, len(flat)), np.int64)
        stops = np.empty(max(1, len(flat)), np.int64)
        touched = np.empty(max(1, block // SPARSE_SHARE), np.int32)
        for i in range(c, nq, n_chunks):
            if ptr[i + 1] > ptr[i]:
                a, b = ptr[i], ptr[i + 1]
                n = _blocked_query(indptr, indices, data, flat[a:b], slots[a:b], dense, mask, use_mask, k, n_docs,
                                   block, acc, cur, stops, touched, hs, hr)
                _ranked(hs, hr, n, rows[i], scores[i])
                counts[i] = n
    return rows, scores, counts
