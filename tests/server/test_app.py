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
    return TestClient(create_app(root / "skb", allowed_hosts=["testserver"])), ds


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
    for body in ({"query": "x", "where": "price < 1e999"},  # never read as infinity
                 {"query": "x", "pipeline": "bm25(where='price > -1e400')"},
                 {"query": "x", "where": "price < " + "9" * 400}):
        r = c.post("/search", json=body)
        assert r.status_code == 400 and "numbers must be finite" in r.json()["detail"], r.text


def test_search_with_pipelines_and_evidence(client):
    c, ds = client
    text = ds.queries[0].text
    r = c.post("/search", json={"query": text, "k": 5, "pipeline": "graph"}).json()
    assert r["pipeline"] == "graph" and r["retriever"] is None
    hits = r["results"]["hits"]
    assert [h["rank"] for h in hits] == [1, 2, 3, 4, 5]
    assert all(h["evidence"] and h["type"] for h in hits)
    assert any(line.startswith("path: ") for h in hits for line in h["evidence"])
    # The old field is an alias: retriever bm25 == pipeline bm25(k=K).
    old = c.post("/search", json={"query": text, "k": 5, "retriever": "bm25"}).json()
    new = c.post("/search", json={"query": text, "k": 5, "pipeline": "bm25(k=5)"}).json()
    assert old["retriever"] == "bm25" and old["pipeline"] == new["pipeline"] == "bm25(k=5)"
    assert [h["id"] for h in old["results"]["hits"]] == [h["id"] for h in new["results"]["hits"]]
    none = c.post("/search", json={"query": text, "k": 3, "evidence": 0}).json()
    assert all(h["evidence"] == [] for h in none["results"]["hits"])


def test_pipeline_errors_list_the_stages(client):
    c, _ = client
    r = c.post("/search", json={"query": "x", "pipeline": "bm25 >> nope"})
    assert r.status_code == 400 and "unknown stage 'nope'" in r.json()["detail"]
    assert {"bm25", "graph", "rrf"} <= set(r.json()["stages"])
    r = c.post("/search", json={"query": "x", "pipeline": "run('/etc/passwd')"})
    assert r.status_code == 400 and "--allow-spec-files" in r.json()["detail"]
    assert "root:" not in r.text
    assert c.post("/search", json={"query": "x", "pipeline": "bm25(("}).status_code == 400
    assert c.post("/search", json={"query": "x", "pipeline": "b" * 1001}).status_code == 422


def test_explain(client):
    c, ds = client
    text = ds.queries[0].text
    top = c.post("/search", json={"query": text, "k": 3, "pipeline": "graph"}).json()
    second = top["results"]["hits"][1]
    r = c.post("/explain", json={"query": text, "id": second["id"], "pipeline": "graph"}).json()
    assert r["rank"] == 2 and r["score"] == pytest.approx(second["score"])
    assert r["pipeline"] == "graph" and set(second["evidence"]) <= set(r["evidence"])
    assert r["above"]["id"] == top["results"]["hits"][0]["id"]
    assert c.post("/explain", json={"query": text, "id": "nope"}).status_code == 404
    far = c.post("/explain", json={"query": "zzzz qqqq", "id": "p0"}).json()
    assert far["rank"] is None and far["score"] is None


def test_node_neighbours_are_paged(client):
    c, ds = client
    brand = c.get("/nodes/p0").json()["neighbors"]["has_brand"][0]
    full = c.get(f"/nodes/{brand}?limit=200").json()
    group = next(g for g in full["relations"] if g["relation"] == "has_brand^-1")
    assert group["direction"] == "in" and group["total"] == len(group["nodes"]) > 3
    page = c.get(f"/nodes/{brand}", params={"relation": "has_brand^-1", "offset": 2, "limit": 2})
    assert [g["relation"] for g in page.json()["relations"]] == ["has_brand^-1"]
    assert page.json()["relations"][0]["nodes"] == group["nodes"][2:4]
    assert page.json()["neighbors"] == {"has_brand^-1": [n["id"] for n in group["nodes"][2:4]]}
    assert c.get(f"/nodes/{brand}?relation=nope").status_code == 400
    assert c.get(f"/nodes/{brand}?limit=0").status_code == 422
    assert c.get(f"/nodes/{brand}?limit=201").status_code == 422
    assert c.get(f"/nodes/{brand}?offset=-1").status_code == 422


def test_kb_overview_and_pipelines(client):
    c, ds = client
    kb = c.get("/kb").json()
    assert sum(kb["edge_counts"].values()) == kb["edges"] == ds.skb.num_edges
    roles = {(r["relation"], r["source"], r["target"]) for r in kb["schema"]["relations"]}
    assert ("has_brand", "product", "brand") in roles and ("also_bought", "product", "product") in roles
    assert sum(r["count"] for r in kb["schema"]["relations"]) == kb["edges"]
    assert kb["degree"]["min"] <= kb["degree"]["median"] <= kb["degree"]["max"]
    assert kb["top_degree"][0]["degree"] == kb["degree"]["max"]
    p = c.get("/pipelines").json()
    assert [x["name"] for x in p["pipelines"]][:2] == ["bm25", "graph"] and p["default"] == "bm25"
    assert not p["allow_spec_files"] and any(s["name"] == "graph" for s in p["stages"])


def test_kb_examples_come_from_the_served_kb(client):
    """Issue 22: the explorer's placeholders are derived from the KB (a real node name, a
    real attribute), never the catalogue's; a KB without attributes gets no predicate."""
    from skbsearch.kb import SKB
    from skbsearch.server.browse import kb_overview

    c, ds = client
    ex = c.get("/kb").json()["examples"]
    assert ex["query"] in ds.skb.column("name")
    attr = ex["where"].split()[0]
    assert attr in ds.skb.schema.attributes
    assert ex["spec"].startswith("bm25 + graph(target=[")
    skb = SKB.from_columns(["a", "b", "c"], ["film", "film", "person"], ["Jaws", "Duel", "Steven Spielberg"],
                           edges=([0, 1], ["directed by", "directed by"], [2, 2]))
    ov = kb_overview(skb)
    assert ov["examples"]["where"] is None
    assert ov["examples"]["query"] in ("Jaws", "Duel")
    assert ov["examples"]["spec"] == "bm25 + graph(target=[film]) % 20"
    two = SKB.from_columns(["a"], ["award category"], ["Oscar"])
    assert kb_overview(two)["examples"]["spec"] == "bm25 + graph(target=['award category']) % 20"
