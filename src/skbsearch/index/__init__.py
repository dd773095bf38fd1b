"""Indexes on disk, and the registry of index kinds behind ``skb index --kind``.

Every kind registers an :class:`IndexKind` naming, as ``"module:attribute"`` strings (so
that heavy optional dependencies load only when that kind is used):

- ``builder``: ``build(skb, *, fields, field_weights, add_rel, progress, **params) -> index``
  (an object with ``.save(path)``);
- ``loader``: ``load(path) -> index``;
- ``stage``: a retriever stage class ``Retriever(index, k=..., filter=..., skb=...)``.

To add a kind (e.g. ``dense``), call :func:`register_kind` at the bottom of this module
with the new entry; ``skb index`` and ``skb search --retriever`` pick it up.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skbsearch.core.errors import InputError
from skbsearch.index.base import Manifest, read_manifest

if TYPE_CHECKING:
    from skbsearch.kb.store import SKB


@dataclass(frozen=True)
class IndexKind:
    """One kind of index: how to build it from an SKB, load it, and search it."""

    name: str
    builder: str
    loader: str
    stage: str
    description: str = ""
    default_dir: str = ""

    @staticmethod
    def _resolve(spec: str) -> Callable[..., Any]:
        module, _, attr = spec.partition(":")
        obj: Any = importlib.import_module(module)
        for part in attr.split("."):
            obj = getattr(obj, part)
        return obj

    def build(self, skb: SKB, **options: Any) -> Any:
        """Build this kind of index over ``skb``."""
        return self._resolve(self.builder)(skb, **options)

    def load(self, path: str | Path) -> Any:
        """Load a saved index of this kind."""
        return self._resolve(self.loader)(path)

    def retriever(self, index: Any, **options: Any) -> Any:
        """A retrieval stage over a loaded index."""
        return self._resolve(self.stage)(index, **options)

    @property
    def index_dir_name(self) -> str:
        """Default directory name under ``SKB_DIR/indexes/``."""
        return self.default_dir or self.name


_REGISTRY: dict[str, IndexKind] = {}


def register_kind(kind: IndexKind) -> None:
    """Add (or replace) an index kind."""
    _REGISTRY[kind.name] = kind


def get_kind(name: str) -> IndexKind:
    """The registered kind called ``name``; unknown names raise :class:`InputError`."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise InputError(f"unknown index kind {name!r}; available: {', '.join(available_kinds())}",
                         field="kind") from None


def available_kinds() -> list[str]:
    """Names of the registered index kinds."""
    return sorted(_REGISTRY)


def load_index(path: str | Path) -> Any:
    """Load any saved index, dispatching on its manifest's ``kind``."""
    m: Manifest = read_manifest(path)
    return get_kind(m.kind).load(path)


register_kind(
    IndexKind(
        name="bm25",
        builder="skbsearch.index.sparse:BM25Index.default_for_skb",
        loader="skbsearch.index.sparse:BM25Index.load",
        stage="skbsearch.retrieve.sparse:BM25Retriever",
        description="BM25 (bm25s) over rendered node documents or weighted fields",
    )
)
register_kind(
    IndexKind(
        name="dense",
        builder="skbsearch.index.dense:DenseIndex.from_skb",
        loader="skbsearch.index.dense:DenseIndex.load",
        stage="skbsearch.retrieve.dense:DenseRetriever",
        description="dense embeddings (MiniLM by default; numpy exact, FAISS flat or HNSW)",
    )
)
register_kind(
    IndexKind(
        name="multivector",
        builder="skbsearch.index.multivector:MultiVectorIndex.from_skb",
        loader="skbsearch.index.multivector:MultiVectorIndex.load",
        stage="skbsearch.retrieve.dense:MultiVectorRetriever",
        description="overlapping word chunks, one embedding each; doc score = max / mean-topN",
    )
)
