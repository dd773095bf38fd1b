"""TREC Deep Learning passage re-ranking (DL19 / DL20): the protocol over a pipeline spec.

Folder layout (read by :mod:`skbsearch.datasets.trecdl`)::

    DIR/{year}_bm25_top100.json   [{"query": ..., "hits": [{"qid", "docid", "content", "score", "rank"}, ...]}, ...]
    DIR/{year}_qrels.json         {qid: {docid: "grade"}}   (grades 0-3)

Protocol (:func:`run_trecdl`): the year's passages become a corpus SKB (one node type
``passage``, cached by content; :func:`skbsearch.kb.corpus.corpus_skb`); the pipeline
spec re-ranks each judged query's BM25 top-``k``, given to it as its input run (``input``
is that run as a stage; the default pipeline). Scores follow trec_eval: nDCG@10 with
linear gains (gain = grade, unjudged = 0; BM25 gives 50.58 on DL19), and with grade >= 2
as relevant (TREC DL's binarisation) MRR@10 and G-RAG's tie-aware MTRR and TMHits@10.
Latency is per query and per stage (p50/p95). A pipeline with trainable stages
(``cross-encoder-ft``, ``gnn-row``) is cross-validated by query (``cv_folds``,
:func:`skbsearch.eval.cv.cross_validate`): no query is scored by a model that saw its
judgements.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from skbsearch.benchmarks.common import cv_protocol, rerank
from skbsearch.benchmarks.result import BenchmarkResult
from skbsearch.core.errors import InputError
from skbsearch.core.progress import ProgressFn
from skbsearch.core.types import Qrels, Run
from skbsearch.datasets.trecdl import TrecDLData, load_trecdl
from skbsearch.eval.cv import folds_of
from skbsearch.eval.evaluate import evaluate
from skbsearch.eval.latency import LatencyRecorder
from skbsearch.kb.corpus import corpus_skb
from skbsearch.stages import pipeline as make_pipeline
from skbsearch.stages.corpus import CorpusContext

__all__ = ["TrecDLData", "folds_of", "load_trecdl", "metrics_of", "restrict_scores",
           "run_trecdl", "trecdl_corpus"]


def metrics_of(run: Run, qrels: Qrels) -> dict[str, float]:
    """nDCG@10 (gain = grade), and MRR@10, MTRR, TMHits@10 with grade >= 2 relevant, averaged
    over every query of ``qrels`` (a query missing from ``run`` scores 0, as trec_eval -c), so
    the baseline and the re-ranked run share one denominator."""
    out = evaluate(run, qrels, ["ndcg@10"], complete=True)
    out.update(evaluate(run, qrels, ["mrr@10", "mtrr", "tmhits@10"], min_grade=2, complete=True))
    return out


def restrict_scores(scores: Run, candidates: Run) -> Run:
    """``scores``' values on ``candidates``' documents (per query; missing ones dropped).

    Raises:
        InputError: when ``scores`` covers none of a query's candidates.
    """
    out = Run(name=scores.name or "input")
    for q, docs in candidates.items():
        got = scores.get(q, {})
        kept = {d: got[d] for d in docs if d in got}
        if not kept:
            raise InputError(f"the input run has no score for any BM25 candidate of query {q!r}",
                             field="input_run")
        out[q] = kept
    return out


def trecdl_corpus(data: TrecDLData) -> Any:
    """The year's passages as a corpus SKB (ids sorted; cached by content)."""
    ids = sorted(data.doc_text)
    return corpus_skb(ids, [data.doc_text[d] for d in ids], node_type="passage",
                      name=f"trecdl-{data.year}")


def run_trecdl(data_dir: str | Path, year: str = "dl19", pipeline: str | None = None, *,
               top_k: int = 100, limit: int | None = None, cv_folds: int | None = None,
               fold_seed: int = 0, embeddings: str | Path | None = None,
               save_run: str | Path | None = None, progress: ProgressFn | None = None,
               input_run: str | Path | None = None) -> BenchmarkResult:
    """Re-rank the BM25 top-``top_k`` of a TREC DL year with ``pipeline`` (module docstring).

    Args:
        data_dir, year: the folder and year (``dl19``/``dl20``).
        pipeline: a pipeline spec (default ``input``: the BM25 run itself).
        top_k: BM25 candidates per query given to the pipeline.
        limit: keep the first N judged queries (the qrels are cut to them too).
        cv_folds, fold_seed: cross-validation of trainable stages.
        embeddings: the embedding cache of dense indexes (default ``cache_root()/embeddings``).
        save_run: write the final run as a TREC run file.
        input_run: a TREC run whose scores replace BM25's on the same candidates (e.g. a
            cross-encoder run as a GNN row's first-stage feature); candidates it lacks drop.
    """
    start = time.perf_counter()
    data = load_trecdl(data_dir, year)
    queries = [q for q in data.queries if q.id in data.qrels]
    if limit is not None:
        queries = queries[:limit]
    ids = {q.id for q in queries}
    qrels = Qrels({q: d for q, d in data.qrels.items() if q in ids})
    base = Run({q: d for q, d in data.run.items() if q in ids}, name="bm25").top(top_k)
    if input_run is not None:
        base = restrict_scores(Run.from_trec(Path(input_run).expanduser()), base)
    context = CorpusContext(trecdl_corpus(data), embeddings=embeddings, progress=progress)
    spec = pipeline or "input"
    pipe = make_pipeline(spec, context)
    rec = LatencyRecorder()
    final, folds = rerank(pipe, queries, qrels, base, folds=cv_folds, seed=fold_seed,
                          recorder=rec, progress=progress)
    if save_run is not None:
        final.to_trec(save_run, tag="skb")
    protocol = (f"TREC DL {year} passage re-ranking of the BM25 top-{top_k} by the pipeline "
                f"{pipe!r}; nDCG@10 (trec_eval, gain = grade), MRR@10/MTRR/TMHits@10 with "
                "grade >= 2 relevant")
    if folds:
        protocol += "; " + cv_protocol(cv_folds or 0, fold_seed)
    if input_run is not None:
        protocol += f"; input scores from {Path(input_run).name} on the BM25 candidates"
    config: dict[str, Any] = {
        "protocol": protocol, "data": str(Path(data_dir)), "year": year,
        "pipeline": repr(pipe),
        **({"input_run": str(input_run)} if input_run is not None else {}),
        "corpus": str(context.kb_dir), "top_k": top_k, "cv_folds": cv_folds,
        "n_queries": len(queries), "seconds": round(time.perf_counter() - start, 1), **folds}
    first = "bm25" if input_run is None else "input"
    return BenchmarkResult("trecdl", config, metrics_of(final, qrels),
                           {first: metrics_of(base, qrels)}, rec.latency_ms("sum"))
