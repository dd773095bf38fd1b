"""The graph stage's lookups that are saved beside an SKB's indexes, built with its index.

The ``graph`` stage links query words to nodes through two lookups of every node's name:
the name index (BM25 over names, ``SKB_DIR/indexes/names``) and the linker's name tables
(exact and normalised names, ``SKB_DIR/indexes/linker``). Either is built on first use
when missing or stale (seconds on a large SKB); ``skb index`` builds both with the BM25
index (:func:`build_graph_tables`), so the first graph query of a freshly indexed SKB costs
what the others cost.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from skbsearch.index.names import NAMES_DIR, load_or_build_name_index
from skbsearch.retrieve.graph.name_table import LINKER_DIR, load_or_build_name_tables

if TYPE_CHECKING:
    from skbsearch.kb.store import SKB


def missing_graph_tables(skb: SKB) -> list[Path]:
    """The saved lookups of :func:`build_graph_tables` that ``skb``'s directory lacks."""
    if skb.path is None:
        return []
    root = Path(skb.path) / "indexes"
    return [d for d in (root / NAMES_DIR, root / LINKER_DIR) if not (d / "manifest.json").is_file()]


def build_graph_tables(skb: SKB, notify: Callable[[str], None] | None = None) -> list[Path]:
    """Build (or check) the graph stage's saved name lookups of ``skb`` (its name index and
    linker tables, under ``SKB_DIR/indexes``); the directories that hold them. Nothing for
    an SKB that was never saved or has no edges (no graph stage to serve)."""
    if skb.path is None or not skb.num_edges:
        return []
    load_or_build_name_index(skb, notify=notify)
    load_or_build_name_tables(skb, notify=notify)
    root = Path(skb.path) / "indexes"
    return [root / NAMES_DIR, root / LINKER_DIR]
