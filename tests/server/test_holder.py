"""The snapshot being served and its background loader (server/holder.py): a rebuild or a
new generation swapped in whole and warmed first, a broken build never served, and
``refresh`` waiting for what the directory holds (or for a generation) within a timeout."""

from __future__ import annotations

import json
import time

import pytest
from serving import build_skb

from skbsearch.kb.update import update
from skbsearch.server.errors import SnapshotChanged
from skbsearch.server.holder import SnapshotHolder


def test_holder_swaps_after_a_rebuild_and_keeps_serving_a_broken_one(tmp_path):
    skb_dir = tmp_path / "skb"
    build_skb(skb_dir, 50, seed=0)
    holder = SnapshotHolder(skb_dir)
    first = holder.get()
    assert holder.get() is first and not holder.changed_on_disk()

    new = build_skb(skb_dir, 80, seed=1)
    assert holder.changed_on_disk() and holder.current is first  # /health's view: no I/O but a stat
    assert holder.get() is first  # a request never loads: the background loader starts
    second = holder.refresh(timeout=60)
    assert second is not first and second.skb.num_nodes == new.skb.num_nodes
    assert holder.get() is second and not holder.changed_on_disk()
    assert second.identity != first.identity and second.skb.path is None  # detached from disk

    meta = skb_dir / "meta.json"
    good = meta.read_text()
    meta.write_text("{ half written")
    with pytest.raises(SnapshotChanged):
        holder.refresh(timeout=60)  # the broken build cannot be loaded ...
    assert holder.get() is second  # ... and is not served; the last good one is
    meta.write_text(good)
    assert holder.refresh(timeout=60).skb.num_nodes == new.skb.num_nodes


def test_refresh_waits_for_a_generation_and_every_snapshot_is_warmed_first(tmp_path):
    skb_dir = tmp_path / "skb"
    ds = build_skb(skb_dir, 30, seed=0)
    warmed = []
    holder = SnapshotHolder(skb_dir, warm=warmed.append)
    assert warmed == [holder.current] and holder.current.generation == 0
    node = ds.skb.node(3)
    (tmp_path / "u.jsonl").write_text(json.dumps({"id": node.id, "type": node.type,
                                                  "name": "crimson ultra gizmo"}) + "\n")
    assert update(skb_dir, nodes=tmp_path / "u.jsonl").generation == 1
    snap = holder.refresh(min_generation=1, timeout=60)
    assert snap.generation == 1 and warmed[-1] is snap and holder.get() is snap
    assert snap.skb.node(3).name == "crimson ultra gizmo"
    t = time.monotonic()
    with pytest.raises(SnapshotChanged, match="still loading"):
        holder.refresh(min_generation=2, timeout=0.2)  # no such generation on disk
    assert time.monotonic() - t < 5
    assert holder.refresh(min_generation=1) is snap  # reached: no wait, no load


def test_a_build_that_fails_to_load_is_not_retried_by_every_request(tmp_path, monkeypatch):
    import skbsearch.server.holder as holder_mod

    skb_dir = tmp_path / "skb"
    build_skb(skb_dir, 30, seed=0)
    holder = SnapshotHolder(skb_dir)
    first = holder.get()
    build_skb(skb_dir, 40, seed=1)
    (skb_dir / "meta.json").write_text("{ half written")
    loads = []
    real = holder_mod.Snapshot.load

    def counted(*a, **kw):  # noqa: ANN002, ANN003, ANN202
        loads.append(1)
        return real(*a, **kw)

    monkeypatch.setattr(holder_mod.Snapshot, "load", counted)
    with pytest.raises(SnapshotChanged, match="could not be loaded"):
        holder.refresh(timeout=60)
    n = len(loads)
    for _ in range(5):
        assert holder.get() is first  # inside RETRY_AFTER_FAILURE: no new loader
    time.sleep(0.1)
    assert len(loads) == n
