"""Registered first-stage retrievers over an SKB: BM25, dense, multi-vector and
constraint-aware retrieval over enriched node documents (the graph stage: :mod:`.graph_general`)."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skbsearch.core.deadline import check_deadline
from skbsearch.core.errors import InputError
from skbsearch.core.registry import register_stage
from skbsearch.core.stage import SpecStage, check_device_params, device_param, precision_param
from skbsearch.core.types import Query
from skbsearch.enrich import (
    ArithmeticEnricher,
    GazetteerEnricher,
    TemporalEnricher,
    enrich_documents,
)
from skbsearch.retrieve.constrained import ConstrainedRetriever
from skbsearch.retrieve.dense import DenseRetriever, MultiVectorRetriever
from skbsearch.retrieve.filters import NodeFilter
from skbsearch.retrieve.sparse import BM25Retriever, evidence_lines
from skbsearch.stages.context import StageContext


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


@dataclass
class _EncoderParams(_RetrieverParams):
    encoder: str | None = field(default=None, metadata={
        "help": "encoder name/path (default: the one the index was built with)"})
    device: str | None = device_param()
    precision: str | None = precision_param()

    def check(self) -> None:
        _RetrieverParams.check(self)
        check_device_params(self)


class _EncoderStage(SpecStage):
    """A retriever over a saved vector index of kind :attr:`index_kind` (queries encoded
    on ``device``)."""

    index_kind: str
    retriever: type

    def build(self, context: StageContext) -> Any:
        p = self.params
        return self.retriever(context.index(self.index_kind), k=p.k, encoder=p.encoder,
                              filter=_filter(p.types, p.where), skb=context.kb,
                              device=p.device, precision=p.precision)


@register_stage
class DenseStage(_EncoderStage):
    """Dense (bi-encoder) retrieval; after another stage it re-scores that stage's candidates."""

    name = "dense"
    aliases = ("bi-encoder",)
    index_kind = "dense"
    retriever = DenseRetriever

    @dataclass
    class Params(_EncoderParams):
        pass


@register_stage
class MultiVectorStage(_EncoderStage):
    """Multi-vector retrieval: one embedding per chunk, a node scores by its best chunks."""

    name = "multivector"
    index_kind = "multivector"
    retriever = MultiVectorRetriever

    @dataclass
    class Params(_EncoderParams):
        pass


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
