"""The node-name index of graph-aware retrieval, persisted beside the SKB's other indexes.

Graph-aware stages link query mentions to nodes with BM25 over node *names*. Building that
index costs seconds on a large SKB (about 5 s for 1M nodes), so a fresh process would pay
it on its first query; :func:`load_or_build_name_index` keeps it in
``SKB_DIR/indexes/names`` (a regular BM25 index directory, written atomically, checked
against the SKB's content hash like every index) and builds it only when it is missing or
stale. An SKB that was never saved, or a directory that cannot be written, gets the index
in memory (with a note).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from skbsearch.core.errors import SkbError
from skbsearch.index import open_index
from skbsearch.index.sparse import BM25Index

if TYPE_CHECKING:
    from skbsearch.kb.store import SKB

#: Directory name under ``SKB_DIR/indexes/``.
NAMES_DIR = "names"


def build_name_index(skb: SKB) -> BM25Index:
    """BM25 (English stopwords and stemming) over every node's name, ids = node ids."""
    source = {"kind": "skb", "path": str(Path(skb.path).absolute()) if skb.path else None,
              "num_nodes": int(skb.num_nodes), "skb_hash": (skb.meta or {}).get("content_hash"),
              "fields": ["name"], "add_rel": False, "role": "names", "node_order": True}
    names = [nm or "" for nm in skb.column("name")]
    return BM25Index.build(names, list(skb.ids), stopwords="en", source=source)


def load_or_build_name_index(skb: SKB, directory: Path | None = None,
                             notify: Callable[[str], None] | None = None) -> BM25Index:
    """The name index of ``skb``: loaded from ``directory`` (default ``SKB_DIR/indexes/names``)
    when it is there and matches the SKB, else built and saved there."""
    if directory is None and skb.path is not None:
        directory = Path(skb.path) / "indexes" / NAMES_DIR
    if directory is not None and (directory / "manifest.json").is_file():
        try:
            # caught up when behind, checked, node ids shared, its one-query kernel loaded now
            opened = open_index(directory, skb, kind="bm25")
            if isinstance(opened, BM25Index):
                return opened
        except SkbError as e:
            if notify is not None:
                notify(f"note: rebuilding the name index at {directory} ({e})")
    if notify is not None and directory is not None and not (directory / "manifest.json").is_file():
        notify(f"note: building the graph stage's name index and tables under {directory.parent} "
               f"once ('skb index {skb.path} --kind bm25' builds them with the index)")
    index = build_name_index(skb)
    if directory is not None:
        try:
            index.save(directory, overwrite=True)
        except (OSError, SkbError) as e:
            if notify is not None:
                notify(f"note: could not save the name index to {directory} ({e}); "
                       "it is rebuilt in every process")
    return index
