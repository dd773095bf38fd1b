"""An index kind's life cycle is one registration, and one function opens an index."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import skbsearch
from skbsearch.core.errors import ArtefactError, InputError
from skbsearch.index import available_kinds, get_kind, open_index
from skbsearch.index.base import IndexMismatch
from skbsearch.index.sparse import BM25Index
from skbsearch.kb.store import SKB
from skbsearch.stages import available_stages
from skbsearch.synth.catalogue import generate_catalogue

SRC = Path(skbsearch.__file__).parent


def test_check_index_matches_is_called_from_the_opener_alone() -> None:
    callers = sorted(str(p.relative_to(SRC)) for p in SRC.rglob("*.py")
                     if re.search(r"(?<!def )check_index_matches\(", p.read_text(encoding="utf-8")))
    assert callers == ["index/__init__.py"]


def test_every_kind_registers_its_whole_life_cycle() -> None:
    assert available_kinds() == ["bm25", "dense", "multivector"]
    for name in available_kinds():
        kind = get_kind(name)
        assert kind.stage_name in available_stages()
        assert kind.follows_updates  # every kind catches up today
        kind.check_engine("local")
    assert [k for k in available_kinds() if get_kind(k).ray_builder] == ["bm25", "dense"]
    with pytest.raises(InputError, match="bm25 and dense indexes, not multivector"):
        get_kind("multivector").check_engine("ray")
    with pytest.raises(InputError, match="unknown engine"):
        get_kind("bm25").build(None, engine="spark")


def test_stale_reasons_come_from_the_kinds(tmp_path: Path) -> None:
    assert get_kind("dense").stale_reason({"add_rel": True}, tmp_path).startswith("dense indexes with related")
    assert get_kind("dense").stale_reason({}, tmp_path) is None
    assert "engine ray" in get_kind("bm25").stale_reason({"engine": "ray"}, tmp_path)
    assert "predates live updates" in get_kind("bm25").stale_reason({}, tmp_path)


def test_open_index_recovers_loads_checks_and_shares_ids(tmp_path: Path) -> None:
    ds = generate_catalogue(60, n_queries=1, seed=4)
    ds.skb.save(tmp_path / "kb")
    kb = SKB.load(tmp_path / "kb")
    get_kind("bm25").build(kb).save(tmp_path / "ix")
    index = open_index(tmp_path / "ix", kb)
    assert isinstance(index, BM25Index) and index.doc_ids is kb.ids  # one id list
    # a killed writer's swap (the directory moved aside, never replaced) is restored first
    (tmp_path / "ix").rename(tmp_path / ".ix.old-999999999")
    assert open_index(tmp_path / "ix", kb).num_docs == kb.num_nodes
    other = generate_catalogue(61, n_queries=1, seed=5)
    other.skb.save(tmp_path / "kb2")
    with pytest.raises(IndexMismatch, match="built from a different SKB"):
        open_index(tmp_path / "ix", SKB.load(tmp_path / "kb2"))
    with pytest.raises(ArtefactError, match="holds a 'bm25' index, not 'dense'"):
        open_index(tmp_path / "ix", kb, kind="dense")
