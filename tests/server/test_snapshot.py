"""Snapshots of the served SKB (server/snapshot.py): what a request sees of one, an index of
another build refused, a new generation's name index caught up. (The holder that swaps them:
tests/server/test_holder.py.)"""

from __future__ import annotations

import shutil

import pytest
from serving import build_skb

from skbsearch.index.sparse import BM25Index
from skbsearch.server import create_app
from skbsearch.synth.catalogue import generate_catalogue

pytest.importorskip("fastapi")
pytest.importorskip("httpx")
from fastapi.testclient import TestClient  # noqa: E402


def test_index_from_another_build_is_refused_without_paths(tmp_path):
    skb_dir = tmp_path / "skb"
    build_skb(skb_dir, 50, seed=0)
    other = generate_catalogue(60, seed=3, n_queries=2)
    other_index = tmp_path / "other-bm25"
    BM25Index.from_skb(other.skb).save(other_index)
    shutil.rmtree(skb_dir / "indexes" / "bm25")
    shutil.copytree(other_index, skb_dir / "indexes" / "bm25")
    client = TestClient(create_app(skb_dir, allowed_hosts=["testserver"]))
    for _ in range(2):  # the second time from the remembered verdict
        r = client.post("/search", json={"query": "blue", "k": 3})
        assert r.status_code == 503, r.text
        assert "skb index" in r.json()["detail"] and str(tmp_path) not in r.text


def test_kb_and_health_name_the_same_snapshot(tmp_path):
    skb_dir = tmp_path / "skb"
    ds = build_skb(skb_dir, 50, seed=0)
    client = TestClient(create_app(skb_dir, allowed_hosts=["testserver"]))
    health, kb = client.get("/health").json(), client.get("/kb").json()
    assert health["snapshot"] == kb["snapshot"] and health["nodes"] == ds.skb.num_nodes
    assert kb["nodes"] == sum(kb["node_types"].values())
    hit = client.post("/search", json={"query": "blue", "k": 1}).json()
    assert hit["snapshot"] == health["snapshot"]
    # An index removed from disk stays usable for the build it was loaded with.
    shutil.rmtree(skb_dir / "indexes" / "bm25")
    assert client.post("/search", json={"query": "blue", "k": 1}).status_code == 200


def test_next_generation_catches_the_name_index_up(tmp_path):
    """A new generation's shared name index is the previous one caught up (touched names
    tokenised), scoring exactly as a fresh build; the old snapshot's index is unchanged."""
    import json

    import numpy as np

    from skbsearch.index.names import build_name_index
    from skbsearch.kb.update import update
    from skbsearch.server.pipelines import PipelinePolicy
    from skbsearch.server.search import warm_pipelines
    from skbsearch.server.snapshot import NAME_INDEX_KEY, Snapshot

    def top(ix, q):
        s = ix.score_docs(ix.tokenize([q])[0], np.arange(ix.num_docs))
        return [(ix.doc_ids[i], round(float(s[i]), 5)) for i in np.argsort(-s, kind="stable")[:5]]

    skb_dir = tmp_path / "skb"
    build_skb(skb_dir, 60, seed=0)
    old = Snapshot.load(skb_dir)
    warm_pipelines(old, PipelinePolicy())
    prev = old.context.shared_value(NAME_INDEX_KEY)
    queries = ["renamed gizmo", "brand new gizmo", old.skb.column("name")[7]]
    before = [top(prev, q) for q in queries]
    recs = [{"id": old.skb.ids[i], "type": "product", "name": f"renamed gizmo {i}"} for i in range(3)]
    recs.append({"id": "newp", "type": "product", "name": "brand new gizmo"})
    (tmp_path / "u.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    (tmp_path / "d.txt").write_text(old.skb.ids[9] + "\n")
    update(skb_dir, nodes=tmp_path / "u.jsonl", delete_nodes=tmp_path / "d.txt")
    new = Snapshot.load(skb_dir)
    new.inherit(old)
    got = new.context.shared_value(NAME_INDEX_KEY)
    assert got is not None and got is not prev and got.num_docs == new.skb.num_nodes
    ref = build_name_index(new.skb)
    assert [top(got, q) for q in queries] == [top(ref, q) for q in queries]
    assert top(got, "brand new gizmo")[0][0] == "newp"
    assert [top(prev, q) for q in queries] == before
