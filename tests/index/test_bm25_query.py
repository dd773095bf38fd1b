"""The BM25 query path (index.bm25_query + the blocked kernels) against a full pass of bm25s's
own scoring, on the generated catalogue's documents and queries: the same rows, bit-identical
scores, ties to the lower row; one query, a batch in parallel and serially, with and without a
filter mask, and the ``bm25`` stage's Run against bm25s's numpy retrieval."""

from __future__ import annotations

import numpy as np
import pytest

from skbsearch.core.types import Query
from skbsearch.index import kernels
from skbsearch.index.sparse import BM25Index
from skbsearch.retrieve.sparse import BM25Retriever
from skbsearch.synth.catalogue import generate_catalogue

pytestmark = pytest.mark.skipif(not kernels.AVAILABLE, reason="numba not installed")


@pytest.fixture(scope="module")
def catalogue() -> tuple[BM25Index, list[Query]]:
    """The default index (document + relation lines, two fields summed) of a generated
    catalogue, and its queries."""
    ds = generate_catalogue(1500, seed=3, n_queries=60)
    index = BM25Index.default_for_skb(ds.skb)
    return index, [Query(q.id, q.text) for q in ds.queries]


def _reference(index: BM25Index, toks: list[int], k: int, mask: np.ndarray | None) -> tuple[list[int], np.ndarray]:
    """bm25s's ``get_scores`` over every document, sorted by (score desc, row asc)."""
    s = index.bm25.get_scores_from_ids(toks)
    rows = [r for r in np.flatnonzero(s > 0).tolist() if mask is None or mask[r]]
    rows.sort(key=lambda r: (-s[r], r))
    return rows[:k], s[rows[:k]]


@pytest.mark.parametrize("block", [kernels.BLOCK, 64])
def test_top_rows_and_batches_equal_a_full_bm25s_pass(catalogue, block, monkeypatch) -> None:
    """Every query, k of 1, 10 and more than match, blocks of the default size and of 64 rows
    (many block edges inside every posting list): nothing differs, not even in the last bit."""
    monkeypatch.setattr(kernels, "BLOCK", block)
    index, queries = catalogue
    toks = index.tokenize([q.text for q in queries])
    toks[0] = toks[0] + toks[0][:1]  # a repeated query word counts twice
    mask = np.random.default_rng(0).random(index.num_docs) < 0.6
    for k in (1, 10, 5000):
        for m in (None, mask):
            refs = [_reference(index, t, k, m) for t in toks]
            for i, t in enumerate(toks):
                rows, scores = index.top_rows(t, k, m)
                assert rows.tolist() == refs[i][0], (queries[i].text, k)
                assert np.array_equal(scores, refs[i][1])
            for threads in (1, 2):
                rows, scores, counts = index.top_rows_many(toks, k, m, n_threads=threads)
                for i, (r_ref, s_ref) in enumerate(refs):
                    assert rows[i, : counts[i]].tolist() == r_ref, (queries[i].text, k, threads)
                    assert np.array_equal(scores[i, : counts[i]], s_ref)


def test_stage_runs_equal_bm25s_numpy_retrieval(catalogue) -> None:
    """The ``bm25`` stage through the kernels (one query, a batch) returns what it returns
    through bm25s's numpy retrieval, mask included: the same scores, bit for bit, for the same
    documents (bm25s's partition picks any of the documents tied at the ``k``-th score, the
    kernels the lowest rows, so only those may differ)."""
    index, queries = catalogue
    mask = np.random.default_rng(1).random(index.num_docs) < 0.5
    fast = BM25Retriever(index, k=50, backend="numba", mask=mask)
    slow = BM25Retriever(index, k=50, backend="numpy", mask=mask)
    for got, ref in ((fast(queries), slow(queries)), (fast(queries[:1]), slow(queries[:1]))):
        assert got.keys() == ref.keys()
        for qid in ref:
            a, b = got[qid], ref[qid]
            assert sorted(a.values()) == sorted(b.values()), qid
            kth = min(b.values(), default=0.0)
            assert {d: s for d, s in a.items() if s > kth} == {d: s for d, s in b.items() if s > kth}
            assert all(a[d] == b[d] for d in a.keys() & b.keys())
    assert any(len(v) == 50 for v in fast(queries).values())


def test_batch_drops_token_ids_outside_the_vocabulary(catalogue) -> None:
    """Ids the score matrix does not hold (negative, past its terms) are left out of a batch's
    queries, as of one query's, without shifting the next queries' ids."""
    index, queries = catalogue
    toks = index.tokenize([q.text for q in queries[:4]])
    n_terms = len(index.bm25.scores["indptr"]) - 1
    bad = [[n_terms + 5, *toks[0], -1], [], [10**9], toks[3] + [n_terms]]
    rows, scores, counts = index.top_rows_many(bad, 10, n_threads=2)
    for i, t in enumerate([toks[0], [], [], toks[3]]):
        r, s = index.top_rows(t, 10)
        assert rows[i, : counts[i]].tolist() == r.tolist() and np.array_equal(scores[i, : counts[i]], s)
    assert counts[1] == counts[2] == 0


@pytest.mark.parametrize("block", [64, 256])
def test_rare_terms_read_back_only_the_rows_they_reach(catalogue, block, monkeypatch) -> None:
    """Queries whose blocks hold at most ``block // SPARSE_SHARE`` postings (rare terms: the
    rows they reach are read back, blocks without postings skipped), alone, repeated and beside
    a common term (blocks of both kinds in one query): the rows and bits of bm25s's full pass."""
    monkeypatch.setattr(kernels, "BLOCK", block)
    index, _ = catalogue
    limit = block // kernels.SPARSE_SHARE
    df = np.diff(np.asarray(index.bm25.scores["indptr"]))
    rare = np.flatnonzero((df > 0) & (df <= limit // 4))[:40].tolist()
    common = int(np.argmax(df))
    assert len(rare) == 40 and df[common] > index.num_docs // 2 > limit
    queries = [[t] for t in rare] + [[a, b, a] for a, b in zip(rare[::2], rare[1::2], strict=True)]
    queries += [[t, common] for t in rare[:10]] + [[common, *rare[:5]]]
    mask = np.random.default_rng(2).random(index.num_docs) < 0.5
    for k in (1, 3, 1000):
        for m in (None, mask):
            rows, scores, counts = index.top_rows_many(queries, k, m, n_threads=2)
            for i, t in enumerate(queries):
                ref_rows, ref_scores = _reference(index, t, k, m)
                got_rows, got_scores = index.top_rows(t, k, m)
                assert got_rows.tolist() == ref_rows and np.array_equal(got_scores, ref_scores), (t, k)
                assert rows[i, : counts[i]].tolist() == ref_rows, (t, k)


def test_ties_reached_out_of_row_order_go_to_the_lower_rows(monkeypatch) -> None:
    """Rows read back in the order their terms reach them (higher rows first here) tie: the
    ``k`` kept are still the lowest rows, also when the buffer is cut in the middle of the
    block (more than ``4 k + 64`` entries) and when the block is scanned instead."""
    docs = ["beta filler"] * 100 + ["alpha filler"] * 100  # same length: every match ties
    index = BM25Index.build(docs, [f"d{i}" for i in range(len(docs))], stopwords=None, stemmer=None)
    alpha, beta = (index.tokenize([w])[0][0] for w in ("alpha", "beta"))
    for block in (kernels.BLOCK, 64):  # one block read back row by row; blocks of 64 scanned
        monkeypatch.setattr(kernels, "BLOCK", block)
        for k in (1, 10, 150):
            rows, _ = index.top_rows([alpha, beta], k)
            assert rows.tolist() == list(range(k)), (block, k)
            rows, _, counts = index.top_rows_many([[alpha, beta], [beta, alpha]], k, n_threads=2)
            assert rows[0, : counts[0]].tolist() == rows[1, : counts[1]].tolist() == list(range(k))


def test_ties_among_rare_term_rows_go_to_the_lower_row() -> None:
    """Identical documents tie: the ``k`` kept are the lowest rows, in both kinds of block."""
    docs = ["plain filler words"] * 300
    for r in (7, 40, 41, 150, 299):
        docs[r] = "zebra crossing"
    for r in range(0, 300, 2):
        docs[r] += " common"
    index = BM25Index.build(docs, [f"d{i}" for i in range(len(docs))])
    zebra, common = (index.tokenize([w])[0][0] for w in ("zebra", "common"))
    for toks, k in (([zebra], 3), ([zebra, common], 3), ([common], 5)):
        ref_rows, _ = _reference(index, toks, k, None)
        assert index.top_rows(toks, k)[0].tolist() == ref_rows
    # the three short zebra documents tie; the two with "common" added score lower
    assert index.top_rows([zebra], 2)[0].tolist() == [7, 41]
    assert index.top_rows([zebra], 4)[0].tolist() == [7, 41, 299, 40]


def test_warm_reads_no_posting_and_loads_the_batch_kernel_when_asked(tmp_path, monkeypatch) -> None:
    """``warm`` runs the kernels on a query without terms (no posting is read), the one-query
    kernel only unless ``batch``; a loaded (read-only) index warms its own array variant only,
    one built here the read-only variant too (for its saved copy)."""
    calls: list[tuple[str, int, bool]] = []
    for name in ("top_k_blocked", "top_k_batch"):
        real = getattr(kernels, name)
        monkeypatch.setattr(kernels, name, lambda *a, _n=name, _f=real: (
            calls.append((_n, len(a[3]), bool(a[1].flags.writeable))), _f(*a))[1])
    built = BM25Index.build(["red hat", "blue hat", "red pot"], ["a", "b", "c"])
    built.save(tmp_path / "ix")
    calls.clear()
    loaded = BM25Index.load(tmp_path / "ix")
    loaded.warm()
    assert calls == [("top_k_blocked", 0, False)]
    calls.clear()
    loaded.warm(batch=True)
    assert calls == [("top_k_blocked", 0, False), ("top_k_batch", 0, False)]
    calls.clear()
    built.warm()
    assert calls == [("top_k_blocked", 0, True), ("top_k_blocked", 0, False)]
