"""Re-ranker labels inferred from the KB (Sun et al., 2024, sec. 3.2.2).

- **Triple-level** (the paper's strategy): a triple is positive when it contains a gold
  answer *and* a topic entity; if no candidate triple of the question does, fall back to
  triples that contain a gold answer.
- **Document-level** (the ablation): every triple of a document that contains a gold
  answer is positive.
- **Gold documents**: traverse the one-hop subgraphs of the topic and answer entities;
  a document holding a triple that involves both is gold. Gold and retrieved documents
  together give the positive and negative training triples.

Triples are SKB edge indices; documents are :class:`skbsearch.verbalise.EntityDocument`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from skbsearch.kb.store import SKB
from skbsearch.verbalise import EntityDocument


def _as_set(nodes: Iterable[int]) -> np.ndarray:
    return np.unique(np.asarray(list(nodes), dtype=np.int64))


class IncidentEdges:
    """For every node, the indices of the edges it is an endpoint of (CSR, both directions)."""

    def __init__(self, skb: SKB) -> None:
        self.skb = skb
        ends = np.concatenate([skb.edge_src, skb.edge_dst]).astype(np.int64)
        edge = np.concatenate([np.arange(skb.num_edges)] * 2)
        order = np.argsort(ends, kind="stable")
        self.edges = edge[order]
        self.indptr = np.zeros(skb.num_nodes + 1, np.int64)
        np.cumsum(np.bincount(ends, minlength=skb.num_nodes), out=self.indptr[1:])

    def of(self, nodes: Iterable[int]) -> np.ndarray:
        """Sorted unique edges touching any of ``nodes`` (their one-hop subgraph)."""
        parts = [self.edges[self.indptr[n] : self.indptr[n + 1]] for n in _as_set(nodes)]
        return np.unique(np.concatenate(parts)) if parts else np.zeros(0, np.int64)


def _touches(skb: SKB, edges: np.ndarray, nodes: np.ndarray) -> np.ndarray:
    return np.isin(skb.edge_src[edges], nodes) | np.isin(skb.edge_dst[edges], nodes)


def _links(skb: SKB, edges: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    s, t = skb.edge_src[edges], skb.edge_dst[edges]
    return (np.isin(s, a) & np.isin(t, b)) | (np.isin(s, b) & np.isin(t, a))


def triple_level_labels(
    skb: SKB, edges: Sequence[int] | np.ndarray, topics: Iterable[int], answers: Iterable[int]
) -> np.ndarray:
    """1/0 per candidate triple: answer + topic entity; fallback: answer alone.

    Args:
        skb: the knowledge base the edge indices refer to.
        edges: the question's candidate triples (edge indices).
        topics: node indices of the topic entities (may be empty).
        answers: node indices of the gold answers.
    """
    edges = np.asarray(edges, dtype=np.int64)
    a, t = _as_set(answers), _as_set(topics)
    strict = _links(skb, edges, a, t) if len(t) else np.zeros(len(edges), bool)
    labels = strict if strict.any() else _touches(skb, edges, a)
    return labels.astype(np.int8)


def document_level_labels(
    skb: SKB, documents: Sequence[EntityDocument], answers: Iterable[int]
) -> list[np.ndarray]:
    """Per document, 1/0 for each of its triples: all 1 when any triple contains an answer."""
    a = _as_set(answers)
    out = []
    for d in documents:
        e = np.asarray(d.edges, dtype=np.int64)
        pos = bool(_touches(skb, e, a).any()) if len(e) else False
        out.append(np.full(len(e), int(pos), dtype=np.int8))
    return out


def infer_gold_documents(
    skb: SKB,
    doc_of_edge: np.ndarray,
    topics: Iterable[int],
    answers: Iterable[int],
    incident: IncidentEdges | None = None,
) -> np.ndarray:
    """Positions of gold documents: those holding a triple that joins a topic and an answer.

    Args:
        skb: the knowledge base.
        doc_of_edge: document position of every edge
            (:func:`skbsearch.verbalise.document_of_edge`).
        topics, answers: node indices.
        incident: a prebuilt :class:`IncidentEdges` (built on the fly when omitted).
    """
    incident = incident or IncidentEdges(skb)
    t, a = _as_set(topics), _as_set(answers)
    if not len(t) or not len(a):
        return np.zeros(0, np.int64)
    shared = np.intersect1d(incident.of(t), incident.of(a), assume_unique=True)
    shared = shared[_links(skb, shared, t, a)]
    docs = doc_of_edge[shared]
    return np.unique(docs[docs >= 0])


@dataclass(frozen=True)
class LabelledTriple:
    """One re-ranker example: a triple, its document and position there, and its label."""

    document: int
    position: int
    edge: int
    label: int


def label_candidates(
    skb: SKB,
    documents: Sequence[EntityDocument],
    retrieved: Sequence[int],
    topics: Iterable[int],
    answers: Iterable[int],
    *,
    strategy: str = "triple",
    doc_of_edge: np.ndarray | None = None,
    incident: IncidentEdges | None = None,
    include_gold: bool = True,
) -> list[LabelledTriple]:
    """Training triples of one question from its gold and retrieved documents.

    Args:
        documents: all entity-centric documents (positions index into this).
        retrieved: positions of the retrieved documents, best first.
        strategy: ``"triple"`` (paper) or ``"document"`` (ablation).
        include_gold: add the inferred gold documents (needs ``doc_of_edge``).
    """
    if strategy not in ("triple", "document"):
        raise ValueError("strategy must be 'triple' or 'document'")
    topics, answers = _as_set(topics), _as_set(answers)
    chosen = list(dict.fromkeys(int(d) for d in retrieved))
    if include_gold:
        if doc_of_edge is None:
            raise ValueError("include_gold needs doc_of_edge")
        gold = infer_gold_documents(skb, doc_of_edge, topics, answers, incident)
        chosen += [int(d) for d in gold if int(d) not in set(chosen)]
    docs = [documents[d] for d in chosen]
    if strategy == "document":
        per_doc = document_level_labels(skb, docs, answers)
    else:
        flat = np.array([e for d in docs for e in d.edges], dtype=np.int64)
        labels = triple_level_labels(skb, flat, topics, answers)
        bounds = np.cumsum([0] + [len(d.edges) for d in docs])
        per_doc = [labels[bounds[i] : bounds[i + 1]] for i in range(len(docs))]
    return [
        LabelledTriple(pos, j, int(e), int(lab))
        for pos, d, labs in zip(chosen, docs, per_doc, strict=True)
        for j, (e, lab) in enumerate(zip(d.edges, labs, strict=True))
    ]
