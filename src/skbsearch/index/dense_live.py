"""Dense indexes that follow a changing SKB: vectors for new and changed nodes only.

:func:`catch_up` keeps the stored vector of every node the pending segments did not touch
(a row gather from the memory-mapped matrix), embeds the documents of upserted nodes (through
the on-disk embedding cache, as ``skb index --kind dense`` does) and drops deleted nodes (the
new matrix simply has no row for them), in the SKB's row order: the result is an ordinary
:class:`~skbsearch.index.dense.DenseIndex` that scores exactly as a rebuild does (the same
encoder on the same texts). FAISS flat indexes are rebuilt from the matrix on first use; an
HNSW graph is rebuilt over all vectors (slow on large SKBs: compact, or prefer ``numpy``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from skbsearch.core.errors import ArtefactError
from skbsearch.index.bm25_live import pending_changes, rows_only
from skbsearch.kb.arrays import positions


def changed_rows(index: Any, skb: Any, root: Path | None) -> np.ndarray | None:
    """``pos`` per SKB row: the index row holding its unchanged document, or -1 for a node
    to embed anew; ``None`` when ``index`` is current or cannot follow (see ``bm25_live``)."""
    src = dict(index.source or {})
    now = (skb.meta or {}).get("content_hash")
    if src.get("kind") != "skb" or not now or src.get("skb_hash") == now:
        return None
    changed = pending_changes(skb, src.get("skb_hash"), root)
    if changed is None or getattr(index, "node_index", None) is not None:
        return None
    if src.get("add_rel"):
        raise ArtefactError(f"{index.path}: a {index.kind} index with related nodes' names (--add-rel) "
                          f"cannot follow updates yet; rebuild it with 'skb index SKB_DIR --kind "
                          f"{index.kind} --add-rel --force'")
    ids = skb.nodes.column("id").combine_chunks()
    pos = positions(ids, index.doc_ids)
    if changed:
        touched = positions(sorted(changed), ids)
        pos[touched[touched >= 0]] = -1
    return pos


def renderer_of(source: dict[str, Any]) -> Any:
    """The document renderer the index was built with (fields, relation context)."""
    from skbsearch.documents import DocumentRenderer

    return DocumentRenderer(fields=source.get("fields"), add_rel=False,
                            max_per_relation=int(source.get("max_per_relation", 10)))


def catch_up(index: Any, skb: Any, root: Path | None = None) -> Any:
    """``index`` at ``skb``'s generation (or ``index`` itself: current, or not an ancestor)."""
    from skbsearch.encoders import default_cache_dir, encode_texts, load_encoder
    from skbsearch.index.dense import DenseIndex

    pos = changed_rows(index, skb, root)
    if pos is None:
        return index
    new_rows = np.flatnonzero(pos < 0)
    texts = renderer_of(index.source).render_many(rows_only(skb, new_rows))
    enc = load_encoder(index.encoder)
    if enc.model_id != index.model_id:
        raise ArtefactError(f"{index.path}: encoder {index.encoder!r} now gives model {enc.model_id}, "
                          f"the index holds {index.model_id}; rebuild it")
    fresh = encode_texts(enc, texts, default_cache_dir()) if len(texts) else np.zeros((0, index.dim), np.float32)
    matrix = np.empty((skb.num_nodes, index.dim), np.float32)
    keep = np.flatnonzero(pos >= 0)
    matrix[keep] = np.asarray(index.embeddings)[pos[keep]]
    matrix[new_rows] = fresh
    source = {**index.source, "skb_hash": skb.meta.get("content_hash"), "num_nodes": skb.num_nodes,
              "generation": skb.meta.get("generation")}
    out = DenseIndex(skb.ids, matrix, backend=index.backend, encoder=index.encoder, model_id=index.model_id,
                     normalized=True, hnsw_m=index.hnsw_m, ef_construction=index.ef_construction,
                     ef_search=index.ef_search, exact_filter_max=index.exact_filter_max, source=source)
    return out
