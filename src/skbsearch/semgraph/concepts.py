"""``ConceptGraph``: the semantic graph of one question–document pair (G-RAG §3.1).

Nodes are concepts (an AMR instance, or a lemma / named entity from the built-in parser),
edges are labelled ``(source, relation, target)``; ``root`` is the node of the concept
``question`` that the shortest paths of §3.2.1 start from.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

#: The concept every question–document graph is rooted at.
ROOT_CONCEPT = "question"


@dataclass
class ConceptGraph:
    """Concept nodes (``id -> concept label``), labelled edges and the ``question`` root.

    Node ids are unique within a graph (AMR variables, or the concept itself for the
    built-in parser); labels are what graphs are compared by across documents.
    """

    nodes: dict[str, str] = field(default_factory=dict)
    edges: list[tuple[str, str, str]] = field(default_factory=list)
    root: str | None = None
    _edge_keys: set[tuple[str, str, str]] = field(
        default_factory=set, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        self._edge_keys = set(self.edges)

    def add_node(self, node_id: str, concept: str | None = None) -> str:
        """Add a node (label defaults to its id); an existing node keeps its label."""
        self.nodes.setdefault(node_id, concept if concept is not None else node_id)
        return node_id

    def add_edge(self, source: str, relation: str, target: str) -> None:
        """Add a labelled edge between two existing nodes (duplicates are ignored)."""
        for end in (source, target):
            if end not in self.nodes:
                raise KeyError(f"edge endpoint {end!r} is not a node of the graph")
        edge = (source, relation, target)
        if edge not in self._edge_keys:
            self._edge_keys.add(edge)
            self.edges.append(edge)

    def concept(self, node_id: str) -> str:
        """The concept label of a node."""
        return self.nodes[node_id]

    def concepts(self, ignore: Iterable[str] = ()) -> set[str]:
        """The set of concept labels, without those in ``ignore``."""
        skip = set(ignore)
        return {c for c in self.nodes.values() if c not in skip}

    def concept_edges(
        self, ignore: Iterable[str] = (), labelled: bool = True
    ) -> set[tuple[str, ...]]:
        """Edges as concept triples ``(src, rel, dst)`` (or pairs if not ``labelled``).

        Edges touching a concept in ``ignore`` are left out.
        """
        skip = set(ignore)
        out: set[tuple[str, ...]] = set()
        for s, r, d in self.edges:
            cs, cd = self.nodes[s], self.nodes[d]
            if cs in skip or cd in skip:
                continue
            out.add((cs, r, cd) if labelled else (cs, cd))
        return out

    def adjacency(self, directed: bool = False) -> dict[str, list[str]]:
        """Neighbour lists in edge order (both directions unless ``directed``)."""
        adj: dict[str, list[str]] = {n: [] for n in self.nodes}
        seen: set[tuple[str, str]] = set()
        for s, _, d in self.edges:
            pairs = [(s, d)] if directed else [(s, d), (d, s)]
            for a, b in pairs:
                if a != b and (a, b) not in seen:
                    seen.add((a, b))
                    adj[a].append(b)
        return adj

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (used by the parse cache)."""
        return {"nodes": self.nodes, "edges": [list(e) for e in self.edges], "root": self.root}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ConceptGraph:
        """Inverse of :meth:`to_dict`."""
        return cls(
            nodes={str(k): str(v) for k, v in data["nodes"].items()},
            edges=[(str(s), str(r), str(d)) for s, r, d in data["edges"]],
            root=data.get("root"),
        )

    def __len__(self) -> int:
        return len(self.nodes)

    def __repr__(self) -> str:
        return f"ConceptGraph(nodes={len(self.nodes)}, edges={len(self.edges)}, root={self.root!r})"
