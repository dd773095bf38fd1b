"""Dense index builds on Ray Data (``skb index SKB --kind dense --engine ray``).

Node rows are read from Parquet shards (:func:`skbsearch.index.distributed.write_node_shards`);
an actor pool renders each batch (the renderer :meth:`DenseIndex.from_skb` uses) and embeds it
(one encoder per actor, loaded once, ``map_batches``); the driver puts the embeddings back in
row order and writes the index as the single-process build does. Embeddings are cached
per worker in the embedding cache given (a local SQLite file: shared by the workers of one
machine; on a cluster each machine keeps its own).

Where the cluster has GPUs, each actor asks Ray for one (``num_gpus``; a fraction when the
cluster has less than one) and encodes on it (Ray makes the GPU it gives ``cuda:0`` inside
the actor); otherwise the actors are CPU ones (:func:`plan_actors`).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from skbsearch.core.devices import DEVICE_ENV, check_device_name
from skbsearch.core.errors import InputError
from skbsearch.index.base import ProgressFn, no_progress
from skbsearch.index.dense import DenseIndex, skb_renderer
from skbsearch.index.distributed import ensure_ray, read_shards, write_node_shards
from skbsearch.index.docsource import skb_record

if TYPE_CHECKING:
    from skbsearch.kb.store import SKB


@dataclass(frozen=True)
class ActorPlan:
    """How many encoder actors, and the CPUs, GPUs and torch device of each."""

    pool: int
    num_cpus: float
    num_gpus: float
    device: str


def plan_actors(resources: dict[str, float], workers: int | None, shards: int,
                device: str | None = None) -> ActorPlan:
    """Encoder actors for a cluster's ``resources`` (``ray.cluster_resources()``).

    ``device``: ``cpu`` (CPU actors), ``cuda``/``cuda:N`` (GPU actors; an error when the
    cluster has no GPU) or ``auto``/``None`` (GPU actors when the cluster has GPUs). GPU
    actors take one GPU each (at most as many actors as GPUs), or share a fraction of one.
    """
    name = check_device_name(device or os.environ.get(DEVICE_ENV, "").strip() or "auto")
    gpus = float(resources.get("GPU", 0) or 0)
    cpus = float(resources.get("CPU", 1) or 1)
    pool = max(1, min(workers or int(cpus), shards))
    if name != "cpu" and gpus > 0:
        pool = max(1, min(pool, int(gpus))) if gpus >= 1 else 1
        per_cpu = max(0.25, min(1.0, (cpus - 1) / pool))
        return ActorPlan(pool, per_cpu, 1.0 if gpus >= 1 else gpus, "cuda")
    if name not in ("cpu", "auto"):
        raise InputError(f"device {name!r}: the Ray cluster has no GPU (resources: "
                         f"{', '.join(f'{k}={v:g}' for k, v in sorted(resources.items()) if k in ('CPU', 'GPU'))})",
                         field="device")
    return ActorPlan(pool, max(0.25, min(1.0, (cpus - 1) / pool)), 0.0, "cpu")


class _Embed:
    """Ray actor: render node rows and embed them with the encoder (both loaded once)."""

    def __init__(self, skb_dir: str, renderer: Any, encoder: str, cache: str | None,
                 batch_size: int, device: str = "cpu", precision: str | None = None) -> None:
        from skbsearch.encoders import load_encoder
        from skbsearch.kb.store import SKB

        self.skb = SKB.load(skb_dir)
        self.renderer = renderer
        self.encoder = load_encoder(encoder, device, precision)
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
    skb: SKB,
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
    device: str | None = None,
    precision: str | None = None,
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
        device, precision: ``cpu`` for CPU actors; ``auto`` (default) or ``cuda`` for one
            GPU per actor where the cluster has GPUs (:func:`plan_actors`).
    """
    if getattr(skb, "path", None) is None:
        raise InputError("a Ray build reads the SKB from its directory; save the SKB first",
                         field="skb")
    renderer = skb_renderer(fields, field_weights, add_rel, max_per_relation)
    ray = ensure_ray(address)
    n = skb.num_nodes
    with tempfile.TemporaryDirectory(prefix="skb-ray-shards-") as tmp:
        shards = write_node_shards(skb, Path(tmp), shard_rows)
        plan = plan_actors(ray.cluster_resources(), workers, len(shards), device)
        progress("render + embed (ray)", 0, n)
        gpu = {"num_gpus": plan.num_gpus} if plan.num_gpus else {}
        out = read_shards(ray, shards).map_batches(
            _Embed, batch_size=shard_rows, compute=ray.data.ActorPoolStrategy(size=plan.pool),
            num_cpus=plan.num_cpus, batch_format="numpy", **gpu,
            fn_constructor_kwargs={"skb_dir": str(skb.path), "renderer": renderer,
                                   "encoder": encoder, "batch_size": batch_size,
                                   "cache": str(cache) if cache is not None else None,
                                   "device": plan.device, "precision": precision},
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
    # the single-process build's source record; where it ran (the actors) is the build's record
    source = {**skb_record(skb, renderer), "engine": "ray"}
    kwargs.setdefault("built_on", {"device": plan.device,
                                   "ray_actors": {"pool": plan.pool, "num_gpus": plan.num_gpus}})
    return DenseIndex(list(skb.ids), emb, backend=backend, encoder=str(first["encoder"]),
                      model_id=str(first["model_id"]), normalized=True, source=source, **kwargs)
