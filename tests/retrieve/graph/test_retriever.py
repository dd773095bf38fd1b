"""The general graph retriever: zero-shot, fit, graph-only candidates, explain, persistence."""

from __future__ import annotations

import json

import numpy as np
import pytest
from kg_fixtures import movies, shop, shop_queries

from skbsearch.core.errors import ArtefactError, InputError
from skbsearch.core.types import Qrels, Query
from skbsearch.index.sparse import BM25Index
from skbsearch.retrieve.graph.fit import fit_kg_model
from skbsearch.retrieve.graph.model import KGModel, text_types
from skbsearch.retrieve.graph.retriever import SKBGraphRetriever
from skbsearch.retrieve.graph.zero_shot import zero_shot_paths, zero_shot_types
from skbsearch.retrieve.lbfgs import minimize_lbfgs


def _retriever(kb, **kw):
    text = BM25Index.from_skb(kb, add_rel=True)
    names = BM25Index.from_texts(((nid, nm or "") for nid, nm in zip(kb.ids, kb.column("name"), strict=True)),
                                 stopwords="en")
    return SKBGraphRetriever(kb, text, names, k=10, **kw)


def _mrr(run, qrels):
    rr = []
    for qid, rel in qrels.items():
        ranked = [d for d, _ in run.ranked(qid)]
        rr.append(next((1.0 / (i + 1) for i, d in enumerate(ranked) if d in rel), 0.0))
    return float(np.mean(rr))


@pytest.fixture(scope="module")
def kb():
    return shop()


@pytest.fixture(scope="module")
def fitted(kb):
    r = _retriever(kb)
    queries, qrels = shop_queries()
    model = fit_kg_model(r.inner, queries, qrels)
    return r, model


# ---------------------------------------------------------------------- zero-shot
def test_zero_shot_targets_and_paths_come_from_the_schema(kb):
    assert text_types(kb) == ["product"]
    assert zero_shot_types(kb, {"a", "mug"}, ["product"]) == {"product": 1.0}
    assert zero_shot_types(kb, {"which", "brand"}, ["product"]) == {"product": 0.5, "brand": 0.5}
    assert zero_shot_types(movies(), {"which", "genre"}, []) == {"genre": 1.0}
    mk = movies()
    from skbsearch.retrieve.graph.metapaths import TypeGraph

    paths = zero_shot_paths(TypeGraph(mk), "movie", {"who", "directed"}, None, 1)
    assert paths[0][0] == ("movie", "directed_by") and paths[0][1] > paths[1][1]


def test_zero_shot_paths_limited_are_the_best_of_all(kb):
    """A limited search (pruned by the best score a branch can reach) returns exactly the
    head of the full ranking, ties in the schema's walk order."""
    from skbsearch.retrieve.graph.metapaths import TypeGraph

    for skb_, start, words in ((movies(), "movie", {"who", "directed", "starred"}),
                               (movies(), "person", {"films", "directed"}),
                               (kb, "brand", {"mugs", "bought", "also"})):
        tg = TypeGraph(skb_)
        full = zero_shot_paths(tg, start, words, None, 2)
        assert len(full) > 3
        for limit in (1, 3):
            got = zero_shot_paths(tg, start, words, None, 2, limit=limit)
            top = full[0][1]
            assert [p for p, _ in got] == [p for p, _ in full[:limit]]
            assert got[0][1] == pytest.approx(1.0) and top == pytest.approx(1.0)


def _zero_shot_by_the_formula(tg, start, words, max_hops):
    """Every metapath scored as written: (1 + 2 * the query-said words of its steps' and
    end types' names) / hops^2, best first (ties in walk order), scaled to the best."""
    from skbsearch.retrieve.graph import zero_shot as m

    spoken = set().union(*(m._said_by(tg, w) for w in words))
    nouns = m.nameable_types(tg)
    out = []

    def rec(path, cur):
        for step, nxt in tg.next_steps(cur):
            new = (*path, step)
            hops = len(new) - 1
            out.append((new, (1.0 + 2.0 * len(m._path_words(new, nxt & nouns) & spoken)) / hops ** 2))
            if hops < max_hops:
                rec(new, nxt)

    rec((start,), frozenset([start]))
    order = sorted(range(len(out)), key=lambda i: (-out[i][1], i))
    top = out[order[0]][1]
    scale = 1.0 if top > 1.0 else m.UNNAMED_PATH_WEIGHT
    return [(out[i][0], scale * out[i][1] / top) for i in order]


def test_zero_shot_paths_score_each_path_by_the_words_it_names(kb):
    """The walk carries a path's said words step by step; the scores are the formula's."""
    from skbsearch.retrieve.graph.metapaths import TypeGraph

    for skb_, start, words in ((movies(), "movie", {"who", "directed", "starred"}),
                               (movies(), "person", {"films", "directed", "genre"}),
                               (kb, "brand", {"mugs", "bought", "also"}), (kb, "product", set())):
        tg = TypeGraph(skb_)
        got = zero_shot_paths(tg, start, words, None, 2)
        want = _zero_shot_by_the_formula(tg, start, words, 2)
        assert [p for p, _ in got] == [p for p, _ in want]
        assert [s for _, s in got] == pytest.approx([s for _, s in want])


def test_zero_shot_ranks_by_relation_names_and_brand_evidence(kb):
    mk = movies()
    r = _retriever(mk)
    run = r([Query("q", "who directed [Random Harvest]")])
    assert run.ranked("q")[0][0] == "Mervyn LeRoy"
    shop_r = _retriever(kb)
    top = [d for d, _ in shop_r([Query("q", "a ceramic cup by Zenith")]).ranked("q")[:1]]
    assert top == ["p5"]  # p1 has the same text; only p5 is a Zenith product


def test_graph_only_candidates_are_found(kb):
    r = _retriever(kb, n_text=0)  # no text candidates at all
    run = r([Query("q", "what goes with the Borealis Aurora Boot")])
    assert "p5" in dict(run["q"])  # reached only through also_bought
    assert "p10" not in run["q"]  # the named anchor itself is not an answer


def test_attribute_bounds_count(kb):
    r = _retriever(kb)
    ranked = [d for d, _ in r([Query("q", "a ceramic dishwasher safe cup under $20")]).ranked("q")]
    assert ranked[0] == "p1"  # p5 has the same text but costs $30


# ---------------------------------------------------------------------- fit
@pytest.fixture(scope="module")
def catalogue():
    from skbsearch.synth.catalogue import generate_catalogue

    ds = generate_catalogue(600, seed=2, n_queries=260)
    ev, tr = ds.queries[:60], ds.queries[60:]
    return ds.skb, (ev, Qrels({q.id: ds.qrels[q.id] for q in ev})), (tr, Qrels({q.id: ds.qrels[q.id] for q in tr}))


def test_fit_learns_metapaths_aliases_and_beats_zero_shot(catalogue):
    kb, (ev, ev_qrels), (tr, tr_qrels) = catalogue
    r = _retriever(kb)
    zero = _mrr(r(ev), ev_qrels)
    model = fit_kg_model(r.inner, tr, tr_qrels)
    assert model.answer_types == ["product"] and model.exclude_anchors
    for path in ("brand -> has_brand^-1", "category -> has_category^-1", "color -> has_color^-1"):
        assert path in model.info["metapaths"]
    assert any(n.startswith("category:") for v in model.aliases.values() for n, _ in v)
    trained = _mrr(r(ev), ev_qrels)
    assert trained > zero + 0.05, (trained, zero)
    # the fitted metapath depends on the words around the anchor
    brand = kb.node(next(d for d in kb.ids if d.startswith("brand:"))).name
    for text, path in ((f"a tent from {brand}", ("brand", "has_brand^-1")),
                       (f"a tent that people often buy together with {brand} products",
                        ("brand", "has_brand^-1", "also_bought"))):
        plan = r.inner.plan([text])[0]
        best = max((p for p in plan.paths if p[1][0] == "brand"), key=lambda x: x[2])
        assert best[1] == path, text


def test_fit_needs_judged_answers_in_the_skb(kb):
    with pytest.raises(InputError, match="judged"):
        fit_kg_model(_retriever(kb).inner, [Query("q", "x")], Qrels({"q": {"no-such-node": 1}}))


def test_save_load_round_trip(kb, fitted, tmp_path):
    r, model = fitted
    model.save(tmp_path / "m")
    meta = json.loads((tmp_path / "m" / "model.json").read_text())
    assert meta["artefact"] == "kg-model" and not list((tmp_path / "m").glob("*.pkl"))
    loaded = KGModel.load(tmp_path / "m")
    assert loaded.weights == model.weights and loaded.path_model.classes == model.path_model.classes
    queries, _ = shop_queries()
    again = _retriever(kb, model=loaded)
    assert again(queries) == r(queries)
    model.save(tmp_path / "m")  # replacing its own kind of artefact is allowed


def test_load_refuses_damaged_models(fitted, tmp_path):
    _, model = fitted
    with pytest.raises(ArtefactError, match="not a graph-stage model"):
        KGModel.load(tmp_path / "missing")
    model.save(tmp_path / "m")
    (tmp_path / "m" / "path_W.npy").write_bytes(b"")
    with pytest.raises(ArtefactError, match="path_"):
        KGModel.load(tmp_path / "m")
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "model.json").write_text('{"format": "other"}')
    with pytest.raises(ArtefactError, match="unsupported format"):
        KGModel.load(tmp_path / "x")


# ---------------------------------------------------------------------- explain
def test_explain_names_anchor_metapath_bounds_and_text(kb):
    r = _retriever(kb)
    q = Query("q", "a dishwasher safe cup by Acme under $20")
    lines = r.explain(q, "p1")
    assert any(ln.startswith("path: Acme --has_brand^-1--> Acme Trail Mug") for ln in lines)
    assert "attribute: price <= 20" in lines
    assert any(ln.startswith("text: BM25") for ln in lines)
    two = r.explain(Query("q", "something bought together with the Borealis Fjord Boot"), "p1")
    assert any("--also_bought--> Acme Trail Mug" in ln for ln in two)
    assert r.explain(q, "no-such-node") == []


# ---------------------------------------------------------------------- solver
def test_numpy_lbfgs_minimises_a_convex_loss():
    rng = np.random.default_rng(0)
    A = rng.random(50) + 0.1
    def loss(x):
        return 0.5 * float((A * x * x).sum()) - float(x.sum()), A * x - 1.0

    x, it = minimize_lbfgs(loss, np.zeros(50))
    best = -0.5 * float((1.0 / A).sum())
    assert loss(x)[0] == pytest.approx(best, rel=1e-8) and np.allclose(x, 1.0 / A, atol=1e-2)
    assert 0 < it < 300
    _, one = minimize_lbfgs(loss, np.zeros(50), max_iter=1)
    assert one == 1
