"""Fitting the graph stage from judged queries (``retrieve.graph.fit``): what the model learns
and records (answer types, metapaths, the blend with the untrained stage), the retriever left
using it, queries without judged nodes ignored, none at all refused; the weights chosen on a
grid by held-out MRR. (Fitting through the stage and its gain over zero-shot:
tests/retrieve/graph/test_retriever.py.)"""

from __future__ import annotations

import numpy as np
import pytest
from kg_fixtures import shop, shop_queries

from skbsearch.core.errors import InputError
from skbsearch.core.types import Qrels, Query
from skbsearch.index.sparse import BM25Index
from skbsearch.retrieve.graph.fit import MIN_BLEND_QUERIES, fit_kg_model, tune_weights
from skbsearch.retrieve.graph.plan import Scored
from skbsearch.retrieve.graph.retriever import SKBGraphRetriever
from skbsearch.retrieve.graph.work import GraphWork


@pytest.fixture
def work() -> GraphWork:
    kb = shop()
    text = BM25Index.from_skb(kb, add_rel=True)
    names = BM25Index.from_texts(((nid, nm or "") for nid, nm in zip(kb.ids, kb.column("name"), strict=True)),
                                 stopwords="en")
    return SKBGraphRetriever(kb, text, names, k=10).inner


def test_the_model_records_what_it_learned_and_is_put_to_use(work: GraphWork) -> None:
    queries, qrels = shop_queries()
    notes: list[str] = []
    model = fit_kg_model(work, queries, qrels, progress=notes.append)
    assert work.model is model and model.answer_types == ["product"]
    assert model.info["n_queries"] == len(queries) == 32 and model.info["answer_types"] == {"product": 32}
    assert "brand -> has_brand^-1" in model.info["metapaths"]  # "mugs by Zenith": the brand's products
    assert model.path_model is not None and model.anchor_model is not None
    assert 0.0 <= model.blend <= 1.0 and model.info["blend"]["queries"] == 32
    assert notes[0] == "linking 32 training queries" and any("blend" in n for n in notes)


def test_without_tuning_or_blend_check_the_defaults_and_the_model_alone(work: GraphWork) -> None:
    queries, qrels = shop_queries()
    model = fit_kg_model(work, queries[:MIN_BLEND_QUERIES - 1], qrels, tune=False)
    assert model.blend == 1.0 and "blend" not in model.info  # too few queries to validate a blend
    assert model.weights == {"rel": 1.0, "text": 1.0, "attr": 1.0, "type": 0.5}
    assert fit_kg_model(work, queries, qrels, blend_check=False).blend == 1.0


def test_queries_without_judged_nodes_are_ignored_and_none_refused(work: GraphWork) -> None:
    queries, qrels = shop_queries()
    extra = [Query("x1", "anything"), Query("x2", "nothing judged")]
    judged = Qrels({**qrels, "x1": {"no-such-node": 1}, "x2": {"p1": 0}})
    assert fit_kg_model(work, queries + extra, judged, blend_check=False).info["n_queries"] == 32
    with pytest.raises(InputError, match="judged queries whose relevant documents are nodes") as e:
        fit_kg_model(work, extra, judged)
    assert e.value.field == "qrels"


def _scored(text: list[float], rel: list[float]) -> Scored:
    n = len(text)
    f = np.zeros((n, 4))
    f[:, 0], f[:, 1] = rel, text
    return Scored(np.arange(n), f, np.zeros(n))


def test_tune_weights_takes_the_best_grid_point(work: GraphWork) -> None:
    # the text evidence ranks the answer (node 0) first, the relational evidence last
    scored = [_scored([1.0, 0.5, 0.2], [0.0, 1.0, 1.0]) for _ in range(3)]
    weights, mrr = tune_weights(work, scored, [np.array([0])] * 3)
    assert mrr == 1.0 and weights["rel"] == 0.0 and weights["text"] > 0.0
    assert weights["attr"] == 0.0  # no query has attribute evidence: not tuned
    # the relational evidence ranks it first: any text weight small enough keeps it there
    weights, mrr = tune_weights(work, [_scored([0.0, 1.0], [1.0, 0.0])], [np.array([0])])
    assert mrr == 1.0 and weights["rel"] == 1.0 and weights["text"] < 1.0
