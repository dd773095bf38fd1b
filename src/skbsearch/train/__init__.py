"""Trainers (cross-encoder, triple re-ranker, GNN rows) and, re-exported for convenience,
the KB-inferred re-ranker labels of :mod:`skbsearch.rerank.labels` (triple- and
document-level).

The training loops of the trainable stages (``gnn-row``, ``cross-encoder-ft``) are in
:mod:`skbsearch.train.fitters`; the stages load them on their first ``fit``.
"""

from skbsearch.rerank.labels import (
    IncidentEdges,
    LabelledTriple,
    document_level_labels,
    infer_gold_documents,
    label_candidates,
    triple_level_labels,
)

__all__ = [
    "IncidentEdges",
    "LabelledTriple",
    "document_level_labels",
    "infer_gold_documents",
    "label_candidates",
    "triple_level_labels",
]
