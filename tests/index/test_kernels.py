"""The compiled BM25 top-k kernels (``index.kernels``) against a brute-force sum of a random
term x document score matrix: one query and a batch, blocks smaller than the index, ties to
the lower row, a document mask, ``k`` past the matches, a full buffer cut back, and the
thread count. (Through the index and the ``bm25`` stage: tests/index/test_bm25_query.py.)"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from skbsearch.index import kernels

#: no term has a dense score row (those are tested in test_bm25_dense.py)
NO_DENSE = np.zeros((1, 1), np.float32)

pytestmark = pytest.mark.skipif(not kernels.AVAILABLE, reason="numba not installed")


def _matrix(seed: int, n_terms: int = 12, n_docs: int = 300, density: float = 0.08) -> sp.csc_matrix:
    """Terms x documents as the kernels read it (CSC of the documents x terms scores: per
    term, its postings sorted by row); scores from a few values, so ties are common."""
    rng = np.random.default_rng(seed)
    m = sp.random(n_docs, n_terms, density=density, random_state=rng, format="csc", dtype=np.float32)
    m.data = rng.choice(np.array([0.5, 1.0, 1.5, 2.25], np.float32), m.nnz)
    m.sort_indices()
    return m


def _brute(m: sp.csc_matrix, toks: np.ndarray, k: int, mask: np.ndarray | None = None
           ) -> tuple[list[int], list[float]]:
    """The ``k`` best positive sums (float32, terms added in query order), ties to the lower row."""
    dense = m.toarray()
    s = np.zeros(m.shape[0], np.float32)
    for t in toks:
        s += dense[:, t]
    ok = (s > 0) & (mask if mask is not None else True)
    rows = np.flatnonzero(ok)
    order = sorted(rows.tolist(), key=lambda r: (-s[r], r))[:k]
    return order, [float(s[r]) for r in order]


def _one(m: sp.csc_matrix, toks: np.ndarray, k: int, block: int, mask: np.ndarray | None = None):  # noqa: ANN202
    use = mask is not None
    no_rows = np.full(len(toks), -1, np.int32)  # every term read from its postings, no dense row
    return kernels.top_k_blocked(m.indptr.astype(np.int64), m.indices.astype(np.int32), m.data, toks,
                                 no_rows, NO_DENSE, mask if use else np.zeros(1, np.bool_), use, k,
                                 m.shape[0], block)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("block", [kernels.BLOCK, 64, 7])
def test_one_query_is_the_exact_top_k(seed: int, block: int) -> None:
    m = _matrix(seed)
    rng = np.random.default_rng(100 + seed)
    toks = rng.choice(m.shape[1], 4, replace=True).astype(np.int64)  # a term may repeat
    for k in (1, 5, 40, 1000):
        rows, scores = _one(m, toks, k, block)
        want_rows, want_scores = _brute(m, toks, k)
        assert rows.tolist() == want_rows
        assert scores.tolist() == want_scores  # bit-identical float32 sums
        assert np.all(np.diff(scores) <= 0)


def test_a_mask_keeps_only_its_documents() -> None:
    m = _matrix(5)
    toks = np.array([0, 3, 7], np.int64)
    mask = np.zeros(m.shape[0], np.bool_)
    mask[::3] = True
    rows, scores = _one(m, toks, 10, 64, mask)
    assert rows.tolist() == _brute(m, toks, 10, mask)[0] and all(mask[r] for r in rows)
    none, _ = _one(m, toks, 10, 64, np.zeros(m.shape[0], np.bool_))
    assert none.tolist() == []


def test_many_ties_fill_and_cut_the_buffer_to_the_lowest_rows() -> None:
    """Every document scores the same: the buffer fills many times over (it holds ``4k + 64``)
    and the ``k`` lowest rows win."""
    n = 2000
    m = sp.csc_matrix(np.ones((n, 1), np.float32))
    rows, scores = _one(m, np.array([0], np.int64), 3, 128)
    assert rows.tolist() == [0, 1, 2] and scores.tolist() == [1.0, 1.0, 1.0]
    rising = sp.csc_matrix(np.arange(1, n + 1, dtype=np.float32).reshape(n, 1))  # scores rise with the row
    top, _ = _one(rising, np.array([0], np.int64), 5, 128)
    assert top.tolist() == [n - 1, n - 2, n - 3, n - 4, n - 5]


def test_a_batch_equals_its_queries_one_by_one() -> None:
    m = _matrix(9, n_docs=500)
    rng = np.random.default_rng(3)
    queries = [rng.choice(m.shape[1], rng.integers(1, 5)).astype(np.int64) for _ in range(9)]
    queries[4] = np.zeros(0, np.int64)  # an empty query: no result
    flat = np.concatenate(queries)
    ptr = np.concatenate([[0], np.cumsum([len(q) for q in queries])]).astype(np.int64)
    for n_chunks in (1, 3):
        rows, scores, counts = kernels.top_k_batch(
            m.indptr.astype(np.int64), m.indices.astype(np.int32), m.data, flat,
            np.full(len(flat), -1, np.int32), NO_DENSE, ptr, np.zeros(1, np.bool_), False, 6, m.shape[0], 100,
            n_chunks)
        assert rows.shape == (9, 6) and counts[4] == 0
        for i, q in enumerate(queries):
            one_rows, one_scores = _one(m, q, 6, 100) if len(q) else (np.zeros(0), np.zeros(0))
            assert rows[i, :counts[i]].tolist() == one_rows.tolist()
            assert scores[i, :counts[i]].tolist() == one_scores.tolist()


def test_threads() -> None:
    assert kernels.threads(0) == kernels.threads(1) == 1
    assert kernels.threads(3) == 3
    assert kernels.threads(-1) >= 1
