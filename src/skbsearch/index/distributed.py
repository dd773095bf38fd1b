"""Index builds on Ray Data (``skb index SKB --kind bm25|dense --engine ray``; extra
``[distributed]``): what the BM25 (:mod:`skbsearch.index.distributed_bm25`) and dense
(:mod:`skbsearch.index.distributed_dense`) builds share.

The work is split by node rows: the SKB's node rows (row number, id) are written as Parquet
shards (``shard_rows`` rows each) and read with ``ray.data.read_parquet``; actor pools
(``map_batches``) render, enrich, tokenise or embed them, each worker memory-mapping the SKB
once. The result is the index the single-process builder writes, saved atomically the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from skbsearch.core.errors import InputError, MissingDependencyError

if TYPE_CHECKING:
    from skbsearch.kb.store import SKB

ENGINES = ("local", "ray")
ENRICHERS = ("temporal", "arithmetic")


def _ray() -> Any:
    try:
        import ray
        import ray.data  # noqa: F401
    except ImportError as e:
        raise MissingDependencyError("ray", "distributed", "Building indexes with --engine ray") from e
    return ray


def ensure_ray(address: str | None = None, num_cpus: int | None = None) -> Any:
    """Connect to Ray (``address``: a cluster, ``None``: a local instance) unless connected."""
    ray = _ray()
    if not ray.is_initialized():
        ray.init(address=address, num_cpus=num_cpus, include_dashboard=False,
                 log_to_driver=False, ignore_reinit_error=True)
    ray.data.DataContext.get_current().enable_progress_bars = False
    return ray


def actor_pool(ray: Any, workers: int | None, shards: int) -> tuple[int, float]:
    """Actors per step and CPUs per actor: the actors leave one CPU for Ray Data's read tasks
    (actors holding every CPU would wait forever for the reads that feed them)."""
    total = float(ray.cluster_resources().get("CPU", 1))
    pool = max(1, min(workers or int(total), shards))
    return pool, max(0.25, min(1.0, (total - 1) / pool))


def write_node_shards(skb: SKB, directory: Path, shard_rows: int) -> list[Path]:
    """The SKB's node rows (``row``, ``id``) as Parquet files of ``shard_rows`` rows."""
    if shard_rows < 1:
        raise InputError("shard_rows must be >= 1", field="shard_rows")
    directory.mkdir(parents=True, exist_ok=True)
    ids = skb.nodes.column("id")
    paths = []
    for n, start in enumerate(range(0, skb.num_nodes, shard_rows)):
        stop = min(start + shard_rows, skb.num_nodes)
        table = pa.table({"row": pa.array(np.arange(start, stop, dtype=np.int64)),
                          "id": ids.slice(start, stop - start)})
        path = directory / f"nodes-{n:05d}.parquet"
        pq.write_table(table, path)
        paths.append(path)
    return paths


def read_shards(ray: Any, shards: list[Path]) -> Any:
    """A Ray dataset over the shard files with one block per shard (the Parquet reader
    coalesces small files into one read task, which would leave all but one actor idle)."""
    return ray.data.read_parquet([str(p) for p in shards],
                                 override_num_blocks=len(shards)).repartition(len(shards))


def consecutive_runs(rows: np.ndarray) -> list[np.ndarray]:
    """Sorted rows split into maximal runs of consecutive numbers."""
    rows = np.sort(np.asarray(rows, dtype=np.int64))
    cuts = np.flatnonzero(np.diff(rows) != 1) + 1
    return [r for r in np.split(rows, cuts) if len(r)]


class DocumentTexts:
    """The texts of node rows, per field, exactly as :meth:`BM25Index.from_skb` renders them
    (:func:`skbsearch.index.bm25_docs.field_texts`, in the layout ``fields``, ``add_rel`` and
    ``rel_weight`` name; then, with ``enrich``, each text followed by the enrichers' derived
    tokens)."""

    def __init__(self, skb: SKB, fields: Sequence[str] | None, add_rel: bool,
                 max_per_relation: int, enrich: Sequence[str] = (),
                 rel_weight: float | None = None) -> None:
        self.skb = skb
        self.fields = [f.strip() for f in fields if f.strip()] if fields is not None else None
        self.add_rel, self.rel_weight, self.max_per_relation = add_rel, rel_weight, max_per_relation
        self.enrichers = make_enrichers(enrich)

    @property
    def field_names(self) -> list[str]:
        """Field names in build order."""
        if self.fields is None:
            split = self.add_rel and self.rel_weight is not None
            return ["document", "relations"] if split else ["document"]
        return self.fields + (["relations"] if self.add_rel else [])

    def __call__(self, rows: np.ndarray) -> dict[str, list[str]]:
        from skbsearch.index.bm25_docs import field_texts

        parts = field_texts(self.skb, np.asarray(rows, dtype=np.int64), fields=self.fields,
                            add_rel=self.add_rel, rel_weight=self.rel_weight,
                            max_per_relation=self.max_per_relation)
        if self.enrichers:
            from skbsearch.enrich.base import enrich_one

            ids = self.skb.id_of(rows)
            parts = {f: [enrich_one(str(i), t or "", self.enrichers).index_text
                         for i, t in zip(ids, texts, strict=True)] for f, texts in parts.items()}
        return parts


def make_enrichers(names: Sequence[str]) -> list[Any]:
    """Enrichers by name (``temporal``, ``arithmetic``)."""
    from skbsearch.enrich import ArithmeticEnricher, TemporalEnricher

    known = {"temporal": TemporalEnricher, "arithmetic": ArithmeticEnricher}
    out = []
    for name in names:
        if name not in known:
            raise InputError(f"unknown enricher {name!r}; use {ENRICHERS}", field="enrich")
        out.append(known[name]())
    return out
