"""Multi-vector index: each document split into overlapping word chunks, one vector a chunk.

A document's score aggregates its chunks' inner products with the query: ``"max"``,
``"mean"`` or ``"mean-topN"`` (the mean of its N best chunks; STaRK's multi-ada-002 uses
``"mean-top3"``). Search is exact (numpy). A saved index is a directory (atomic)::

    manifest.json          kind "multivector", encoder, model_id, size, stride, agg
    doc_ids.json           document ids, row order
    chunk_embeddings.npy   (num_chunks, dim) float32, memory-mapped on load
    chunk_offsets.npy      (num_docs + 1,) int64: doc r owns chunks offsets[r]:offsets[r+1]
    node_index.npy         optional: SKB node index of each row
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from skbsearch.core.devices import cpu_record, resolve
from skbsearch.core.errors import ArtefactError, InputError
from skbsearch.encoders import SentenceTransformerEncoder, encode_texts, load_encoder
from skbsearch.index.base import Manifest, ProgressFn, rebuild_hint
from skbsearch.index.dense import SCORE_BLOCK, DocSource, Hits, normalize, skb_renderer, top_k
from skbsearch.index.rowmap import RowMappedMatrix
from skbsearch.index.vectors import DocRows, load_npy

if TYPE_CHECKING:
    from skbsearch.kb.store import SKB

KIND = "multivector"
_AGG = re.compile(r"^(max|mean|mean-top(\d+))$")


def chunk_words(text: str, size: int = 100, stride: int = 75) -> list[str]:
    """Split ``text`` into chunks of at most ``size`` words, a new chunk every ``stride``.

    Chunks start at words ``0, stride, 2*stride, ...``, plus a last chunk ending at the
    last word, so consecutive chunks share at least ``size - stride`` words and every word
    is in some chunk. A text of at most ``size`` words (even an
    empty one) is a single chunk.
    """
    if size < 1 or not 1 <= stride <= size:
        raise InputError(f"need size >= 1 and 1 <= stride <= size, got size={size}, "
                         f"stride={stride}", field="stride")
    words = text.split()
    if len(words) <= size:
        return [" ".join(words)]
    starts = list(range(0, len(words) - size, stride)) + [len(words) - size]
    return [" ".join(words[s : s + size]) for s in starts]


def parse_agg(agg: str) -> int | None:
    """How many best chunks a doc score averages: 1 for ``max``, None (all) for ``mean``."""
    m = _AGG.match(agg)
    if not m or (m.group(2) is not None and int(m.group(2)) < 1):
        raise InputError(f"unknown aggregation {agg!r}; use 'max', 'mean' or 'mean-topN' "
                         "(e.g. 'mean-top3')", field="agg")
    if m.group(1) == "max":
        return 1
    return None if m.group(1) == "mean" else int(m.group(2))


def aggregate(scores: np.ndarray, offsets: np.ndarray, agg: str) -> np.ndarray:
    """Per-document scores from chunk ``scores`` (docs own ``offsets[r]:offsets[r+1]``).

    Every document must own at least one chunk.
    """
    top = parse_agg(agg)
    starts, counts = offsets[:-1], np.diff(offsets)
    if len(starts) == 0:
        return np.zeros(0, np.float32)
    if top == 1:
        return np.maximum.reduceat(scores, starts)
    if top is None or top >= counts.max():
        return (np.add.reduceat(scores, starts) / counts).astype(np.float32)
    doc = np.repeat(np.arange(len(counts)), counts)
    order = np.lexsort((-scores, doc))  # by doc, best chunk first
    rank = np.arange(len(scores)) - offsets[doc]  # doc[order] == doc: segments are sorted
    keep = order[rank < top]
    sums = np.bincount(doc[keep], weights=scores[keep], minlength=len(counts))
    return (sums / np.minimum(counts, top)).astype(np.float32)


class MultiVectorIndex(DocRows):
    """Chunk embeddings grouped by document, searched exactly with an aggregation.

    Args:
        doc_ids: one id per document row.
        chunk_embeddings: ``(num_chunks, dim)``; normalised here unless ``normalized``.
        offsets: ``(len(doc_ids) + 1,)`` chunk offsets; every doc owns >= 1 chunk.
        agg: default aggregation (``"max"``, ``"mean"``, ``"mean-topN"``).
        size, stride: the chunking used (kept in the manifest).
        encoder, model_id, node_index, source: as for
            :class:`~skbsearch.index.dense.DenseIndex`.
    """

    kind = KIND

    def __init__(
        self,
        doc_ids: Sequence[str],
        chunk_embeddings: np.ndarray | RowMappedMatrix,
        offsets: np.ndarray,
        *,
        agg: str = "max",
        size: int = 100,
        stride: int = 75,
        encoder: str | None = None,
        model_id: str | None = None,
        node_index: np.ndarray | None = None,
        normalized: bool = False,
        source: dict[str, Any] | None = None,
        built_on: dict[str, Any] | None = None,
    ) -> None:
        self.built_on = dict(built_on or {})
        self.doc_ids = [str(d) for d in doc_ids]
        self.embeddings = chunk_embeddings if normalized else normalize(np.asarray(chunk_embeddings))
        self.offsets = np.asarray(offsets, dtype=np.int64)
        n = len(self.doc_ids)
        if (self.offsets.shape != (n + 1,) or self.offsets[0] != 0
                or self.offsets[-1] != self.embeddings.shape[0]
                or (n and np.diff(self.offsets).min() < 1)):
            raise InputError(f"chunk offsets must run 0..{self.embeddings.shape[0]} with at least "
                             f"one chunk for each of {n} docs", field="offsets")
        parse_agg(agg)
        self.agg, self.size, self.stride = agg, size, stride
        self.encoder, self.model_id = encoder, model_id
        self.node_index = None if node_index is None else np.asarray(node_index, dtype=np.int64)
        self.source = dict(source or {})
        self.path: Path | None = None

    @classmethod
    def build(
        cls,
        source: Any,
        encoder: Any = "minilm",
        *,
        size: int = 100,
        stride: int = 75,
        agg: str = "max",
        renderer: Any = None,
        indices: Sequence[int] | np.ndarray | None = None,
        cache: Any = None,
        batch_size: int = 64,
        progress: bool | ProgressFn = False,
        device: str | None = None,
        precision: str | None = None,
    ) -> MultiVectorIndex:
        """Chunk, embed and index documents from an SKB or ``(doc_ids, texts)``.

        Arguments as for :meth:`skbsearch.index.dense.DenseIndex.build` (``device`` and
        ``precision`` included), plus the chunk ``size`` and ``stride`` (in words) and the
        default aggregation ``agg``.
        """
        docs = DocSource.from_any(source, renderer=renderer, indices=indices)
        chunks = [chunk_words(t, size, stride) for t in docs.texts]
        offsets = np.zeros(len(chunks) + 1, dtype=np.int64)
        np.cumsum([len(c) for c in chunks], out=offsets[1:])
        enc = load_encoder(encoder, device, precision)  # a static encoder resolves no device
        flat = [c for cs in chunks for c in cs]
        emb = encode_texts(enc, flat, cache, batch_size=batch_size, progress=progress,
                           description="embedding chunks")
        return cls(docs.doc_ids, emb, offsets, agg=agg, size=size, stride=stride,
                   encoder=enc.name, model_id=enc.model_id, node_index=docs.node_index,
                   normalized=True, source=docs.source,
                   built_on=resolve(device, precision).record()
                   if isinstance(enc, SentenceTransformerEncoder) else cpu_record())

    @classmethod
    def from_skb(cls, skb: SKB, *, fields: Sequence[str] | None = None, field_weights: Any = None,
                 add_rel: bool = False, max_per_relation: int = 10,
                 progress: bool | ProgressFn = False, **params: Any) -> MultiVectorIndex:
        """Index every node of ``skb`` (the ``skb index --kind multivector`` builder);
        ``params`` go to :meth:`build` (``encoder``, ``size``, ``stride``, ``agg``...)."""
        renderer = skb_renderer(fields, field_weights, add_rel, max_per_relation)
        return cls.build(skb, renderer=renderer, progress=progress, **params)

    @property
    def dim(self) -> int:
        """Embedding dimension."""
        return int(self.embeddings.shape[1])

    @property
    def num_chunks(self) -> int:
        """Total number of chunks."""
        return int(self.offsets[-1])

    def _chunks_of(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Chunk rows of doc ``rows`` (concatenated) and their local offsets."""
        counts = self.offsets[rows + 1] - self.offsets[rows]
        local = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(counts, out=local[1:])
        chunk_rows = np.repeat(self.offsets[rows] - local[:-1], counts) + np.arange(local[-1])
        return chunk_rows, local

    def search(
        self,
        queries: np.ndarray,
        k: int,
        allowed: np.ndarray | Sequence[int] | None = None,
        agg: str | None = None,
    ) -> list[Hits]:
        """Top-``k`` ``(doc rows, scores)`` per query vector; only ``allowed`` rows if given."""
        q = self._check(queries)
        agg = agg or self.agg
        if allowed is None:
            rows, matrix, offsets = None, self.embeddings, self.offsets
        else:
            rows = self.check_rows(allowed)
            chunk_rows, offsets = self._chunks_of(rows)
            matrix = np.asarray(self.embeddings[chunk_rows], dtype=np.float32)
        out: list[Hits] = []
        step = max(1, SCORE_BLOCK // max(matrix.shape[0], 1))
        for start in range(0, len(q), step):
            block = q[start : start + step]
            for chunk_scores in (matrix.inner(block) if hasattr(matrix, "inner") else block @ matrix.T):
                out.append(top_k(aggregate(chunk_scores, offsets, agg), k, rows))
        return out

    def score(
        self, queries: np.ndarray, rows: Sequence[np.ndarray], agg: str | None = None
    ) -> list[np.ndarray]:
        """Aggregated scores of each query's own candidate doc ``rows`` (re-scoring)."""
        q = self._check(queries)
        out = []
        for qi, r in zip(q, rows, strict=True):
            chunk_rows, offsets = self._chunks_of(np.asarray(r, dtype=np.int64))
            chunk_scores = np.asarray(self.embeddings[chunk_rows], dtype=np.float32) @ qi
            out.append(aggregate(chunk_scores, offsets, agg or self.agg).astype(np.float32))
        return out

    def _check(self, queries: np.ndarray) -> np.ndarray:
        q = normalize(np.atleast_2d(queries))
        if q.shape[1] != self.dim:
            raise InputError(f"query vectors have dim {q.shape[1]}, index has {self.dim}", field="dim")
        return q

    # ------------------------------------------------------------------ persistence
    @property
    def params(self) -> dict[str, Any]:
        """Build settings, as recorded in the manifest."""
        return {"encoder": self.encoder, "model_id": self.model_id, "dim": self.dim,
                "size": self.size, "stride": self.stride, "agg": self.agg,
                "num_chunks": self.num_chunks}

    def write_arrays(self, tmp: Path) -> None:
        """The chunk embeddings and their offsets of :meth:`save`."""
        np.save(tmp / "chunk_embeddings.npy", np.ascontiguousarray(self.embeddings, np.float32))
        np.save(tmp / "chunk_offsets.npy", self.offsets)

    @classmethod
    def from_saved(cls, path: Path, man: Manifest, doc_ids: list[str],
                   node_index: np.ndarray | None, *, mmap: bool) -> MultiVectorIndex:
        """:meth:`load`'s index (chunk embeddings memory-mapped unless ``mmap=False``)."""
        p = man.params
        emb = load_npy(path / "chunk_embeddings.npy", mmap, KIND)
        offsets = load_npy(path / "chunk_offsets.npy", False, KIND)
        try:
            return cls(doc_ids, emb, offsets, agg=p.get("agg", "max"), size=p.get("size", 100),
                       stride=p.get("stride", 75), encoder=p.get("encoder"),
                       model_id=p.get("model_id"), node_index=node_index, normalized=True,
                       source=man.source, built_on=man.built_on)
        except InputError as e:
            raise ArtefactError(f"{path}: inconsistent multi-vector index ({e}); "
                              f"{rebuild_hint(KIND)}") from None

    def __repr__(self) -> str:
        return (f"MultiVectorIndex({len(self)} docs, {self.num_chunks} chunks, dim={self.dim}, "
                f"agg={self.agg!r}, encoder={self.encoder!r})")

