"""Evaluation: metrics over Run + Qrels, reader answer metrics, reports, query-set
statistics and per-stage latency.

    from skbsearch.eval import evaluate
    evaluate(run, qrels, ["ndcg@10", "mrr@10"])  # {"ndcg@10": 0.5058, "mrr@10": ...}
"""

from skbsearch.eval.evaluate import (
    MetricSpec,
    SubsetWarning,
    compare,
    evaluate,
    parse_metric,
    parse_metrics,
)
from skbsearch.eval.experiment import Experiment, ExperimentResult
from skbsearch.eval.latency import LatencyRecorder
from skbsearch.eval.metrics import evaluate_answers
from skbsearch.eval.query_stats import QueryStats, query_file_stats, query_set_stats

__all__ = [
    "Experiment",
    "ExperimentResult",
    "LatencyRecorder",
    "MetricSpec",
    "QueryStats",
    "SubsetWarning",
    "compare",
    "evaluate",
    "evaluate_answers",
    "parse_metric",
    "parse_metrics",
    "query_file_stats",
    "query_set_stats",
]
