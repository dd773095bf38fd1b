"""Dense index mechanics on random unit vectors: backends agree, filters are hard, I/O."""

from __future__ import annotations

import json

import numpy as np
import pytest

from skbsearch.core.errors import ArtefactError, InputError
from skbsearch.index.dense import BACKENDS, DenseIndex, DocSource, exact_topk, normalize, top_k

RNG = np.random.default_rng(7)
DOCS = normalize(RNG.standard_normal((2000, 32)))
QUERIES = normalize(RNG.standard_normal((40, 32)))
IDS = [f"d{i}" for i in range(len(DOCS))]


def brute(q: np.ndarray, rows: np.ndarray, k: int) -> list[set[int]]:
    scores = q @ DOCS[rows].T
    return [set(rows[np.argsort(-s)[:k]].tolist()) for s in scores]


@pytest.fixture(scope="module")
def indexes() -> dict[str, DenseIndex]:
    return {b: DenseIndex(IDS, DOCS, backend=b, hnsw_m=16, ef_construction=64) for b in BACKENDS}


def test_top_k_is_sorted_and_deterministic():
    s = np.array([0.1, 0.9, 0.5, 0.9, -1.0], dtype=np.float32)
    rows, scores = top_k(s, 3)
    assert rows.tolist() == [1, 3, 2]  # tie between 1 and 3 broken by position
    assert scores.tolist() == pytest.approx([0.9, 0.9, 0.5])
    assert top_k(s, 10)[0].tolist() == [1, 3, 2, 0, 4]
    assert len(top_k(s, 0)[0]) == 0


def test_numpy_search_is_exact(indexes):
    hits = indexes["numpy"].search(QUERIES, 10)
    want = brute(QUERIES, np.arange(len(DOCS)), 10)
    assert [set(r.tolist()) for r, _ in hits] == want
    r, s = hits[0]
    np.testing.assert_allclose(s, DOCS[r] @ QUERIES[0], rtol=1e-5)
    assert np.all(np.diff(s) <= 0)


def test_numpy_and_faiss_flat_agree(indexes):
    a = indexes["numpy"].search(QUERIES, 25)
    b = indexes["faiss-flat"].search(QUERIES, 25)
    for (ra, sa), (rb, sb) in zip(a, b, strict=True):
        assert ra.tolist() == rb.tolist()
        np.testing.assert_allclose(sa, sb, atol=1e-5)


def test_hnsw_recall_is_high(indexes):
    exact = indexes["numpy"].search(QUERIES, 10)
    approx = indexes["faiss-hnsw"].search(QUERIES, 10)
    recall = np.mean([len(set(e[0]) & set(a[0])) / 10 for e, a in zip(exact, approx, strict=True)])
    assert recall >= 0.95


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("k", [1, 7, 50, 5000])
def test_filters_are_hard_for_any_k(indexes, backend, k):
    index = indexes[backend]
    allowed = np.flatnonzero(RNG.random(len(DOCS)) < 0.01)  # ~20 docs
    for rows, scores in index.search(QUERIES[:5], k, allowed=allowed):
        assert set(rows.tolist()) <= set(allowed.tolist())
        assert len(rows) == min(k, len(allowed))  # never fillers, never short
        assert len(set(rows.tolist())) == len(rows)
        assert np.all(np.diff(scores) <= 1e-6)
    assert all(len(r) == 0 for r, _ in index.search(QUERIES[:2], k, allowed=[]))


def test_hnsw_filter_through_faiss_selector_matches_exact(indexes):
    index = indexes["faiss-hnsw"]
    index.exact_filter_max = 0  # force the FAISS selector path
    allowed = np.arange(0, len(DOCS), 3)
    approx = index.search(QUERIES, 10, allowed=allowed)
    want = brute(QUERIES, allowed, 10)
    recall = np.mean([len(set(r.tolist()) & w) / 10 for (r, _), w in zip(approx, want, strict=True)])
    assert recall >= 0.9
    assert all(set(r.tolist()) <= set(allowed.tolist()) and len(r) == 10 for r, _ in approx)
    index.exact_filter_max = 20_000


def test_filter_rows_out_of_range_raise(indexes):
    with pytest.raises(InputError, match="out of range"):
        indexes["numpy"].search(QUERIES[:1], 3, allowed=[len(DOCS)])


def test_score_rescoring(indexes):
    rows = [np.array([5, 1, 9]), np.array([], dtype=np.int64)]
    out = indexes["numpy"].score(QUERIES[:2], rows)
    np.testing.assert_allclose(out[0], DOCS[[5, 1, 9]] @ QUERIES[0], rtol=1e-5)
    assert out[1].shape == (0,)


def test_exact_topk_blocks_match_single_matmul():
    m = normalize(RNG.standard_normal((300, 8)))
    q = normalize(RNG.standard_normal((70, 8)))
    import skbsearch.index.dense as dense

    old = dense.SCORE_BLOCK
    dense.SCORE_BLOCK = 600  # two queries a block
    try:
        blocked = exact_topk(m, q, 5)
    finally:
        dense.SCORE_BLOCK = old
    assert [r.tolist() for r, _ in blocked] == [r.tolist() for r, _ in exact_topk(m, q, 5)]


@pytest.mark.parametrize("backend", BACKENDS)
def test_save_load_roundtrip_memory_mapped(tmp_path, indexes, backend):
    index = indexes[backend]
    path = index.save(tmp_path / backend)
    man = json.loads((path / "manifest.json").read_text())
    assert man["kind"] == "dense" and man["num_docs"] == len(DOCS)
    assert man["params"]["backend"] == backend
    assert (path / "faiss.index").is_file() == (backend == "faiss-hnsw")
    loaded = DenseIndex.load(path)
    assert isinstance(loaded.embeddings, np.memmap)
    assert loaded.doc_ids == IDS and loaded.backend == backend
    a = [r.tolist() for r, _ in index.search(QUERIES, 10)]
    b = [r.tolist() for r, _ in loaded.search(QUERIES, 10)]
    assert a == b
    assert not list(tmp_path.glob(".*tmp*"))  # no temp dirs left behind


def test_load_errors(tmp_path, indexes):
    with pytest.raises(ArtefactError, match="no such index"):
        DenseIndex.load(tmp_path / "missing")
    path = indexes["numpy"].save(tmp_path / "ix")
    (path / "embeddings.npy").write_bytes(b"garbage")
    with pytest.raises(ArtefactError, match="embeddings.npy"):
        DenseIndex.load(path)
    man = json.loads((path / "manifest.json").read_text())
    man["kind"] = "bm25"
    (path / "manifest.json").write_text(json.dumps(man))
    with pytest.raises(ArtefactError, match="not 'dense'"):
        DenseIndex.load(path)


def test_node_index_maps_skb_indices_to_rows():
    index = DenseIndex(["a", "b", "c"], DOCS[:3], node_index=np.array([10, 4, 7]))
    assert index.rows_for([7, 10, 99]).tolist() == [0, 2]  # node 99 is not indexed
    assert index.row_of("c") == 2 and index.row_of("zzz") is None


def test_bad_inputs():
    with pytest.raises(InputError, match="backend"):
        DenseIndex(IDS, DOCS, backend="annoy")
    with pytest.raises(InputError, match="doc ids"):
        DenseIndex(IDS[:5], DOCS)
    with pytest.raises(InputError, match="duplicate doc id"):
        DocSource.from_any((["a", "b", "a"], ["x", "y", "z"]))
    with pytest.raises(InputError, match="dim"):
        DenseIndex(IDS, DOCS).search(np.ones((1, 5)), 3)
