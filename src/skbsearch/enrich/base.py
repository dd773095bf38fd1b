"""The enricher protocol, derived facts, and a runner over many documents.

An enricher is a stage of the indexing flow: it reads one document (id, text, optional
metadata such as a date) and returns structured :class:`Fact` s plus normalised tokens
to add to the document's index text. Enrichers never read queries, answers or other
documents.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from rich.console import Console
from rich.progress import Progress

from skbsearch.core.deadline import check_deadline
from skbsearch.core.errors import InputError


@dataclass(frozen=True)
class Fact:
    """One derived fact about a document.

    Attributes:
        kind: ``"date"`` (value: ISO date), ``"price"`` (value: float amount) or
            ``"place"`` (value: landmark label); other enrichers may add kinds.
        value: the normalised value.
        attrs: details, e.g. ``speaker``, ``time_start``/``time_end`` ("HH:MM"),
            ``currency``, ``entity``, ``derived``, ``country``, ``region``, ``city``.
        evidence: the sentence or span the fact was read from.
        source: the enricher's name.
        confidence: in (0, 1]; lower for ambiguous readings.
    """

    kind: str
    value: Any
    attrs: Mapping[str, Any] = field(default_factory=dict, hash=False, compare=False)
    evidence: str = field(default="", compare=False)
    source: str = field(default="", compare=False)
    confidence: float = field(default=1.0, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "kind": self.kind,
            "value": self.value,
            "attrs": dict(self.attrs),
            "evidence": self.evidence,
            "source": self.source,
            "confidence": self.confidence,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Fact:
        """Inverse of :meth:`to_dict`."""
        return cls(
            kind=d["kind"],
            value=d["value"],
            attrs=dict(d.get("attrs", {})),
            evidence=d.get("evidence", ""),
            source=d.get("source", ""),
            confidence=float(d.get("confidence", 1.0)),
        )


@dataclass
class Enrichment:
    """What one enricher derived from one document."""

    facts: list[Fact] = field(default_factory=list)
    tokens: list[str] = field(default_factory=list)


@runtime_checkable
class Enricher(Protocol):
    """A document-side reasoning stage (see the module docstring)."""

    name: str

    def enrich(self, doc_id: str, text: str, meta: Mapping[str, Any] | None = None) -> Enrichment:
        """Facts and index tokens derived from one document."""
        ...


@dataclass
class EnrichedDocument:
    """A document with the facts and tokens all enrichers derived from it."""

    id: str
    text: str
    facts: list[Fact] = field(default_factory=list)
    tokens: list[str] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def index_text(self) -> str:
        """The text to index: the original text, then the derived tokens."""
        if not self.tokens:
            return self.text
        return self.text + "\n" + " ".join(self.tokens)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (facts as dicts)."""
        return {
            "id": self.id,
            "text": self.text,
            "facts": [f.to_dict() for f in self.facts],
            "tokens": list(self.tokens),
            "meta": dict(self.meta),
        }


DocInput = tuple[str, str] | tuple[str, str, Mapping[str, Any]] | Mapping[str, Any]


def _as_doc(item: DocInput, n: int) -> tuple[str, str, dict[str, Any]]:
    if isinstance(item, Mapping):
        if "text" not in item and "document" not in item:
            raise InputError("document has no 'text' (or 'document') field", line=n, field="text")
        text = item.get("text", item.get("document"))
        doc_id = item.get("id", n - 1)
        meta = dict(item.get("meta") or {})
        return str(doc_id), str(text), meta
    if len(item) == 2:
        return str(item[0]), str(item[1]), {}
    if len(item) == 3:
        return str(item[0]), str(item[1]), dict(item[2] or {})
    raise InputError("expected (id, text) or (id, text, meta)", line=n)


def enrich_one(
    doc_id: str, text: str, enrichers: Sequence[Enricher], meta: Mapping[str, Any] | None = None
) -> EnrichedDocument:
    """Run every enricher on one document."""
    doc = EnrichedDocument(str(doc_id), text, meta=dict(meta or {}))
    for e in enrichers:
        res = e.enrich(doc.id, text, doc.meta)
        doc.facts.extend(res.facts)
        doc.tokens.extend(res.tokens)
    return doc


def enrich_documents(
    docs: Iterable[DocInput] | Mapping[str, str],
    enrichers: Sequence[Enricher],
    *,
    progress: bool = True,
    description: str = "enriching",
) -> list[EnrichedDocument]:
    """Run the enrichers over many documents, with a progress bar.

    Args:
        docs: ``{id: text}``, ``(id, text)`` / ``(id, text, meta)`` tuples, or dicts with
            ``id``, ``text`` (or ``document``) and optional ``meta``.
        enrichers: the stages to run, in order.
        progress: show a rich progress bar (on stderr).
    """
    items = list(docs.items()) if isinstance(docs, Mapping) else list(docs)
    parsed = [_as_doc(it, n) for n, it in enumerate(items, start=1)]
    out: list[EnrichedDocument] = []
    if not progress:
        for i, t, m in parsed:
            check_deadline()
            out.append(enrich_one(i, t, enrichers, m))
        return out
    with Progress(console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(description, total=len(parsed))
        for i, t, m in parsed:
            check_deadline()
            out.append(enrich_one(i, t, enrichers, m))
            bar.advance(task)
    return out
