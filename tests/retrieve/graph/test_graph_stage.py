"""The registered general graph stage: spec round trip, fit through the pipeline, model files."""

from __future__ import annotations

import pytest
from kg_fixtures import shop, shop_queries  # noqa: E402

from skbsearch.core.errors import InputError  # noqa: E402
from skbsearch.core.types import Query  # noqa: E402
from skbsearch.stages import describe, fit, pipeline, stage  # noqa: E402
from skbsearch.stages.context import StageContext  # noqa: E402
from skbsearch.stages.explain import explain  # noqa: E402


@pytest.fixture(scope="module")
def ctx():
    return StageContext(shop(), notify=lambda m: None)


def test_spec_round_trip_and_parameters():
    s = stage("kg", k=5, target=["product"], w_text=0.5, max_hops=2)
    assert repr(s) == "graph(k=5, target=['product'], max_hops=2, w_text=0.5)"
    assert pipeline(repr(s)) == s
    assert describe("graph")["trainable"] and describe("kg")["name"] == "graph"
    with pytest.raises(InputError, match="unknown stage"):  # the retired catalogue-only stage
        stage("graph-v1")
    with pytest.raises(InputError, match="max_hops"):
        stage("kg", max_hops=7)


def test_fit_through_the_pipeline_then_save_and_reload(ctx, tmp_path):
    queries, qrels = shop_queries()
    p = pipeline("kg(k=10)", ctx)
    with pytest.raises(InputError, match="fit the stage first"):
        p.save_model(tmp_path / "none")
    fit(p, queries, qrels)
    before = p(queries)
    p.save_model(tmp_path / "kg")
    assert repr(p) == f"graph(k=10, model='{tmp_path / 'kg'}')"
    again = pipeline(repr(p), StageContext(ctx.kb, notify=lambda m: None))
    assert again(queries) == before
    assert again.fitted is not None and again.fitted.info["n_queries"] == len(queries)


def test_weights_given_in_the_spec_override_the_fitted_ones(ctx, tmp_path):
    queries, qrels = shop_queries()
    p = pipeline("kg", ctx)
    fit(p, queries, qrels)
    p.save_model(tmp_path / "m")
    q = pipeline(f"kg(model='{tmp_path / 'm'}', w_rel=0.0, w_type=0.0)", StageContext(ctx.kb))
    assert q.inner.weights["rel"] == 0.0 and q.inner.weights["text"] == p.inner.weights["text"]


def test_explain_through_a_fused_pipeline(ctx):
    p = pipeline("bm25(types=[product]) + kg", ctx)
    q = Query("q", "a dishwasher safe cup by Zenith")
    top = p([q]).ranked("q")[0][0]
    assert top == "p5"
    lines = explain(p, q, top, max_lines=3)
    assert any(ln.startswith("path: Zenith --has_brand^-1--> Zenith Alpine Mug") for ln in lines)


def test_fuse_counts_the_text_evidence_the_graph_stage_carries_once(ctx):
    from skbsearch.stages.fusion import shared_evidence_weights

    # the graph stage's score holds the BM25 score of the index a bm25 child reads
    assert pipeline("bm25 + graph", ctx).list_weights() == (0.5, 1.0)
    assert pipeline("bm25(types=[product]) + (graph % 20)", ctx).list_weights() == (0.5, 1.0)
    assert pipeline("graph + bm25 + bm25", ctx).list_weights() == (1.0, 1 / 3, 1 / 3)
    # a re-ranked list's scores are its own; weights given in the spec are kept
    assert pipeline("(bm25 >> bm25) + graph", ctx).list_weights() == (1.0, 1.0)
    assert pipeline("fuse(bm25, graph, weights=[1, 1])", ctx).list_weights() == (1.0, 1.0)
    assert repr(pipeline("bm25 + graph", ctx)) == "bm25 + graph"
    # unbound stages (no context to share) and other evidence: equal weights
    assert shared_evidence_weights(pipeline("bm25 + graph").children) == (1.0, 1.0)
    assert pipeline("bm25 + graph(w_text=0)", ctx).list_weights() == (1.0, 1.0)  # reads no text
    from skbsearch.retrieve.sparse import BM25Retriever
    from skbsearch.stages.fusion import FuseStage

    own = BM25Retriever(ctx.index("bm25"))  # its index given directly: a bound context is not its source
    assert FuseStage.from_children([own, pipeline("graph", ctx)], ctx).list_weights() == (1.0, 1.0)
    q = [Query("q", "a dishwasher safe cup by Zenith")]
    p = pipeline("bm25 + graph", ctx)
    from skbsearch.core.fusion import score_fusion

    runs = [c(q) for c in p.children]
    # at full confidence the weights are (0.5, 1); on this query the graph stage is as sure
    # as its walk from Zenith: c = 1 / (1 + c) and c
    c = runs[1].confidence["q"]
    assert 0.5 < c <= 1.0
    assert p(q) == score_fusion(runs, [1 / (1 + c), c], 2.0, 100)


def test_the_graph_stage_says_when_it_has_no_confident_anchor_and_fuse_listens(ctx):
    """A query that names no node: the graph list is its text list of the answer types, as
    sure as those types narrow it (products: 10 of the 15 nodes, confidence 0.79, not 0.5),
    and ``bm25 + graph`` weighs the BM25 list 1 / 1.79 and the graph list 0.79 instead of 0.5
    and 1; a walk from a named node is at least as sure. A question whose answer types rule out nothing
    leaves the graph list at 0.5."""
    from skbsearch.core.fusion import score_fusion
    from skbsearch.retrieve.graph.plan import text_only_confidence

    qs = [Query("named", "mugs by zenith"), Query("none", "a ceramic cup, dishwasher safe")]
    p = pipeline("bm25 + graph", ctx)
    runs = [c(qs) for c in p.children]
    c, none = runs[1].confidence["named"], runs[1].confidence["none"]
    assert none == pytest.approx(text_only_confidence(10 / 15)) and 0.75 < none < 0.8
    assert c >= none  # the floor holds whatever the walks
    fused = p(qs)
    assert fused["none"] == score_fusion(runs, [1 / (1 + none), none])["none"]
    every = pipeline("graph(target=[product, brand, category])", ctx)
    assert every([Query("none", "a ceramic cup, dishwasher safe")]).confidence["none"] == 0.5
    assert fused["named"] == score_fusion(runs, [1 / (1 + c), c])["named"]
    assert fused.ranked("named")[0][0] in {"p5", "p6"}  # Zenith mugs, from the graph's walk


def test_a_named_node_the_question_asks_about_can_be_the_answer(ctx):
    """'what has a lid, the Zenith Cosy Mug?' names its answer: the anchor's own text
    matches the question's other words best, so it stays a candidate; a question about
    what hangs off a named node ('bought with the Acme Ridge Boot') still excludes it."""
    g = pipeline("graph", ctx)
    about = g([Query("q", "is the Zenith Cosy Mug the one with a lid")])
    assert about.ranked("q")[0][0] == "p6"
    off = g([Query("q", "something bought together with the Acme Ridge Boot")])
    assert "p3" not in off["q"]
