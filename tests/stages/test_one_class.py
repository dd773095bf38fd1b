"""One class per stage: the registered stage is the retriever / re-ranker itself (issue 23).

The class ``skb stages`` lists under a name is the working class of ``retrieve/*`` or
``rerank/*``; built over a directly given index it is the same stage a spec builds, and it
prints back as that spec.
"""

from __future__ import annotations

import pytest

from skbsearch.core.registry import get_stage
from skbsearch.index.sparse import BM25Index
from skbsearch.retrieve.filters import NodeFilter
from skbsearch.retrieve.sparse import BM25Retriever
from skbsearch.stages import pipeline

#: registered name -> the module its one class lives in
ONE_CLASS = {
    "bm25": "skbsearch.retrieve.sparse",
    "dense": "skbsearch.retrieve.dense",
    "multivector": "skbsearch.retrieve.dense",
    "enrich": "skbsearch.retrieve.constrained",
    "graph": "skbsearch.retrieve.graph.retriever",
    "cross-encoder": "skbsearch.rerank.cross_encoder",
    "llm": "skbsearch.rerank.llm",
    "cross-encoder-ft": "skbsearch.rerank.cross_encoder_ft",
    "gnn-row": "skbsearch.rerank.gnn_row",
    "gnn": "skbsearch.rerank.gnn_reranker",
}


@pytest.mark.parametrize("name", sorted(ONE_CLASS))
def test_the_registered_stage_is_the_working_class(name: str) -> None:
    cls = get_stage(name)
    assert cls.__module__ == ONE_CLASS[name]
    assert "stages" not in cls.__module__.split(".")[1]


def test_a_retriever_over_a_given_index_is_the_spec_stage() -> None:
    index = BM25Index.from_texts({"a": "red apple pie", "b": "green apple", "c": "fig"}.items())
    direct = BM25Retriever(index, k=5, filter=NodeFilter(("product",)), backend="numpy")
    assert repr(direct) == "bm25(k=5, types=['product'], backend='numpy')"
    assert pipeline(repr(direct)) == direct
    plain = BM25Retriever(index, k=2)
    assert list(plain.run(["apple"])["q0"]) == ["b", "a"]
    assert plain.context is None and plain.index is index


def test_binding_keeps_a_given_index_and_a_spec_takes_the_contexts() -> None:
    from skbsearch.stages import StageContext
    from skbsearch.synth.catalogue import generate_catalogue

    ctx = StageContext(generate_catalogue(40, seed=1, n_queries=1).skb, notify=lambda _m: None)
    index = BM25Index.from_texts({"a": "red apple pie", "b": "green apple"}.items())
    given = pipeline(BM25Retriever(index, k=2), ctx)
    assert given.context is ctx and given.index is index
    assert list(given.run(["apple"])["q0"]) == ["b", "a"]
    spec = pipeline("bm25(k=2)", ctx)
    assert spec.index is ctx.index("bm25") and spec == BM25Retriever(index, k=2)
