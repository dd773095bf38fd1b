"""IMPLIRET's official retrieval protocol over a pipeline spec (:func:`run_impliret`) and the
paper's table rows."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from skbsearch.benchmarks.common import cv_protocol, rerank
from skbsearch.benchmarks.impliret.pools import (
    CATEGORIES,
    DEFAULT_PIPELINE,
    METRICS,
    PROTOCOL,
    STYLES,
    aggregate,
    default_gazetteer,
    discover_pools,
    load_pool,
    pool_queries,
)
from skbsearch.benchmarks.impliret.rerank import (
    first_stage_runs,
    needs_training,
    split_first_stage,
    union_context,
    with_gazetteer,
)
from skbsearch.benchmarks.result import BenchmarkResult
from skbsearch.core.progress import ProgressFn, no_progress
from skbsearch.core.types import Qrels, Query, Run
from skbsearch.eval.evaluate import evaluate
from skbsearch.eval.latency import LatencyRecorder
from skbsearch.stages import pipeline as make_pipeline

#: Candidates per query whose recall the re-ranking rows report.
TOP = 100


def run_impliret(
    data: str | Path,
    pipeline: str = DEFAULT_PIPELINE,
    *,
    limit_per_pool: int | None = None,
    gazetteer: str | Path | None = None,
    embeddings: str | Path | None = None,
    cv_folds: int = 2,
    fold_seed: int = 0,
    progress: ProgressFn = no_progress,
) -> BenchmarkResult:
    """Run the official retrieval protocol on every pool present in ``data``.

    Every query ranks all documents of its own pool with the pipeline's first stage; the
    rest of the pipeline (if any) re-ranks those candidates, cross-validated over
    ``cv_folds`` query folds when it trains (:mod:`.rerank`). Metrics per pool, averaged over
    the two styles per category, then over categories.

    Args:
        data: the folder of pool files.
        pipeline: a spec (``skb run``'s language).
        limit_per_pool: score only the first N queries of each pool (all documents are
            still ranked; training may use every query of the other folds).
        gazetteer: the landmark JSONL given to ``enrich`` stages that name none (default:
            :func:`default_gazetteer`; :func:`.rerank.with_gazetteer`).
        embeddings: the embedding cache of dense indexes (default ``cache_root()/embeddings``).
        cv_folds, fold_seed: query-level cross-validation of trainable stages.
    """
    t0 = time.perf_counter()
    present, missing = discover_pools(data)
    gaz_path = Path(gazetteer) if gazetteer else default_gazetteer(data)
    spec = with_gazetteer(pipeline, gaz_path)
    first, rest = split_first_stage(make_pipeline(spec))
    trained = needs_training(rest)
    pools = {p: load_pool(path) for p, path in present.items()}
    every: dict[str, list[Query]] = {}
    scored: list[Query] = []
    qrels = Qrels()
    for pool, records in pools.items():
        qs, qr = pool_queries(records)
        every[pool] = [Query(f"{pool}/{q.id}", q.text, {**q.meta, "pool": pool}) for q in qs]
        scored += every[pool][:limit_per_pool] if limit_per_pool else every[pool]
        qrels.update({f"{pool}/{q}": {f"{pool}/{d}": g for d, g in v.items()} for q, v in qr.items()})
    keep = {q.id for q in scored}
    ask = every if trained else {p: [q for q in qs if q.id in keep] for p, qs in every.items()}
    first_run, ms, build = first_stage_runs(first, pools, ask, embeddings=embeddings,
                                            progress=progress)
    rec = LatencyRecorder()
    for pool, qs in ask.items():
        for q, t in zip(qs, ms[pool], strict=True):
            if q.id in keep:
                rec.record(pool if rest is None else "first stage", t)
    config: dict[str, Any] = {
        "protocol": PROTOCOL, "data": str(Path(data).absolute()), "pipeline": spec,
        "first_stage": f"{first} over the query's own pool", "pools": list(pools),
        "missing_pools": missing, "limit_per_pool": limit_per_pool,
        "gazetteer": str(gaz_path) if gaz_path and "gazetteer=" in spec else None,
        "n_documents": sum(len(r) for r in pools.values()), "n_queries": len(scored),
        "build_seconds": round(sum(build.values()), 3), "build_seconds_per_pool": build}
    if rest is None:
        final, latency = first_run, rec.latency_ms("pooled")
    else:
        final, latency = _rerank(rest, pools, scored, every, qrels, first_run, trained, cv_folds,
                                 fold_seed, embeddings, rec, progress, config)
    metrics, groups = score_by_pool(final, qrels, scored, list(pools))
    config["seconds"] = round(time.perf_counter() - t0, 3)
    return BenchmarkResult("impliret", config, metrics, groups, latency)


def _rerank(rest: Any, pools: dict[str, Any], scored: list[Query], every: dict[str, list[Query]],
            qrels: Qrels, first_run: Run, trained: bool, folds: int, seed: int,
            embeddings: str | Path | None, rec: LatencyRecorder, progress: ProgressFn,
            config: dict[str, Any]) -> tuple[Run, dict[str, float]]:
    """The re-ranking part over the union corpus; records what it did in ``config``."""
    pools_order = list(pools)
    pipe = make_pipeline(repr(rest), union_context(pools, embeddings=embeddings,
                                                   progress=progress))
    t = time.perf_counter()
    final, fold_info = rerank(pipe, scored, qrels, first_run, folds=folds if trained else None,
                              seed=seed, train_queries=[q for qs in every.values() for q in qs],
                              recorder=rec, progress=progress)
    recall, recall_groups = score_by_pool(first_run, qrels, scored, pools_order, [f"recall@{TOP}"])
    first, first_groups = score_by_pool(first_run, qrels, scored, pools_order)
    config["protocol"] = f"{PROTOCOL}; re-ranking of the first stage's candidates by {pipe!r}"
    if trained:
        config["protocol"] += "; " + cv_protocol(folds, seed)
    config.update({
        "rerank": repr(pipe), "rerank_seconds": round(time.perf_counter() - t, 1),
        f"first_stage_recall@{TOP}": recall[f"recall@{TOP}"],
        f"first_stage_recall@{TOP}_per_pool": {p: v[f"recall@{TOP}"] for p, v in
                                               recall_groups.items() if p in pools},
        f"n_queries_positive_in_top{TOP}": sum(1 for q in scored if q.id in first_run.get(q.id, {})),
        "first_stage_same_queries": {"overall": first,
                                     **{g: v for g, v in first_groups.items() if g in CATEGORIES}},
        **fold_info})
    return final, rec.latency_ms("sum")


def score_by_pool(run: Run, qrels: Qrels, queries: list[Query], pools: list[str],
                  metrics: list[str] | None = None
                  ) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """The IMPLIRET protocol over ``queries`` (ids ``<pool>/<id>``): per pool, then
    categories and the average."""
    per_pool: dict[str, dict[str, float]] = {}
    for pool in pools:
        ids = [q.id for q in queries if q.id.split("/", 1)[0] == pool]
        if ids:
            per_pool[pool] = evaluate(Run({q: run.get(q, {}) for q in ids}),
                                      Qrels({q: qrels[q] for q in ids}), metrics or METRICS)
    overall, cats = aggregate(per_pool)
    return overall, {**per_pool, **cats}


def table_rows(result: BenchmarkResult, metric: str = "ndcg@10") -> list[dict[str, Any]]:
    """Rows like the paper's Table 2: one per style (multi/uni) and one per category mean."""
    rows = []
    for style in STYLES:
        row: dict[str, Any] = {"": style}
        for c in CATEGORIES:
            v = result.groups.get(f"{c}_{style}", {}).get(metric)
            row[c] = 100 * v if v is not None else "-"
        rows.append(row)
    avg: dict[str, Any] = {"": "average (styles)"}
    for c in CATEGORIES:
        v = result.groups.get(c, {}).get(metric)
        avg[c] = 100 * v if v is not None else "-"
    avg["Average"] = 100 * result.metrics[metric] if metric in result.metrics else "-"
    rows.append(avg)
    return rows
