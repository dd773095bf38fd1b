"""The HTTP service, through FastAPI's in-process test client (no sockets)."""

from __future__ import annotations

import pytest

from skbsearch.index.sparse import BM25Index
from skbsearch.synth.catalogue import generate_catalogue

pytest.importorskip("fastapi")
pytest.importorskip("httpx")
from fastapi.testclient import TestClient  # noqa: E402

from skbsearch.server import create_app  # noqa: E402


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    root = tmp_path_factory.mktemp("srv")
    ds = generate_catalogue(200, seed=0, n_queries=5)
    ds.skb.save(root / "skb")
    BM25Index.from_skb(ds.skb).save(root / "skb" / "indexes" / "bm25")
    return TestClient(create_app(root / "skb")), ds


def test_health_and_kb(client):
    c, ds = client
    assert c.get("/health").json()["nodes"] == ds.skb.num_nodes
    info = c.get("/kb").json()
    assert info["node_types"]["product"] == 200 and "also_bought" in info["relations"]


def test_node_lookup(client):
    c, _ = client
    r = c.get("/nodes/p0").json()
    assert r["type"] == "product" and r["document"].startswith("product: ")
    assert "has_brand" in r["neighbors"]
    assert c.get("/nodes/nope").status_code == 404


def test_search_single_batch_and_filters(client):
    c, ds = client
    r = c.post("/search", json={"query": ds.queries[0].text, "k": 5, "types": ["product"]}).json()
    hits = r["results"]["hits"]
    assert 0 < len(hits) <= 5 and all(h["id"].startswith("p") for h in hits)
    r = c.post("/search", json={"queries": [q.text for q in ds.queries[:3]], "k": 3,
                                "types": ["product"], "where": "price < 30"}).json()
    assert len(r["results"]) == 3
    prices = {nid: p for nid, p in zip(ds.skb.ids, ds.skb.column("price"), strict=True)}
    assert all(prices[h["id"]] < 30 for res in r["results"] for h in res["hits"])


def test_search_errors(client):
    c, _ = client
    assert c.post("/search", json={"k": 3}).status_code == 422
    assert c.post("/search", json={"query": "x", "retriever": "dense"}).status_code == 404
    assert c.post("/search", json={"query": "x", "where": "nonsense ((("}).status_code == 400
