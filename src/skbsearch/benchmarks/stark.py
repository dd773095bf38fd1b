"""STaRK (Wu et al., NeurIPS 2024): retrieval over a semi-structured KB, scored as STaRK's
own ``Evaluator`` scores it.

Protocol (:func:`run_stark`): load the SKB (a directory built by ``skb kb build ...
--format stark``, or the official processed files directly, which needs
``trust_pickles``), read one split of the queries (:mod:`skbsearch.datasets.stark`), run
the pipeline spec over every query, and score the run with
:func:`skbsearch.eval.stark.stark_evaluate`: every node of the dataset's candidate types
(Amazon: product, MAG: paper, Prime: every node) is a candidate in ascending node-id
order; candidates the run does not return tie below the returned ones; answers that are
not candidates do not count; every query of the split is averaged (a query without
answers scores 0). The default pipeline is BM25 over the candidate nodes' documents
(text fields plus relations, STaRK's ``add_rel``), top 1000.

Evaluator check (:func:`evaluator_check`): the saved text-embedding-ada-002 rankings of
STaRK's human-generated queries (top 1000 of every candidate, with the per-query metrics
STaRK's evaluator computed) re-scored with our evaluator.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from skbsearch.benchmarks.result import BenchmarkResult
from skbsearch.core.errors import InputError
from skbsearch.core.progress import ProgressFn as Progress
from skbsearch.core.types import Qrels, Run
from skbsearch.datasets.stark import (
    CANDIDATE_TYPES,
    StarkQA,
    guess_dataset,
    read_stark_eval_results,
    read_stark_qa,
)
from skbsearch.eval.latency import percentiles
from skbsearch.eval.stark import STARK_METRICS, TIES, stark_evaluate, stark_per_query
from skbsearch.kb.store import SKB

BATCH = 64
#: How :func:`run_pipeline` times queries: one at a time, or in batches of BATCH.
LATENCY = ("query", "batch")


def load_skb(source: str | Path, *, trust_pickles: bool = False, dataset: str | None = None) -> SKB:
    """An SKB directory (``meta.json``), or STaRK's processed files (needs ``trust_pickles``)."""
    path = Path(source)
    if (path / "meta.json").is_file():
        return SKB.load(path)
    if not path.exists():
        raise InputError("SKB not found: give an SKB directory ('skb kb build ... --format "
                         "stark') or STaRK's processed folder", file=path)
    from skbsearch.kb.loaders.stark import load_stark

    return load_stark(path, trust_pickles=trust_pickles, dataset=dataset)


def candidate_ids(skb: SKB, types: Sequence[str]) -> list[str]:
    """The candidate node ids in STaRK's order: nodes of ``types`` (all when empty), by id."""
    idx = skb.nodes_of_type(*types) if types else np.arange(skb.num_nodes)
    ids = [skb.ids[int(i)] for i in idx]
    if all(i.isdigit() for i in ids):
        ids.sort(key=int)
    return ids


def resolve_dataset(skb: SKB, qa: StarkQA, given: str | None) -> str | None:
    """The dataset name: given, else the SKB's recorded source, else the query folder's name."""
    if given is not None:
        return given
    src = skb.meta.get("source", {})
    return (src.get("dataset") if isinstance(src, dict) else None) or qa.dataset


def default_pipeline(types: Sequence[str], k: int = 1000) -> str:
    """BM25 over the candidate types' nodes (every node when ``types`` is empty)."""
    if not types:
        return f"bm25(k={k})"
    quoted = ", ".join(repr(t) for t in types)
    return f"bm25(k={k}, types=[{quoted}])"


def run_pipeline(spec: str, skb: SKB, qa: StarkQA, *, progress: Progress | None = None,
                 latency: str = "query") -> tuple[Run, list[float]]:
    """The run of ``spec`` over the split's queries and milliseconds per query.

    ``latency="query"`` runs the queries one at a time and times each (real per-query
    latency, p50 and p95 from them); ``"batch"`` runs batches of :data:`BATCH` and returns
    one sample per batch (ms per query of that batch: a throughput, not a latency).
    """
    from skbsearch.stages import pipeline

    if latency not in LATENCY:
        raise InputError(f"unknown latency mode {latency!r}; use one of {', '.join(LATENCY)}",
                         field="latency")
    pipe = pipeline(spec, skb)
    run = Run(name=spec)
    samples: list[float] = []
    total = len(qa.queries)
    step = 1 if latency == "query" else BATCH
    for start in range(0, total, step):
        batch = qa.queries[start:start + step]
        t = time.perf_counter()
        run.update(pipe.run(batch))
        samples.append((time.perf_counter() - t) * 1000 / len(batch))
        if progress is not None:
            progress("retrieving", start + len(batch), total)
    return run, samples


def run_stark(skb_source: str | Path, qa_dir: str | Path, split: str = "test", *,
              pipeline_spec: str | None = None, limit: int | None = None,
              trust_pickles: bool = False, dataset: str | None = None,
              candidate_types: Sequence[str] | None = None, ties: str = "stable",
              metrics: Sequence[str] = STARK_METRICS,
              progress: Progress | None = None, latency: str = "query") -> BenchmarkResult:
    """Run the STaRK protocol (see the module docstring) and return its result."""
    if ties not in TIES:
        raise InputError(f"unknown ties {ties!r}; use one of {', '.join(TIES)}", field="ties")
    t0 = time.perf_counter()
    qa = read_stark_qa(qa_dir, split, limit=limit)
    skb = load_skb(skb_source, trust_pickles=trust_pickles, dataset=dataset or qa.dataset)
    name = resolve_dataset(skb, qa, dataset)
    if candidate_types is None:
        if name not in CANDIDATE_TYPES:
            raise InputError("cannot tell the STaRK dataset (amazon, mag or prime) from the SKB "
                             "or the query folder; pass --dataset or --candidate-types",
                             field="dataset")
        candidate_types = CANDIDATE_TYPES[name]
    types = tuple(candidate_types)
    cands = candidate_ids(skb, types)
    spec = pipeline_spec or default_pipeline(types)
    run, per_query_ms = run_pipeline(spec, skb, qa, progress=progress, latency=latency)
    qrels = Qrels({q.id: dict(qa.qrels.get(q.id, {})) for q in qa.queries})
    values = stark_evaluate(run, qrels, cands, metrics, ties=ties)
    cand_set = set(cands)
    outside = sum(1 for a in qa.qrels.values() for d in a if d not in cand_set)
    config: dict[str, Any] = {
        "protocol": ("STaRK evaluator: every candidate node ranked (unreturned candidates tie "
                     f"last, ties: {ties}), answers outside the candidates dropped, mean over "
                     "every query of the split"),
        "dataset": name, "split": split, "pipeline": spec, "skb": str(skb_source),
        "qa": str(qa.csv_path), "split_file": str(qa.split_path) if qa.split_path else None,
        "candidate_types": list(types) or "all", "n_candidates": len(cands),
        "n_queries": len(qa.queries), "queries_without_answers": len(qa.missing_answers),
        "answers_not_candidates": outside, "ties": ties, "limit": limit, "latency": latency,
        "seconds": round(time.perf_counter() - t0, 2),
    }
    if not per_query_ms:
        lat: dict[str, float] = {}
    elif latency == "query":
        lat = dict(zip(("p50", "p95"), percentiles(per_query_ms), strict=True))
    else:  # batch averages: only their mean means something
        lat = {"mean": float(np.mean(per_query_ms))}
    return BenchmarkResult("stark", config=config, metrics=values, latency_ms=lat)


# ----------------------------------------------------------------------------- evaluator check
CHECK_DATASETS = ("amazon", "mag", "primekg")
EVAL_RESULTS = "avatar-vss-ada002/eval_results_human_generated_eval.csv"
EXACT_FAMILIES = ("hit", "recall", "rprecision")


def _proxy_candidates(run: Run, qrels: Qrels) -> list[str]:
    """Without the SKB: the ranked ids, plus answers within their id range (the official
    SKBs number each node type contiguously, and the rankings hold only candidates)."""
    ranked = {d for docs in run.values() for d in docs}
    lo, hi = min(map(int, ranked)), max(map(int, ranked))
    answers = {d for a in qrels.values() for d in a if lo <= int(d) <= hi}
    return sorted(ranked | answers, key=int)


def check_dataset(folder: str | Path) -> dict[str, float]:
    """Our metrics vs the per-query metrics STaRK saved, for one dataset folder."""
    folder = Path(folder)
    qa = read_stark_qa(folder, "human")
    saved = read_stark_eval_results(folder / EVAL_RESULTS)
    unknown = sorted(set(saved.metrics) - {q.id for q in qa.queries})
    if unknown:
        raise InputError(f"saved results name queries not in the human-generated set: {unknown[:5]}",
                         file=saved.path, field="query_id")
    qrels = Qrels({q: qa.qrels.get(q, {}) for q in saved.metrics})
    names = list(dict.fromkeys(m for v in saved.metrics.values() for m in v))
    cands = _proxy_candidates(saved.run, qrels)
    ours = stark_per_query(saved.run, qrels, cands, names)
    cand_set = set(cands)
    out: dict[str, float] = {"queries": len(saved.metrics),
                             "answers_not_candidates": sum(d not in cand_set for a in qrels.values() for d in a)}
    exact = [m for m in names if m.split("@")[0] in EXACT_FAMILIES]
    out["exact_max_abs_diff"] = max(abs(ours[q][m] - saved.metrics[q][m]) for q in saved.metrics for m in exact)
    for m, need_all in (("mrr", False), ("map", True)):
        in_reach = [q for q in saved.metrics if _in_reach(saved.run[q], qrels[q], cand_set, need_all)]
        diffs = {q: abs(ours[q][m] - saved.metrics[q][m]) for q in saved.metrics}
        out[f"{m}_queries_in_reach"] = len(in_reach)
        out[f"{m}_max_abs_diff_in_reach"] = max((diffs[q] for q in in_reach), default=0.0)
        out[f"{m}_differ_in_reach"] = sum(diffs[q] > 1e-6 for q in in_reach)
        out[f"{m}_max_abs_diff_all"] = max(diffs.values(), default=0.0)
        out[f"{m}_mean_ours"] = float(np.mean([ours[q][m] for q in saved.metrics]))
        out[f"{m}_mean_stark"] = float(np.mean([saved.metrics[q][m] for q in saved.metrics]))
    return out


def _in_reach(ranked: dict[str, float], answers: dict[str, int], cands: set[str], need_all: bool) -> bool:
    """Whether the saved top-k decides the metric: the first (MRR) or every (MAP) answer is in it."""
    found = [d in ranked for d in answers if d in cands]
    return bool(found) and (all(found) if need_all else any(found))


def evaluator_check(data_dir: str | Path, datasets: Sequence[str] = CHECK_DATASETS) -> BenchmarkResult:
    """:func:`check_dataset` for every dataset folder under ``data_dir`` that has saved results."""
    data_dir = Path(data_dir)
    res = BenchmarkResult("stark_evaluator_check", config={
        "data": str(data_dir), "results_file": EVAL_RESULTS, "ties": "stable",
        "exact_metrics": "hit@1/3/5/10/20/50, recall@5/10/20/50/100, rprecision"})
    for name in datasets:
        if (data_dir / name / EVAL_RESULTS).is_file():
            res.groups[name] = check_dataset(data_dir / name)
    if not res.groups:
        raise InputError(f"no saved STaRK results ({EVAL_RESULTS}) under any of "
                         f"{', '.join(datasets)}", file=data_dir)
    groups = res.groups.values()
    res.metrics = {
        "exact_max_abs_diff": max(g["exact_max_abs_diff"] for g in groups),
        "mrr_max_abs_diff_in_reach": max(g["mrr_max_abs_diff_in_reach"] for g in groups),
        "map_max_abs_diff_in_reach": max(g["map_max_abs_diff_in_reach"] for g in groups),
    }
    return res


__all__ = ["candidate_ids", "check_dataset", "default_pipeline", "evaluator_check",
           "guess_dataset", "load_skb", "run_stark"]
