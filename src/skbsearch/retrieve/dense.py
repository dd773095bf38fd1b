"""Dense and multi-vector retrieval stages (``dense``, ``multivector``: bi-encoder retrieval and re-scoring).

Without a Run, a stage embeds the queries and returns each query's top-``k`` documents
from its index. Given a Run, it re-scores exactly that Run's candidates by embedding
similarity (bi-encoder re-ranking) and keeps the best ``k``. Hard filters (node types, SQL
predicates, explicit allowed documents) are applied in both modes: only documents that
pass are ever returned, never fillers, for any ``k``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from skbsearch.core.errors import InputError
from skbsearch.core.registry import register_stage
from skbsearch.core.stage import device_param, precision_param
from skbsearch.core.types import Query, Run
from skbsearch.encoders import encode_texts, load_encoder
from skbsearch.encoders.cache import as_cache
from skbsearch.index import open_index
from skbsearch.index.dense import DenseIndex, Hits
from skbsearch.index.multivector import MultiVectorIndex, parse_agg
from skbsearch.retrieve.filters import NodeFilter, filter_mask, index_skb
from skbsearch.retrieve.stage import IndexRetriever, RetrieverParams, loaded_index

if TYPE_CHECKING:
    from pathlib import Path

    from skbsearch.index.base import Index
    from skbsearch.kb.store import SKB


@dataclass
class EncoderParams(RetrieverParams):
    """A first-stage retriever's parameters plus the query encoder and where it runs."""

    encoder: str | None = field(default=None, metadata={
        "help": "encoder name/path (default: the one the index was built with)"})
    device: str | None = device_param()
    precision: str | None = precision_param()


class EmbeddingRetriever(IndexRetriever):
    """Shared machinery of :class:`DenseRetriever` and :class:`MultiVectorRetriever`.

    Args:
        source: a loaded index or its directory (or the stage context, from a spec).
        encoder: an encoder name/path (the ``encoder`` parameter) or an
            :class:`~skbsearch.encoders.Encoder`; default: the encoder the index was built
            with (loaded on first use).
        filter: a hard :class:`NodeFilter` (node types and/or SQL predicate): the ``types``
            and ``where`` parameters.
        skb: the SKB the filter is evaluated on (default: the one recorded in the index).
        allowed: internal doc indices allowed (SKB node indices for an SKB index, e.g.
            from ``SKB.select`` or ``SKB.nodes_of_type``; rows for a text index).
        mask: a boolean mask over the index's rows (True = allowed).
        cache: an :class:`~skbsearch.encoders.EmbeddingCache` (or directory) for queries.
        batch_size: encoder batch size.
        check_model: refuse an encoder whose model id differs from the index's.
        params: ``k`` (candidates per query, fewer when fewer documents pass the filters),
            ``types``, ``where``, ``device`` and ``precision`` (where the query encoder and
            a torch-backend search run: :mod:`skbsearch.core.devices`; default:
            ``$SKBSEARCH_DEVICE``, else auto).
    """

    index_class: type[DenseIndex] | type[MultiVectorIndex]

    @dataclass
    class Params(EncoderParams):
        pass

    def __init__(
        self,
        source: Any = None,
        *,
        encoder: Any = None,
        filter: NodeFilter | None = None,
        skb: SKB | None = None,
        allowed: np.ndarray | Sequence[int] | None = None,
        mask: np.ndarray | None = None,
        cache: Any = None,
        batch_size: int = 64,
        check_model: bool = True,
        **params: Any,
    ) -> None:
        if encoder is not None and not isinstance(encoder, str):
            self._encoder_obj: Any = encoder  # an Encoder object: not a spec parameter
        else:
            self._encoder_obj = None
            if encoder is not None:
                params["encoder"] = encoder
        super().__init__(source, filter=filter, skb=skb, **params)
        self._allowed = None if allowed is None else np.asarray(allowed, dtype=np.int64)
        self._mask = mask
        self._encoder: Any = None
        self.cache = as_cache(cache)
        self.batch_size = batch_size
        self.check_model = check_model

    def build(self, context: Any) -> Any:
        """Attach the context's index for this stage's encoder
        (``context.embedding_index``: an SKB's saved index, or a corpus's index built
        with that encoder); without a cache of its own, the stage caches query vectors
        where a context keeps its embeddings (``CorpusContext.embeddings``, the
        benchmarks' corpora; an SKB's context has none: its queries are never stored)."""
        if self.cache is None:
            self.cache = as_cache(getattr(context, "embeddings", None))
        find = getattr(context, "embedding_index", None)
        index = (find(self.index_kind, self.params.encoder) if find is not None
                 else context.index(self.index_kind))
        self.attach(index, context.kb)
        return self

    def evidence(self) -> tuple[str, ...]:
        """The context's index it reads; another encoder than the default reads another
        index (a corpus builds one per encoder), so it is another piece of evidence."""
        enc = self.params.encoder
        suffix = f"@{enc}" if enc not in (None, "minilm") else ""
        key = self.context_key(f"index:{self.index_kind}{suffix}")
        return (key,) if key is not None else ()

    def attach(self, index: Index | str | Path, skb: SKB | None) -> None:
        """Use ``index`` (a loaded one or its directory), checked against ``skb`` when given."""
        index = loaded_index(index, self.index_class, self.name)
        if skb is not None:  # opened for the SKB: caught up; an index of another SKB build refused
            index = open_index(index, skb, warm=False)
        self._index = index
        self.skb = skb
        if self._mask is not None:
            mask = np.asarray(self._mask, dtype=bool)
            if mask.shape != (len(index),):
                raise InputError(f"mask has shape {mask.shape}, index has {len(index)} documents",
                                 field="mask")
            self._mask = mask
        self._rows: np.ndarray | None = None
        self._rows_ready = False

    @property
    def device(self) -> str | None:
        """Where the query encoder (and a torch-backend search) runs."""
        return self.params.device

    @property
    def precision(self) -> str | None:
        """The query encoder's precision."""
        return self.params.precision

    # ------------------------------------------------------------------ encoder
    @property
    def encoder(self) -> Any:
        """The query encoder (loaded on first use)."""
        if self._encoder is None:
            enc = load_encoder(self._encoder_obj or self.params.encoder or self.index.encoder
                               or "minilm",
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
    def _resolve_skb(self) -> SKB:
        self.skb = index_skb(self.index, self.skb)
        return self.skb

    def allowed_rows(self) -> np.ndarray | None:
        """Sorted index rows that pass every filter (``None``: no filtering)."""
        _ = self.index  # (attached first: from the bound context on first use)
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


@register_stage
class DenseRetriever(EmbeddingRetriever):
    """Dense (bi-encoder) retrieval; after another stage it re-scores that stage's candidates.

    Over a :class:`~skbsearch.index.dense.DenseIndex` (the context's ``dense`` index, or
    one given directly); the index's backend (numpy, FAISS flat or HNSW) does the search.
    Arguments as for :class:`EmbeddingRetriever`.
    """

    name = "dense"
    aliases = ("bi-encoder",)
    index_kind = "dense"
    index_class = DenseIndex

    @dataclass
    class Params(EncoderParams):
        pass

    def __init__(self, source: Any = None, **options: Any) -> None:
        super().__init__(source, **options)
        self._ready_direct()

    def _search(self, qv: np.ndarray, k: int, rows: np.ndarray | None) -> list[Hits]:
        return self.index.search(qv, k, allowed=rows, device=self.device,
                                 precision=self.precision)

    def _score(self, qv: np.ndarray, rows: list[np.ndarray]) -> list[np.ndarray]:
        return self.index.score(qv, rows)


@register_stage
class MultiVectorRetriever(EmbeddingRetriever):
    """Multi-vector retrieval: one embedding per chunk, a node scores by its best chunks.

    Over a :class:`~skbsearch.index.multivector.MultiVectorIndex` (the context's, or one
    given directly).

    Args:
        agg: chunk-score aggregation (``"max"``, ``"mean"``, ``"mean-topN"``); default:
            the index's.
        options: as for :class:`EmbeddingRetriever`.
    """

    name = "multivector"
    index_kind = "multivector"
    index_class = MultiVectorIndex

    @dataclass
    class Params(EncoderParams):
        pass

    def __init__(self, source: Any = None, *, agg: str | None = None, **options: Any) -> None:
        super().__init__(source, **options)
        if agg is not None:
            parse_agg(agg)
        self._agg = agg
        self._ready_direct()

    @property
    def agg(self) -> str:
        """The chunk-score aggregation (the index's unless given)."""
        return self._agg or self.index.agg

    def _search(self, qv: np.ndarray, k: int, rows: np.ndarray | None) -> list[Hits]:
        return self.index.search(qv, k, allowed=rows, agg=self.agg)

    def _score(self, qv: np.ndarray, rows: list[np.ndarray]) -> list[np.ndarray]:
        return self.index.score(qv, rows, agg=self.agg)
