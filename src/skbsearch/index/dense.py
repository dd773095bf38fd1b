"""Dense index: normalised float32 document embeddings searched by inner product.

Backends: ``"numpy"`` (exact: matmul + argpartition over a memory-mapped matrix),
``"torch"`` (exact: torch matmul + top-k on a GPU, or the CPU; chunked when the matrix
exceeds the GPU's memory; :mod:`skbsearch.index.torch_search`), ``"faiss-flat"`` (exact,
FAISS ``IndexFlatIP``) and ``"faiss-hnsw"`` (approximate, FAISS ``IndexHNSWFlat``). A saved index is a directory (written atomically)::

    manifest.json      kind, backend, encoder, model_id, dim, count, HNSW settings
    doc_ids.json       document ids, row order
    embeddings.npy     (count, dim) float32, loaded with np.load(mmap_mode="r")
    node_index.npy     optional: SKB node index of each row (index of an SKB subset)
    faiss.index        faiss-hnsw only (faiss.write_index); faiss-flat is rebuilt on load

Nothing is pickled.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from skbsearch.core.devices import cpu_record, resolve
from skbsearch.core.errors import ArtefactError, InputError
from skbsearch.core.lazy import optional_module
from skbsearch.encoders import SentenceTransformerEncoder, encode_texts, load_encoder
from skbsearch.index.base import (
    Manifest,
    ProgressFn,
    rebuild_hint,
)
from skbsearch.index.docsource import DocSource, skb_renderer  # noqa: F401 (re-exported)
from skbsearch.index.vectors import DocRows, load_npy

if TYPE_CHECKING:
    from skbsearch.kb.store import SKB

BACKENDS = ("numpy", "torch", "faiss-flat", "faiss-hnsw")
KIND = "dense"
#: Work budget of one exact matmul block (queries x documents scores).
SCORE_BLOCK = 1 << 24

Hits = tuple[np.ndarray, np.ndarray]  # (rows int64, scores float32), best first


def normalize(x: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm (zero rows stay zero), as C-contiguous float32."""
    x = np.ascontiguousarray(x, dtype=np.float32)
    if x.ndim != 2:
        raise InputError(f"embeddings must be a 2-d array, got shape {x.shape}", field="embeddings")
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.where(norms == 0, 1.0, norms).astype(np.float32)


def top_k(scores: np.ndarray, k: int, rows: np.ndarray | None = None) -> Hits:
    """The ``k`` best entries of a 1-d score array: ``(positions or rows[positions], scores)``.

    Best first; ties broken by position (so results are deterministic).
    """
    n = len(scores)
    k = max(0, min(k, n))
    cand = np.argpartition(-scores, k - 1)[:k] if 0 < k < n else np.arange(k)
    s = scores[cand]
    order = np.lexsort((cand, -s))
    cand = cand[order].astype(np.int64)
    return (cand if rows is None else rows[cand]), s[order].astype(np.float32)


def exact_topk(matrix: np.ndarray, queries: np.ndarray, k: int) -> list[Hits]:
    """Exact top-``k`` rows of ``matrix`` by inner product for each query row."""
    step = max(1, SCORE_BLOCK // max(matrix.shape[0], 1))
    out: list[Hits] = []
    for start in range(0, len(queries), step):
        block = queries[start : start + step]
        # a matrix that followed an update (index.rowmap) scores its base and appended rows itself
        scores = matrix.inner(block) if hasattr(matrix, "inner") else block @ matrix.T
        out.extend(top_k(row, k) for row in scores)
    return out


def _faiss() -> Any:
    return optional_module("faiss", "faiss-cpu", "dense", "FAISS dense-index backends")


class DenseIndex(DocRows):
    """Document embeddings with exact or FAISS search.

    Args:
        doc_ids: one id per row.
        embeddings: ``(len(doc_ids), dim)``; normalised here unless ``normalized``.
        backend: ``"numpy"``, ``"faiss-flat"`` or ``"faiss-hnsw"``.
        encoder: the encoder name queries must be embedded with (e.g. ``"minilm"``).
        model_id: the encoder's stable model id (checked by retrievers).
        node_index: SKB node index of each row when only part of an SKB is indexed;
            ``allowed`` filters then speak SKB node indices.
        hnsw_m, ef_construction, ef_search: HNSW graph degree and beam widths.
        exact_filter_max: with a filter of at most this many docs (or any backend but
            HNSW), search the filtered rows exactly.
        chunk_rows: torch backend: search in chunks of this many rows (default: the whole
            matrix resident on the device when it fits).
        built_on: the device record of the build (:meth:`DeviceSpec.record`), kept in the
            manifest.
    """

    kind = KIND

    def __init__(
        self,
        doc_ids: Sequence[str],
        embeddings: np.ndarray,
        *,
        backend: str = "numpy",
        encoder: str | None = None,
        model_id: str | None = None,
        node_index: np.ndarray | None = None,
        normalized: bool = False,
        hnsw_m: int = 32,
        ef_construction: int = 200,
        ef_search: int = 128,
        exact_filter_max: int = 20_000,
        source: dict[str, Any] | None = None,
        faiss_index: Any = None,
        chunk_rows: int | None = None,
        built_on: dict[str, Any] | None = None,
    ) -> None:
        if backend not in BACKENDS:
            raise InputError(f"unknown dense backend {backend!r}; use one of {BACKENDS}", field="backend")
        self.doc_ids = [str(d) for d in doc_ids]
        self.embeddings = embeddings if normalized else normalize(embeddings)
        if self.embeddings.ndim != 2 or self.embeddings.shape[0] != len(self.doc_ids):
            raise InputError(f"{len(self.doc_ids)} doc ids but embeddings of shape "
                             f"{self.embeddings.shape}", field="embeddings")
        self.backend, self.encoder, self.model_id = backend, encoder, model_id
        self.node_index = None if node_index is None else np.asarray(node_index, dtype=np.int64)
        self.hnsw_m, self.ef_construction, self.ef_search = hnsw_m, ef_construction, ef_search
        self.exact_filter_max = exact_filter_max
        self.source = dict(source or {})
        self.path: Path | None = None
        self._faiss_index: Any = faiss_index
        self.chunk_rows = chunk_rows
        self.built_on = dict(built_on or {})
        self._torch: dict[Any, Any] = {}
        if backend == "faiss-hnsw" and faiss_index is None:
            self._faiss_index = self._build_faiss()

    # ------------------------------------------------------------------ construction
    @classmethod
    def build(cls, source: Any, encoder: Any = "minilm", *, backend: str = "numpy",
              renderer: Any = None, indices: Sequence[int] | np.ndarray | None = None,
              cache: Any = None, batch_size: int = 64, progress: bool | ProgressFn = False,
              device: str | None = None, precision: str | None = None,
              **kwargs: Any) -> DenseIndex:
        """Embed documents and index them.

        Args:
            source: an :class:`~skbsearch.kb.store.SKB` (rendered with ``renderer``, a
                :class:`~skbsearch.documents.DocumentRenderer`) or ``(doc_ids, texts)``.
            encoder: an encoder name/path (see :func:`skbsearch.encoders.load_encoder`)
                or an :class:`~skbsearch.encoders.Encoder`.
            indices: SKB node indices to index (default: all nodes).
            cache: an :class:`~skbsearch.encoders.EmbeddingCache` or its directory.
            progress: ``True`` for a rich progress bar, or a ``progress(stage, done,
                total)`` callback.
            device, precision: where the encoder runs (:mod:`skbsearch.core.devices`).
            kwargs: further :class:`DenseIndex` settings (``hnsw_m``, ``ef_search``...).
        """
        docs = DocSource.from_any(source, renderer=renderer, indices=indices)
        enc = load_encoder(encoder, device, precision)  # a static encoder resolves no device
        emb = encode_texts(enc, docs.texts, cache, batch_size=batch_size, progress=progress,
                           description="embedding")
        kwargs.setdefault("built_on", resolve(device, precision).record()
                          if isinstance(enc, SentenceTransformerEncoder) else cpu_record())
        return cls(docs.doc_ids, emb, backend=backend, encoder=enc.name, model_id=enc.model_id,
                   node_index=docs.node_index, normalized=True, source=docs.source, **kwargs)

    @classmethod
    def from_skb(cls, skb: SKB, *, fields: Sequence[str] | None = None, field_weights: Any = None,
                 add_rel: bool = False, max_per_relation: int = 10,
                 progress: bool | ProgressFn = False, **params: Any) -> DenseIndex:
        """Index every node of ``skb`` (the ``skb index --kind dense`` builder); ``params``
        go to :meth:`build` (``encoder``, ``backend``, ``cache``, ``batch_size``...)."""
        renderer = skb_renderer(fields, field_weights, add_rel, max_per_relation)
        return cls.build(skb, renderer=renderer, progress=progress, **params)

    def _build_faiss(self) -> Any:
        faiss = _faiss()
        d = self.dim
        if self.backend == "faiss-flat":
            index = faiss.IndexFlatIP(d)
        else:
            index = faiss.IndexHNSWFlat(d, self.hnsw_m, faiss.METRIC_INNER_PRODUCT)
            index.hnsw.efConstruction = self.ef_construction
        if len(self):
            index.add(np.ascontiguousarray(self.embeddings, dtype=np.float32))
        return index

    @property
    def faiss_index(self) -> Any:
        """The FAISS index (built on first use for ``faiss-flat``); ``None`` for numpy."""
        if self.backend == "numpy":
            return None
        if self._faiss_index is None:
            self._faiss_index = self._build_faiss()
        return self._faiss_index

    @property
    def dim(self) -> int:
        """Embedding dimension."""
        return int(self.embeddings.shape[1])

    # ------------------------------------------------------------------ search
    def search(self, queries: np.ndarray, k: int,
               allowed: np.ndarray | Sequence[int] | None = None, *,
               device: str | None = None, precision: str | None = None) -> list[Hits]:
        """Top-``k`` ``(rows, scores)`` per query vector, best first.

        With ``allowed`` (rows of this index; see :meth:`rows_for` for SKB node indices)
        only those docs are returned, fewer than ``k`` if fewer are allowed. ``device`` and
        ``precision`` apply to the torch backend (default: the process default device).
        """
        q = normalize(np.atleast_2d(queries))
        if q.shape[1] != self.dim:
            raise InputError(f"query vectors have dim {q.shape[1]}, index has {self.dim}", field="dim")
        if k <= 0 or len(self) == 0:
            return [(np.zeros(0, np.int64), np.zeros(0, np.float32)) for _ in range(len(q))]
        if allowed is not None:
            return self._search_filtered(q, k, self.check_rows(allowed))
        if self.backend == "numpy":
            return exact_topk(self.embeddings, q, k)
        if self.backend == "torch":
            return self.torch_searcher(device, precision).search(q, k)
        return self._faiss_search(q, min(k, len(self)))

    def torch_searcher(self, device: str | None = None, precision: str | None = None) -> Any:
        """The :class:`~skbsearch.index.torch_search.TorchSearcher` of a device (made once:
        the matrix is copied to the device on first use)."""
        from skbsearch.index.torch_search import TorchSearcher

        spec = resolve(device, precision)
        if spec not in self._torch:
            self._torch[spec] = TorchSearcher(self.embeddings, spec, chunk_rows=self.chunk_rows)
        return self._torch[spec]

    def _faiss_search(self, q: np.ndarray, k: int, rows: np.ndarray | None = None) -> list[Hits]:
        faiss = _faiss()
        params = None
        sel = faiss.IDSelectorBatch(rows) if rows is not None else None
        if self.backend == "faiss-hnsw":
            params = faiss.SearchParametersHNSW(efSearch=max(self.ef_search, k))
            if sel is not None:
                params.sel = sel
        elif sel is not None:
            params = faiss.SearchParameters(sel=sel)
        scores, idx = self.faiss_index.search(q, k, params=params)
        return [(i[i >= 0].astype(np.int64), s[i >= 0].astype(np.float32))
                for s, i in zip(scores, idx, strict=True)]

    def _search_filtered(self, q: np.ndarray, k: int, rows: np.ndarray) -> list[Hits]:
        want = min(k, len(rows))
        if want == 0:
            return [(np.zeros(0, np.int64), np.zeros(0, np.float32)) for _ in range(len(q))]
        if self.backend != "faiss-hnsw" or len(rows) <= self.exact_filter_max:
            sub = np.asarray(self.embeddings[rows], dtype=np.float32)
            return [(rows[r], s) for r, s in exact_topk(sub, q, want)]
        hits = self._faiss_search(q, want, rows)
        short = [j for j, (r, _) in enumerate(hits) if len(r) < want]
        if short:  # HNSW missed some filtered docs: answer those queries exactly
            sub = np.asarray(self.embeddings[rows], dtype=np.float32)
            for j, (r, s) in zip(short, exact_topk(sub, q[short], want), strict=True):
                hits[j] = (rows[r], s)
        return hits

    def score(self, queries: np.ndarray, rows: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Inner products of each query with its own candidate ``rows`` (re-scoring)."""
        q = normalize(np.atleast_2d(queries))
        return [np.asarray(self.embeddings[np.asarray(r, dtype=np.int64)], dtype=np.float32) @ qi
                for qi, r in zip(q, rows, strict=True)]

    # ------------------------------------------------------------------ persistence
    @property
    def params(self) -> dict[str, Any]:
        """Build settings, as recorded in the manifest."""
        return {"backend": self.backend, "encoder": self.encoder, "model_id": self.model_id,
                "dim": self.dim, "hnsw_m": self.hnsw_m, "ef_search": self.ef_search,
                "ef_construction": self.ef_construction, "exact_filter_max": self.exact_filter_max}

    def write_arrays(self, tmp: Path) -> None:
        """The embeddings (and the HNSW graph) of :meth:`save` (see the module docstring)."""
        np.save(tmp / "embeddings.npy", np.ascontiguousarray(self.embeddings, dtype=np.float32))
        if self.backend == "faiss-hnsw":
            _faiss().write_index(self.faiss_index, str(tmp / "faiss.index"))

    @classmethod
    def from_saved(cls, path: Path, man: Manifest, doc_ids: list[str],
                   node_index: np.ndarray | None, *, mmap: bool) -> DenseIndex:
        """:meth:`load`'s index: ``embeddings.npy`` checked against the manifest."""
        p = man.params
        emb = load_npy(path / "embeddings.npy", mmap, KIND)
        if emb.ndim != 2 or emb.shape != (man.num_docs, p.get("dim", emb.shape[-1])):
            raise ArtefactError(f"{path / 'embeddings.npy'}: shape {emb.shape} does not match "
                              f"the manifest; {rebuild_hint(KIND)}")
        faiss_index = None
        if p.get("backend") == "faiss-hnsw":
            try:
                faiss_index = _faiss().read_index(str(path / "faiss.index"))
            except RuntimeError as e:
                raise ArtefactError(f"{path / 'faiss.index'}: unreadable ({e}); "
                                  f"{rebuild_hint(KIND)}") from None
        settings = {k: p[k] for k in ("hnsw_m", "ef_construction", "ef_search",
                                      "exact_filter_max") if k in p}
        return cls(doc_ids, emb, backend=p.get("backend", "numpy"), encoder=p.get("encoder"),
                   model_id=p.get("model_id"), node_index=node_index, normalized=True,
                   source=man.source, faiss_index=faiss_index, built_on=man.built_on,
                   **settings)

    def __repr__(self) -> str:
        return (f"DenseIndex({len(self)} docs, dim={self.dim}, backend={self.backend!r}, "
                f"encoder={self.encoder!r})")
