"""What a new generation's snapshot takes over (server/reuse.py): the segments a generation
applies on top of an earlier one of the same build, and a BM25 index kept whole when every
document it reads is the same over both generations (a re-pricing) but not when one differs
(a renaming) or the index was built from another SKB."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from serving import build_skb

from skbsearch.index.sparse import BM25Index
from skbsearch.kb.segments import Segment
from skbsearch.kb.store import SKB
from skbsearch.kb.update import update
from skbsearch.server.reuse import new_segments, unchanged_index
from skbsearch.synth.catalogue import generate_catalogue


@pytest.fixture
def generations(tmp_path: Path) -> tuple[Path, SKB, dict]:
    """A catalogue SKB (generation 0, loaded) and one of its products as an update record."""
    build_skb(tmp_path / "skb", 30, seed=0)
    old = SKB.load(tmp_path / "skb")
    n = old.node(3)
    rec = {"id": n.id, "type": n.type, "name": n.name, **n.fields,
           **{k: v for k, v in n.attributes.items() if isinstance(v, (int, float, str))}}
    return tmp_path / "skb", old, rec


def _segments(old: SKB, new: SKB, root: Path) -> list[Segment]:
    """The segments ``new`` applies on top of ``old`` (which must be an ancestor)."""
    segments = new_segments(old, new, root)
    assert segments is not None
    return segments


def _update(root: Path, record: dict, name: str) -> SKB:
    path = root.parent / name
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    update(root, nodes=path)
    return SKB.load(root)


def test_the_segments_of_later_generations_in_order(generations) -> None:  # noqa: ANN001
    root, old, rec = generations
    gen1 = _update(root, {**rec, "price": 999.5}, "u1.jsonl")
    gen2 = _update(root, {**rec, "price": 1.5}, "u2.jsonl")
    assert len(_segments(old, gen1, root)) == 1 and len(_segments(old, gen2, root)) == 2
    assert len(_segments(gen1, gen2, root)) == 1 and new_segments(gen2, gen2, root) == []
    assert new_segments(gen2, gen1, root) is None  # not an ancestor
    other = generate_catalogue(20, seed=4, n_queries=1).skb
    assert new_segments(other, gen1, root) is None  # another build


def test_a_bm25_index_is_kept_when_no_document_it_reads_changed(generations) -> None:  # noqa: ANN001
    root, old, rec = generations
    index = BM25Index.from_skb(old)
    repriced = _update(root, {**rec, "price": 999.5}, "u1.jsonl")
    kept = unchanged_index(index, old, repriced, _segments(old, repriced, root))
    assert kept is not None and kept is not index and kept.term_stats is index.term_stats
    assert kept.source["skb_hash"] == repriced.meta["content_hash"]
    assert index.source["skb_hash"] == old.meta["content_hash"]  # the old one is unchanged
    renamed = _update(root, {**rec, "name": "crimson ultra gizmo"}, "u2.jsonl")
    assert unchanged_index(index, old, renamed, _segments(old, renamed, root)) is None


def test_an_index_of_another_build_is_never_taken_over(generations) -> None:  # noqa: ANN001
    root, old, rec = generations
    other = BM25Index.from_skb(generate_catalogue(20, seed=4, n_queries=1).skb)
    repriced = _update(root, {**rec, "price": 999.5}, "u1.jsonl")
    assert unchanged_index(other, old, repriced, _segments(old, repriced, root)) is None
