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
3. a block that no posting reaches is skipped, and one with at most :data:`SPARSE_BLOCK`
   postings reads back only the rows they reach, sorted (the order of the full scan): a
   query of rare terms costs its postings, not a scan of every document (at 1M documents,
   two terms of df < 1,000: ~0.01-0.05 ms instead of ~0.5 ms; the old per-posting kernel,
   which allocated an array over every document, ~0.3 ms).

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
#: a block with at most this many postings (all query terms together) is not scanned: the
#: rows its postings reach are sorted and read back (a rare term's query over 1M documents
#: reads ~10 µs of them instead of scanning 31 blocks, ~0.5 ms)
SPARSE_BLOCK = 64


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
    """Keep the ``k`` best of ``n`` buffered entries (in ascending rows), in place and in
    order: every score above the ``k``-th, then that score's lowest rows. Returns
    ``(count, k-th score)``."""
    kth = np.partition(hs[:n].copy(), n - k)[n - k]
    above = 0
    for i in range(n):
        if hs[i] > kth:
            above += 1
    ties = k - above
    m = 0
    for i in range(n):
        s = hs[i]
        if s > kth or (s == kth and ties > 0):
            if s == kth:
                ties -= 1
            hs[m] = s
            hr[m] = hr[i]
            m += 1
    return m, kth


@njit(cache=True, nogil=True)
def _sparse_block(indptr, indices, data, nq, lo, cur, stops, touched, acc, mask, use_mask, k, hs, hr, n,
                  thr):  # pragma: no cover - compiled
    """One block with at most ``len(touched)`` postings: added into ``acc`` as in the full
    pass, then only the rows they reach read back, in ascending order (the order of the
    full scan, so the same rows enter the buffer). Returns ``(n, thr)``."""
    nt = 0
    for q in range(nq):
        for i in range(cur[q], stops[q]):
            r = indices[i] - lo
            acc[r] += data[i]
            touched[nt] = r
            nt += 1
        cur[q] = stops[q]
    rows = touched[:nt]
    rows.sort()
    cap = len(hs)
    last = -1
    for x in range(nt):
        j = rows[x]
        if j == last:  # a row reached by several terms
            continue
        last = j
        s = acc[j]
        acc[j] = 0.0
        if s > thr and (not use_mask or mask[lo + j]):
            if n == cap:
                n, thr = _keep_best(hs, hr, n, k)
                if not s > thr:
                    continue
            hs[n] = s
            hr[n] = lo + j
            n += 1
    return n, thr


@njit(cache=True, nogil=True)
def _blocked_query(indptr, indices, data, toks, mask, use_mask, k, n_docs, block, acc, cur, stops, touched,
                   hs, hr):  # pragma: no cover - compiled
    """The ``k`` best (unordered) into ``hs``/``hr`` (see :func:`top_k_blocked`); returns
    how many. ``acc`` (``block`` zeros, left so), ``cur`` and ``stops`` (a slot per query
    term), ``touched`` (:data:`SPARSE_BLOCK` slots) and ``hs``/``hr`` (at least ``2 * k``
    slots) are work buffers."""
    nq = len(toks)
    for q in range(nq):
        cur[q] = indptr[toks[q]]
    n = 0
    cap = len(hs)
    # the k-th best score so far once k are known: rows come in ascending order, so a later
    # document with that score never enters (ties go to the lower row)
    thr = np.float32(0.0)
    for lo in range(0, n_docs, block):
        hi = min(lo + block, n_docs)
        m = 0  # the block's postings
        for q in range(nq):
            t = toks[q]
            end = indptr[t + 1]
            stop = end if hi == n_docs else _first_at(indices, cur[q], end, hi)
            stops[q] = stop
            m += stop - cur[q]
        if m == 0:  # no posting: every score in the block is 0
            continue
        if m <= len(touched):  # a few postings: read back only the rows they reach
            n, thr = _sparse_block(indptr, indices, data, nq, lo, cur, stops, touched, acc, mask, use_mask, k,
                                   hs, hr, n, thr)
            continue
        for q in range(nq):  # query order: every document's sum adds its terms as bm25s does
            for i in range(cur[q], stops[q]):
                acc[indices[i] - lo] += data[i]
            cur[q] = stops[q]
        for j in range(hi - lo):
            s = acc[j]
            acc[j] = 0.0
            if s > thr and (not use_mask or mask[lo + j]):
                if n == cap:  # a full buffer: keep the k best, raise the bar
                    n, thr = _keep_best(hs, hr, n, k)
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
def top_k_blocked(indptr, indices, data, toks, mask, use_mask, k, n_docs, block):  # pragma: no cover - compiled
    """Rows (int64) and scores (float32) of the ``k`` best documents of one query (term ids
    ``toks``, in query order) with a positive score, best first, ties to the lower row;
    ``mask``: the allowed rows (when ``use_mask``). Summed ``block`` documents at a time: each
    query term keeps a cursor in its postings (sorted by row), the postings of the block are
    added into a block-sized array (cache-resident, so the adds never miss; no array over
    every document is allocated or cleared), and the block's scores above the ``k``-th best
    so far are buffered as they are read (the buffer cut back to the ``k`` best when full: no
    heap, whatever the order of the scores); blocks without postings are skipped, blocks
    with few read back only the rows they reach."""
    hs = np.empty(4 * max(k, 1) + 64, np.float32)
    hr = np.empty(4 * max(k, 1) + 64, np.int64)
    acc = np.zeros(block, np.float32)
    cur = np.empty(len(toks), np.int64)
    stops = np.empty(len(toks), np.int64)
    touched = np.empty(SPARSE_BLOCK, np.int64)
    n = _blocked_query(indptr, indices, data, toks, mask, use_mask, k, n_docs, block, acc, cur, stops, touched,
                       hs, hr)
    rows = np.empty(n, np.int64)
    scores = np.empty(n, np.float32)
    _ranked(hs, hr, n, rows, scores)
    return rows, scores


@njit(cache=True, nogil=True, parallel=True)
def top_k_batch(indptr, indices, data, flat, ptr, mask, use_mask, k, n_docs, block,
                n_chunks):  # pragma: no cover - compiled
    """:func:`top_k_blocked` of many queries (query ``i``: ``flat[ptr[i]:ptr[i + 1]]``), in
    ``n_chunks`` parallel chunks; returns rows ``(n, k)``, scores ``(n, k)`` and how many of
    each row are filled."""
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
        touched = np.empty(SPARSE_BLOCK, np.int64)
        for i in range(c, nq, n_chunks):
            if ptr[i + 1] > ptr[i]:
                n = _blocked_query(indptr, indices, data, flat[ptr[i]:ptr[i + 1]], mask, use_mask, k, n_docs,
                                   block, acc, cur, stops, touched, hs, hr)
                _ranked(hs, hr, n, rows[i], scores[i])
                counts[i] = n
    return rows, scores, counts
