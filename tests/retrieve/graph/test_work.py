"""The graph stage's working object (``retrieve.graph.work``): built apart from the stage,
freed without a cycle collection; its walks, attribute values, combination and Run."""

from __future__ import annotations

import ast
import gc
import weakref
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from kg_fixtures import shop, shop_queries

import skbsearch.retrieve.graph as graph_package
from skbsearch.core.types import Query, Run
from skbsearch.index.sparse import BM25Index
from skbsearch.kb.store import SKB
from skbsearch.retrieve.graph.fit import fit_kg_model
from skbsearch.retrieve.graph.retriever import SKBGraphRetriever
from skbsearch.retrieve.graph.work import GraphWork
from skbsearch.stages import StageContext, pipeline


@pytest.fixture(scope="module")
def kb() -> SKB:
    return shop()


@pytest.fixture
def no_gc() -> Iterator[None]:
    """Only reference counting frees objects (as between the server's rare full collections)."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _direct(kb: SKB) -> SKBGraphRetriever:
    text = BM25Index.from_skb(kb, add_rel=True)
    names = BM25Index.from_texts(((nid, nm or "") for nid, nm in zip(kb.ids, kb.column("name"), strict=True)),
                                 stopwords="en")
    return SKBGraphRetriever(kb, text, names, k=10)


def test_the_stage_builds_a_separate_working_object(kb: SKB) -> None:
    stage = _direct(kb)
    work = stage.inner
    assert isinstance(work, GraphWork) and work is not stage
    assert not any(v is stage for v in vars(work).values())
    queries, qrels = shop_queries()
    fit_kg_model(work, queries, qrels)
    assert work.model is not None and stage.fitted is work.model
    twin = work.untrained()
    assert twin is work.untrained() and twin.untrained() is twin  # made once; its own untrained stage
    assert twin.model is None and twin.linker.aliases == {} and twin.linker.exact.background is None
    assert work.linker.exact.background is not None  # the fitted linker keeps what it learned
    assert twin.linker.exact is not work.linker.exact and twin.tg is work.tg  # indexes shared


def test_a_fitted_and_explained_stage_is_freed_by_reference_counting(kb: SKB, no_gc: None) -> None:
    stage = _direct(kb)
    queries, qrels = shop_queries()
    fit_kg_model(stage.inner, queries, qrels)
    stage.inner.model.blend = 0.5  # the fitted list blended with its untrained twin's
    run = stage(queries)
    assert stage.explain(queries[0], next(iter(run[queries[0].id])))
    refs = [weakref.ref(x) for x in (stage, stage.inner, stage.inner.untrained())]
    del stage
    assert [r() for r in refs] == [None, None, None]


def test_a_stage_built_from_a_context_is_freed_by_reference_counting(kb: SKB, no_gc: None) -> None:
    stage = pipeline("graph(k=5)", StageContext(kb, notify=lambda _: None))
    stage([Query("q", "a ceramic cup by Zenith")])
    refs = [weakref.ref(stage), weakref.ref(stage.inner)]
    del stage
    assert [r() for r in refs] == [None, None]


def test_the_stages_parts_take_typed_arguments() -> None:
    """fit, evidence, blend, back-off and the work itself take no ``Any`` argument and read
    no private attribute of another object (``x._name`` with ``x`` not ``self``)."""
    root = Path(graph_package.__file__).parent
    for name in ("fit", "evidence", "blend", "backoff", "work", "planner"):
        tree = ast.parse((root / f"{name}.py").read_text(encoding="utf-8"))
        own = ("self", "twin") if name == "work" else ("self",)  # (GraphWork.untrained's twin: a copy of self)
        for fn in (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.Lambda))):
            if isinstance(fn, ast.FunctionDef):
                args = [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]
                untyped = [a.arg for a in args if a.annotation is not None and "Any" in ast.unparse(a.annotation)]
                assert untyped == [], f"{name}.{fn.name}: {untyped}"
        private = [ast.unparse(n) for n in ast.walk(tree) if isinstance(n, ast.Attribute)
                   and n.attr.startswith("_") and not n.attr.startswith("__")
                   and not (isinstance(n.value, ast.Name) and n.value.id in own)]
        assert private == [], f"{name}: {private}"


def test_walks_follow_metapaths_from_a_node(kb: SKB) -> None:
    work = _direct(kb).inner
    cache: dict = {}
    bought = work.follow(kb.index_of("p3"), ("product", "also_bought"), cache)
    assert sorted(kb.id_of(bought.tolist())) == ["p6", "p9"]
    brands = work.follow(kb.index_of("p3"), ("product", "also_bought", "has_brand"), cache)
    assert sorted(kb.id_of(brands.tolist())) == ["brand:bor", "brand:zen"]
    assert (kb.index_of("p3"), ("product", "also_bought")) in cache  # the prefix walked once
    nothing = work.follow(kb.index_of("brand:acme"), ("brand", "also_bought"), {})
    assert len(nothing) == 0


def test_attribute_values_over_all_nodes(kb: SKB) -> None:
    work = _direct(kb).inner
    price = work.attribute("price")
    assert price[kb.index_of("p1")] == 12.0 and np.isnan(price[kb.index_of("brand:acme")])
    assert work.attribute("price") is price  # read once
    assert work.attribute("description") is None and work.attribute("nope") is None


def test_ranked_combines_the_evidence_into_the_top_k(kb: SKB) -> None:
    work = _direct(kb).inner
    assert work.weights == {"rel": 1.0, "text": 1.0, "attr": 1.0, "type": 0.5}
    run = work.ranked([Query("q", "mugs by Zenith"), Query("e", "")], None)
    assert run.name == "kg" and run["e"] == {} and 0 < len(run["q"]) <= work.k
    assert set(list(run["q"])[:3]) == {"p5", "p6", "p7"}  # the Zenith products first
    assert 0.0 < run.confidence["q"] <= 1.0
    _, scored = work.score([Query("q", "mugs by Zenith")])
    nodes, scores = work.combine(scored[0])
    assert kb.id_of(nodes.tolist()) == list(run["q"]) and np.all(np.diff(scores) <= 0)
    text_only, _ = work.combine(scored[0], {"text": 1.0})
    assert list(text_only) != list(nodes)  # the weights decide the order
    given = work.ranked([Query("q", "mugs by Zenith")], Run({"q": {"p1": 1.0, "zz": 2.0}}))
    assert "p1" in given["q"] and "zz" not in given["q"]  # a run's candidates (of the SKB) are scored
