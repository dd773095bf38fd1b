"""IMPLIRET pools: reading, enriching a pool's documents, ranking and the protocol's means.

Shared by the retrieval protocol (:mod:`.run`), the re-ranking rows (:mod:`.rerank`) and
the readers (:mod:`.read`); see :mod:`skbsearch.benchmarks.impliret` for the layout.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from skbsearch.core.errors import InputError
from skbsearch.core.progress import ProgressFn, no_progress
from skbsearch.core.types import Query, Run
from skbsearch.datasets.impliret import (  # noqa: F401 - re-exported (the pool reader)
    CATEGORIES,
    POOLS,
    STYLES,
    ImpliretRecord,
    discover_pools,
    load_pool,
    pool_queries,
)
from skbsearch.enrich import (
    ArithmeticEnricher,
    GazetteerEnricher,
    TemporalEnricher,
    enrich_documents,
)

DEFAULT_PIPELINE = "enrich"
METRICS = ["ndcg@10", "mrr@10", "recall@10"]
PROTOCOL = ("each query ranks all documents of its own pool (category x style); positive = "
            "the document on the query's line; metrics per pool, averaged over the two styles "
            "per category, then over categories")


def default_gazetteer(data: str | Path) -> Path | None:
    """``<DIR>/../gazetteer/wikidata_landmarks.jsonl`` if it exists."""
    p = Path(data).absolute().parent / "gazetteer" / "wikidata_landmarks.jsonl"
    return p if p.is_file() else None


def make_enrichers(gazetteer: Any = None) -> list[Any]:
    """The enrichers used for every pool: temporal, arithmetic and (with a gazetteer) places."""
    ens: list[Any] = [TemporalEnricher(), ArithmeticEnricher()]
    if gazetteer is not None:
        ens.append(gazetteer)
    return ens


def load_gazetteer(path: str | Path | None) -> Any:
    """A :class:`~skbsearch.enrich.GazetteerEnricher` over the landmark JSONL (None: none)."""
    if path is None:
        return None
    p = Path(path)
    if not p.is_file():
        raise InputError(f"gazetteer file not found: {p}", field="gazetteer")
    return GazetteerEnricher.from_jsonl(p)


def enrich_pool(records: Sequence[ImpliretRecord], gazetteer: Any = None) -> list[Any]:
    """Enriched documents of a pool (reads ``document`` only)."""
    return enrich_documents([(r.id, r.document) for r in records], make_enrichers(gazetteer), progress=False)


def rank_queries(stage: Any, queries: Sequence[Query], progress: ProgressFn = no_progress,
                 label: str = "ranking") -> tuple[Run, list[float]]:
    """Rank queries one at a time; returns the Run and the per-query milliseconds."""
    run = Run(name=getattr(stage, "name", "run"))
    lat: list[float] = []
    for i, q in enumerate(queries, start=1):
        t = time.perf_counter()
        run.update(stage([q]))
        lat.append((time.perf_counter() - t) * 1000.0)
        if i % 25 == 0 or i == len(queries):
            progress(label, i, len(queries))
    return run, lat


def aggregate(per_pool: dict[str, dict[str, float]]) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """Category means over the present styles, then the mean over present categories."""
    cats: dict[str, dict[str, float]] = {}
    for c in CATEGORIES:
        pools = [per_pool[p] for p in per_pool if p.startswith(c + "_")]
        if pools:
            cats[c] = {m: float(np.mean([v[m] for v in pools])) for m in pools[0]}
    overall = {m: float(np.mean([v[m] for v in cats.values()])) for m in next(iter(cats.values()))} if cats else {}
    return overall, cats
