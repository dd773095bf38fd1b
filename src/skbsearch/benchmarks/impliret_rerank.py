"""IMPLIRET re-ranking rows (``--pipeline 'bm25>NAME'``): re-rankers over BM25's top-100.

First stage: BM25 over the query's own pool (the ``bm25`` pipeline of
:mod:`skbsearch.benchmarks.impliret`), top ``k`` = 100 per query. Re-rankers
(:data:`RERANKERS`): ``bi-encoder`` (MiniLM cosine, not trained), the G-RAG rows ``mlp``,
``gcn``, ``grag`` and ``grag-rl`` (:data:`~skbsearch.benchmarks.trecdl_gnn.GNN_ROWS`,
semantic graphs in per-text mode) and ``cross-encoder`` (fine-tuned from the packaged
MiniLM); ``fusion:A+B`` is the RRF (k = 60) of two of them or of one and ``bm25``.

Training is honest query-level k-fold cross-validation on the development pools: every
query id ``<pool>/<id>`` is assigned a fold by a seeded hash (:func:`fold_of`, the same
for a query whatever else is loaded); each fold's model is trained on queries of the
other folds only (positive = the query's own document, negatives = its other BM25
candidates) and scores its held-out fold. The union of the held-out runs is scored with
the IMPLIRET protocol (per pool -> categories -> average); a query whose positive is not
in BM25's top-100 is still evaluated (it scores 0). ``limit_per_pool`` keeps the first N
queries of each pool; the GNN rows train on those, the cross-encoder (whose cost is its
step budget, not its data) on every other-fold query of the pools.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from skbsearch.benchmarks.impliret import (
    CATEGORIES,
    METRICS,
    PROTOCOL,
    ProgressFn,
    _no_progress,
    aggregate,
    build_pool,
    discover_pools,
    load_pool,
    pool_queries,
    rank_queries,
)
from skbsearch.benchmarks.result import BenchmarkResult
from skbsearch.errors import InputError
from skbsearch.eval.evaluate import evaluate
from skbsearch.types import Qrels, Query, Run

RERANKERS = ("bi-encoder", "mlp", "gcn", "grag", "grag-rl", "cross-encoder")
#: IMPLIRET row name -> TREC DL harness row (GNN_ROWS) it reuses.
GNN_ROW = {"mlp": "mlp", "gcn": "gcn", "grag": "gnn", "grag-rl": "gnn-rl"}
FOLD_PROTOCOL = ("query-level {k}-fold cross-validation over the development pools: fold = "
                 "blake2b('{seed}|<pool>/<id>') mod {k}; each fold's model is trained on other-fold "
                 "queries only (positive = the query's own document, negatives = its other BM25 "
                 "candidates) and scores its held-out fold; the held-out runs are united and "
                 "scored; queries whose positive is not in the BM25 top-{top} stay in (score 0)")


@dataclass(frozen=True)
class RerankPipeline:
    """A parsed ``bm25>NAME`` / ``bm25>fusion:A+B`` pipeline."""

    first_stage: str
    reranker: str
    parts: tuple[str, ...] = ()

    @property
    def components(self) -> tuple[str, ...]:
        """The re-rankers to run (a fusion's parts, or the one re-ranker)."""
        return self.parts if self.reranker == "fusion" else (self.reranker,)

    def __str__(self) -> str:
        name = f"fusion:{'+'.join(self.parts)}" if self.reranker == "fusion" else self.reranker
        return f"{self.first_stage}>{name}"


def is_rerank_pipeline(spec: str) -> bool:
    """True for a ``first-stage>re-ranker`` pipeline spec."""
    return ">" in spec


def parse_pipeline(spec: str) -> RerankPipeline:
    """``"bm25>grag-rl"`` or ``"bm25>fusion:grag-rl+bm25"`` -> :class:`RerankPipeline`."""
    first, _, rest = (p.strip() for p in spec.partition(">"))
    hint = (f"write --pipeline 'bm25>NAME' with NAME one of {', '.join(RERANKERS)}, or "
            "'bm25>fusion:A+B' (A, B among those and bm25)")
    if first != "bm25" or not rest:
        raise InputError(f"bad re-ranking pipeline {spec!r}: the first stage must be bm25; {hint}",
                         field="pipeline")
    if rest.startswith("fusion:"):
        parts = tuple(p.strip() for p in rest[len("fusion:"):].split("+") if p.strip())
        bad = [p for p in parts if p not in (*RERANKERS, "bm25")]
        if len(parts) < 2 or bad or len(set(parts)) != len(parts):
            raise InputError(f"bad fusion {rest!r} in --pipeline {spec!r}; {hint}", field="pipeline")
        return RerankPipeline(first, "fusion", parts)
    if rest not in RERANKERS:
        raise InputError(f"unknown re-ranker {rest!r} in --pipeline {spec!r}; {hint}",
                         field="pipeline")
    return RerankPipeline(first, rest)


def fold_of(query_id: str, folds: int, seed: int = 0) -> int:
    """The fold (``0..folds-1``) of a query id: a seeded hash, independent of other queries."""
    h = hashlib.blake2b(f"{seed}|{query_id}".encode(), digest_size=8).digest()
    return int.from_bytes(h, "big") % folds


def assign_folds(query_ids: Sequence[str], folds: int, seed: int = 0) -> list[list[str]]:
    """Partition ``query_ids`` into ``folds`` lists by :func:`fold_of` (none may be empty)."""
    if folds < 2:
        raise InputError("--folds must be at least 2", field="folds")
    out: list[list[str]] = [[] for _ in range(folds)]
    for q in query_ids:
        out[fold_of(q, folds, seed)].append(q)
    if any(not f for f in out):
        raise InputError(f"{len(query_ids)} queries leave a fold empty with --folds {folds}; use "
                         "fewer folds or more queries (--limit-per-pool)", field="folds")
    return out


@dataclass
class RerankData:
    """BM25 candidates of IMPLIRET queries; query and document ids are ``<pool>/<id>``.

    A query's positive is the document with the query's own id. ``queries`` are those to
    score (``limit_per_pool``); ``all_queries`` every query of the pools (training data).
    """

    queries: list[Query]
    all_queries: list[Query]
    run: Run
    qrels: Qrels
    doc_text: dict[str, str]
    pools: list[str]
    missing: list[str]
    bm25_ms: list[float]

    @staticmethod
    def pool_of(query_id: str) -> str:
        """The pool of a qualified id."""
        return query_id.split("/", 1)[0]


def load_rerank_data(data: str | Path, *, limit_per_pool: int | None = None, k: int = 100,
                     progress: ProgressFn = _no_progress) -> RerankData:
    """BM25 top-``k`` (own pool) for every query of the pools in ``data``."""
    pools, missing = discover_pools(data)
    scored: list[Query] = []
    every: list[Query] = []
    run, qrels, texts, lat = Run(name="bm25"), Qrels(), {}, []
    for pool, path in pools.items():
        records = load_pool(path)
        stage = build_pool(pool, records, "bm25", k=k).stage
        queries, _ = pool_queries(records)
        pool_run, ms = rank_queries(stage, queries, progress, f"bm25 {pool}")
        keep = {q.id for q in queries[:limit_per_pool]} if limit_per_pool else None
        for q, t in zip(queries, ms, strict=True):
            qid = f"{pool}/{q.id}"
            qq = Query(qid, q.text, {**q.meta, "pool": pool})
            every.append(qq)
            run[qid] = {f"{pool}/{d}": s for d, s in pool_run.get(q.id, {}).items()}
            qrels[qid] = {qid: 1}
            if keep is None or q.id in keep:
                scored.append(qq)
                lat.append(t)
        texts.update({f"{pool}/{r.id}": r.document for r in records})
    return RerankData(scored, every, run, qrels, texts, list(pools), missing, lat)


def score_by_pool(run: Run, data: RerankData, queries: Sequence[Query],
                  metrics: Sequence[str] = METRICS) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """The IMPLIRET protocol over ``queries``: per pool, then categories and the average."""
    per_pool: dict[str, dict[str, float]] = {}
    for pool in data.pools:
        ids = [q.id for q in queries if data.pool_of(q.id) == pool]
        if ids:
            per_pool[pool] = evaluate(Run({q: run.get(q, {}) for q in ids}),
                                      Qrels({q: data.qrels[q] for q in ids}), list(metrics))
    overall, cats = aggregate(per_pool)
    return overall, {**per_pool, **cats}


def rerank_component(name: str, data: RerankData, fold_ids: list[list[str]], *,
                     options: dict[str, Any], seed: int = 0, cache_dir: str | Path | None = None,
                     progress: ProgressFn = _no_progress) -> tuple[Run, dict[str, Any]]:
    """The held-out run of one re-ranker over ``data.queries`` and what to record of it."""
    from skbsearch.paths import cache_root

    root = Path(cache_dir) if cache_dir is not None else cache_root()
    if name == "bm25":
        return data.run, {}
    if name == "bi-encoder":
        from skbsearch.index.dense import DenseIndex
        from skbsearch.retrieve.dense import DenseRetriever

        ids = sorted({d for q in data.queries for d in data.run.get(q.id, {})})
        index = DenseIndex.build((ids, [data.doc_text[d] for d in ids]), "minilm",
                                 cache=root / "embeddings", progress=progress)
        stage = DenseRetriever(index, k=len(ids), cache=root / "embeddings", name="bi-encoder")
        return stage(data.queries, data.run), {"bi-encoder": "MiniLM cosine, not trained"}
    if name in GNN_ROW:
        return kfold_gnn_rows(name, data, fold_ids, options=options.get("gnn", {}), root=root,
                              progress=progress)
    if name == "cross-encoder":
        return kfold_cross_encoder(data, fold_ids, seed=seed,
                                   options=options.get("cross_encoder", {}), progress=progress)
    raise InputError(f"unknown re-ranker {name!r}; use one of {', '.join(RERANKERS)}",
                     field="pipeline")


def warm_caches(data: RerankData, features: Any, root: Path,
                progress: ProgressFn = _no_progress) -> None:
    """Parse (per text) and, for doc-only features, embed every candidate and question once.

    Fills the caches under ``root`` that the GNN feature builder then reads, with one
    progress bar per stage.
    """
    from skbsearch.semgraph.depparse import DependencyParser

    parser = DependencyParser(features.spacy_model, cache_dir=root / "semgraphs", per_text=True)
    docs = list(dict.fromkeys(data.doc_text[d] for q in data.queries for d in data.run.get(q.id, {})))
    questions = list(dict.fromkeys(q.text for q in data.queries))
    for role, texts in (("question", questions), ("document", docs)):
        label, done = f"parsing {role}s", [0]
        progress(label, 0, len(texts))

        def tick(n: int, label: str = label, total: int = len(texts), done: list = done) -> None:
            done[0] += n
            progress(label, done[0], total)

        parser.parse_texts(texts, role, progress=tick)
        progress(label, len(texts), len(texts))
    if not features.use_paths:
        from skbsearch.encoders import encode_texts, load_encoder

        enc = load_encoder(features.encoder)
        for what, texts in (("documents", docs), ("questions", questions)):
            encode_texts(enc, texts, root / "embeddings", batch_size=32, progress=progress,
                         description=f"encoding {what}")


def kfold_gnn_rows(name: str, data: RerankData, fold_ids: list[list[str]], *,
                   options: dict[str, Any], root: Path,
                   progress: ProgressFn = _no_progress) -> tuple[Run, dict[str, Any]]:
    """A G-RAG row (``mlp``/``gcn``/``grag``/``grag-rl``) cross-validated over ``fold_ids``.

    ``options`` are :meth:`~skbsearch.benchmarks.trecdl_gnn.GNNRowConfig.for_row`
    overrides; semantic graphs are always built per text. Training uses only the
    training folds' queries with their positive among the candidates.
    """
    from skbsearch.benchmarks.trecdl_gnn import GNNRowConfig, kfold_gnn

    row = GNNRowConfig.for_row(GNN_ROW[name], **{**options, "per_text": True})
    warm_caches(data, row.features, root, progress)
    qrels = Qrels({q.id: data.qrels[q.id] for q in data.queries})
    out, info = kfold_gnn(data.queries, data.run, data.doc_text, qrels, row, folds=len(fold_ids),
                          name=name, cache_dir=root, progress=progress, fold_ids=fold_ids,
                          train_needs_positive=True)
    return out, {"gnn_row": GNN_ROW[name], "gnn": asdict(row), "gnn_folds": info,
                 "semantic_graphs": "built-in spaCy parser, per text (question and document "
                                    "parsed once each, pair graphs composed)"}


#: Cross-encoder fold training defaults (sized for 2 shared CPU cores).
CE_DEFAULTS: dict[str, Any] = {"start": "minilm", "max_steps": 80, "epochs": 1, "lr": 1e-4,
                               "batch_size": 16, "max_length": 256, "time_budget_s": None,
                               "threads": None, "score_batch_size": 32}


def kfold_cross_encoder(data: RerankData, fold_ids: list[list[str]], *, seed: int = 0,
                        options: dict[str, Any] | None = None,
                        progress: ProgressFn = _no_progress) -> tuple[Run, dict[str, Any]]:
    """Cross-encoder row: per fold, fine-tune ``start`` (MiniLM, or a trained cross-encoder
    directory) on every other-fold query, score the fold.

    Training examples: (query, own document) against a random other BM25 candidate of
    the query (pointwise BCE + pairwise loss, :func:`skbsearch.train.cross_encoder.
    train_cross_encoder`), within a step budget.
    """
    from skbsearch.rerank.cross_encoder import CrossEncoderModel, CrossEncoderReranker
    from skbsearch.train.cross_encoder import JudgedQuery, TrainConfig, train_cross_encoder

    opts = {**CE_DEFAULTS, **{k: v for k, v in (options or {}).items() if v is not None}}
    config = TrainConfig(epochs=opts["epochs"], max_steps=opts["max_steps"],
                         batch_size=opts["batch_size"], lr=opts["lr"],
                         time_budget_s=opts["time_budget_s"], threads=opts["threads"], seed=seed)
    k = len(fold_ids)
    out, info = Run(name="cross-encoder-cv"), []
    for i, fold in enumerate(fold_ids):
        if any(fold_of(q, k, seed) != i for q in fold):
            raise ValueError("fold_ids must come from assign_folds with the same seed")
        train_q = [JudgedQuery(q.id, q.text, [(data.doc_text[q.id], 1)] + [
            (data.doc_text[d], 0) for d in data.run.get(q.id, {}) if d != q.id], 1, "impliret")
            for q in data.all_queries if fold_of(q.id, k, seed) != i]
        model = CrossEncoderModel.start_from(opts["start"], max_length=opts["max_length"], seed=i)
        label = f"fold {i + 1}/{k} training"

        def tick(step: int, total: int, loss: float, label: str = label) -> None:
            progress(f"{label} (loss {loss:.3f})", step, total)

        t = time.perf_counter()
        result = train_cross_encoder(model, train_q, config, progress=tick)
        train_s = time.perf_counter() - t
        held = set(fold)
        fold_q = [q for q in data.queries if q.id in held]
        score_label = f"fold {i + 1}/{k} scoring"
        depth = max((len(v) for v in data.run.values()), default=1)
        stage = CrossEncoderReranker(model, data.doc_text, top_k=depth,
                                     batch_size=opts["score_batch_size"],
                                     max_length=opts["max_length"],
                                     progress=lambda d, n, lab=score_label: progress(lab, d, n))
        t = time.perf_counter()
        out.update(stage(fold_q, data.run))
        info.append({"fold": i + 1, "held_out": len(fold_q), "train_queries": len(train_q),
                     "steps": result.steps, "stopped_by": result.stopped_by,
                     "final_loss": round(float(np.mean(result.losses[-20:])), 4) if result.losses else None,
                     "train_s": round(train_s, 1), "score_s": round(time.perf_counter() - t, 1)})
    return out, {"cross_encoder": {**opts, "training": "every other-fold query of the pools "
                                   "(positive vs a random other BM25 candidate)"},
                 "cross_encoder_folds": info}


def run_impliret_rerank(data: str | Path, pipeline: str, *, limit_per_pool: int | None = None,
                        folds: int = 2, seed: int = 0, k: int = 100,
                        options: dict[str, Any] | None = None, cache_dir: str | Path | None = None,
                        progress: ProgressFn = _no_progress) -> BenchmarkResult:
    """Run a ``bm25>NAME`` pipeline on the IMPLIRET pools in ``data`` (module docstring).

    Args:
        data: the folder of pool files.
        pipeline: ``bm25>NAME`` (NAME in :data:`RERANKERS`) or ``bm25>fusion:A+B``.
        limit_per_pool: score only the first N queries of each pool.
        folds: number of query-level folds (trained re-rankers).
        seed: seed of the fold hash.
        k: BM25 candidates per query.
        options: ``{"gnn": {...GNNRowConfig.for_row overrides}, "cross_encoder": {...}}``.
        cache_dir: cache root (embeddings/, semgraphs/; default :func:`skbsearch.paths.cache_root`).
    """
    spec = parse_pipeline(pipeline)
    t0 = time.perf_counter()
    rd = load_rerank_data(data, limit_per_pool=limit_per_pool, k=k, progress=progress)
    fold_ids = assign_folds([q.id for q in rd.queries], folds, seed)
    seconds = {"bm25": round(time.perf_counter() - t0, 1)}
    runs: dict[str, Run] = {}
    extra: dict[str, Any] = {}
    for name in spec.components:
        if name == "bm25":  # the first stage's run itself
            runs[name] = rd.run
            continue
        t = time.perf_counter()
        runs[name], info = rerank_component(name, rd, fold_ids, options=dict(options or {}),
                                            seed=seed, cache_dir=cache_dir, progress=progress)
        extra.update(info)
        seconds[name] = round(time.perf_counter() - t, 1)
    if spec.reranker == "fusion":
        from skbsearch.retrieve.hybrid import rrf

        final = rrf([runs[p] for p in spec.parts], name=str(spec))
    else:
        final = runs[spec.reranker]
    metrics, groups = score_by_pool(final, rd, rd.queries)
    first, first_groups = score_by_pool(rd.run, rd, rd.queries)
    recall, recall_groups = score_by_pool(rd.run, rd, rd.queries, [f"recall@{k}"])
    n_pos = sum(1 for q in rd.queries if q.id in rd.run.get(q.id, {}))
    trained = [p for p in spec.components if p in GNN_ROW or p == "cross-encoder"]
    protocol = f"{PROTOCOL}; re-ranking of the BM25 top-{k} of the query's own pool with {spec}"
    if trained:
        protocol += "; " + FOLD_PROTOCOL.format(k=folds, seed=seed, top=k)
    n = max(1, len(rd.queries))
    config: dict[str, Any] = {
        "protocol": protocol, "data": str(Path(data).absolute()), "pipeline": str(spec),
        "first_stage": f"bm25 top-{k} over the query's own pool", "top_k": k,
        "pools": rd.pools, "missing_pools": rd.missing, "limit_per_pool": limit_per_pool,
        "n_documents": len(rd.doc_text), "n_queries": len(rd.queries),
        "folds": folds if trained else None, "fold_seed": seed if trained else None,
        "fold_sizes": [len(f) for f in fold_ids] if trained else None,
        f"bm25_recall@{k}": recall[f"recall@{k}"],
        f"bm25_recall@{k}_per_pool": {p: v[f"recall@{k}"] for p, v in recall_groups.items()},
        f"n_queries_positive_in_top{k}": n_pos,
        "bm25_same_queries": {"overall": first,
                              **{g: v for g, v in first_groups.items() if g in CATEGORIES}},
        "stage_seconds": seconds, "seconds": round(time.perf_counter() - t0, 1),
        **extra,
    }
    if spec.reranker == "fusion":
        config["fusion"] = "rrf (k = 60)"
        config["components"] = {p: score_by_pool(runs[p], rd, rd.queries)[0] for p in spec.parts}
    latency = {"bm25.p50": float(np.percentile(rd.bm25_ms, 50)),
               "bm25.p95": float(np.percentile(rd.bm25_ms, 95))}
    for name in spec.components:
        if name != "bm25":  # amortised: the stage's wall time (training included) per query
            latency[f"{name}.amortised"] = seconds[name] * 1000.0 / n
    return BenchmarkResult("impliret", config, metrics, groups, latency)
