"""Trainers (cross-encoder, triple re-ranker, GNN rows) and, re-exported for convenience,
the KB-inferred re-ranker labels of :mod:`skbsearch.rerank.labels` (triple- and
document-level).

Importing this package installs the training loops of the trainable stages
(:mod:`skbsearch.train.fitters`: ``gnn-row``, ``cross-encoder-ft``).
"""

from skbsearch.rerank.labels import (
    IncidentEdges,
    LabelledTriple,
    document_level_labels,
    infer_gold_documents,
    label_candidates,
    triple_level_labels,
)
from skbsearch.train import fitters  # noqa: F401 - installs the trainable stages' fit

__all__ = [
    "IncidentEdges",
    "LabelledTriple",
    "document_level_labels",
    "infer_gold_documents",
    "label_candidates",
    "triple_level_labels",
]
