"""Dense and multi-vector retrieval stages (bi-encoder retrieval and re-scoring).

Without a Run, a stage embeds the queries and returns each query's top-``k`` documents
from its index. Given a Run, it re-scores exactly that Run's candidates by embedding
similarity (bi-encoder re-ranking) and keeps the best ``k``. Hard filters (node types, SQL
predicates, explicit allowed documents) are applied in both modes: only documents that
pass are ever returned, never fillers, for any ``k``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from skbsearch.core.errors import InputError
from skbsearch.core.operators import StageBase
from skbsearch.core.types import Query, Run
from skbsearch.encoders import encode_texts, load_encoder
from skbsearch.encoders.cache import as_cache
from skbsearch.index.base import check_index_matches
from skbsearch.index.dense import DenseIndex, Hits
from skbsearch.index.multivector import MultiVectorIndex, parse_agg
from skbsearch.retrieve.filters import NodeFilter, filter_mask, index_skb


class EmbeddingRetriever(StageBase):
    """Shared machinery of :class:`DenseRetriever` and :class:`MultiVectorRetriever`.

    Args:
        index: a loaded index or its directory.
        k: candidates per query (fewer when fewer documents pass the filters).
        encoder: an encoder name/path or :class:`~skbsearch.encoders.Encoder`; default:
            the encoder the index was built with (loaded on first use).
        filter: a hard :class:`NodeFilter` (node types and/or SQL predicate).
        skb: the SKB the filter is evaluated on (default: the one recorded in the index).
        allowed: internal doc indices allowed (SKB node indices for an SKB index, e.g.
            from ``SKB.select`` or ``SKB.nodes_of_type``; rows for a text index).
        mask: a boolean mask over the index's rows (True = allowed).
        cache: an :class:`~skbsearch.encoders.EmbeddingCache` (or directory) for queries.
        batch_size: encoder batch size.
        check_model: refuse an encoder whose model id differs from the index's.
        name: the name of the Runs it returns.
        device, precision: where the query encoder (and a torch-backend search) runs:
            :mod:`skbsearch.core.devices` (default: ``$SKBSEARCH_DEVICE``, else auto).
    """

    index: Any

    def __init__(
        self,
        index: Any,
        k: int = 100,
        *,
        encoder: Any = None,
        filter: NodeFilter | None = None,
        skb: Any = None,
        allowed: np.ndarray | Sequence[int] | None = None,
        mask: np.ndarray | None = None,
        cache: Any = None,
        batch_size: int = 64,
        check_model: bool = True,
        name: str = "dense",
        device: str | None = None,
        precision: str | None = None,
    ) -> None:
        if k < 0:
            raise ValueError("k must be >= 0")
        self.index = index
        self.k = k
        self.filter = filter if filter is not None and not filter.is_empty else None
        self.skb = skb
        if skb is not None:
            check_index_matches(index, skb)  # an index of another SKB build: refuse
        self._allowed = None if allowed is None else np.asarray(allowed, dtype=np.int64)
        if mask is not None:
            mask = np.asarray(mask, dtype=bool)
            if mask.shape != (len(index),):
                raise InputError(f"mask has shape {mask.shape}, index has {len(index)} documents",
                                 field="mask")
        self._mask = mask
        self._rows: np.ndarray | None = None
        self._rows_ready = False
        self._encoder_spec = encoder
        self._encoder: Any = None
        self.cache = as_cache(cache)
        self.batch_size = batch_size
        self.check_model = check_model
        self.name = name
        self.device, self.precision = device, precision

    # ------------------------------------------------------------------ encoder
    @property
    def encoder(self) -> Any:
        """The query encoder (loaded on first use)."""
        if self._encoder is None:
            enc = load_encoder(self._encoder_spec or self.index.encoder or "minilm",
                               self.device, self.precision)
            if enc.dim != self.index.dim:
                raise InputError(f"encoder {enc.name!r} gives {enc.dim}-d vectors but the index "
                                 f"holds {self.index.dim}-d ones", field="encoder")
            if self.check_model and self.index.model_id and enc.model_id != self.index.model_id:
                raise InputError(f"the index was built with model {self.index.model_id!r}, not "
                                 f"{enc.model_id!r}; pass that encoder (or check_model=False)",
                                 field="encoder")
            self._encoder = enc
        return self._encoder

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Query vectors (duplicate texts encoded once; cached ones not at all)."""
        return encode_texts(self.encoder, texts, self.cache, batch_size=self.batch_size)

    # ------------------------------------------------------------------ filters
    def _resolve_skb(self) -> Any:
        self.skb = index_skb(self.index, self.skb)
        return self.skb

    def allowed_rows(self) -> np.ndarray | None:
        """Sorted index rows that pass every filter (``None``: no filtering)."""
        if not self._rows_ready:
            skb = self._resolve_skb() if self.filter is not None else None
            mask = filter_mask(self.filter, skb, self.index.doc_ids,
                               None if self._mask is None else self._mask.copy())
            if self._allowed is not None:
                am = np.zeros(len(self.index), dtype=bool)
                am[self.index.rows_for(self._allowed)] = True
                mask = am if mask is None else mask & am
            self._rows = None if mask is None else np.flatnonzero(mask).astype(np.int64)
            self._rows_ready = True
        return self._rows

    # ------------------------------------------------------------------ stage
    def __call__(self, queries: Sequence[Query], run: Run | None = None) -> Run:
        """Top-``k`` allowed documents per query, or the re-scored candidates of ``run``."""
        return self._call(list(queries), run, self.k)

    def search(self, text: str, k: int = 10) -> list[tuple[str, float]]:
        """Single-query helper: the top-``k`` ``(doc_id, score)`` pairs for ``text``."""
        return self._call([Query("q0", text)], None, k).ranked("q0")[:k]

    def _call(self, queries: list[Query], run: Run | None, k: int) -> Run:
        out = Run(name=self.name)
        rows = self.allowed_rows()
        if not queries:
            return out
        if k == 0 or len(self.index) == 0 or (rows is not None and len(rows) == 0):
            return Run({q.id: {} for q in queries}, name=self.name)
        qv = self.encode([q.text for q in queries])
        if run is None:
            hits = self._search(qv, k, rows)
        else:
            hits = self._rescore(qv, [run.get(q.id, {}) for q in queries], rows, k)
        ids = self.index.doc_ids
        for q, (r, s) in zip(queries, hits, strict=True):
            out[q.id] = {ids[int(i)]: float(x) for i, x in zip(r, s, strict=True)}
        return out

    def _rescore(self, qv: np.ndarray, cands: list[dict[str, float]], rows: np.ndarray | None,
                 k: int) -> list[Hits]:
        ok = None
        if rows is not None:
            ok = np.zeros(len(self.index), dtype=bool)
            ok[rows] = True
        per_query = []
        for c in cands:
            r = np.array([i for d in c if (i := self.index.row_of(d)) is not None], dtype=np.int64)
            per_query.append(r[ok[r]] if ok is not None and len(r) else r)
        out = []
        for r, s in zip(per_query, self._score(qv, per_query), strict=True):
            order = np.lexsort((r, -s))[:k]
            out.append((r[order], s[order].astype(np.float32)))
        return out

    def _search(self, qv: np.ndarray, k: int, rows: np.ndarray | None) -> list[Hits]:
        raise NotImplementedError

    def _score(self, qv: np.ndarray, rows: list[np.ndarray]) -> list[np.ndarray]:
        raise NotImplementedError


class DenseRetriever(EmbeddingRetriever):
    """Retrieve (or re-score) with a :class:`~skbsearch.index.dense.DenseIndex`.

    Arguments as for :class:`EmbeddingRetriever`; the index's backend (numpy, FAISS flat
    or HNSW) does the search.
    """

    def __init__(self, index: DenseIndex | str | Path, k: int = 100, **options: Any) -> None:
        options.setdefault("name", "dense")
        index = index if isinstance(index, DenseIndex) else DenseIndex.load(index)
        super().__init__(index, k, **options)

    def _search(self, qv: np.ndarray, k: int, rows: np.ndarray | None) -> list[Hits]:
        return self.index.search(qv, k, allowed=rows, device=self.device,
                                 precision=self.precision)

    def _score(self, qv: np.ndarray, rows: list[np.ndarray]) -> list[np.ndarray]:
        return self.index.score(qv, rows)

    def __repr__(self) -> str:
        f = f", filter={self.filter}" if self.filter is not None else ""
        return f"DenseRetriever(k={self.k}, backend={self.index.backend!r}{f})"


class MultiVectorRetriever(EmbeddingRetriever):
    """Retrieve (or re-score) with a :class:`~skbsearch.index.multivector.MultiVectorIndex`.

    Args:
        agg: chunk-score aggregation (``"max"``, ``"mean"``, ``"mean-topN"``); default:
            the index's.
        options: as for :class:`EmbeddingRetriever`.
    """

    def __init__(self, index: MultiVectorIndex | str | Path, k: int = 100, *,
                 agg: str | None = None, **options: Any) -> None:
        options.setdefault("name", "multivector")
        index = index if isinstance(index, MultiVectorIndex) else MultiVectorIndex.load(index)
        super().__init__(index, k, **options)
        if agg is not None:
            parse_agg(agg)
        self.agg = agg or index.agg

    def _search(self, qv: np.ndarray, k: int, rows: np.ndarray | None) -> list[Hits]:
        return self.index.search(qv, k, allowed=rows, agg=self.agg)

    def _score(self, qv: np.ndarray, rows: list[np.ndarray]) -> list[np.ndarray]:
        return self.index.score(qv, rows, agg=self.agg)

    def __repr__(self) -> str:
        f = f", filter={self.filter}" if self.filter is not None else ""
        return f"MultiVectorRetriever(k={self.k}, agg={self.agg!r}{f})"
