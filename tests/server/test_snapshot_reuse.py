"""A reload costs what the update changed (issue 31): a new generation's snapshot takes over
the previous one's indexes (caught up with the new segments only) and, for an update of
attribute values only, the graph stage's tables; it answers exactly as a fresh load of the
generation, and the replaced snapshot is freed without a garbage collection."""

from __future__ import annotations

import gc
import json
import time
import weakref

from serving import build_skb

import skbsearch.kb.live_next as live_next
from skbsearch.core.types import Query
from skbsearch.index.sparse import BM25Index
from skbsearch.kb.update import update
from skbsearch.server.browse import kb_overview
from skbsearch.server.holder import SnapshotHolder
from skbsearch.server.pipelines import PipelinePolicy, PipelineRequest
from skbsearch.server.reuse import GRAPH_KEYS
from skbsearch.server.search import get_pipeline, run_pipeline, warm_pipelines
from skbsearch.server.snapshot import Snapshot

POLICY = PipelinePolicy()


def _answers(snap: Snapshot, queries: list[Query]) -> dict[str, dict[str, dict[str, float]]]:
    out = {}
    for name in POLICY.pipelines(snap.skb.num_edges):
        run = run_pipeline(get_pipeline(snap, POLICY, PipelineRequest(name)), queries)
        out[name] = {q: dict(docs) for q, docs in run.items()}
    return out


def _write(path, records) -> object:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def _updates(tmp_path, skb):
    """Each update as ``(kwargs for kb.update.update, the graph stage's shared values it takes
    over)``: all for attribute values only, the type graph for new names."""
    rec = []
    for i in (3, 8, 21, 40):
        node = skb.node(i)
        rec.append({"id": node.id, "type": node.type, "name": node.name, **node.fields,
                    **{k: v for k, v in node.attributes.items() if isinstance(v, (int, float, str))}})
    repriced = [{**r, "price": 999.5} for r in rec[:3]]
    renamed = [{**rec[3], "name": "crimson ultra gizmo"}]
    added = [{"id": "zz-new", "type": "product", "name": "brand new gizmo kettle"}]
    edge = [{"source": "zz-new", "relation": skb.schema.relations[0], "target": skb.ids[5]}]
    (tmp_path / "d5.txt").write_text(skb.ids[30] + "\n")
    # (the first update re-prices: generation 1 keeps the build's numbering of relations, in
    # order of first use, so its reload takes the base snapshot's tables over like any other)
    return [
        (dict(nodes=_write(tmp_path / "u1.jsonl", repriced)), GRAPH_KEYS),
        (dict(nodes=_write(tmp_path / "u2.jsonl", renamed)), ("type-graph",)),
        (dict(nodes=_write(tmp_path / "u3.jsonl", added), edges=_write(tmp_path / "e3.jsonl", edge)), ()),
        (dict(nodes=_write(tmp_path / "u4.jsonl", [{**r, "price": 1.25} for r in repriced])), GRAPH_KEYS),
        (dict(delete_nodes=tmp_path / "d5.txt"), ()),
    ]


def test_incremental_reloads_answer_exactly_as_a_fresh_load(tmp_path, monkeypatch):
    skb_dir = tmp_path / "skb"
    ds = build_skb(skb_dir, 120, seed=0)
    names = list(ds.skb.column("name"))
    queries = [Query(f"q{i}", t) for i, t in enumerate(
        ["crimson ultra gizmo", "brand new gizmo kettle", names[8], names[21], "blue mug", "kettle"])]
    holder = SnapshotHolder(skb_dir, warm=lambda s: warm_pipelines(s, POLICY))
    loads: list[str] = []
    original = BM25Index.load.__func__  # type: ignore[attr-defined]

    def counted(cls, directory, *a, **k):
        loads.append(str(directory))
        return original(cls, directory, *a, **k)

    opened: list[str] = []  # the segments the loader read, and how it opened the generation
    read_segment, read_after = live_next.read_segment, live_next.read_after

    def opened_after(*a, **kw):
        got = read_after(*a, **kw)
        opened.append("whole" if got is None else "from the served one")
        return got

    for k, (kwargs, carried) in enumerate(_updates(tmp_path, ds.skb)):
        attrs_only = carried == GRAPH_KEYS
        old = holder.current
        monkeypatch.setattr(BM25Index, "load", classmethod(counted))
        monkeypatch.setattr(live_next, "read_segment", lambda p, h: opened.append(p.name) or read_segment(p, h))
        monkeypatch.setattr(live_next, "read_after", opened_after)
        update(skb_dir, **kwargs)
        opened.clear()
        new = holder.refresh(timeout=120)
        monkeypatch.undo()
        assert opened == [f"seg-{k + 1:08d}", "from the served one"], "its segment only, not every pending one"
        assert new.generation == k + 1
        assert not [p for p in loads if p.endswith("bm25")], "the text index was read from disk again"
        loads.clear()
        for key in GRAPH_KEYS:  # taken over (its tables, the new SKB) exactly when they read nothing new
            before, after = old.context.shared_value(key), new.context.shared_value(key)
            shared = [a for a, v in vars(after).items() if a != "skb" and v is vars(before)[a]
                      and not isinstance(v, (int, float, str, type(None)))]  # tables, not flags
            assert bool(shared) == (key in carried), (k, key)
            assert getattr(after, "skb", new.skb) is new.skb
        # an update that leaves every document as it was keeps the indexes' postings as they are
        for before, after in ((old.index("bm25")[1], new.index("bm25")[1]),
                              (old.context.shared_value("name-index"), new.context.shared_value("name-index"))):
            assert after is not before and (after.term_stats is before.term_stats) == attrs_only, k
        fresh = Snapshot.load(skb_dir)  # (whole)
        warm_pipelines(fresh, POLICY)
        assert new.kb_info == {"snapshot": new.identity, **kb_overview(new.skb)}  # /kb as made anew
        assert new.kb_info["snapshot"] == fresh.kb_info["snapshot"]
        assert _answers(new, queries) == _answers(fresh, queries), f"after update {k + 1}"
    assert _answers(holder.current, queries)["bm25"]["q1"], "the new node is found"


def test_a_replaced_snapshot_is_freed_without_a_garbage_collection(tmp_path):
    skb_dir = tmp_path / "skb"
    ds = build_skb(skb_dir, 60, seed=0)
    holder = SnapshotHolder(skb_dir, warm=lambda s: warm_pipelines(s, POLICY))
    node = ds.skb.node(4)
    rec = {"id": node.id, "type": node.type, "name": node.name, **node.fields, "price": 3.5}
    gc.collect()
    gc.disable()
    try:
        old = holder.current
        _answers(old, [Query("q", "blue mug")])  # every pipeline built and used
        gone, gone_skb = weakref.ref(old), weakref.ref(old.skb)
        del old
        update(skb_dir, nodes=_write(tmp_path / "u.jsonl", [rec]))
        assert holder.refresh(timeout=120).generation == 1
        for _ in range(200):  # (the loader thread lets go of it as it finishes)
            if gone() is None:
                break
            time.sleep(0.05)
        assert gone() is None and gone_skb() is None
    finally:
        gc.enable()


def test_the_first_search_after_a_reload_builds_no_lookups(tmp_path, monkeypatch):
    """The loader primes the new snapshot (``Snapshot.prime``): the SKB's id look-up and the
    columns a search's hits and evidence read are made before the swap, never by a request
    (at 100K they cost the first search ~0.1 s of CPU)."""
    from skbsearch.kb.store import SKB
    from skbsearch.server.search import run_search

    skb_dir = tmp_path / "skb"
    ds = build_skb(skb_dir, 60, seed=0)
    holder = SnapshotHolder(skb_dir, warm=lambda s: warm_pipelines(s, POLICY))
    node = ds.skb.node(4)
    rec = {"id": node.id, "type": node.type, "name": node.name, **node.fields, "price": 3.5}
    update(skb_dir, nodes=_write(tmp_path / "u.jsonl", [rec]))
    new = holder.refresh(timeout=120)

    class Unprimed:  # like the cached properties it replaces, a value already made wins
        def __init__(self, what):
            self.what = what

        def __get__(self, obj, owner=None):
            raise AssertionError(f"a request built {self.what}")

    column = SKB.column

    def primed_column(self, name):
        assert name in vars(self).get("_columns", {}), f"a request built the column {name!r}"
        return column(self, name)

    monkeypatch.setattr(SKB, "ids", Unprimed("the id list"))
    monkeypatch.setattr(SKB, "_index", Unprimed("the id look-up"))
    monkeypatch.setattr(SKB, "column", primed_column)
    out = run_search(new, POLICY, PipelineRequest("bm25", None, (), None, 10), [node.name], evidence=5,
                     evidence_budget=50, batch=False)
    assert out["results"]["hits"] and out["results"]["hits"][0]["evidence"]
