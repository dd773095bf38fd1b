"""Registered first-stage retrievers over an SKB: dense, multi-vector and constraint-aware
retrieval over enriched node documents (``bm25``: :mod:`skbsearch.retrieve.sparse`; the graph
stage: :mod:`.graph_general`)."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skbsearch.core.deadline import check_deadline
from skbsearch.core.errors import InputError
from skbsearch.core.registry import register_stage
from skbsearch.core.stage import SpecStage
from skbsearch.enrich import (
    ArithmeticEnricher,
    GazetteerEnricher,
    TemporalEnricher,
    enrich_documents,
)
from skbsearch.retrieve.constrained import ConstrainedRetriever
from skbsearch.stages.context import StageContext


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
