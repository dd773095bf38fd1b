"""BM25Retriever: only matching documents, any k, re-scoring, backends, evidence."""

from __future__ import annotations

import numpy as np
import pytest

from skbsearch.core.types import Query, Run
from skbsearch.index.sparse import BM25Index
from skbsearch.retrieve.sparse import NUMBA_AVAILABLE, BM25Retriever, evidence_lines

WORDS = ("apple banana cherry date elder fig grape honeydew kiwi lemon mango nectarine olive "
         "papaya quince raspberry strawberry tangerine ugli vanilla").split()


def _random_corpus(n: int, seed: int = 0) -> list[tuple[str, str]]:
    rng = np.random.default_rng(seed)
    return [(f"doc{i}", " ".join(rng.choice(WORDS, size=rng.integers(0, 12)))) for i in range(n)]


@pytest.fixture(scope="module")
def index() -> BM25Index:
    return BM25Index.from_texts(_random_corpus(300), stemmer=None)


def _brute(index: BM25Index, text: str, allowed=None) -> dict[str, float]:
    toks = index.tokenize([text])[0]
    s = index.score_docs(toks, np.arange(index.num_docs))
    return {index.doc_ids[i]: float(s[i]) for i in np.flatnonzero(s > 0)
            if allowed is None or allowed[i]}


def _assert_top(got: dict[str, float], full: dict[str, float], k: int) -> None:
    assert len(got) == min(k, len(full))
    assert all(v > 0 for v in got.values())
    for d, v in got.items():
        assert full[d] == pytest.approx(v, rel=1e-6)
    # nothing left out scores higher than the lowest returned
    if got:
        rest = [v for d, v in full.items() if d not in got]
        assert not rest or max(rest) <= min(got.values()) + 1e-6


@pytest.mark.parametrize("k", [1, 5, 50, 299, 300, 10_000])
def test_only_matching_documents_for_any_k(index, k):
    r = BM25Retriever(index, k=k, backend="numpy")
    queries = [Query("q1", "kiwi"), Query("q2", "apple mango zzz"), Query("q3", "vanilla ugli")]
    run = r(queries)
    assert set(run) == {"q1", "q2", "q3"}
    for q in queries:
        _assert_top(run[q.id], _brute(index, q.text), k)


def test_rare_term_returns_fewer_than_k():
    index = BM25Index.from_texts([("a", "unique zebra"), ("b", "apple"), ("c", "apple pie")])
    r = BM25Retriever(index, k=100)
    assert list(r.run(["zebra"])["q0"]) == ["a"]
    assert r.run(["nothing here"])["q0"] == {}
    assert r.run([""])["q0"] == {}


def test_search_honours_k_beyond_stage_k(index):
    r = BM25Retriever(index, k=3)
    assert len(r.search("apple", k=20)) == min(20, len(_brute(index, "apple")))
    hits = r.search("apple", k=2)
    assert len(hits) == 2 and hits[0][1] >= hits[1][1]


def test_mask_is_hard(index):
    rng = np.random.default_rng(1)
    mask = rng.random(index.num_docs) < 0.1
    r = BM25Retriever(index, k=1000, mask=mask, backend="numpy")
    for text in ["apple", "fig grape lemon", "olive"]:
        got = r.search(text, k=1000)
        assert all(mask[index.position[d]] for d, _ in got)
        _assert_top(dict(got), _brute(index, text, mask), 1000)
    with pytest.raises(Exception, match="mask"):
        BM25Retriever(index, mask=np.ones(3, bool))


def test_all_masked_out(index):
    r = BM25Retriever(index, k=10, mask=np.zeros(index.num_docs, bool))
    assert r.search("apple") == []


def test_rescore_only_given_candidates(index):
    r = BM25Retriever(index, k=2)
    full = _brute(index, "kiwi")
    by_score = {round(v, 5): d for d, v in full.items()}  # one doc per distinct score
    some = [by_score[v] for v in sorted(by_score)[:3]]
    nonmatching = next(d for d in index.doc_ids if d not in full)
    cands = Run({"q": {d: 0.0 for d in [*some, nonmatching, "not-in-index"]}})
    out = r([Query("q", "kiwi")], cands)
    assert set(out["q"]) <= set(some) and len(out["q"]) == 2
    assert [d for d, _ in out.ranked("q")] == sorted(some, key=lambda d: -full[d])[:2]
    for d, v in out["q"].items():
        assert v == pytest.approx(full[d], rel=1e-6)
    # queries missing from the run get nothing
    assert r([Query("other", "kiwi")], cands)["other"] == {}


def test_rescore_respects_mask(index):
    full = _brute(index, "apple")
    mask = np.zeros(index.num_docs, bool)
    allowed = list(full)[:2]
    mask[[index.position[d] for d in allowed]] = True
    r = BM25Retriever(index, k=10, mask=mask)
    out = r([Query("q", "apple")], Run({"q": dict.fromkeys(full, 1.0)}))
    assert set(out["q"]) == set(allowed)


def test_pipeline_cutoff_and_repr(index):
    pipe = BM25Retriever(index, k=50) % 3
    run = pipe.run(["apple", "fig"])
    assert all(len(v) == 3 for v in run.values())
    assert "bm25(k=50)" in repr(pipe)  # the stage prints as its spec


def test_bm25plus_scores_include_constant():
    index = BM25Index.from_texts([("a", "apple pie"), ("b", "pear tart"), ("c", "apple")],
                                 method="bm25+")
    run = BM25Retriever(index, k=10).search("apple", k=10)
    assert {d for d, _ in run} == {"a", "c"}  # 'b' matches nothing despite bm25+'s floor
    toks = index.tokenize(["apple"])[0]
    assert index.constant(toks) > 0
    assert all(s > index.constant(toks) for _, s in run)


@pytest.mark.slow
@pytest.mark.skipif(not NUMBA_AVAILABLE, reason="numba not installed")
def test_numba_backend_matches_numpy(index):
    queries = [Query(f"q{i}", t) for i, t in enumerate(["apple kiwi", "fig", "zzz", "olive date"])]
    mask = np.arange(index.num_docs) % 3 == 0
    for m in (None, mask):
        a = BM25Retriever(index, k=20, mask=m, backend="numpy")(queries)
        b = BM25Retriever(index, k=20, mask=m, backend="numba", n_threads=2)(queries)
        for q in queries:
            assert set(a[q.id]) == set(b[q.id]) or len(a[q.id]) == 20  # ties at the cut
            for d in set(a[q.id]) & set(b[q.id]):
                assert a[q.id][d] == pytest.approx(b[q.id][d], rel=1e-6)


def test_evidence_lines():
    index = BM25Index.from_texts([("a", "red running shoes")])
    doc = "product: Trail Runner\nbrand: Acme\ndescription: Shoes for running on trails\ncolor: red"
    tok = index.tokenize
    assert evidence_lines("running shoes", doc, tok) == ["description: Shoes for running on trails"]
    assert evidence_lines("red shoes", doc, tok, max_lines=2) == [
        "description: Shoes for running on trails", "color: red"]
    assert evidence_lines("zzz", doc, tok) == ["product: Trail Runner"]
    assert evidence_lines("runs", doc, tok) == ["description: Shoes for running on trails"]
    assert evidence_lines("runs", doc) == ["product: Trail Runner"]  # no stemming by default
    assert evidence_lines("acme", doc) == ["brand: Acme"]
    assert evidence_lines("running", "x " * 200 + "running", tok, width=20)[0].endswith("…")


def test_concurrent_searches_after_numba_compiled_do_not_abort() -> None:
    """The HTTP service searches from worker threads: numba's workqueue layer aborts the
    process on concurrent parallel launches unless retrieval is serialised."""
    import threading

    from skbsearch.retrieve import sparse

    if not sparse.NUMBA_AVAILABLE:
        pytest.skip("numba not installed")
    texts = [(f"d{i}", f"word{i % 50} common text number {i}") for i in range(3000)]
    ret = BM25Retriever(BM25Index.from_texts(texts), k=10, backend="numba")
    ret.warmup()
    errors: list[BaseException] = []

    def work(j: int) -> None:
        try:
            for n in range(20):  # batches of two: parallel kernels on every core
                run = ret([Query("a", f"word{(j + n) % 50} common"), Query("b", f"word{n} text")])
                assert run["a"] and run["b"]
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(j,)) for j in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


@pytest.mark.skipif(not NUMBA_AVAILABLE, reason="numba not installed")
@pytest.mark.parametrize("k", [1, 7, 300, 10_000])
def test_lazy_run_holds_the_exact_ranking_ties_to_the_lower_row(index, k):
    """The stage's Run (filled on first read) is the brute-force ranking: every matching
    document up to ``k``, best first, equal scores in index order; a query asked twice and
    an empty one as a dict assignment would leave them."""
    texts = ["apple kiwi", "fig", "zzz", "olive date", "", "kiwi"]
    queries = [Query(f"q{i}", t) for i, t in enumerate(texts)] + [Query("q1", "apple olive")]
    mask = np.arange(index.num_docs) % 4 != 1
    for m in (None, mask):
        run = BM25Retriever(index, k=k, mask=m, backend="numba", n_threads=2)(queries)
        assert list(run) == [f"q{i}" for i in range(len(texts))]
        expect = {q.id: q.text for q in queries}  # (q1: the last text asked)
        for qid, text in expect.items():
            full = _brute(index, text, m)
            rows = np.array([index.position[d] for d in full], np.int64)
            scores = np.array([full[d] for d in full])
            order = np.lexsort((rows, -scores))[:k]
            assert list(run[qid].items()) == [(index.doc_ids[rows[j]], scores[j]) for j in order]
        assert type(run) is Run


def test_a_context_opens_the_index_without_its_kernels_and_prepare_loads_them(tmp_path, monkeypatch):
    """Opening a saved index for a pipeline loads no query kernel (the first query, or
    ``prepare`` before the timed queries, does): an open reads the manifest and maps arrays."""
    from skbsearch.core.stage import prepare
    from skbsearch.stages import StageContext, pipeline
    from skbsearch.synth.catalogue import generate_catalogue

    kb = generate_catalogue(60, seed=0, n_queries=1).skb
    kb.save(tmp_path / "skb")
    BM25Index.from_skb(kb).save(tmp_path / "skb" / "indexes" / "bm25")
    warmed: list[int] = []
    real = BM25Index.warm
    monkeypatch.setattr(BM25Index, "warm",
                        lambda self, batch=False: (warmed.append(self.num_docs), real(self, batch))[1])
    ctx = StageContext(type(kb).load(tmp_path / "skb"))
    assert ctx.index("bm25").num_docs == kb.num_nodes and warmed == []
    stage = pipeline("bm25(k=5)", ctx)
    assert warmed == []
    prepare(stage)
    assert warmed == [kb.num_nodes]
