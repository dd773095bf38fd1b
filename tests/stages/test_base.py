"""Operations over whole pipelines (stages/base.py): the trainable parts in fitting order,
structural equality, `fit` (a fusion's children, then its weights), and the FitReport's one-line and per-stage forms."""

from __future__ import annotations

from kg_fixtures import shop, shop_queries

from skbsearch.stages import StageContext, pipeline
from skbsearch.stages.base import FitReport, fit, stages_equal, trainable_parts


def test_trainable_parts_come_in_fitting_order_fusion_children_first() -> None:
    p = pipeline("(bm25 + graph) % 10 >> graph(max_hops=1)")
    assert [repr(s) for s in trainable_parts(p)] == ["graph", "bm25 + graph", "graph(max_hops=1)"]
    assert trainable_parts(pipeline("bm25 % 5")) == []


def test_pipelines_are_equal_by_structure() -> None:
    assert stages_equal(pipeline("bm25 % 5"), pipeline("bm25 % 5"))
    assert not stages_equal(pipeline("bm25 % 5"), pipeline("bm25 % 6"))
    assert not stages_equal(pipeline("bm25 >> graph"), pipeline("bm25"))
    assert stages_equal(pipeline("bm25(k=7) >> graph"), pipeline("bm25(k=7) >> graph"))


HELD_OUT = {"kept": "fitted", "blend": 0.4, "held_out": {
    "queries": 20, "untrained": {"mrr": 0.31, "hit@10": 0.5}, "fitted": {"mrr": 0.42, "hit@10": 0.65},
    "best_blend": {"blend": 0.4, "mrr": 0.42}}}


def test_a_report_says_what_each_stage_kept_and_the_numbers_it_compared() -> None:
    report = FitReport([("graph", HELD_OUT, "models/kg"), ("fuse", {"kept": "untrained"}, None),
                        ("zscore", None, None)])
    assert report.fitted
    assert repr(report) == ("FitReport(graph: kept fitted (blend 0.4), model='models/kg'; "
                            "fuse: kept untrained; zscore: not fitted, fitted=True)")
    assert str(report).splitlines() == [
        "fit graph: kept fitted (blend 0.4); held-out MRR 0.31 untrained, 0.42 kept, best blend "
        "tried 0.4: 0.42 (Hit@10 0.5 / 0.65; 20 queries); model models/kg",
        "fit fuse: kept untrained",
        "fit zscore: not fitted"]
    assert report.to_dict()["stages"][2] == {"stage": "zscore", "model": None, "kept": "not fitted"}


def test_a_report_of_training_numbers_or_nothing_fitted() -> None:
    train = {"kept": "spec", "weights": [0.5, 0.5],
             "training": {"queries": 12, "spec": {"mrr": 0.2}, "fitted": {"mrr": 0.25}}}
    report = FitReport([("fuse", train, None)])
    assert not report.fitted and report.to_dict()["fitted"] is False
    assert str(report) == ("fit fuse: kept the spec's parameters (weights [0.5, 0.5]); MRR on the "
                           "12 judged queries 0.2 with the spec's parameters, 0.25 kept")
    assert str(FitReport()) == "fit: no trainable stage"
    assert str(FitReport([("gnn-row", {"kept": "fitted", "note": "3 epochs"}, None)])) == (
        "fit gnn-row: kept fitted; 3 epochs")


def test_stages_fit_fits_a_fusions_children_then_its_weights() -> None:
    kb = shop()
    queries, qrels = shop_queries()
    p = pipeline("bm25 + graph", StageContext(kb))
    fit(p, queries, qrels)
    assert p.children[1].fitted is not None  # the graph inside the fusion is fitted
    # and the fusion's fit ran: it recorded the spec's parameters (default weights: per query
    # from the lists' confidence) and kept them or chose two weights
    assert p._given == (None, 2.0) and len(p.params.weights) in (0, 2)
