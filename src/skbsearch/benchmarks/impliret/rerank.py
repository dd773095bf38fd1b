"""IMPLIRET pipelines as specs: the gazetteer, the first stage per pool, re-ranking after it.

A pipeline spec (``skb run``'s language) runs in two parts (:func:`split_first_stage`):
its **first stage** (the first part of the chain, e.g. ``bm25`` or ``bm25 + dense``)
ranks each query's own pool (one corpus SKB a pool); the **rest** (e.g.
``gnn-row(grag-rl)``) re-ranks those candidates over the corpus of every pool (document
ids ``<pool>/<id>``), cross-validated by query when it trains (:mod:`skbsearch.eval.cv`,
folds drawn from every query of the pools; training sees only other-fold queries, the
positive being the query's own document and, for the cross-encoder, its other BM25
candidates the negatives).

The ``enrich`` stages of a spec that name no gazetteer get the benchmark's
(:func:`with_gazetteer`: the landmarks of the world-knowledge pools).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skbsearch.benchmarks.common import warm
from skbsearch.benchmarks.impliret.pools import rank_queries
from skbsearch.core.errors import InputError
from skbsearch.core.operators import Cutoff, Pipeline
from skbsearch.core.progress import ProgressFn, no_progress
from skbsearch.core.types import Qrels, Query, Run
from skbsearch.datasets.impliret import ImpliretRecord, discover_pools, load_pool
from skbsearch.eval.cv import trainable_stages
from skbsearch.kb.corpus import corpus_skb
from skbsearch.retrieve.constrained import ConstrainedRetriever
from skbsearch.stages import pipeline as make_pipeline
from skbsearch.stages.corpus import CorpusContext


def with_gazetteer(spec: str, gazetteer: str | Path | None) -> str:
    """``spec`` with ``gazetteer`` given to each ``enrich`` stage that names none."""
    pipe = make_pipeline(spec)
    if gazetteer is not None:
        _fill_gazetteer(pipe, str(gazetteer))
    return repr(pipe)


def _fill_gazetteer(part: Any, gazetteer: str) -> None:
    for child in [*getattr(part, "stages", ()), *getattr(part, "children", ())]:
        _fill_gazetteer(child, gazetteer)
    if isinstance(part, ConstrainedRetriever) and part.params.gazetteer is None:
        part.params = part.make_params(**{**part.non_default_params(), "gazetteer": gazetteer})


def split_first_stage(pipe: Any) -> tuple[str, Pipeline | None]:
    """``(spec of the first stage, the rest or None)`` of a parsed pipeline."""
    parts = list(pipe.stages) if isinstance(pipe, Pipeline) else [pipe]
    if isinstance(parts[0], Cutoff):
        raise InputError("a pipeline cannot start with a cut-off", field="pipeline")
    rest = parts[1:]
    return repr(parts[0]), (Pipeline(*rest) if rest else None)


def pool_corpus(pool: str, records: Sequence[ImpliretRecord]) -> Any:
    """A pool's documents as a corpus SKB (ids ``<pool>/<id>``, in file order)."""
    return corpus_skb([f"{pool}/{r.id}" for r in records], [r.document for r in records],
                      node_type="document", name=f"impliret-{pool}")


def first_stage_runs(spec: str, pools: dict[str, list[ImpliretRecord]],
                     queries: dict[str, list[Query]], *, embeddings: str | Path | None = None,
                     progress: ProgressFn = no_progress
                     ) -> tuple[Run, dict[str, list[float]], dict[str, float]]:
    """The first stage over each query's own pool, one query at a time.

    Returns the run, the per-query milliseconds per pool (in query order) and the seconds
    spent building each pool's stage (indexes, enrichment).
    """
    run, ms, build = Run(name=spec), {}, {}
    for pool, records in pools.items():
        t = time.perf_counter()
        progress(f"indexing {pool}", 0, 1)
        stage = make_pipeline(spec, CorpusContext(pool_corpus(pool, records),
                                                   embeddings=embeddings))
        warm(stage)
        build[pool] = round(time.perf_counter() - t, 3)
        progress(f"indexing {pool}", 1, 1)
        pool_run, ms[pool] = rank_queries(stage, queries[pool], progress, f"ranking {pool}")
        run.update(pool_run)
    return run, ms, build


def union_context(pools: dict[str, list[ImpliretRecord]], *,
                  embeddings: str | Path | None = None,
                  progress: ProgressFn | None = None) -> CorpusContext:
    """The context of every pool's documents together (where re-rankers run)."""
    ids = [f"{p}/{r.id}" for p, recs in pools.items() for r in recs]
    texts = [r.document for recs in pools.values() for r in recs]
    name = "impliret-" + "-".join(sorted(p.replace("_", "") for p in pools))
    return CorpusContext(corpus_skb(ids, texts, node_type="document", name=name[:80]),
                         embeddings=embeddings, progress=progress)


@dataclass
class RerankData:
    """Every query of the pools (ids ``<pool>/<id>``) with its first-stage candidates,
    its qrels (its own document) and the documents' texts (training data for re-rankers)."""

    all_queries: list[Query]
    run: Run
    qrels: Qrels
    doc_text: dict[str, str]
    pools: list[str]


def load_rerank_data(data: str | Path, spec: str = "bm25",
                     progress: ProgressFn = no_progress) -> RerankData:
    """The first stage ``spec`` over every query of the pools in ``data`` (own pool each)."""
    present, _ = discover_pools(data)
    pools = {p: load_pool(path) for p, path in present.items()}
    queries, qrels, texts = {}, Qrels(), {}
    for pool, records in pools.items():
        queries[pool] = [Query(f"{pool}/{r.id}", r.question, {"pool": pool}) for r in records]
        qrels.update({f"{pool}/{r.id}": {f"{pool}/{r.id}": 1} for r in records})
        texts.update({f"{pool}/{r.id}": r.document for r in records})
    run, _, _ = first_stage_runs(spec, pools, queries, progress=progress)
    return RerankData([q for qs in queries.values() for q in qs], run, qrels, texts, list(pools))


def needs_training(rest: Pipeline | None) -> bool:
    """Whether the re-ranking part has trainable stages."""
    return rest is not None and bool(trainable_stages(rest))
