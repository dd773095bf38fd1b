"""TREC Deep Learning passage re-ranking (DL19 / DL20): adapter and protocol.

Folder layout::

    DIR/{year}_bm25_top100.json   [{"query": ..., "hits": [{"qid", "docid", "content", "score", "rank"}, ...]}, ...]
    DIR/{year}_qrels.json         {qid: {docid: "grade"}}   (grades 0-3)

Protocol (:func:`run_trecdl`): re-rank each judged query's BM25 top-``k`` with the chosen
re-ranker and score with trec_eval's definitions: nDCG@10 with linear gains (gain = grade,
unjudged = 0; BM25 gives 50.58 on DL19), and with grade >= 2 as relevant (TREC DL's
binarisation) MRR@10 and G-RAG's tie-aware MTRR and TMHits@10. Latency is per query and
per stage (p50/p95). A cross-encoder is either a given model, or trained with query-level
k-fold cross-validation (``cv_folds``): per fold, the start model is fine-tuned on the
other folds' judgements (plus any ``train_data``) and scores the held-out fold; the fold
runs are stitched into one run, so no query is scored by a model that saw its judgements.
The GNN rows (``mlp``, ``gcn``, ``gnn`` = G-RAG, ``gnn-rl`` = G-RAG-RL) are cross-validated
the same way (:mod:`skbsearch.benchmarks.trecdl_gnn`) or scored with a saved model.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skbsearch.benchmarks.result import BenchmarkResult
from skbsearch.errors import InputError
from skbsearch.eval.evaluate import evaluate
from skbsearch.eval.latency import LatencyRecorder
from skbsearch.types import Qrels, Query, Run

RERANKERS = ("none", "bm25", "bi-encoder", "cross-encoder", "llm", "gnn", "gnn-rl", "mlp", "gcn")
Progress = Callable[[str, int, int], None]


@dataclass
class TrecDLData:
    """One TREC DL year: judged queries, the BM25 run, qrels and passage texts."""

    year: str
    queries: list[Query]
    run: Run
    qrels: Qrels
    doc_text: dict[str, str]
    path: Path


def load_trecdl(data_dir: str | Path, year: str = "dl19") -> TrecDLData:
    """Read ``DIR/{year}_bm25_top100.json`` and ``DIR/{year}_qrels.json``."""
    d = Path(data_dir)
    run_path, qrels_path = d / f"{year}_bm25_top100.json", d / f"{year}_qrels.json"
    for p in (run_path, qrels_path):
        if not p.is_file():
            raise InputError(f"TREC DL file not found; expected {year}_bm25_top100.json and "
                             f"{year}_qrels.json in {d}", file=p)
    try:
        records = json.loads(run_path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise InputError(f"malformed JSON: {e.msg}", file=run_path, line=e.lineno) from None
    queries: list[Query] = []
    run = Run(name="bm25")
    texts: dict[str, str] = {}
    for n, rec in enumerate(records, start=1):
        try:
            hits = rec["hits"]
            qid = str(hits[0]["qid"]) if hits else str(rec["qid"])
            queries.append(Query(qid, str(rec["query"])))
            run[qid] = {str(h["docid"]): float(h["score"]) for h in hits}
            texts.update({str(h["docid"]): str(h["content"]) for h in hits})
        except (KeyError, TypeError, IndexError) as e:
            raise InputError(f"expected {{'query', 'hits': [{{'qid', 'docid', 'content', "
                             f"'score'}}]}}: missing {e}", file=run_path, line=n) from None
    return TrecDLData(year, queries, run, Qrels.from_json(qrels_path), texts, d)


def metrics_of(run: Run, qrels: Qrels) -> dict[str, float]:
    """nDCG@10 (gain = grade), and MRR@10, MTRR, TMHits@10 with grade >= 2 relevant."""
    out = evaluate(run, qrels, ["ndcg@10"])
    out.update(evaluate(run, qrels, ["mrr@10", "mtrr", "tmhits@10"], min_grade=2))
    return out


def folds_of(query_ids: Sequence[str], k: int, seed: int = 0) -> list[list[str]]:
    """``k`` disjoint query folds (seeded shuffle, sizes differ by at most one)."""
    if not 2 <= k <= len(query_ids):
        raise InputError(f"--cv-folds must be between 2 and {len(query_ids)}", field="cv_folds")
    ids = sorted(query_ids)
    random.Random(seed).shuffle(ids)
    return [ids[i::k] for i in range(k)]


def kfold_cross_encoder(data: TrecDLData, run: Run, queries: Sequence[Query], *, folds: int,
                        start: str = "minilm", train_data: Sequence[str] = (),
                        config: Any = None, top_k: int = 100, batch_size: int = 32,
                        save_dir: str | Path | None = None, recorder: LatencyRecorder | None = None,
                        progress: Progress | None = None) -> Run:
    """Cross-validated cross-encoder run (see the module docstring)."""
    from skbsearch.rerank.cross_encoder import CrossEncoderModel, CrossEncoderReranker
    from skbsearch.train.cross_encoder import (
        load_data_spec,
        load_trecdl_queries,
        train_cross_encoder,
    )

    extra = [q for spec in train_data for q in load_data_spec(spec)]
    prefix = data.path / data.year
    stitched = Run(name="cross-encoder-cv")
    for i, fold in enumerate(folds_of([q.id for q in queries], folds)):
        held = set(fold)
        train_q = [q for q in load_trecdl_queries(prefix) if q.id not in held] + extra
        model = CrossEncoderModel.start_from(start, seed=i)

        def tick(step: int, total: int, loss: float, i: int = i) -> None:
            if progress is not None:
                progress(f"fold {i + 1}/{folds} training (loss {loss:.3f})", step, total)

        train_cross_encoder(model, train_q, config,
                            out_dir=Path(save_dir) / f"fold{i + 1}" if save_dir else None,
                            progress=tick)
        fold_q = [q for q in queries if q.id in held]
        stage = CrossEncoderReranker(model, data.doc_text, top_k=top_k, batch_size=batch_size,
                                     progress=_pairs_progress(progress, f"fold {i + 1}/{folds} scoring"))
        t = time.perf_counter()
        fold_run = stage(fold_q, run)
        if recorder is not None and fold_q:
            recorder.record("cross-encoder", (time.perf_counter() - t) * 1000, len(fold_q))
        stitched.update(fold_run)
    return stitched


def _pairs_progress(progress: Progress | None, label: str) -> Callable[[int, int], None] | None:
    if progress is None:
        return None
    return lambda done, total: progress(label, done, total)


def rerank(name: str, data: TrecDLData, queries: Sequence[Query], run: Run, *,
           model: str | None = None, top_k: int = 100, batch_size: int = 32,
           cv_folds: int | None = None, cv_options: dict[str, Any] | None = None,
           gnn_options: dict[str, Any] | None = None,
           cache_dir: str | Path | None = None, recorder: LatencyRecorder | None = None,
           progress: Progress | None = None, qrels: Qrels | None = None) -> Run:
    """The run of one re-ranker (``none``/``bm25``: the input run) over ``queries``."""
    rec = recorder or LatencyRecorder()
    n = max(1, len(queries))
    if name in ("none", "bm25"):
        return run
    if name.startswith("run:"):
        return Run.from_trec(name[4:])
    if name == "bi-encoder":
        from skbsearch.index.dense import DenseIndex
        from skbsearch.retrieve.dense import DenseRetriever

        ids = sorted({d for q in queries for d in run.get(q.id, {})})
        index = DenseIndex.build((ids, [data.doc_text[d] for d in ids]), model or "minilm",
                                 cache=cache_dir, progress=progress or False)
        stage = DenseRetriever(index, k=top_k, cache=cache_dir, name="bi-encoder")
        with rec.stage("bi-encoder", n_queries=n):
            return stage(queries, run.top(top_k))
    if name == "cross-encoder":
        if cv_folds:
            return kfold_cross_encoder(data, run, queries, folds=cv_folds, start=model or "minilm",
                                       top_k=top_k, batch_size=batch_size, recorder=rec,
                                       progress=progress, **(cv_options or {}))
        if model is None:
            raise InputError("--reranker cross-encoder needs --model DIR (a trained model, e.g. "
                             "from 'skb train cross-encoder') or --cv-folds K", field="model")
        from skbsearch.rerank.cross_encoder import CrossEncoderReranker

        stage = CrossEncoderReranker(model, data.doc_text, top_k=top_k, batch_size=batch_size,
                                     progress=_pairs_progress(progress, "cross-encoder"))
        with rec.stage("cross-encoder", n_queries=n):
            return stage(queries, run)
    if name == "llm":
        from skbsearch.llm.client import get_client
        from skbsearch.rerank.llm import LLMReranker

        stage = LLMReranker(get_client(model or "smollm2"), data.doc_text, top_k=top_k,
                            kind="passage")
        with rec.stage("llm", n_queries=n):
            return stage(queries, run)
    if name in ("gnn", "gnn-rl", "mlp", "gcn"):
        return _gnn(name, data, queries, run, model=model, cv_folds=cv_folds,
                    options=gnn_options if gnn_options is not None else {}, qrels=qrels,
                    cache_dir=cache_dir, rec=rec, progress=progress)
    raise InputError(f"unknown re-ranker {name!r}; use one of {', '.join(RERANKERS)}, "
                     "fusion:<a>+<b> or run:FILE", field="reranker")


def _gnn(name: str, data: TrecDLData, queries: Sequence[Query], run: Run, *, model: str | None,
         cv_folds: int | None, options: dict[str, Any], qrels: Qrels | None,
         cache_dir: str | Path | None, rec: LatencyRecorder, progress: Progress | None) -> Run:
    """A GNN row: k-fold CV training (``cv_folds``) or a saved model (``model``)."""
    try:
        from skbsearch.benchmarks import trecdl_gnn
    except ImportError as e:
        raise InputError(f"the {name} re-ranker is not available: {e}", field="reranker") from None
    if cv_folds:
        opts = dict(options)
        save_dir = opts.pop("save_dir", None)
        row = trecdl_gnn.GNNRowConfig.for_row(name, **opts)
        out, info = trecdl_gnn.kfold_gnn(queries, run, data.doc_text, qrels or data.qrels, row,
                                         folds=cv_folds, name=name, cache_dir=cache_dir,
                                         save_dir=save_dir, recorder=rec, progress=progress)
        options["_row"], options["_folds"] = row, info
        return out
    if model is None:
        raise InputError(f"--reranker {name} needs --cv-folds K (train per fold) or --model DIR "
                         "(from 'skb train gnn-reranker')", field="model")
    return trecdl_gnn.score_with_model(model, queries, run, data.doc_text, name=name,
                                       cache_dir=cache_dir, recorder=rec, progress=progress)


def parse_reranker(spec: str) -> tuple[str, list[str]]:
    """``"fusion:a+b"`` -> ``("fusion", [a, b])``; anything else -> ``(spec, [])``."""
    if spec.startswith("fusion:"):
        parts = [p.strip() for p in spec[len("fusion:"):].split("+") if p.strip()]
        if len(parts) < 2:
            raise InputError("write fusion:<a>+<b>, e.g. fusion:cross-encoder+bm25", field="reranker")
        return "fusion", parts
    if spec not in RERANKERS and not spec.startswith("run:"):
        raise InputError(f"unknown re-ranker {spec!r}; use one of {', '.join(RERANKERS)}, "
                         "fusion:<a>+<b> or run:FILE", field="reranker")
    return spec, []


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


def run_trecdl(data_dir: str | Path, year: str = "dl19", reranker: str = "none", *,
               model: str | None = None, top_k: int = 100, limit: int | None = None,
               cv_folds: int | None = None, cv_options: dict[str, Any] | None = None,
               gnn_options: dict[str, Any] | None = None, fusion: str = "rrf", batch_size: int = 32, cache_dir: str | Path | None = None,
               save_run: str | Path | None = None, progress: Progress | None = None,
               input_run: str | Path | None = None) -> BenchmarkResult:
    """Re-rank the BM25 top-``top_k`` of a TREC DL year and score it (module docstring).

    ``limit`` keeps the first N queries (the qrels are cut to them too); ``fusion`` is
    ``"rrf"`` (k = 60) or ``"wsum"`` (min-max normalised sum) for ``fusion:a+b``.
    ``input_run``: a TREC run whose scores replace BM25's on the same candidates (the
    BM25 top-``top_k``), e.g. a cross-encoder run, so that a GNN row uses them as its
    first-stage feature (stacking); candidates the run lacks are dropped.
    """
    kind, parts = parse_reranker(reranker)
    if fusion not in ("rrf", "wsum"):
        raise InputError("--fusion must be rrf or wsum", field="fusion")
    data = load_trecdl(data_dir, year)
    queries = [q for q in data.queries if q.id in data.qrels]
    if limit is not None:
        queries = queries[:limit]
    ids = {q.id for q in queries}
    qrels = Qrels({q: d for q, d in data.qrels.items() if q in ids})
    base = Run({q: d for q, d in data.run.items() if q in ids}, name="bm25").top(top_k)
    if input_run is not None:
        base = restrict_scores(Run.from_trec(Path(input_run).expanduser()), base)
    rec = LatencyRecorder()
    gnn_options = dict(gnn_options or {})
    opts = dict(model=model, top_k=top_k, batch_size=batch_size, cv_folds=cv_folds,
                cv_options=cv_options, gnn_options=gnn_options, cache_dir=cache_dir,
                recorder=rec, progress=progress, qrels=qrels)
    start = time.perf_counter()
    groups = {"bm25" if input_run is None else "input": metrics_of(base, qrels)}
    if kind == "fusion":
        from skbsearch.retrieve.hybrid import rrf, weighted_fusion

        runs = [rerank(p, data, queries, base, **opts) for p in parts]  # type: ignore[arg-type]
        for p, r in zip(parts, runs, strict=True):
            groups.setdefault(p, metrics_of(r, qrels))
        final = rrf(runs) if fusion == "rrf" else weighted_fusion(runs)
    else:
        final = rerank(kind, data, queries, base, **opts)  # type: ignore[arg-type]
    if save_run is not None:
        final.to_trec(save_run, tag=reranker.replace(" ", "_"))
    metrics = metrics_of(final, qrels)
    latency: dict[str, float] = {}
    for stage, s in rec.summary().items():
        latency[f"{stage}.p50"], latency[f"{stage}.p95"] = s["p50_ms"], s["p95_ms"]
    if rec.stages:
        total = [sum(x) for x in zip(*(rec.samples(s) for s in rec.stages), strict=False)]
        import numpy as np

        latency["p50"], latency["p95"] = (float(np.percentile(total, 50)),
                                          float(np.percentile(total, 95)))
    protocol = (f"TREC DL {year} passage re-ranking of the BM25 top-{top_k}; nDCG@10 (trec_eval, "
                "gain = grade), MRR@10/MTRR/TMHits@10 with grade >= 2 relevant")
    if cv_folds and "cross-encoder" in [kind, *parts]:
        protocol += f"; cross-encoder trained with {cv_folds}-fold query-level cross-validation"
    gnn_rows = [p for p in [kind, *parts] if p in ("gnn", "gnn-rl", "mlp", "gcn")]
    if cv_folds and gnn_rows:
        protocol += (f"; {'/'.join(gnn_rows)} trained with {cv_folds}-fold query-level "
                     "cross-validation (per fold: train on the other folds, early stopping on a "
                     "seeded dev part of them); latency = feature building (warm parse and "
                     "embedding caches) + GNN scoring")
    if input_run is not None:
        protocol += f"; input scores from {Path(input_run).name} on the BM25 candidates"
    config = {"protocol": protocol, "data": str(Path(data_dir)), "year": year,
              **({"input_run": str(input_run)} if input_run is not None else {}),
              "reranker": reranker, "model": model, "top_k": top_k, "cv_folds": cv_folds,
              "fusion": fusion if kind == "fusion" else None, "n_queries": len(queries),
              "seconds": round(time.perf_counter() - start, 1)}
    if "_row" in gnn_options:
        from dataclasses import asdict

        config["gnn"] = asdict(gnn_options["_row"])
        config["gnn_folds"] = gnn_options["_folds"]
    if cv_options:
        config["cv_options"] = {k: (v.__dict__ if hasattr(v, "__dict__") else v)
                                for k, v in cv_options.items()}
    return BenchmarkResult("trecdl", config, metrics, groups, latency)
