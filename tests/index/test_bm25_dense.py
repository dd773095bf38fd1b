"""Dense score rows of the terms in at least half of the documents (index.bm25_dense): built on
first use within the budget, equal to the postings, and the kernels' results through them
bit-identical to bm25s's full pass and to the postings-only path."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

from skbsearch.index import kernels
from skbsearch.index.bm25_dense import BUDGET_SHARE, DenseTerms, release_pages
from skbsearch.index.sparse import BM25Index
from skbsearch.synth.catalogue import generate_catalogue

pytestmark = pytest.mark.skipif(not kernels.AVAILABLE, reason="numba not installed")


@pytest.fixture(scope="module")
def index() -> BM25Index:
    """The default index (document + relation lines) of a generated catalogue: relation
    names are in nearly every document."""
    return BM25Index.default_for_skb(generate_catalogue(800, seed=5, n_queries=1).skb)


def _arrays(index: BM25Index) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return tuple(np.asarray(index.bm25.scores[k]) for k in ("indptr", "indices", "data"))  # type: ignore[return-value]


def test_rows_of_common_terms_within_the_budget(index) -> None:
    indptr, indices, data = _arrays(index)
    df = np.diff(indptr)
    common = np.flatnonzero(df * 2 >= index.num_docs)
    rare = int(np.flatnonzero((df > 0) & (df < 10))[0])
    big = DenseTerms(indptr, index.num_docs, posting_bytes=10**12)  # room for every common term
    slots = big.slots(indptr, indices, data, np.array([rare, *common], np.int64))
    assert slots[0] == -1 and sorted(slots[1:].tolist()) == list(range(len(common))) and len(common) >= 3
    for t, sl in zip(common, slots[1:], strict=True):
        want = np.zeros(index.num_docs, np.float32)
        want[indices[indptr[t]:indptr[t + 1]]] = data[indptr[t]:indptr[t + 1]]
        assert np.array_equal(big.rows[sl], want)
    assert big.slots(indptr, indices, data, common[:1]).tolist() == slots[1:2].tolist()  # kept
    room = 2 * 4 * index.num_docs  # two rows
    small = DenseTerms(indptr, index.num_docs, posting_bytes=int(room / BUDGET_SHARE))
    got = small.slots(indptr, indices, data, common.astype(np.int64))
    assert (got >= 0).sum() == 2 and small.rows.shape == (2, index.num_docs)
    none = DenseTerms(indptr, index.num_docs, posting_bytes=0)
    assert (none.slots(indptr, indices, data, common.astype(np.int64)) == -1).all()


def test_a_term_with_a_repeated_document_keeps_its_postings() -> None:
    indptr = np.array([0, 3, 4])
    indices = np.array([0, 0, 1, 1], np.int32)  # term 0 lists document 0 twice
    data = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    dense = DenseTerms(indptr, 2, posting_bytes=10**6)
    assert dense.slots(indptr, indices, data, np.array([0, 1], np.int64)).tolist() == [-1, 0]


def test_queries_through_dense_rows_equal_postings_and_bm25s(index) -> None:
    """Common terms alone, with rare ones, repeated, in a batch, with a mask: the same rows
    and bits through the dense rows as through the postings only and as bm25s's full pass."""
    indptr, indices, data = _arrays(index)
    df = np.diff(indptr)
    common = np.flatnonzero(df * 2 >= index.num_docs)[:4].tolist()
    others = np.flatnonzero((df > 0) & (df * 2 < index.num_docs))[::7][:12].tolist()
    queries = [[c] for c in common] + [[o, common[0], o] for o in others] + [[*common, *others[:3]]]
    mask = np.random.default_rng(0).random(index.num_docs) < 0.5
    nothing = np.full(1, -1, np.int32)
    for q in queries:
        toks = np.asarray(q, np.int64)
        s = index.bm25.get_scores_from_ids(q)
        for k in (1, 10, 1000):
            for m in (None, mask):
                rows, scores = index.top_rows(q, k, m)
                ref = sorted((r for r in np.flatnonzero(s > 0).tolist() if m is None or m[r]),
                             key=lambda r: (-s[r], r))[:k]
                assert rows.tolist() == ref and np.array_equal(scores, s[ref]), (q, k)
                plain = kernels.top_k_blocked(indptr, indices, data, toks, np.repeat(nothing, len(toks)),
                                              np.zeros((1, 1), np.float32), m if m is not None else np.zeros(1, bool),
                                              m is not None, k, index.num_docs, kernels.BLOCK)
                assert plain[0].tolist() == ref and np.array_equal(plain[1], scores)
    rows, scores, counts = index.top_rows_many(queries, 10, mask, n_threads=2)
    for i, q in enumerate(queries):
        r, s_ = index.top_rows(q, 10, mask)
        assert rows[i, : counts[i]].tolist() == r.tolist() and np.array_equal(scores[i, : counts[i]], s_)
    slots = index._kernel_inputs(np.asarray(common, np.int64))[3]
    assert (slots >= 0).any()  # the dense rows were used


def test_first_use_from_many_threads_builds_each_row_once(index) -> None:
    indptr, indices, data = _arrays(index)
    common = np.flatnonzero(np.diff(indptr) * 2 >= index.num_docs).astype(np.int64)
    dense = DenseTerms(indptr, index.num_docs, posting_bytes=10**12)
    got: list[list[int]] = []

    def run() -> None:
        got.append(dense.slots(indptr, indices, data, common).tolist())

    threads = [threading.Thread(target=run) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 6 and all(g == got[0] for g in got)
    assert sorted(got[0]) == list(range(len(common)))


def test_scores_of_given_rows_read_the_dense_rows_with_the_same_bits(index) -> None:
    """``score_docs`` reads a common term's dense row (at the given documents) once it is
    built: the same sums as bm25s's full pass, before and after."""
    indptr = np.asarray(index.bm25.scores["indptr"])
    df = np.diff(indptr)
    common = np.flatnonzero(df * 2 >= index.num_docs)[:3].tolist()
    rare = np.flatnonzero((df > 0) & (df < 20))[:3].tolist()
    every = np.arange(index.num_docs)
    fresh = BM25Index.default_for_skb(generate_catalogue(800, seed=5, n_queries=1).skb)
    for q in ([*common, *rare], [rare[0], common[1], rare[1], common[0]]):
        before = fresh.score_docs(q, every)
        assert np.array_equal(before, fresh.bm25.get_scores_from_ids(q))
        fresh.top_rows(q, 5)  # builds the dense rows
        assert (fresh._kernel_inputs(np.asarray(q, np.int64))[3] >= 0).any()
        assert np.array_equal(fresh.score_docs(q, every), before)
        assert np.array_equal(fresh.score_docs(q, every[::-3]), before[::-3])


def _resident_kb(path: str) -> int:
    """This process's resident KB of the file ``path`` (Linux's /proc/self/smaps)."""
    total, current = 0, False
    with open("/proc/self/smaps") as f:
        for line in f:
            head = line.split()
            if "-" in head[0] and len(head) >= 5:
                current = len(head) >= 6 and head[-1] == path
            elif current and head[0] == "Rss:":
                total += int(head[1])
    return total


@pytest.mark.skipif(not Path("/proc/self/smaps").is_file(), reason="reads Linux's /proc/self/smaps")
def test_a_memory_mapped_index_lets_go_of_a_dense_terms_posting_pages(tmp_path) -> None:
    docs = [f"common word{i % 50} filler{i % 7}" for i in range(40_000)]
    BM25Index.build(docs, [f"d{i}" for i in range(len(docs))]).save(tmp_path / "ix")
    index = BM25Index.load(tmp_path / "ix")
    indices = np.asarray(index.bm25.scores["indices"])
    term = index.tokenize(["common"])[0]
    a, b = (int(x) for x in np.asarray(index.bm25.scores["indptr"])[[term[0], term[0] + 1]])
    assert b - a == 40_000
    path = str((tmp_path / "ix" / "indices.csc.index.npy").resolve())
    int(indices[a:b].sum())  # the term's postings resident (160 KB)
    before = _resident_kb(path)
    rows, _ = index.top_rows(term, 3)  # builds the term's dense row
    assert (index._kernel_inputs(np.asarray(term, np.int64))[3] >= 0).all()
    assert _resident_kb(path) <= before - 100
    assert rows.tolist() == index.top_rows(term, 3)[0].tolist() == [0, 1, 2]
    assert int(indices[a:b].sum()) == sum(range(40_000))  # read again from the page cache


def test_pages_of_the_process_own_arrays_are_never_dropped() -> None:
    own = np.arange(100_000, dtype=np.int32)
    frozen = own.view()
    frozen.flags.writeable = False
    for arr in (own, frozen):
        release_pages(arr, 0, len(arr))
        assert np.array_equal(arr, np.arange(100_000, dtype=np.int32))
