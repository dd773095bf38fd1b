"""The persisted node-name index of the graph stage."""

from __future__ import annotations

from pathlib import Path

import pytest

from skbsearch.index import names as names_mod
from skbsearch.index.names import load_or_build_name_index
from skbsearch.kb.store import SKB
from skbsearch.stages import StageContext, pipeline
from skbsearch.synth.catalogue import generate_catalogue


@pytest.fixture()
def saved(tmp_path: Path):
    ds = generate_catalogue(300, n_queries=10, seed=4)
    ds.skb.save(tmp_path / "kb")
    return SKB.load(tmp_path / "kb"), ds.queries


def test_graph_stage_persists_and_reuses_the_name_index(saved, monkeypatch: pytest.MonkeyPatch) -> None:
    kb, queries = saved
    where = Path(kb.path) / "indexes" / "names"
    assert not where.exists()
    p = pipeline("graph(target=[product]) % 10", StageContext(kb, notify=lambda _: None))
    first = p.run(queries)
    assert (where / "manifest.json").is_file()
    calls = []
    real = names_mod.build_name_index
    monkeypatch.setattr(names_mod, "build_name_index", lambda skb: calls.append(1) or real(skb))
    again = pipeline("graph(target=[product]) % 10", StageContext(SKB.load(kb.path),
                                                                  notify=lambda _: None)).run(queries)
    assert calls == []  # loaded, not rebuilt
    assert again == first


def test_stale_name_index_is_rebuilt(saved, tmp_path: Path) -> None:
    kb, _ = saved
    other = generate_catalogue(50, n_queries=2, seed=9).skb
    other.save(tmp_path / "other")
    other = SKB.load(tmp_path / "other")
    where = tmp_path / "names"
    load_or_build_name_index(other, where)  # an index of another SKB sits there
    notes: list[str] = []
    index = load_or_build_name_index(kb, where, notify=notes.append)
    assert index.num_docs == kb.num_nodes and notes and "rebuilding" in notes[0]
    assert index.source["skb_hash"] == kb.meta["content_hash"]
