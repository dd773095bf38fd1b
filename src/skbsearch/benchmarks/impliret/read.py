"""IMPLIRET reader evaluation: oracle RAG (the paper's Table 3) and end-to-end RAG.

``source="oracle"``: the reader gets the query with k documents that always include its
positive: k = 1 (the positive only), k = 10 (the positive and nine other documents of its
tuple set, drawn with a fixed seed) or k = "all" (every document of its tuple set), in a
seeded random order. ``source="retriever"``: the top k of our retriever over the whole
pool (k = "all": the size of the query's tuple set). Scores: ROUGE-1 recall (the
paper's measure), exact match and contains against ``answer``, per pool, averaged over
styles per category, then over categories. ``answer`` is read only to score.
"""

from __future__ import annotations

import random
import time
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from skbsearch.benchmarks.common import warm
from skbsearch.benchmarks.impliret.pools import (
    DEFAULT_PIPELINE,
    aggregate,
    default_gazetteer,
    enrich_pool,
    load_gazetteer,
)
from skbsearch.benchmarks.impliret.rerank import pool_corpus, with_gazetteer
from skbsearch.benchmarks.result import BenchmarkResult
from skbsearch.core.errors import InputError
from skbsearch.core.progress import ProgressFn, no_progress
from skbsearch.core.types import Query
from skbsearch.datasets.impliret import CATEGORIES, ImpliretRecord, discover_pools, load_pool
from skbsearch.eval.latency import percentiles
from skbsearch.eval.metrics.text import evaluate_answers
from skbsearch.llm import get_client
from skbsearch.read.extractive import ExtractiveReader
from skbsearch.read.llm import LLMReader
from skbsearch.stages import pipeline as make_pipeline
from skbsearch.stages.corpus import CorpusContext

READER_METRICS = ("rouge1_recall", "em", "contains")
SOURCES = ("oracle", "retriever")


def parse_ks(text: str) -> list[int | None]:
    """``"1,10,all"`` -> ``[1, 10, None]`` (None = the whole tuple set)."""
    out: list[int | None] = []
    for part in (p.strip().lower() for p in text.split(",")):
        if not part:
            continue
        if part == "all":
            out.append(None)
        elif part.isdigit() and int(part) > 0:
            out.append(int(part))
        else:
            raise InputError(f"--reader-k takes positive numbers and 'all', e.g. 1,10,all; got {part!r}",
                             field="reader-k")
    if not out:
        raise InputError("--reader-k is empty; give e.g. 1,10,all", field="reader-k")
    return out


def k_label(k: int | None) -> str:
    """``"k=1"`` / ``"k=all"``."""
    return "k=all" if k is None else f"k={k}"


def oracle_context(records: Sequence[ImpliretRecord], i: int, k: int | None, seed: int = 0) -> list[int]:
    """Row numbers of the k documents for query ``i``: its positive plus tuple-set mates."""
    mates = [j for j, r in enumerate(records) if r.tuple_set_id == records[i].tuple_set_id and j != i]
    rng = random.Random(zlib.crc32(f"{seed}:{records[i].id}".encode()))
    others = mates if k is None else rng.sample(mates, min(max(k - 1, 0), len(mates)))
    rows = [i, *others]
    rng.shuffle(rows)
    return rows


def make_reader(kind: str, *, places: Any = None, llm: str = "smollm2", llm_model: str = "default",
                n_ctx: int = 8192, max_context_chars: int | None = 6000) -> Any:
    """An extractive or LLM reader (``llm``: "smollm2", a .gguf path or an http(s) URL)."""
    if kind == "extractive":
        return ExtractiveReader(places=places)
    if kind == "llm":
        kw: dict[str, Any] = {} if llm.startswith(("http://", "https://")) else {"n_ctx": n_ctx, "n_threads": 2}
        return LLMReader(get_client(llm, model=llm_model, **kw), max_context_chars=max_context_chars)
    raise InputError(f"unknown reader {kind!r}; use extractive or llm", field="reader")


def pool_ranker(spec: str, pool: str, records: Sequence[ImpliretRecord],
                progress: ProgressFn = no_progress) -> Callable[[ImpliretRecord, int], list[str]]:
    """``rank(record, n)``: the ids of the top ``n`` documents of ``spec`` over the pool
    for the record's question."""
    progress(f"indexing {pool}", 0, 1)
    stage = make_pipeline(spec, CorpusContext(pool_corpus(pool, records)))
    warm(stage)
    progress(f"indexing {pool}", 1, 1)

    def rank(record: ImpliretRecord, n: int) -> list[str]:
        qid = f"{pool}/{record.id}"
        return [d.split("/", 1)[1] for d, _ in stage([Query(qid, record.question)]).ranked(qid)[:n]]

    return rank


def run_impliret_reader(
    data: str | Path,
    *,
    reader: str = "extractive",
    ks: Sequence[int | None] = (1, 10, None),
    source: str = "oracle",
    pipeline: str = DEFAULT_PIPELINE,
    limit_per_pool: int | None = None,
    gazetteer: str | Path | None = None,
    seed: int = 0,
    reader_obj: Any = None,
    llm: str = "smollm2",
    progress: ProgressFn = no_progress,
) -> BenchmarkResult:
    """Score a reader on every pool present in ``data`` (see the module docstring)."""
    if source not in SOURCES:
        raise InputError(f"unknown reader source {source!r}; use oracle or retriever", field="reader-source")
    pools, missing = discover_pools(data)
    gaz_path = Path(gazetteer) if gazetteer else default_gazetteer(data)
    t0 = time.perf_counter()
    gaz = load_gazetteer(gaz_path)
    places = gaz.gazetteer if gaz is not None else None
    rd = reader_obj if reader_obj is not None else make_reader(reader, places=places, llm=llm)
    per: dict[str, dict[str, dict[str, float]]] = {k_label(k): {} for k in ks}
    lat: dict[str, list[float]] = {k_label(k): [] for k in ks}
    n_queries = 0
    spec = with_gazetteer(pipeline, gaz_path) if source == "retriever" else None
    for pool, path in pools.items():
        records = load_pool(path)
        docs = enrich_pool(records, gaz)
        by_id = {d.id: d for d in docs}
        rank = pool_ranker(spec, pool, records, progress) if spec else None
        chosen = records[:limit_per_pool] if limit_per_pool else records
        n_queries += len(chosen)
        gold = {r.id: [r.answer] for r in chosen}
        for k in ks:
            preds: dict[str, str] = {}
            for i, r in enumerate(chosen, start=1):
                if source == "oracle":
                    ctx = [docs[j] for j in oracle_context(records, i - 1, k, seed)]
                else:
                    size = k or sum(1 for x in records if x.tuple_set_id == r.tuple_set_id)
                    ctx = [by_id[d] for d in rank(r, size)]  # type: ignore[misc]
                t = time.perf_counter()
                preds[r.id] = rd.answer(r.question, ctx)
                lat[k_label(k)].append((time.perf_counter() - t) * 1000.0)
                progress(f"reading {pool} {k_label(k)}", i, len(chosen))
            per[k_label(k)][pool] = evaluate_answers(preds, gold, READER_METRICS)
    metrics: dict[str, float] = {}
    groups: dict[str, dict[str, float]] = {}
    latency: dict[str, float] = {}
    for kl, pools_scores in per.items():
        overall, cats = aggregate(pools_scores)
        for m, v in overall.items():
            metrics[f"{m}@{kl}"] = v
        groups.update({f"{kl} {p}": v for p, v in pools_scores.items()})
        groups.update({f"{kl} {c}": v for c, v in cats.items()})
        groups[kl] = overall
        if lat[kl]:
            latency[f"{kl}.p50"], latency[f"{kl}.p95"] = percentiles(lat[kl])
    config = {
        "protocol": "oracle RAG: k documents incl. the positive, from its tuple set" if source == "oracle"
        else f"end-to-end RAG: the top k of the pipeline {spec} over the pool",
        "data": str(Path(data).absolute()), "reader": getattr(rd, "name", reader), "source": source,
        "pipeline": spec, "ks": [k_label(k) for k in ks],
        "pools": list(pools), "missing_pools": missing, "limit_per_pool": limit_per_pool,
        "n_queries": n_queries, "seed": seed, "seconds": round(time.perf_counter() - t0, 3),
    }
    return BenchmarkResult("impliret-reader", config, metrics, groups, latency)


def reader_table(result: BenchmarkResult, metric: str = "rouge1_recall") -> list[dict[str, Any]]:
    """Rows like the paper's Table 3: one per k, a column per category and the average."""
    rows = []
    for kl in result.config.get("ks", []):
        row: dict[str, Any] = {"k": kl}
        for c in CATEGORIES:
            v = result.groups.get(f"{kl} {c}", {}).get(metric)
            row[c] = 100 * v if v is not None else "-"
        row["Average"] = 100 * result.metrics.get(f"{metric}@{kl}", float("nan"))
        for m in READER_METRICS:
            if m != metric:
                row[f"{m} avg"] = 100 * result.metrics.get(f"{m}@{kl}", float("nan"))
        rows.append(row)
    return rows
