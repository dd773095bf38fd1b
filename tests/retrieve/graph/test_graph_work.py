"""The graph stage's working object: built apart from the stage, freed without a cycle collection."""

from __future__ import annotations

import ast
import gc
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest
from kg_fixtures import shop, shop_queries

import skbsearch.retrieve.graph as graph_package
from skbsearch.core.types import Query
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
