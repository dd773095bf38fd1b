"""IMPLIRET (Taghavi et al., 2025): adapter and the official retrieval protocol.

Folder layout: ``DIR/{arithmetic,temporal,wknow}_{multispeaker,unispeaker}.jsonl``, one
record a line (``id``, ``tuple_set_id``, ``document``, ``question``, ``answer`` and
``forum_question`` or ``main_speaker``). Missing pools are skipped with a note.

Protocol (:func:`run_impliret`): every query ranks ALL documents of its own pool (category
x style); its only positive is the document on the same line. nDCG@10, MRR@10 and
Recall@10 per pool, averaged over the two styles per category, then over the categories
(the paper's "Average" column). Indexes are built from the ``document`` fields only; a
query's text is read when it is ranked, one query at a time; ``answer`` is never read
here (readers: :mod:`skbsearch.benchmarks.impliret_read`).

Pipelines (:data:`PIPELINES`): ``bm25`` (raw text), ``dense`` (MiniLM), ``hybrid`` (RRF of
the two), ``bm25+enrich`` (BM25 on enriched text), ``enrich`` (enriched text + constraint
scores over the documents' facts; the default) and ``constraints-only``. Re-ranking
pipelines ``bm25>NAME`` (trained re-rankers over BM25's top-100, query-level k-fold CV) run
in :mod:`skbsearch.benchmarks.impliret_rerank`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from skbsearch.benchmarks.result import BenchmarkResult
from skbsearch.errors import InputError
from skbsearch.eval.evaluate import evaluate
from skbsearch.jsonl import iter_jsonl
from skbsearch.types import Qrels, Query, Run

CATEGORIES = ("arithmetic", "temporal", "wknow")
STYLES = ("multispeaker", "unispeaker")
POOLS = tuple(f"{c}_{s}" for c in CATEGORIES for s in STYLES)
PIPELINES = ("enrich", "bm25+enrich", "constraints-only", "bm25", "dense", "hybrid")
DEFAULT_PIPELINE = "enrich"
METRICS = ["ndcg@10", "mrr@10", "recall@10"]
PROTOCOL = ("each query ranks all documents of its own pool (category x style); positive = "
            "the document on the query's line; metrics per pool, averaged over the two styles "
            "per category, then over categories")
ProgressFn = Callable[[str, int, int], None]


def _no_progress(stage: str, done: int, total: int) -> None:
    return None


@dataclass(frozen=True)
class ImpliretRecord:
    """One line of a pool: a document and the query whose positive it is."""

    id: str
    tuple_set_id: str
    document: str
    question: str
    answer: str
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


def load_pool(path: str | Path) -> list[ImpliretRecord]:
    """Read one pool file; errors name the file, line and field."""
    path = Path(path)
    out: list[ImpliretRecord] = []
    seen: set[str] = set()
    for n, rec in iter_jsonl(path):
        for key in ("document", "question"):
            if not isinstance(rec.get(key), str) or not rec[key].strip():
                raise InputError(f"missing or empty '{key}'", file=path, line=n, field=key)
        rid = str(rec.get("id", n - 1))
        if rid in seen:
            raise InputError(f"duplicate id {rid!r}; ids must be unique within a pool", file=path,
                             line=n, field="id")
        seen.add(rid)
        extra = {k: v for k, v in rec.items() if k not in ("id", "tuple_set_id", "document", "question", "answer")}
        out.append(ImpliretRecord(rid, str(rec.get("tuple_set_id", "")), rec["document"], rec["question"],
                                  str(rec.get("answer", "")), extra))
    if not out:
        raise InputError("pool file has no records", file=path)
    return out


def discover_pools(data: str | Path) -> tuple[dict[str, Path], list[str]]:
    """The pool files present in ``data`` (in :data:`POOLS` order) and the missing pool names."""
    data = Path(data)
    if not data.is_dir():
        raise InputError(f"IMPLIRET folder not found: {data}; expected DIR/<category>_<style>.jsonl",
                         field="data")
    present = {p: data / f"{p}.jsonl" for p in POOLS if (data / f"{p}.jsonl").is_file()}
    missing = [p for p in POOLS if p not in present]
    if not present:
        raise InputError(f"no IMPLIRET pool in {data}; expected files like arithmetic_unispeaker.jsonl",
                         field="data")
    return present, missing


def default_gazetteer(data: str | Path) -> Path | None:
    """``<DIR>/../gazetteer/wikidata_landmarks.jsonl`` if it exists."""
    p = Path(data).absolute().parent / "gazetteer" / "wikidata_landmarks.jsonl"
    return p if p.is_file() else None


def make_enrichers(gazetteer: Any = None) -> list[Any]:
    """The enrichers used for every pool: temporal, arithmetic and (with a gazetteer) places."""
    from skbsearch.enrich import ArithmeticEnricher, TemporalEnricher

    ens: list[Any] = [TemporalEnricher(), ArithmeticEnricher()]
    if gazetteer is not None:
        ens.append(gazetteer)
    return ens


def load_gazetteer(path: str | Path | None) -> Any:
    """A :class:`~skbsearch.enrich.GazetteerEnricher` over the landmark JSONL (None: none)."""
    if path is None:
        return None
    from skbsearch.enrich import GazetteerEnricher

    p = Path(path)
    if not p.is_file():
        raise InputError(f"gazetteer file not found: {p}", field="gazetteer")
    return GazetteerEnricher.from_jsonl(p)


@dataclass
class PoolIndex:
    """What is built from one pool's documents: enriched documents and a retrieval stage."""

    pool: str
    records: list[ImpliretRecord]
    stage: Any
    docs: list[Any] | None = None
    build_seconds: float = 0.0


def enrich_pool(records: Sequence[ImpliretRecord], gazetteer: Any = None) -> list[Any]:
    """Enriched documents of a pool (reads ``document`` only)."""
    from skbsearch.enrich import enrich_documents

    return enrich_documents([(r.id, r.document) for r in records], make_enrichers(gazetteer), progress=False)


def build_pool(pool: str, records: list[ImpliretRecord], pipeline: str, *, gazetteer: Any = None,
               cache_dir: str | Path | None = None, k: int = 100, need_docs: bool = False) -> PoolIndex:
    """Index one pool's documents for ``pipeline`` (see the module docstring)."""
    if pipeline not in PIPELINES:
        raise InputError(f"unknown pipeline {pipeline!r}; use one of {', '.join(PIPELINES)}", field="pipeline")
    t0 = time.perf_counter()
    pairs = [(r.id, r.document) for r in records]
    docs = None
    if pipeline in ("enrich", "bm25+enrich", "constraints-only") or need_docs:
        docs = enrich_pool(records, gazetteer)
    if pipeline in ("enrich", "bm25+enrich", "constraints-only"):
        from skbsearch.retrieve.constrained import ConstrainedRetriever

        mode = {"enrich": "full", "bm25+enrich": "text", "constraints-only": "constraints"}[pipeline]
        places = gazetteer.gazetteer if gazetteer is not None else None
        stage: Any = ConstrainedRetriever(docs, places=places, mode=mode, k=k, name=pipeline)
    else:
        stage = _baseline_stage(pipeline, pairs, cache_dir, k)
    return PoolIndex(pool, records, stage, docs, time.perf_counter() - t0)


def _baseline_stage(pipeline: str, pairs: list[tuple[str, str]], cache_dir: str | Path | None, k: int) -> Any:
    from skbsearch.index.sparse import BM25Index
    from skbsearch.retrieve.sparse import BM25Retriever

    bm25 = BM25Retriever(BM25Index.from_texts(pairs), k=k, backend="numpy", n_threads=1, name="bm25")
    if pipeline == "bm25":
        return bm25
    from skbsearch.encoders import EmbeddingCache, default_cache_dir
    from skbsearch.index.dense import DenseIndex
    from skbsearch.retrieve.dense import DenseRetriever

    cache = EmbeddingCache(Path(cache_dir) if cache_dir else default_cache_dir())
    index = DenseIndex.build(([d for d, _ in pairs], [t for _, t in pairs]), "minilm", cache=cache)
    dense = DenseRetriever(index, k=k, cache=cache, name="dense")
    if pipeline == "dense":
        return dense
    from skbsearch.retrieve.hybrid import RRF

    return RRF(bm25, dense, name="hybrid")


def pool_queries(records: Sequence[ImpliretRecord], limit: int | None = None) -> tuple[list[Query], Qrels]:
    """The queries of a pool (first ``limit``) and their qrels (own document, grade 1)."""
    chosen = list(records)[:limit] if limit else list(records)
    queries = [Query(r.id, r.question, {"tuple_set_id": r.tuple_set_id}) for r in chosen]
    return queries, Qrels({r.id: {r.id: 1} for r in chosen})


def rank_queries(stage: Any, queries: Sequence[Query], progress: ProgressFn = _no_progress,
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


def run_impliret(
    data: str | Path,
    *,
    pipeline: str = DEFAULT_PIPELINE,
    limit_per_pool: int | None = None,
    gazetteer: str | Path | None = None,
    cache_dir: str | Path | None = None,
    progress: ProgressFn = _no_progress,
    rerank: dict[str, Any] | None = None,
) -> BenchmarkResult:
    """Run the official retrieval protocol on every pool present in ``data``.

    Args:
        data: the folder of pool files.
        pipeline: one of :data:`PIPELINES`.
        limit_per_pool: score only the first N queries of each pool (all documents are
            still ranked).
        gazetteer: the landmark JSONL (default: :func:`default_gazetteer`).
        cache_dir: embedding cache for the dense pipelines (``bm25>NAME``: the cache root).
        rerank: for ``bm25>NAME`` pipelines, keyword arguments of
            :func:`~skbsearch.benchmarks.impliret_rerank.run_impliret_rerank` (``folds``,
            ``seed``, ``options``).
    """
    if ">" in pipeline:
        from skbsearch.benchmarks.impliret_rerank import run_impliret_rerank

        return run_impliret_rerank(data, pipeline, limit_per_pool=limit_per_pool,
                                   cache_dir=cache_dir, progress=progress, **(rerank or {}))
    if pipeline not in PIPELINES:
        raise InputError(f"unknown pipeline {pipeline!r}; use one of {', '.join(PIPELINES)} "
                         "or bm25>RERANKER", field="pipeline")
    pools, missing = discover_pools(data)
    gaz_path = Path(gazetteer) if gazetteer else default_gazetteer(data)
    t0 = time.perf_counter()
    uses_gaz = pipeline in ("enrich", "bm25+enrich", "constraints-only")
    gaz = load_gazetteer(gaz_path) if uses_gaz else None
    gaz_seconds = time.perf_counter() - t0
    per_pool: dict[str, dict[str, float]] = {}
    latency: dict[str, float] = {}
    lat_all: list[float] = []
    build: dict[str, float] = {}
    n_docs = n_queries = 0
    for pool, path in pools.items():
        records = load_pool(path)
        progress(f"indexing {pool}", 0, 1)
        built = build_pool(pool, records, pipeline, gazetteer=gaz, cache_dir=cache_dir)
        progress(f"indexing {pool}", 1, 1)
        build[pool] = round(built.build_seconds, 3)
        queries, qrels = pool_queries(records, limit_per_pool)
        run, lat = rank_queries(built.stage, queries, progress, f"ranking {pool}")
        per_pool[pool] = evaluate(run, qrels, METRICS)
        latency[f"{pool}.p50"] = float(np.percentile(lat, 50))
        latency[f"{pool}.p95"] = float(np.percentile(lat, 95))
        lat_all += lat
        n_docs += len(records)
        n_queries += len(queries)
    overall, cats = aggregate(per_pool)
    latency["p50"] = float(np.percentile(lat_all, 50))
    latency["p95"] = float(np.percentile(lat_all, 95))
    config = {
        "protocol": PROTOCOL, "data": str(Path(data).absolute()), "pipeline": pipeline,
        "pools": list(per_pool), "missing_pools": missing, "limit_per_pool": limit_per_pool,
        "gazetteer": str(gaz_path) if uses_gaz and gaz_path else None,
        "n_documents": n_docs, "n_queries": n_queries,
        "build_seconds": round(sum(build.values()) + gaz_seconds, 3), "build_seconds_per_pool": build,
        "gazetteer_load_seconds": round(gaz_seconds, 3),
        "seconds": round(time.perf_counter() - t0, 3),
    }
    return BenchmarkResult("impliret", config, overall, {**per_pool, **cats}, latency)


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
