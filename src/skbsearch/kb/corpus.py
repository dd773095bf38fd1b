"""A passage corpus as an SKB: one node type, one text field, no edges (layer L1).

Benchmarks over plain passages (TREC DL, IMPLIRET pools, NQ) become SKBs so that the
registered stages run on them unchanged::

    kb = corpus_skb(ids, texts, node_type="passage", name="trecdl-dl19")

The SKB is cached under ``cache_root()/corpora/<name>-<key>``, ``key`` a digest of the
node type, ids and texts: the same corpus is built once, a changed one gets a new
directory. A passage is its own document: :class:`TextRenderer` renders a node as its
text field verbatim (no ``type: name`` header), for indexes and re-rankers alike.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from skbsearch.core.errors import InputError
from skbsearch.core.paths import cache_root
from skbsearch.kb.store import SKB

#: The text field of a corpus SKB.
TEXT_FIELD = "text"


@dataclass(frozen=True)
class TextRenderer:
    """Renders a node as the value of one text field, verbatim (empty when missing).

    Duck-types :class:`skbsearch.documents.DocumentRenderer` for the index builders.
    """

    field: str = TEXT_FIELD
    add_rel: bool = False
    max_per_relation: int = 0

    @property
    def fields(self) -> list[str]:
        """The one field rendered (recorded in index manifests)."""
        return [self.field]

    def render(self, skb: SKB, index: int) -> str:
        """One node's document."""
        return self.render_many(skb, [index])[0]

    def render_many(self, skb: SKB, indices: Iterable[int] | None = None) -> list[str]:
        """Documents of many nodes (all nodes when ``indices`` is None)."""
        col = skb.column(self.field)
        idx = range(skb.num_nodes) if indices is None else (int(i) for i in indices)
        return [col[i] or "" for i in idx]


def corpus_key(ids: Sequence[str], texts: Sequence[str], node_type: str) -> str:
    """A digest of a corpus (node type, ids and texts, in order)."""
    h = hashlib.blake2b(digest_size=16)
    h.update(node_type.encode("utf-8") + b"\0")
    for i, t in zip(ids, texts, strict=True):
        h.update(str(i).encode("utf-8") + b"\0" + str(t).encode("utf-8") + b"\0")
    return h.hexdigest()


def corpus_skb(ids: Sequence[str], texts: Sequence[str], *, node_type: str = "passage",
               name: str = "corpus", cache_dir: str | Path | None = None) -> SKB:
    """The SKB of a passage corpus (node order = ``ids`` order), built once and cached.

    Args:
        ids: passage ids (unique).
        texts: their texts (the ``text`` field).
        node_type: the one node type (``passage``, ``document``...).
        name: a readable prefix of the cache directory (e.g. ``trecdl-dl19``).
        cache_dir: where corpora are kept (default ``cache_root()/corpora``).
    """
    ids, texts = [str(i) for i in ids], [str(t) for t in texts]
    if len(ids) != len(texts):
        raise InputError(f"{len(ids)} passage ids but {len(texts)} texts", field="texts")
    if len(set(ids)) != len(ids):
        raise InputError("passage ids must be unique", field="id")
    key = corpus_key(ids, texts, node_type)
    safe = "".join(c if c.isalnum() or c in "-_." else "-" for c in name) or "corpus"
    path = Path(cache_dir) if cache_dir is not None else cache_root() / "corpora"
    path = path / f"{safe}-{key[:16]}"
    if (path / "meta.json").is_file():
        kb = SKB.load(path)
        if kb.meta.get("source", {}).get("corpus_key") == key:
            return kb
    kb = SKB.from_columns(ids, [node_type] * len(ids), [""] * len(ids),
                          fields={TEXT_FIELD: texts}, edges=None,
                          meta={"source": {"kind": "corpus", "name": name, "corpus_key": key,
                                           "node_type": node_type}})
    kb.save(path)
    return SKB.load(path)

