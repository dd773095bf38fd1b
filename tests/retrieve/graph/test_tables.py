"""The graph stage's saved name lookups (``retrieve.graph.tables``): which of them a saved SKB
lacks, and building them (the name index and the linker's tables under ``SKB_DIR/indexes``)
once, with a note; nothing for an SKB never saved or without edges. (``skb index`` building
them with the BM25 index: tests/retrieve/graph/test_first_query.py.)"""

from __future__ import annotations

from pathlib import Path

from kg_fixtures import shop

from skbsearch.kb.store import SKB
from skbsearch.retrieve.graph.tables import build_graph_tables, missing_graph_tables


def test_missing_tables_are_built_once(tmp_path: Path) -> None:
    shop().save(tmp_path / "kb")
    skb = SKB.load(tmp_path / "kb")
    root = tmp_path / "kb" / "indexes"
    assert missing_graph_tables(skb) == [root / "names", root / "linker"]
    notes: list[str] = []
    assert build_graph_tables(skb, notify=notes.append) == [root / "names", root / "linker"]
    assert notes and all((d / "manifest.json").is_file() for d in (root / "names", root / "linker"))
    assert missing_graph_tables(skb) == []
    again: list[str] = []
    assert build_graph_tables(SKB.load(tmp_path / "kb"), notify=again.append) == [root / "names", root / "linker"]
    assert again == []  # found on disk: nothing built


def test_nothing_for_an_skb_in_memory_or_without_edges(tmp_path: Path) -> None:
    assert missing_graph_tables(shop()) == [] and build_graph_tables(shop()) == []
    SKB.from_columns(["a", "b"], ["t", "t"], ["A", "B"]).save(tmp_path / "bare")
    bare = SKB.load(tmp_path / "bare")
    assert build_graph_tables(bare) == [] and not (tmp_path / "bare" / "indexes").exists()
