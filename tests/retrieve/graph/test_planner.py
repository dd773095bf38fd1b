"""The graph stage's plan (``retrieve.graph.planner``): each query's anchors, the metapaths
followed from them (at most ``top_paths`` an anchor, the improbable ones kept for back-off)
with how sure each is, and its answer types: given, learned, or read off the question."""

from __future__ import annotations

import pytest
from kg_fixtures import shop

from skbsearch.index.sparse import BM25Index
from skbsearch.retrieve.graph.model import KGModel
from skbsearch.retrieve.graph.planner import Planner
from skbsearch.retrieve.graph.retriever import SKBGraphRetriever


@pytest.fixture(scope="module")
def planner() -> Planner:
    kb = shop()
    text = BM25Index.from_skb(kb, add_rel=True)
    names = BM25Index.from_texts(((nid, nm or "") for nid, nm in zip(kb.ids, kb.column("name"), strict=True)),
                                 stopwords="en")
    return SKBGraphRetriever(kb, text, names, k=10).inner.planner


def test_untrained_plans_walk_from_the_named_nodes(planner: Planner) -> None:
    skb = planner.skb
    assert planner.type_name(skb.index_of("brand:zen")) == "brand" and planner.text_types == ["product"]
    plan, empty = planner.plan(["mugs by Zenith", ""], None)
    assert plan.words == ["mugs", "by", "zenith"] and empty.anchors == [] and empty.paths == []
    anchors = {skb.ids[a.node]: i for i, a in enumerate(plan.anchors)}
    assert {"brand:zen", "cat:mug"} <= set(anchors)
    paths = {(skb.ids[plan.anchors[ai].node], m): p for ai, m, p in plan.paths}
    assert ("brand:zen", ("brand", "has_brand^-1")) in paths  # from the brand to its products
    assert ("cat:mug", ("category", "has_category^-1")) in paths
    per_anchor = [sum(1 for ai, _, _ in plan.paths if ai == k) for k in range(len(plan.anchors))]
    assert max(per_anchor) <= planner.top_paths
    assert all(0.0 < plan.certainty[(ai, m)] <= 1.0 for ai, m, _ in plan.paths)
    assert plan.types == {"product": 1.0}  # "mugs": the products, the one type with text


def test_given_targets_and_learned_types(planner: Planner) -> None:
    fixed = Planner(planner.skb, planner.tg, planner.linker, planner.answer_types, target=("brand", "category"))
    assert fixed.plan(["mugs by Zenith"], None)[0].types == {"brand": 0.5, "category": 0.5}
    learned = planner.plan(["mugs by Zenith"], KGModel(answer_types=["category"]))[0]
    assert learned.types == {"category": 1.0}


def test_improbable_paths_are_kept_for_back_off(planner: Planner) -> None:
    strict = Planner(planner.skb, planner.tg, planner.linker, planner.answer_types, min_path_prob=0.2,
                     top_paths=2, backoff=2)
    plan = strict.plan(["mugs by Zenith"], None)[0]
    followed = {(ai, m) for ai, m, _ in plan.paths}
    assert plan.paths and all(p >= 0.2 for _, _, p in plan.paths)
    assert all((ai, m) not in followed for ai, m, _ in plan.spare)  # kept aside, not followed
    assert any(p < 0.2 for _, _, p in plan.spare)  # the improbable ones among them
    for k in range(len(plan.anchors)):
        assert sum(ai == k for ai, _, _ in plan.paths) + sum(ai == k for ai, _, _ in plan.spare) <= 2 + 2
