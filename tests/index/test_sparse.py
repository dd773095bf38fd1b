"""BM25 index: parity with bm25s, weighted fields, persistence, load errors."""

from __future__ import annotations

import json

import bm25s
import numpy as np
import pytest
import Stemmer

from skbsearch.core.errors import ArtefactError, InputError
from skbsearch.index import available_kinds, get_kind, load_index
from skbsearch.index.sparse import BM25Index
from skbsearch.kb import SKBBuilder

CORPUS = [
    "Red running shoes with cushioned soles for marathon runners",
    "Blue trail running shorts, lightweight and quick drying",
    "A cookbook of Italian pasta recipes and sauces",
    "Waterproof hiking boots for mountain trails",
    "Running socks: breathable, cushioned, pack of three",
    "Stainless steel pasta pot with strainer lid",
    "Kids' running shoes in bright colours",
    "The history of marathon running",
]
IDS = [f"d{i}" for i in range(len(CORPUS))]
QUERIES = ["running shoes", "pasta", "cushioned marathon", "trail boots waterproof", "the of and"]


def _all_scores(index: BM25Index, text: str) -> np.ndarray:
    toks = index.tokenize([text])[0]
    return index.score_docs(toks, np.arange(index.num_docs)) + index.constant(toks)


def _bm25s_scores(texts, query, method="lucene", **kw) -> np.ndarray:
    stem = Stemmer.Stemmer("english")
    ref = bm25s.BM25(method=method, **kw)
    ref.index(bm25s.tokenize(texts, stopwords="en", stemmer=stem, show_progress=False),
              show_progress=False)
    q = bm25s.tokenize([query], stopwords="en", stemmer=stem, show_progress=False,
                       return_ids=False)[0]
    q = [t for t in q if t in ref.vocab_dict]
    if not q:
        return np.zeros(len(texts), dtype=np.float32)
    return ref.get_scores(q)


@pytest.mark.parametrize("method", ["lucene", "robertson", "atire", "bm25+", "bm25l"])
def test_scores_match_bm25s(method):
    index = BM25Index.from_texts(zip(IDS, CORPUS, strict=True), method=method, k1=1.2, b=0.7)
    for q in QUERIES[:4]:
        ours = _all_scores(index, q)
        ref = _bm25s_scores(CORPUS, q, method=method, k1=1.2, b=0.7)
        np.testing.assert_allclose(ours, ref, rtol=1e-5, atol=1e-5)


def test_stopword_only_query_has_no_tokens():
    index = BM25Index.from_texts(zip(IDS, CORPUS, strict=True))
    assert index.tokenize(["the of and"]) == [[]]
    assert index.tokenize(["zzzunknown"]) == [[]]


def test_weighted_fields_are_weighted_sum_of_per_field_bm25():
    titles = ["Red shoes", "Blue shorts", "Pasta book", "Hiking boots"]
    descs = ["Shoes for running", "Running shorts, red trim", "Recipes", "Red leather boots"]
    ids = ["a", "b", "c", "d"]
    index = BM25Index.build({"title": titles, "description": descs}, ids,
                            field_weights={"title": 2.0})
    assert index.params["field_weights"] == {"title": 2.0, "description": 1.0}
    for q in ["red shoes", "running", "boots red", "recipes"]:
        expected = 2 * _bm25s_scores(titles, q) + _bm25s_scores(descs, q)
        np.testing.assert_allclose(_all_scores(index, q), expected, rtol=1e-5, atol=1e-5)


def test_field_weight_zero_drops_field_and_bad_weights_raise():
    index = BM25Index.build({"title": ["x apple", "y"], "body": ["y", "apple"]}, ["1", "2"],
                            field_weights={"body": 0})
    assert _all_scores(index, "apple")[1] == 0
    with pytest.raises(InputError, match="unknown field"):
        BM25Index.build({"title": ["a"]}, ["1"], field_weights={"nope": 1})
    with pytest.raises(InputError, match=">= 0"):
        BM25Index.build({"title": ["a"]}, ["1"], field_weights={"title": -1})
    with pytest.raises(InputError, match="not unique"):
        BM25Index.build(["a", "b"], ["1", "1"])
    with pytest.raises(InputError, match="method"):
        BM25Index.build(["a"], ["1"], method="bm26")
    with pytest.raises(InputError, match="texts for"):
        BM25Index.build({"t": ["a"]}, ["1", "2"])


def test_stemming_and_no_stemming():
    stemmed = BM25Index.from_texts([("1", "running runners"), ("2", "walk")])
    plain = BM25Index.from_texts([("1", "running runners"), ("2", "walk")], stemmer=None)
    assert stemmed.tokenize(["runs"])[0] and not plain.tokenize(["runs"])[0]
    with pytest.raises(InputError, match="stemmer"):
        BM25Index.from_texts([("1", "a")], stemmer="klingon")


def test_save_load_mmap_roundtrip(tmp_path):
    index = BM25Index.from_texts(zip(IDS, CORPUS, strict=True), method="bm25+")
    index.save(tmp_path / "ix")
    loaded = BM25Index.load(tmp_path / "ix")
    assert isinstance(loaded.bm25.scores["data"], np.memmap)
    assert loaded.doc_ids == IDS and loaded.params == index.params
    for q in QUERIES:
        np.testing.assert_allclose(_all_scores(loaded, q), _all_scores(index, q))
    # the directory is a plain bm25s index as well
    raw = bm25s.BM25.load(tmp_path / "ix", mmap=True)
    assert raw.scores["num_docs"] == len(CORPUS)
    assert load_index(tmp_path / "ix").doc_ids == IDS


def test_save_overwrite_false_keeps_existing(tmp_path):
    BM25Index.from_texts([("1", "apple")]).save(tmp_path / "ix")
    with pytest.raises(FileExistsError):
        BM25Index.from_texts([("2", "pear")]).save(tmp_path / "ix", overwrite=False)
    assert BM25Index.load(tmp_path / "ix").doc_ids == ["1"]


def test_load_errors(tmp_path):
    with pytest.raises(ArtefactError, match="no such index"):
        BM25Index.load(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ArtefactError, match="manifest"):
        BM25Index.load(tmp_path / "empty")
    ix = tmp_path / "ix"
    BM25Index.from_texts([("1", "apple"), ("2", "pear")]).save(ix)
    man = json.loads((ix / "manifest.json").read_text())
    (ix / "manifest.json").write_text(json.dumps({**man, "version": 99}))
    with pytest.raises(ArtefactError, match="version 99"):
        BM25Index.load(ix)
    (ix / "manifest.json").write_text(json.dumps({**man, "kind": "dense"}))
    with pytest.raises(ArtefactError, match="'dense' index"):
        BM25Index.load(ix)
    (ix / "manifest.json").write_text("{not json")
    with pytest.raises(ArtefactError, match="corrupt manifest"):
        BM25Index.load(ix)
    (ix / "manifest.json").write_text(json.dumps(man))
    (ix / "doc_ids.json").write_text(json.dumps(["1"]))
    with pytest.raises(ArtefactError, match="1 doc ids for 2"):
        BM25Index.load(ix)
    (ix / "doc_ids.json").write_text(json.dumps(["1", "2"]))
    (ix / "data.csc.index.npy").unlink()
    with pytest.raises(ArtefactError, match="damaged"):
        BM25Index.load(ix)


def _shop():
    b = SKBBuilder()
    b.add_node("p1", "product", "Trail Runner", {"description": "running shoes for trails"},
               {"price": 80.0})
    b.add_node("p2", "product", "Pasta Pot", {"description": "a steel pot"}, {"price": 15.0})
    b.add_node("b1", "brand", "Acme")
    b.add_edge("p1", "has_brand", "b1")
    b.add_edge("p2", "has_brand", "b1")
    return b.build()


def test_registry():
    assert "bm25" in available_kinds()
    kind = get_kind("bm25")
    index = kind.build(_shop())
    assert index.num_docs == 3
    assert kind.retriever(index, k=2).search("pasta")[0][0] == "p2"
    with pytest.raises(InputError, match="unknown index kind"):
        get_kind("nope")


def _reference_top(index: BM25Index, toks: list[int], k: int, mask: np.ndarray | None):
    """A full pass (bm25s's get_scores), then the k best matching rows, ties to the lower row."""
    s = index.bm25.get_scores_from_ids(toks) if toks else np.zeros(index.num_docs, np.float32)
    rows = [r for r in range(index.num_docs) if s[r] > 0 and (mask is None or mask[r])]
    rows.sort(key=lambda r: (-s[r], r))
    rows = rows[:k]
    return np.array(rows, dtype=np.int64), s[rows]


@pytest.mark.parametrize("method", ["lucene", "robertson", "bm25+"])
@pytest.mark.parametrize("compiled", [True, False])
def test_top_rows_equals_a_full_pass(method, compiled, monkeypatch):
    """Compiled kernel and numpy path: same rows, bit-identical scores, ties to the lower row
    (repeated words give many ties), with and without a mask, repeated query tokens, and
    both the every-document scan and the few-postings path of the kernel."""
    from skbsearch.index import kernels

    if compiled and not kernels.AVAILABLE:
        pytest.skip("numba not installed")
    monkeypatch.setattr(kernels, "AVAILABLE", compiled)
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(40)]
    texts = [" ".join(rng.choice(words, size=rng.integers(1, 6), p=None)) for _ in range(3000)]
    texts += ["w0 w1"] * 50  # identical documents: exact ties
    texts += ["zq w1", "zq", "w2 zq zq"] * 3  # a rare word: the kernel's few-postings path
    index = BM25Index.from_texts(((f"d{i}", t) for i, t in enumerate(texts)), method=method,
                                 stemmer=None, stopwords=None)
    mask = rng.random(index.num_docs) < 0.5
    vocab = index.tokenize([" ".join(words)])[0]
    for trial in range(40):
        toks = [int(t) for t in rng.choice(vocab, size=rng.integers(1, 5))]
        if trial % 5 == 0:
            toks = toks + toks[:1]  # a repeated query word counts twice
        if trial % 7 == 0:
            toks = index.tokenize(["zq"])[0] * (1 + trial % 2)  # few postings
        for k in (1, 10, 60, 10_000):
            for m in (None, mask):
                got_r, got_s = index.top_rows(toks, k, m)
                ref_r, ref_s = _reference_top(index, toks, k, m)
                assert got_r.tolist() == ref_r.tolist(), (toks, k)
                assert np.array_equal(got_s, ref_s)
    assert [len(x) for x in index.top_rows([], 5)] == [0, 0]


def test_single_query_bm25_stage_matches_batch(monkeypatch):
    """The one-query path (compiled kernel) returns what the batch path (bm25s) returns."""
    from skbsearch.core.types import Query
    from skbsearch.retrieve.sparse import BM25Retriever

    index = BM25Index.from_texts(zip(IDS, CORPUS, strict=True), method="bm25+")
    stage = BM25Retriever(index, k=100)
    qs = [Query(f"q{i}", t) for i, t in enumerate(QUERIES)]
    batch = stage(qs)
    for q in qs:
        one = stage([q])[q.id]
        assert one.keys() == batch[q.id].keys()
        for d, v in one.items():
            assert v == pytest.approx(batch[q.id][d], rel=1e-6)
