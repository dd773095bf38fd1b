"""What a dense or multi-vector index embeds: document ids and texts, from an SKB (rendered
by a :class:`~skbsearch.documents.DocumentRenderer`) or a ``(doc_ids, texts)`` pair."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, is_dataclass
from pathlib import Path
from typing import Any

import numpy as np

from skbsearch.core.errors import InputError
from skbsearch.documents import DocumentRenderer
from skbsearch.kb.store import SKB


@dataclass
class DocSource:
    """Documents to index: ids, texts, optional SKB node indices and a provenance record."""

    doc_ids: list[str]
    texts: list[str]
    node_index: np.ndarray | None = None
    source: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_any(
        cls, source: Any, renderer: Any = None, indices: Sequence[int] | np.ndarray | None = None
    ) -> DocSource:
        """From an SKB (rendered with ``renderer``) or a ``(doc_ids, texts)`` pair."""
        if isinstance(source, SKB):
            renderer = renderer or DocumentRenderer()
            idx = None if indices is None else np.asarray(indices, dtype=np.int64)
            texts = renderer.render_many(source, idx)
            ids = source.ids if idx is None else source.id_of(idx)
            return cls(list(ids), texts, idx, skb_record(source, renderer))
        try:
            doc_ids, texts = source
        except (TypeError, ValueError):
            raise InputError("documents must be an SKB or a (doc_ids, texts) pair",
                             field="source") from None
        doc_ids, texts = [str(d) for d in doc_ids], [str(t) for t in texts]
        if len(doc_ids) != len(texts):
            raise InputError(f"{len(doc_ids)} doc ids but {len(texts)} texts", field="texts")
        seen: set[str] = set()
        for n, d in enumerate(doc_ids, start=1):
            if d in seen:
                raise InputError(f"duplicate doc id {d!r}; ids must be unique", line=n, field="doc_id")
            seen.add(d)
        return cls(doc_ids, texts, None, {"kind": "texts"})


def skb_record(skb: SKB, renderer: DocumentRenderer) -> dict[str, Any]:
    """The manifest's ``source`` of an index of ``skb``'s nodes rendered by ``renderer``
    (whatever engine built it: one record, so the builds compare equal)."""
    fields = getattr(renderer, "fields", None)
    return {"kind": "skb", "num_nodes": skb.num_nodes,
            "skb_hash": skb.meta.get("content_hash"),
            "path": str(Path(skb.path).absolute()) if skb.path else None,
            "fields": list(fields) if fields is not None else None,
            "add_rel": bool(getattr(renderer, "add_rel", False)),
            "max_per_relation": getattr(renderer, "max_per_relation", 10),
            "renderer": (asdict(renderer) if is_dataclass(renderer) and not isinstance(renderer, type)
                         else repr(renderer))}


def skb_renderer(fields: Sequence[str] | None = None, field_weights: Any = None,
                 add_rel: bool = False, max_per_relation: int = 10) -> Any:
    """The DocumentRenderer behind ``skb index --kind dense|multivector`` options."""
    if field_weights:
        raise InputError("field weights apply to bm25 indexes only; a dense index embeds one "
                         "rendered document per node", field="field_weights")
    fields = [f.strip() for f in fields if f.strip()] if fields is not None else None
    return DocumentRenderer(fields=fields, add_rel=add_rel, max_per_relation=max_per_relation)
