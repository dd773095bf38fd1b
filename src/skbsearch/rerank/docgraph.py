"""The document graph of one query (G-RAG §3.1, edge features §3.2.2, Eq. 6).

Nodes are the n candidate documents of a query. Two documents are joined by an
undirected edge when their question–document concept graphs share concepts; the edge
features are ``[# common nodes, # common edges]``, each dimension normalised by its
largest value in the graph (so features lie in [0, 1] and message weights cannot blow
up). Unlike the paper, isolated documents are kept (they must still be scored): they
have no edges and are updated from their own representation only.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from skbsearch.semgraph.concepts import ROOT_CONCEPT, ConceptGraph

#: Number of edge-feature dimensions (l in the paper).
EDGE_DIM = 2


@dataclass
class DocumentGraph:
    """An undirected graph over a query's candidates, stored as directed edge pairs.

    Attributes:
        num_nodes: number of candidates n.
        edge_index: ``(2, E)`` int64, each undirected edge in both directions.
        edge_attr: ``(E, 2)`` float32 normalised ``[common nodes, common edges]``.
        counts: ``(E, 2)`` int64 raw counts before normalisation.
    """

    num_nodes: int
    edge_index: np.ndarray
    edge_attr: np.ndarray
    counts: np.ndarray

    @property
    def num_edges(self) -> int:
        """Number of undirected edges."""
        return int(self.edge_index.shape[1] // 2)


def _incidence(sets: Sequence[set], vocab: dict) -> sparse.csr_matrix:
    rows, cols = [], []
    for i, items in enumerate(sets):
        for it in items:
            cols.append(vocab.setdefault(it, len(vocab)))
            rows.append(i)
    data = np.ones(len(rows), dtype=np.int64)
    return sparse.csr_matrix((data, (rows, cols)), shape=(len(sets), max(len(vocab), 1)))


def build_document_graph(
    graphs: Sequence[ConceptGraph],
    *,
    ignore_concepts: Iterable[str] = (ROOT_CONCEPT,),
    labelled_edges: bool = True,
    min_common_nodes: int = 1,
) -> DocumentGraph:
    """Build the document graph of one query from its candidates' concept graphs.

    Args:
        graphs: one concept graph per candidate, in candidate order.
        ignore_concepts: concepts not counted as shared (by default the root
            ``question``, which every graph has: counting it would join all documents).
        labelled_edges: two edges are common when source, relation and target concepts
            all match (``False``: source and target concepts suffice).
        min_common_nodes: documents are joined when they share at least this many concepts.

    Returns:
        A :class:`DocumentGraph` with normalised edge features.
    """
    n = len(graphs)
    ignore = set(ignore_concepts)
    node_sets = [g.concepts(ignore) for g in graphs]
    edge_sets = [g.concept_edges(ignore, labelled=labelled_edges) for g in graphs]
    a = _incidence(node_sets, {})
    b = _incidence(edge_sets, {})
    common_nodes = (a @ a.T).toarray()
    common_edges = (b @ b.T).toarray()
    np.fill_diagonal(common_nodes, 0)
    src, dst = np.nonzero(common_nodes >= max(min_common_nodes, 1))
    counts = np.stack([common_nodes[src, dst], common_edges[src, dst]], axis=1).astype(np.int64)
    counts = counts.reshape(-1, EDGE_DIM)
    attr: np.ndarray = counts.astype(np.float32)
    if len(attr):
        top = attr.max(axis=0)
        attr = attr / np.where(top > 0, top, 1.0)
    return DocumentGraph(
        num_nodes=n,
        edge_index=np.stack([src, dst]).astype(np.int64).reshape(2, -1),
        edge_attr=attr.astype(np.float32),
        counts=counts,
    )
