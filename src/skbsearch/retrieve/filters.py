"""Hard filters on retrieval: node types and SQL predicates over node attributes.

A filter is *hard*: a retriever given one returns only nodes that pass it, never fillers.
It resolves, once per SKB, to a boolean mask over an index's documents.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from skbsearch.core.errors import InputError
from skbsearch.index import open_index
from skbsearch.index.base import IndexRecord
from skbsearch.kb.store import SKB


def parse_types(value: str | Sequence[str] | None) -> tuple[str, ...]:
    """Node types from ``"a,b"`` or ``["a", "b,c"]``; empty entries are dropped."""
    if value is None:
        return ()
    items = [value] if isinstance(value, str) else list(value)
    return tuple(t.strip() for item in items for t in str(item).split(",") if t.strip())


@dataclass(frozen=True)
class NodeFilter:
    """Keep nodes whose type is in ``types`` (if any) and that satisfy ``where`` (if given).

    Attributes:
        types: allowed node types (empty: all types).
        where: a predicate over node columns, e.g. ``price < 20 AND brand = 'X'``, in the
            allow-listed language of :mod:`skbsearch.kb.predicate` (never run as SQL).
    """

    types: tuple[str, ...] = field(default=())
    where: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "types", parse_types(self.types))
        if self.where is not None and not self.where.strip():
            object.__setattr__(self, "where", None)

    @property
    def is_empty(self) -> bool:
        """True when the filter lets everything through."""
        return not self.types and self.where is None

    def node_indices(self, skb: SKB) -> np.ndarray:
        """Sorted internal indices of the SKB nodes that pass (unknown types raise InputError)."""
        for t in self.types:
            if t not in skb.type_names:
                raise InputError(f"unknown node type {t!r}; types are {skb.type_names}",
                                 field="type")
        if self.where is None:
            if not self.types:
                return np.arange(skb.num_nodes, dtype=np.int32)
            return skb.nodes_of_type(*self.types)
        return np.asarray(skb.select(self.where, list(self.types) or None), dtype=np.int32)

    def doc_mask(self, skb: SKB, doc_ids: Sequence[str] | None = None) -> np.ndarray:
        """Boolean mask over an index's documents: True where the document's node passes.

        Args:
            skb: the SKB the filter is evaluated on.
            doc_ids: the index's document ids in order; ``None`` means the index rows are
                the SKB's nodes in order. Documents that are not SKB nodes never pass.
        """
        nodes = self.node_indices(skb)
        if doc_ids is None or _same_ids(doc_ids, skb):
            mask = np.zeros(skb.num_nodes, dtype=bool)
            mask[nodes] = True
            return mask
        allowed = set(skb.id_of(nodes))
        return np.fromiter((d in allowed for d in doc_ids), dtype=bool, count=len(doc_ids))

    def __str__(self) -> str:
        parts = []
        if self.types:
            parts.append("type in (" + ", ".join(self.types) + ")")
        if self.where:
            parts.append(f"({self.where})")
        return " AND ".join(parts) or "all nodes"


def _same_ids(doc_ids: Sequence[str], skb: SKB) -> bool:
    return len(doc_ids) == skb.num_nodes and list(doc_ids) == skb.ids


def index_skb(index: IndexRecord, skb: SKB | None = None) -> SKB:
    """``skb`` if given, else the SKB an index was built from (its manifest's source path).

    Either way, an index built from another SKB (or from this SKB before it was rebuilt)
    raises :class:`~skbsearch.core.errors.ArtefactError` (see :func:`~skbsearch.index.open_index`).
    """
    if skb is None:
        path = (getattr(index, "source", None) or {}).get("path")
        if not path or not Path(path).is_dir():
            raise InputError("a filter needs the SKB: pass skb=..., the index does not "
                             "record a readable SKB path", field="skb")
        skb = SKB.load(path)
    open_index(index, skb, follow=False, warm=False)
    return skb


def filter_mask(flt: NodeFilter | None, skb: SKB | None, doc_ids: Sequence[str],
                base: np.ndarray | None = None) -> np.ndarray | None:
    """``base`` AND the filter's document mask (``None`` when neither restricts anything;
    ``skb``: needed when ``flt`` is given)."""
    if flt is None:
        return base
    if skb is None:
        raise InputError("a filter needs the SKB: pass skb=...", field="skb")
    fm = flt.doc_mask(skb, doc_ids)
    return fm if base is None else base & fm
