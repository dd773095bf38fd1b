"""Dense indexes that follow a changing SKB: vectors for new and changed nodes only.

:func:`catch_up` embeds the documents of new and upserted nodes (through the on-disk
embedding cache, as ``skb index --kind dense`` does) and appends them: the stored matrix stays
memory-mapped and is not copied; each live row points at its vector (a base row, or an
appended one), deleted and replaced rows are simply not pointed at (tombstones), in the SKB's
row order (:class:`~skbsearch.index.rowmap.RowMappedMatrix`). The result is an ordinary
:class:`~skbsearch.index.dense.DenseIndex` that scores as a rebuild does (the same encoder on
the same texts); saving it (``skb kb compact``) folds the matrix into one. The torch and FAISS
backends take one contiguous matrix (folded on catch-up); an HNSW graph is rebuilt over all
vectors (slow on large SKBs: compact, or prefer ``numpy``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from skbsearch.core.errors import ArtefactError
from skbsearch.index.bm25_live import index_rows, pending_changes, rows_only
from skbsearch.index.rowmap import RowMappedMatrix
from skbsearch.kb.arrays import positions

if TYPE_CHECKING:
    from skbsearch.kb.store import SKB


def changed_rows(index: Any, skb: SKB, root: Path | None) -> np.ndarray | None:
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
    pos = index_rows(index, skb)
    if changed:
        touched = positions(sorted(changed), ids)
        pos[touched[touched >= 0]] = -1
    return pos


def renderer_of(source: dict[str, Any]) -> Any:
    """The document renderer the index was built with (fields, relation context)."""
    from skbsearch.documents import DocumentRenderer

    return DocumentRenderer(fields=source.get("fields"), add_rel=False,
                            max_per_relation=int(source.get("max_per_relation", 10)))


def _embed(index: Any, texts: list[str]) -> np.ndarray:
    """``texts`` embedded (through the embedding cache) by the encoder ``index`` was built with."""
    from skbsearch.encoders import default_cache_dir, encode_texts, load_encoder

    enc = load_encoder(index.encoder)
    if enc.model_id != index.model_id:
        raise ArtefactError(f"{index.path}: encoder {index.encoder!r} now gives model {enc.model_id}, "
                          f"the index holds {index.model_id}; rebuild it")
    if not texts:
        return np.zeros((0, index.dim), np.float32)
    return np.asarray(encode_texts(enc, texts, default_cache_dir()), np.float32)


def _appended(base: Any, pos: np.ndarray, fresh: np.ndarray) -> RowMappedMatrix:
    """Rows ``pos`` of ``base`` (``-1``: the next row of ``fresh``, in order) as one
    row-mapped matrix over the stored vectors (a mapped ``base`` is folded, not nested)."""
    where = np.asarray(pos, np.int64).copy()
    if isinstance(base, RowMappedMatrix):  # caught up before: fold the two levels of mapping
        where = np.where(where >= 0, base.pos[np.maximum(where, 0)], -1)
        base, appended_before = base.base, base.appended
    else:
        appended_before = np.zeros((0, base.shape[1]), np.float32)
    new = np.flatnonzero(where < 0)
    where[new] = len(base) + len(appended_before) + np.arange(len(new))
    return RowMappedMatrix(base, np.concatenate([appended_before, fresh]), where)


def catch_up_multivector(index: Any, skb: SKB, root: Path | None = None) -> Any:
    """A multi-vector ``index`` at ``skb``'s generation: the chunks of new and changed nodes
    embedded and appended, every live document's chunks mapped to their vectors."""
    from skbsearch.index.multivector import MultiVectorIndex, chunk_words

    pos = changed_rows(index, skb, root)
    if pos is None:
        return index
    texts = renderer_of(index.source).render_many(rows_only(skb, np.flatnonzero(pos < 0)))
    chunks = [chunk_words(t, index.size, index.stride) for t in texts]
    fresh = _embed(index, [c for cs in chunks for c in cs])
    off = np.asarray(index.offsets, np.int64)
    kept = pos >= 0
    counts = np.zeros(len(pos), np.int64)
    counts[kept] = off[pos[kept] + 1] - off[pos[kept]]
    counts[~kept] = [len(cs) for cs in chunks]
    offsets = np.zeros(len(pos) + 1, np.int64)
    np.cumsum(counts, out=offsets[1:])
    start = np.where(kept, off[np.maximum(pos, 0)], -1)
    chunk_pos = np.repeat(start - offsets[:-1], counts) + np.arange(int(offsets[-1]))
    chunk_pos[np.repeat(~kept, counts)] = -1
    source = {**index.source, "skb_hash": skb.meta.get("content_hash"), "num_nodes": skb.num_nodes,
              "generation": skb.meta.get("generation")}
    return MultiVectorIndex(skb.ids, _appended(index.embeddings, chunk_pos, fresh), offsets, agg=index.agg,
                            size=index.size, stride=index.stride, encoder=index.encoder,
                            model_id=index.model_id, normalized=True, source=source, built_on=index.built_on)


def why_stale(kind: str, source: dict[str, Any], directory: Path) -> str | None:
    """Why a dense or multi-vector index built from ``source`` cannot follow updates."""
    if source.get("add_rel"):
        return f"{kind} indexes with related nodes' names (--add-rel) do not follow updates yet"
    return None


def catch_up(index: Any, skb: SKB, root: Path | None = None) -> Any:
    """``index`` at ``skb``'s generation (or ``index`` itself: current, or not an ancestor)."""
    from skbsearch.index.dense import DenseIndex

    pos = changed_rows(index, skb, root)
    if pos is None:
        return index
    new_rows = np.flatnonzero(pos < 0)
    fresh = _embed(index, renderer_of(index.source).render_many(rows_only(skb, new_rows)))
    # append-only: the stored vectors stay where they are (memory-mapped, not copied); the
    # new ones are appended and each live row points at its vector (index.rowmap)
    matrix: Any = _appended(index.embeddings, pos, fresh)
    if index.backend != "numpy":  # torch and FAISS take one contiguous matrix
        matrix = np.asarray(matrix)
    source = {**index.source, "skb_hash": skb.meta.get("content_hash"), "num_nodes": skb.num_nodes,
              "generation": skb.meta.get("generation")}
    out = DenseIndex(skb.ids, matrix, backend=index.backend, encoder=index.encoder, model_id=index.model_id,
                     normalized=True, hnsw_m=index.hnsw_m, ef_construction=index.ef_construction,
                     ef_search=index.ef_search, exact_filter_max=index.exact_filter_max, source=source)
    return out
