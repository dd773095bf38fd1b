"""Dense index builds on Ray Data (``skb index SKB --kind dense --engine ray``).

Node rows are read from Parquet shards (:func:`skbsearch.index.distributed.write_node_shards`);
an actor pool renders each batch (the renderer :meth:`DenseIndex.from_skb` uses) and embeds it
(one encoder per actor, loaded once, ``map_batches``); the driver puts the embeddings back in
row order and writes the index as the single-process build does. Embeddings are cached
per worker in the embedding cache given (a local SQLite file: shared by the workers of one
machine; on a cluster each machine keeps its own).
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import asdict, is_dataclass
from pathlib import Path
from typing import Any

import numpy as np

from skbsearch.errors import InputError
from skbsearch.index.base import ProgressFn, no_progress
from skbsearch.index.dense import DenseIndex, skb_renderer
from skbsearch.index.distributed import _pool, ensure_ray, read_shards, write_node_shards


class _Embed:
    """Ray actor: render node rows and embed them with the encoder (both loaded once)."""

    def __init__(self, skb_dir: str, renderer: Any, encoder: str, cache: str | None,
                 batch_size: int) -> None:
        from skbsearch.encoders import load_encoder
        from skbsearch.kb.store import SKB

        self.skb = SKB.load(skb_dir)
        self.renderer = renderer
        self.encoder = load_encoder(encoder)
        self.cache = cache
        self.batch_size = batch_size

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        from skbsearch.encoders import encode_texts

        rows = np.asarray(batch["row"], dtype=np.int64)
        texts = self.renderer.render_many(self.skb, rows)
        emb = encode_texts(self.encoder, texts, self.cache, batch_size=self.batch_size,
                           progress=False)
        return {"row": rows, "embedding": np.ascontiguousarray(emb, dtype=np.float32),
                "model_id": np.array([self.encoder.model_id] * len(rows), dtype=object),
                "encoder": np.array([self.encoder.name] * len(rows), dtype=object)}


def build_dense_ray(
    skb: Any,
    *,
    fields: Sequence[str] | None = None,
    field_weights: Any = None,
    add_rel: bool = False,
    max_per_relation: int = 10,
    encoder: str = "minilm",
    backend: str = "numpy",
    cache: str | Path | None = None,
    batch_size: int = 64,
    shard_rows: int = 20_000,
    workers: int | None = None,
    address: str | None = None,
    progress: ProgressFn = no_progress,
    **kwargs: Any,
) -> DenseIndex:
    """:meth:`DenseIndex.from_skb` on Ray Data (render + embed in an actor pool).

    Args:
        skb: a *saved* SKB (workers load it from its directory).
        fields, field_weights, add_rel, max_per_relation: the rendering, as for ``from_skb``.
        encoder: encoder name or path (every actor loads it once).
        backend, kwargs: :class:`DenseIndex` settings.
        cache: embedding-cache directory used by the workers.
        shard_rows: node rows per Parquet shard and per batch.
        workers: encoder actors (default: the cluster's CPUs, at most the shard count).
    """
    if getattr(skb, "path", None) is None:
        raise InputError("a Ray build reads the SKB from its directory; save the SKB first",
                         field="skb")
    renderer = skb_renderer(fields, field_weights, add_rel, max_per_relation)
    ray = ensure_ray(address)
    n = skb.num_nodes
    with tempfile.TemporaryDirectory(prefix="skb-ray-shards-") as tmp:
        shards = write_node_shards(skb, Path(tmp), shard_rows)
        pool, cpus = _pool(ray, workers, len(shards))
        progress("render + embed (ray)", 0, n)
        out = read_shards(ray, shards).map_batches(
            _Embed, batch_size=shard_rows, compute=ray.data.ActorPoolStrategy(size=pool),
            num_cpus=cpus, batch_format="numpy",
            fn_constructor_kwargs={"skb_dir": str(skb.path), "renderer": renderer,
                                   "encoder": encoder, "batch_size": batch_size,
                                   "cache": str(cache) if cache is not None else None},
        ).select_columns(["row", "embedding", "model_id", "encoder"]).take_all()
        progress("render + embed (ray)", n, n)
    rows = np.fromiter((int(r["row"]) for r in out), dtype=np.int64, count=len(out))
    if len(rows) != n or (n and not np.array_equal(np.sort(rows), np.arange(n))):
        raise InputError(f"the Ray build returned {len(rows)} embeddings for {n} nodes",
                         field="engine")
    dim = len(out[0]["embedding"]) if out else 0
    emb = np.zeros((n, dim), dtype=np.float32)
    for r, rec in zip(rows, out, strict=True):
        emb[r] = rec["embedding"]
    first = out[0] if out else {"model_id": None, "encoder": encoder}
    source = {"kind": "skb", "num_nodes": n, "skb_hash": skb.meta.get("content_hash"),
              "path": str(Path(skb.path).absolute()),
              "fields": list(renderer.fields) if renderer.fields is not None else None,
              "add_rel": bool(renderer.add_rel), "max_per_relation": renderer.max_per_relation,
              "renderer": asdict(renderer) if is_dataclass(renderer) else repr(renderer),
              "engine": "ray"}
    return DenseIndex(list(skb.ids), emb, backend=backend, encoder=str(first["encoder"]),
                      model_id=str(first["model_id"]), normalized=True, source=source, **kwargs)
