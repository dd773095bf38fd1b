"""IMPLIRET (Taghavi et al., 2025): adapter, the official retrieval protocol, re-ranking rows
and readers.

Folder layout: ``DIR/{arithmetic,temporal,wknow}_{multispeaker,unispeaker}.jsonl``, one
record a line (``id``, ``tuple_set_id``, ``document``, ``question``, ``answer`` and
``forum_question`` or ``main_speaker``). Missing pools are skipped with a note.

Protocol (:func:`run_impliret`): every query ranks ALL documents of its own pool (category
x style); its only positive is the document on the same line. nDCG@10, MRR@10 and
Recall@10 per pool, averaged over the two styles per category, then over the categories
(the paper's "Average" column). Indexes are built from the ``document`` fields only; a
query's text is read when it is ranked, one query at a time; ``answer`` is never read
here (readers: :mod:`.read`).

Pipelines are specs in the language of ``skb run`` (each pool is a corpus SKB; the
spec's first stage ranks the query's own pool, later stages re-rank its candidates,
cross-validated by query when they train), e.g. ``bm25`` (raw text), ``dense`` (MiniLM),
``rrf(bm25, dense)``, ``enrich(mode='text')`` (BM25 on enriched text), ``enrich``
(enriched text + constraint scores over the documents' facts; the default; ``enrich``
stages get the landmark gazetteer), ``bm25 >> gnn-row(grag-rl)``.

Modules: :mod:`skbsearch.datasets.impliret` (the pool reader), :mod:`.pools` (indexing
pools for the readers, the protocol's means), :mod:`.run` (the protocol), :mod:`.rerank`
(the gazetteer, first stage per pool, the union corpus), :mod:`.read` (reader evaluation),
:mod:`.misses` (why `enrich` misses: one cause per missed query).
"""

from skbsearch.benchmarks.impliret.pools import (
    CATEGORIES,
    DEFAULT_PIPELINE,
    METRICS,
    POOLS,
    PROTOCOL,
    STYLES,
    ImpliretRecord,
    ProgressFn,
    aggregate,
    default_gazetteer,
    discover_pools,
    enrich_pool,
    load_gazetteer,
    load_pool,
    make_enrichers,
    pool_queries,
    rank_queries,
)
from skbsearch.benchmarks.impliret.read import run_impliret_reader
from skbsearch.benchmarks.impliret.rerank import with_gazetteer
from skbsearch.benchmarks.impliret.run import run_impliret, score_by_pool, table_rows

__all__ = [
    "CATEGORIES",
    "DEFAULT_PIPELINE",
    "METRICS",
    "POOLS",
    "PROTOCOL",
    "STYLES",
    "ImpliretRecord",
    "ProgressFn",
    "aggregate",
    "default_gazetteer",
    "discover_pools",
    "enrich_pool",
    "load_gazetteer",
    "load_pool",
    "make_enrichers",
    "pool_queries",
    "rank_queries",
    "run_impliret",
    "with_gazetteer",
    "run_impliret_reader",
    "score_by_pool",
    "table_rows",
]
