"""Training data and trainers: labels for re-rankers (triple- and document-level)."""

from skbsearch.train.labels import (
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
