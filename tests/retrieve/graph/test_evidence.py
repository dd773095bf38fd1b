"""Why the graph stage returned a node (``retrieve.graph.evidence``): a line per walk that
reaches it (the chain of names and steps from the anchor), the bounds it meets, its own text
match; none for an unknown node; a model backed off to the untrained stage explained by it;
the query plans kept for explaining are bounded. (Through the stage's ``explain``:
tests/retrieve/graph/test_retriever.py.)"""

from __future__ import annotations

import pytest
from kg_fixtures import shop

from skbsearch.core.types import Query
from skbsearch.index.sparse import BM25Index
from skbsearch.retrieve.graph.evidence import explain_node
from skbsearch.retrieve.graph.model import KGModel
from skbsearch.retrieve.graph.retriever import SKBGraphRetriever
from skbsearch.retrieve.graph.work import GraphWork


@pytest.fixture
def work() -> GraphWork:
    kb = shop()
    text = BM25Index.from_skb(kb, add_rel=True)
    names = BM25Index.from_texts(((nid, nm or "") for nid, nm in zip(kb.ids, kb.column("name"), strict=True)),
                                 stopwords="en")
    return SKBGraphRetriever(kb, text, names, k=10).inner


def test_every_walk_that_reaches_the_node_is_a_line(work: GraphWork) -> None:
    q = Query("q", "mugs by Zenith")
    lines = explain_node(work, q, "p5")
    paths = [ln for ln in lines if ln.startswith("path: ")]
    assert "path: Zenith --has_brand^-1--> Zenith Alpine Mug (query 'zenith', exact link, p=0.50)" in paths
    assert any(ln.startswith("path: Mugs --has_category^-1--> Zenith Alpine Mug") for ln in paths)
    assert lines[-1].startswith("text: BM25 ")
    two_hops = explain_node(work, q, "p1")  # a chain of two steps, through the node between
    assert any("--also_bought^-1--> Borealis Fjord Boot --also_bought--> Acme Trail Mug" in ln for ln in two_hops)
    brand = explain_node(work, q, "brand:zen")  # the anchor itself: no walk reaches it
    assert [ln.split(":")[0] for ln in brand] == ["text"]


def test_bounds_met_and_nothing_to_say(work: GraphWork) -> None:
    cheap = explain_node(work, Query("c", "a ceramic cup under $20"), "p1")
    assert "attribute: price <= 20" in cheap
    assert "attribute: price <= 20" not in explain_node(work, Query("c", "a ceramic cup under $20"), "p5")  # $30
    assert explain_node(work, Query("z", "zzz qqq"), "p5") == []
    assert explain_node(work, Query("q", "mugs by Zenith"), "no-such-node") == []


def test_a_model_backed_off_to_untrained_is_explained_by_the_untrained_stage(work: GraphWork) -> None:
    q = Query("q", "mugs by Zenith")
    plain = explain_node(work, q, "p5")
    work.set_model(KGModel(blend=0.0, weights={"rel": 0.0, "text": 1.0, "attr": 0.0, "type": 0.0}))
    assert explain_node(work, q, "p5") == plain
    assert work.explained_plans == {} and q.text in work.untrained().explained_plans


def test_plans_kept_for_explaining_are_bounded(work: GraphWork) -> None:
    for i in range(12):
        explain_node(work, Query(str(i), f"mugs number {i}"), "p5")
    assert len(work.explained_plans) == 8 and "mugs number 11" in work.explained_plans
    assert "mugs number 0" not in work.explained_plans
