"""Readers for users' dataset files: queries (JSONL, CSV, TSV, TREC topics, plain text) and
qrels (TREC, JSON, answer columns). No models; layer L1.

    from skbsearch.datasets import read_queries, read_qrels
    queries = read_queries("stark_qa.csv")          # id,query,answer_ids
    qrels = read_qrels("stark_qa.csv")              # answer_ids -> grade 1
"""

from skbsearch.datasets.qrels import qrels_format, read_qrels
from skbsearch.datasets.queries import (
    detect_format,
    read_qrels_from_answers,
    read_queries,
    read_queries_and_answers,
)

__all__ = [
    "detect_format",
    "qrels_format",
    "read_qrels",
    "read_qrels_from_answers",
    "read_queries",
    "read_queries_and_answers",
]
