"""Dense and multi-vector indexes that follow a changing SKB (``index.dense_live``).

Multi-vector indexes follow updates (issue 25): after upserts (changed and new nodes) and
deletions, over two generations (the second catch-up folds the first's mapping), the
caught-up index searches and rescores as one built from scratch on the final data, and
compaction writes it back as a plain matrix. A dense index likewise embeds only the new and
changed nodes; one with related nodes' names (``--add-rel``) is refused with its rebuild
command, and an index that is current or of another SKB is left as it is."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from live_data import apply, build, write_jsonl

from skbsearch.core.errors import ArtefactError
from skbsearch.encoders import load_encoder
from skbsearch.index import dense_live
from skbsearch.index.dense import DenseIndex
from skbsearch.index.live import catch_up, compact_indexes
from skbsearch.index.multivector import MultiVectorIndex
from skbsearch.kb import SKB
from skbsearch.kb.update import update

NODES = [{"id": f"p{i}", "type": "product", "name": f"item {i}",
          "description": " ".join(["red wool winter hat", "steel camping mug", "leather trail boot"][i % 3]
                                  for _ in range(1 + i % 4))} for i in range(12)]
EDGES = [{"source": "p1", "relation": "similar", "target": "p2"}]
STEPS = [
    {"upsert": [{"id": "p3", "type": "product", "name": "item 3", "description": "blue rubber rain boot " * 3},
                {"id": "p20", "type": "product", "name": "new mug", "description": "ceramic coffee mug"}],
     "delete": ["p5"]},
    {"upsert": [{"id": "p21", "type": "product", "name": "tent", "description": "two person dome tent " * 4},
                {"id": "p0", "type": "product", "name": "item 0", "description": "green scarf"}],
     "delete": ["p20", "p7"]},
]


def _step(tmp: Path, kb: Path, k: int, step: dict) -> None:
    (tmp / f"d{k}.txt").write_text("".join(d + "\n" for d in step["delete"]), encoding="utf-8")
    update(kb, nodes=write_jsonl(tmp / f"n{k}.jsonl", step["upsert"]), delete_nodes=tmp / f"d{k}.txt")


def _same(a: MultiVectorIndex, b: MultiVectorIndex, q: np.ndarray) -> None:
    assert a.doc_ids == b.doc_ids and np.array_equal(a.offsets, b.offsets)
    for agg in ("max", "mean-top2"):
        for (r1, s1), (r2, s2) in zip(a.search(q, 6, agg=agg), b.search(q, 6, agg=agg), strict=True):
            assert np.array_equal(r1, r2) and np.allclose(s1, s2, atol=1e-6)
    rows = [np.array([0, 2, len(a) - 1])] * len(q)
    for s1, s2 in zip(a.score(q, rows), b.score(q, rows), strict=True):
        assert np.allclose(s1, s2, atol=1e-6)


def _minilm():  # noqa: ANN202
    try:
        return load_encoder("minilm")
    except Exception as e:  # pragma: no cover - depends on the machine
        pytest.skip(f"no offline MiniLM encoder: {e}")


def test_multivector_follows_updates_like_a_rebuild(tmp_path: Path) -> None:
    enc = _minilm()
    kb = tmp_path / "kb"
    build(tmp_path / "src", NODES, EDGES, kb)
    MultiVectorIndex.from_skb(SKB.load(kb), size=6, stride=4).save(kb / "indexes" / "multivector")
    nodes, edges = NODES, EDGES
    q = enc.encode(["a boot for rain", "coffee mug", "winter hat"])
    prev = None
    for k, step in enumerate(STEPS):
        _step(tmp_path, kb, k, step)
        nodes, edges = apply(nodes, edges, upsert=step["upsert"], delete_nodes=step["delete"])
        live = SKB.load(kb)
        caught = catch_up(MultiVectorIndex.load(kb / "indexes" / "multivector"), live)
        assert caught.source["skb_hash"] == live.meta["content_hash"]
        ref = MultiVectorIndex.from_skb(build(tmp_path / f"final{k}", nodes, edges, tmp_path / f"ref{k}"),
                                        size=6, stride=4)
        _same(caught, ref, q)
        assert catch_up(caught, live) is caught  # current: nothing to do
        if prev is not None:  # from the index that followed once (unsaved): its mapping folded
            _same(catch_up(prev, live), ref, q)
        prev = caught
    assert compact_indexes(SKB.load(kb)) == [kb / "indexes" / "multivector"]
    saved = MultiVectorIndex.load(kb / "indexes" / "multivector")
    assert isinstance(saved.embeddings, np.ndarray)
    _same(saved, ref, q)


def test_dense_index_embeds_only_new_and_changed_nodes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    enc = _minilm()
    kb = tmp_path / "kb"
    build(tmp_path / "src", NODES, EDGES, kb)
    base = DenseIndex.from_skb(SKB.load(kb))
    assert dense_live.catch_up(base, SKB.load(kb)) is base  # current: nothing to do
    step = STEPS[0]
    _step(tmp_path, kb, 0, step)
    nodes, edges = apply(NODES, EDGES, upsert=step["upsert"], delete_nodes=step["delete"])
    live = SKB.load(kb)
    pos = dense_live.changed_rows(base, live, None)
    assert sorted(live.ids[i] for i in np.flatnonzero(pos < 0)) == ["p20", "p3"]  # new and upserted
    embedded: list[str] = []
    real = dense_live._embed
    monkeypatch.setattr(dense_live, "_embed", lambda index, texts: embedded.extend(texts) or real(index, texts))
    caught = dense_live.catch_up(base, live)
    assert len(embedded) == 2 and any("ceramic coffee mug" in t for t in embedded)
    ref = DenseIndex.from_skb(build(tmp_path / "final", nodes, edges, tmp_path / "ref"))
    assert caught.doc_ids == ref.doc_ids and caught.source["skb_hash"] == live.meta["content_hash"]
    np.testing.assert_allclose(np.asarray(caught.embeddings), ref.embeddings, atol=1e-5)
    q = enc.encode(["coffee mug"])
    (r1, s1), (r2, s2) = caught.search(q, 5)[0], ref.search(q, 5)[0]
    assert r1.tolist() == r2.tolist() and np.allclose(s1, s2, atol=1e-5)


def test_dense_index_with_related_names_cannot_follow(tmp_path: Path) -> None:
    _minilm()
    kb = tmp_path / "kb"
    build(tmp_path / "src", NODES, EDGES, kb)
    index = DenseIndex.from_skb(SKB.load(kb), add_rel=True)
    other = DenseIndex.from_skb(build(tmp_path / "o", NODES[:2], [], tmp_path / "other"))
    _step(tmp_path, kb, 0, STEPS[0])
    live = SKB.load(kb)
    with pytest.raises(ArtefactError, match="--add-rel.*cannot follow updates.*--kind dense --add-rel --force"):
        dense_live.catch_up(index, live)
    assert dense_live.catch_up(other, live) is other  # another SKB's index: left to the caller to refuse
    assert "do not follow updates" in dense_live.why_stale("dense", {"add_rel": True}, kb)
    assert dense_live.why_stale("dense", {"add_rel": False}, kb) is None


def test_renderer_of_renders_as_the_index_was_built() -> None:
    r = dense_live.renderer_of({"fields": ["description"], "max_per_relation": 3, "add_rel": True})
    assert r.fields == ["description"] and r.add_rel is False and r.max_per_relation == 3
