"""Shortest paths from the ``question`` node and the path text aᵢ (G-RAG §3.2.1).

1. Path identification: single-source shortest paths from the root ``question``, keeping
   only paths that are not a subset of another path.
2. Node concept extraction: the concepts along the kept paths, in path order, each once,
   form the document's path text aᵢ (e.g. ``"question cross world-region crucifix …"``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from skbsearch.semgraph.concepts import ConceptGraph


def shortest_paths(
    graph: ConceptGraph, source: str | None = None, *, directed: bool = False
) -> list[list[str]]:
    """One shortest path (node ids) from ``source`` to every other reachable node.

    Breadth-first search over the graph (undirected unless ``directed``); ties are broken
    by edge order, so the result is deterministic. ``source`` defaults to the graph's
    root; a graph without a root (or a source not in the graph) has no paths.
    """
    source = graph.root if source is None else source
    if source is None or source not in graph.nodes:
        return []
    adj = graph.adjacency(directed=directed)
    parent: dict[str, str | None] = {source: None}
    order: list[str] = []
    queue = deque([source])
    while queue:
        node = queue.popleft()
        for nb in adj[node]:
            if nb not in parent:
                parent[nb] = node
                order.append(nb)
                queue.append(nb)
    paths = []
    for target in order:
        path = [target]
        while (p := parent[path[-1]]) is not None:
            path.append(p)
        paths.append(path[::-1])
    return paths


def maximal_paths(paths: Sequence[Sequence[str]]) -> list[list[str]]:
    """Keep the paths whose node set is not a subset of another kept path's node set.

    Of paths with equal node sets only the first is kept. Order of the input is kept.
    """
    sets = [frozenset(p) for p in paths]
    by_len = sorted(range(len(paths)), key=lambda i: (-len(sets[i]), i))
    kept: list[int] = []
    for i in by_len:
        if not any(sets[i] <= sets[j] for j in kept):
            kept.append(i)
    return [list(paths[i]) for i in sorted(kept)]


def path_concepts(graph: ConceptGraph, paths: Sequence[Sequence[str]]) -> list[str]:
    """The concepts along ``paths``, in order of first appearance, each once."""
    seen: dict[str, None] = {}
    for path in paths:
        for node in path:
            seen.setdefault(graph.nodes[node], None)
    return list(seen)


def path_text(
    graph: ConceptGraph, *, directed: bool = False, max_concepts: int | None = None
) -> str:
    """The path text aᵢ of a graph: concepts on its maximal shortest paths from the root.

    Args:
        graph: the question–document concept graph.
        directed: follow edges only in their direction (AMR edges point from predicates
            to arguments; the default treats the graph as undirected).
        max_concepts: cut the text after this many concepts (``None``: no limit).

    Returns:
        Space-separated concepts; ``""`` when the root is missing or isolated.
    """
    paths = maximal_paths(shortest_paths(graph, directed=directed))
    concepts = path_concepts(graph, paths)
    if max_concepts is not None:
        concepts = concepts[:max_concepts]
    return " ".join(concepts)
