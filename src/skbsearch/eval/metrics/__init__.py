"""Ranking and answer metrics: one module per family, each an array kernel plus a typed
public function returning ``{query_id: value}`` (ranx's layout).

Every ranking metric takes ``run`` (``{qid: {docid: score}}``) and ``qrels``
(``{qid: {docid: grade}}``): every qrels query is scored (one missing from the run scores 0),
run queries without qrels are ignored. Their docstrings name only their own arguments.

Ranking conventions (trec_eval's) are in :mod:`skbsearch.eval.metrics.ranking`.
"""

from skbsearch.eval.metrics.hits import hit_at_k
from skbsearch.eval.metrics.map import average_precision
from skbsearch.eval.metrics.ndcg import ndcg_at_k
from skbsearch.eval.metrics.precision import precision_at_k
from skbsearch.eval.metrics.ranking import RankedJudgements, ranked_doc_ids
from skbsearch.eval.metrics.recall import recall_at_k
from skbsearch.eval.metrics.rr import reciprocal_rank
from skbsearch.eval.metrics.text import (
    contains_answer,
    evaluate_answers,
    exact_match,
    normalize_answer,
    rouge1_recall,
)
from skbsearch.eval.metrics.tied import mhits_at_k, mrr_all, mtrr, tmhits_at_k

__all__ = [
    "RankedJudgements",
    "average_precision",
    "contains_answer",
    "evaluate_answers",
    "exact_match",
    "hit_at_k",
    "mhits_at_k",
    "mrr_all",
    "mtrr",
    "ndcg_at_k",
    "normalize_answer",
    "precision_at_k",
    "ranked_doc_ids",
    "recall_at_k",
    "reciprocal_rank",
    "rouge1_recall",
    "tmhits_at_k",
]
