"""Multi-vector index: chunking invariants, aggregation, hard filters, persistence."""

from __future__ import annotations

import numpy as np
import pytest

from skbsearch.core.errors import ArtefactError, InputError
from skbsearch.index.dense import normalize
from skbsearch.index.multivector import MultiVectorIndex, aggregate, chunk_words, parse_agg


@pytest.mark.parametrize("n", [0, 1, 5, 9, 10, 11, 23, 100])
@pytest.mark.parametrize(("size", "stride"), [(10, 10), (10, 7), (4, 1), (1, 1), (10, 3)])
def test_chunking_invariants(n, size, stride):
    words = [f"w{i}" for i in range(n)]
    chunks = chunk_words(" ".join(words), size, stride)
    parts = [c.split() for c in chunks]
    assert len(chunks) >= 1
    assert all(len(p) <= size for p in parts)
    if n <= size:
        assert parts == [words]
        return
    # each chunk is a contiguous run of words; starts go 0, stride, 2*stride, ...
    starts = [int(p[0][1:]) for p in parts]
    for s, p in zip(starts, parts, strict=True):
        assert p == words[s : s + size] and len(p) == size
    assert starts[0] == 0 and starts[-1] == n - size
    assert all(b - a == stride for a, b in zip(starts[:-2], starts[1:-1], strict=False))
    assert all(0 < b - a <= stride for a, b in zip(starts, starts[1:], strict=False))
    covered = {w for p in parts for w in p}
    assert covered == set(words)  # every word is in some chunk
    assert len(chunks) == 1 + -(-(n - size) // stride)


def test_chunking_normalises_whitespace_and_checks_params():
    assert chunk_words("  a \n b\tc  ", 2, 1) == ["a b", "b c"]
    assert chunk_words("", 5, 2) == [""]
    for size, stride in [(0, 1), (5, 0), (5, 6)]:
        with pytest.raises(InputError):
            chunk_words("a b c", size, stride)


def test_aggregations_hand_computed():
    s = np.array([1, 5, 3, 2, 9, 1, 1, 8], dtype=np.float32)
    off = np.array([0, 3, 4, 8])  # docs: [1,5,3] [2] [9,1,1,8]
    assert aggregate(s, off, "max").tolist() == [5, 2, 9]
    assert aggregate(s, off, "mean").tolist() == pytest.approx([3, 2, 4.75])
    assert aggregate(s, off, "mean-top2").tolist() == pytest.approx([4, 2, 8.5])
    assert aggregate(s, off, "mean-top3").tolist() == pytest.approx([3, 2, 6])
    assert parse_agg("max") == 1 and parse_agg("mean") is None and parse_agg("mean-top3") == 3
    for bad in ("min", "mean-top0", "top3"):
        with pytest.raises(InputError):
            parse_agg(bad)


def test_mean_topn_matches_naive_on_random_segments():
    rng = np.random.default_rng(3)
    counts = rng.integers(1, 9, size=200)
    off = np.concatenate([[0], np.cumsum(counts)])
    s = rng.standard_normal(off[-1]).astype(np.float32)
    for n in (1, 2, 3, 5):
        naive = [np.mean(np.sort(s[a:b])[::-1][:n]) for a, b in zip(off[:-1], off[1:], strict=True)]
        np.testing.assert_allclose(aggregate(s, off, f"mean-top{n}"), naive, rtol=1e-5, atol=1e-6)


RNG = np.random.default_rng(11)
COUNTS = RNG.integers(1, 6, size=300)
OFFSETS = np.concatenate([[0], np.cumsum(COUNTS)])
CHUNKS = normalize(RNG.standard_normal((OFFSETS[-1], 16)))
QUERIES = normalize(RNG.standard_normal((10, 16)))
IDS = [f"doc{i}" for i in range(len(COUNTS))]


def naive_doc_scores(q: np.ndarray, agg: str) -> np.ndarray:
    return aggregate(CHUNKS @ q, OFFSETS, agg)


@pytest.mark.parametrize("agg", ["max", "mean-top3", "mean"])
def test_search_ranks_by_aggregated_chunk_scores(agg):
    index = MultiVectorIndex(IDS, CHUNKS, OFFSETS, agg=agg)
    for q, (rows, scores) in zip(QUERIES, index.search(QUERIES, 8), strict=True):
        full = naive_doc_scores(q, agg)
        assert rows.tolist() == np.argsort(-full, kind="stable")[:8].tolist()
        np.testing.assert_allclose(scores, full[rows], rtol=1e-5)


@pytest.mark.parametrize("k", [1, 5, 1000])
def test_filters_are_hard(k):
    index = MultiVectorIndex(IDS, CHUNKS, OFFSETS, agg="mean-top3")
    allowed = np.array([3, 17, 42, 250, 299])
    for q, (rows, scores) in zip(QUERIES, index.search(QUERIES, k, allowed=allowed), strict=True):
        assert set(rows.tolist()) <= set(allowed.tolist())
        assert len(rows) == min(k, len(allowed))
        np.testing.assert_allclose(scores, naive_doc_scores(q, "mean-top3")[rows], rtol=1e-5)


def test_score_candidates_and_agg_override():
    index = MultiVectorIndex(IDS, CHUNKS, OFFSETS)
    cands = [np.array([9, 2, 77]), np.array([], dtype=np.int64)]
    out = index.score(QUERIES[:2], cands, agg="mean")
    np.testing.assert_allclose(out[0], naive_doc_scores(QUERIES[0], "mean")[[9, 2, 77]], rtol=1e-5)
    assert out[1].shape == (0,)


def test_save_load_roundtrip(tmp_path):
    index = MultiVectorIndex(IDS, CHUNKS, OFFSETS, agg="mean-top3", size=64, stride=48)
    loaded = MultiVectorIndex.load(index.save(tmp_path / "mv"))
    assert isinstance(loaded.embeddings, np.memmap)
    assert (loaded.agg, loaded.size, loaded.stride, loaded.num_chunks) == ("mean-top3", 64, 48,
                                                                          OFFSETS[-1])
    a = [r.tolist() for r, _ in index.search(QUERIES, 5)]
    assert a == [r.tolist() for r, _ in loaded.search(QUERIES, 5)]
    np.save(tmp_path / "mv" / "chunk_offsets.npy", OFFSETS[:-1])
    with pytest.raises(ArtefactError, match="inconsistent"):
        MultiVectorIndex.load(tmp_path / "mv")


def test_offsets_must_give_every_doc_a_chunk():
    with pytest.raises(InputError, match="offsets"):
        MultiVectorIndex(["a", "b"], CHUNKS[:3], np.array([0, 3, 3]))
    with pytest.raises(InputError, match="offsets"):
        MultiVectorIndex(["a", "b"], CHUNKS[:3], np.array([0, 1, 2]))
