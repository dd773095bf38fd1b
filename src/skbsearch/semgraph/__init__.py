"""Semantic graphs for G-RAG: question–document concept graphs and their paths.

- :class:`ConceptGraph` (``graph``): concept nodes, labelled edges, root ``question``;
- ``penman_input``: AMR in PENMAN notation supplied by the user (files or JSONL);
- ``depparse``: the built-in parser over spaCy's dependency parse;
- ``paths``: shortest paths from ``question`` and the path text aᵢ.

spaCy and penman are imported only when used (extra ``[gnn]``).
"""

from skbsearch.semgraph.concepts import ROOT_CONCEPT, ConceptGraph
from skbsearch.semgraph.depparse import DependencyParser, pair_text
from skbsearch.semgraph.paths import maximal_paths, path_concepts, path_text, shortest_paths
from skbsearch.semgraph.penman_input import (
    load_penman_dir,
    load_penman_file,
    load_penman_jsonl,
    parse_penman,
)

__all__ = [
    "ROOT_CONCEPT",
    "ConceptGraph",
    "DependencyParser",
    "load_penman_dir",
    "load_penman_file",
    "load_penman_jsonl",
    "maximal_paths",
    "pair_text",
    "parse_penman",
    "path_concepts",
    "path_text",
    "shortest_paths",
]
