"""Registered first-stage retrievers over an SKB: BM25, dense, multi-vector, graph-aware,
and constraint-aware retrieval over enriched node documents."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skbsearch.core.deadline import check_deadline
from skbsearch.core.errors import InputError
from skbsearch.core.types import Qrels, Query, Run
from skbsearch.enrich import (
    ArithmeticEnricher,
    GazetteerEnricher,
    TemporalEnricher,
    enrich_documents,
)
from skbsearch.index.names import load_or_build_name_index
from skbsearch.index.sparse import BM25Index
from skbsearch.retrieve.constrained import ConstrainedRetriever
from skbsearch.retrieve.dense import DenseRetriever, MultiVectorRetriever
from skbsearch.retrieve.filters import NodeFilter
from skbsearch.retrieve.graph_aware import GraphAwareRetriever
from skbsearch.retrieve.sparse import BM25Retriever, evidence_lines
from skbsearch.stages.base import SpecStage, check_device_params, device_param, precision_param
from skbsearch.stages.context import StageContext
from skbsearch.stages.fusion import _mrr
from skbsearch.stages.registry import register_stage


def _filter(types: tuple[str, ...], where: str | None) -> NodeFilter | None:
    f = NodeFilter(types, where)
    return None if f.is_empty else f


@dataclass
class _RetrieverParams:
    k: int = field(default=100, metadata={"help": "candidates per query"})
    types: tuple[str, ...] = field(default=(), metadata={"help": "only nodes of these types"})
    where: str | None = field(default=None, metadata={"help": "attribute predicate"})

    def check(self) -> None:
        if self.k < 0:
            raise InputError("k must be >= 0", field="k")


@register_stage
class BM25Stage(SpecStage):
    """BM25 over the SKB's node documents (index: SKB_DIR/indexes/bm25, built if missing)."""

    name = "bm25"
    cost = "light"

    @dataclass
    class Params(_RetrieverParams):
        backend: str = field(default="auto", metadata={"help": "auto | numba | numpy"})

    def build(self, context: StageContext) -> Any:
        p = self.params
        return BM25Retriever(context.index("bm25"), k=p.k, filter=_filter(p.types, p.where),
                             skb=context.kb, backend=p.backend)

    def explain(self, query: Query, doc_id: str) -> list[str]:
        ctx = self.require_context()
        idx = self.inner.index
        name = ctx.kb.node(doc_id).name if ctx.kb.has_node(doc_id) else ""
        # Drop the "type: name" header and lines that only repeat the name.
        lines = ctx.doc_text(doc_id).split("\n")[1:]
        body = "\n".join(ln for ln in lines if ln.partition(": ")[2] != name)
        return [f"text: {ln}" for ln in evidence_lines(
            query.text, body, getattr(idx, "tokenize", None), max_lines=2)]


@register_stage
class DenseStage(SpecStage):
    """Dense (bi-encoder) retrieval; after another stage it re-scores that stage's candidates."""

    name = "dense"
    aliases = ("bi-encoder",)

    @dataclass
    class Params(_RetrieverParams):
        encoder: str | None = field(default=None, metadata={
            "help": "encoder name/path (default: the one the index was built with)"})
        device: str | None = device_param()
        precision: str | None = precision_param()

        def check(self) -> None:
            _RetrieverParams.check(self)
            check_device_params(self)

    def build(self, context: StageContext) -> Any:
        p = self.params
        return DenseRetriever(context.index("dense"), k=p.k, encoder=p.encoder,
                              filter=_filter(p.types, p.where), skb=context.kb,
                              device=p.device, precision=p.precision)


@register_stage
class MultiVectorStage(SpecStage):
    """Multi-vector retrieval: one embedding per chunk, a node scores by its best chunks."""

    name = "multivector"

    @dataclass
    class Params(_RetrieverParams):
        encoder: str | None = None
        device: str | None = device_param()
        precision: str | None = precision_param()

        def check(self) -> None:
            _RetrieverParams.check(self)
            check_device_params(self)

    def build(self, context: StageContext) -> Any:
        p = self.params
        return MultiVectorRetriever(context.index("multivector"), k=p.k, encoder=p.encoder,
                                    filter=_filter(p.types, p.where), skb=context.kb,
                                    device=p.device, precision=p.precision)


@register_stage
class GraphStage(SpecStage):
    """Catalogue graph retrieval (v1): text + linked neighbour names + attribute bounds; fit learns weights."""

    name = "graph-v1"
    aliases = ("graph-aware",)
    trainable = True

    @dataclass
    class Params:
        k: int = 100
        target: tuple[str, ...] = field(default=(), metadata={
            "help": "node types that can be answers (default: all)"})
        n_text: int = 200
        n_anchor: int = 50
        anchor_min: float = 0.6
        rel_min: float = 0.9
        w_text: float = 1.0
        w_rel: float = 1.0
        w_attr: float = 1.0

    def build(self, context: StageContext) -> Any:
        p = self.params
        names = context.shared("name-index", lambda: _name_index(context))
        return GraphAwareRetriever(
            context.kb, context.index("bm25"), target_types=p.target, name_index=names, k=p.k,
            n_text=p.n_text, n_anchor=p.n_anchor, anchor_min=p.anchor_min, rel_min=p.rel_min,
            w_text=p.w_text, w_rel=p.w_rel, w_attr=p.w_attr)

    def fit(self, queries: Sequence[Query], qrels: Qrels, run: Run | None = None) -> SpecStage:
        """Grid-search the relational and attribute weights for MRR on the judged queries."""
        queries = [q for q in queries if q.id in qrels]
        if not queries:
            raise InputError("fit needs judged queries", field="qrels")
        qids = [q.id for q in queries]
        best, best_w = -1.0, (self.params.w_rel, self.params.w_attr)
        inner = self.inner
        for w_rel in (0.0, 0.5, 1.0, 2.0):
            for w_attr in (0.0, 0.5, 1.0, 2.0):
                inner.w_rel, inner.w_attr = w_rel, w_attr
                score = _mrr(inner(queries, run), qrels, qids)
                if score > best + 1e-12:
                    best, best_w = score, (w_rel, w_attr)
        self.params.w_rel, self.params.w_attr = best_w
        inner.w_rel, inner.w_attr = best_w
        return self


def _name_index(context: StageContext) -> BM25Index:
    """BM25 over node names, persisted in SKB_DIR/indexes/names (built once, then loaded)."""
    return load_or_build_name_index(context.kb, notify=context.notify)


@register_stage
class EnrichStage(SpecStage):
    """Constraint-aware retrieval over node documents enriched at index time (dates, prices)."""

    name = "enrich"
    aliases = ("constrained",)
    cost = "heavy"  # its enriched index is built in memory on first use

    @dataclass
    class Params:
        k: int = 100
        mode: str = field(default="full", metadata={"help": "full | text | constraints"})
        weight: float = 1.0
        gazetteer: str | None = field(default=None, metadata={
            "help": "landmark JSONL file: places linked in documents and query constraints"})

    def build(self, context: StageContext) -> Any:
        p = self.params
        gaz = _gazetteer(context.resolve_path(p.gazetteer)) if p.gazetteer else None
        # The enriched documents, their BM25 index, fact index and feedback matrices depend
        # only on the SKB and the gazetteer: built once per context, whatever k, mode, weight.
        key = "enriched-index" + (f":{p.gazetteer}" if gaz is not None else "")
        base = context.shared(key, lambda: _enriched_retriever(context, gaz))
        return base.with_settings(k=p.k, mode=p.mode, weight=p.weight)


def _enriched_retriever(context: StageContext, gaz: GazetteerEnricher | None) -> ConstrainedRetriever:
    """The constrained retriever over the context's enriched node documents (default settings)."""
    docs: dict[str, str] = {}
    for n, nid in enumerate(context.kb.ids):
        if n % 1024 == 0:
            check_deadline()
        docs[nid] = context.doc_text(nid)
    enrichers = [TemporalEnricher(), ArithmeticEnricher(), *([gaz] if gaz is not None else [])]
    enriched = enrich_documents(docs, enrichers, progress=False)
    return ConstrainedRetriever(enriched, places=gaz.gazetteer if gaz is not None else None)


@functools.lru_cache(maxsize=4)
def _gazetteer(path: Path) -> GazetteerEnricher:
    """A gazetteer enricher, loaded once per file (shared by the contexts of a benchmark)."""
    if not path.is_file():
        raise InputError(f"gazetteer file not found: {path}", field="gazetteer")
    return GazetteerEnricher.from_jsonl(path)
