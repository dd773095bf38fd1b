"""Live updates through the service (issue 25): ``POST /admin/update`` (off without a token,
constant-time token check, the build's validation), ``/health`` reporting the generation, and
20 clients querying while 100 updates are applied: no error, and every answer equals a full
build's answer for the generation it reports."""

from __future__ import annotations

import random
import sys
import threading
from pathlib import Path

import httpx
import pytest
from serving import ThreadServer

from skbsearch.index.sparse import BM25Index
from skbsearch.kb import SKB
from skbsearch.server import create_app
from skbsearch.stages import pipeline
from skbsearch.stages.context import StageContext

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "kb"))
from live_data import apply, build  # noqa: E402

TOKEN = "s3cret-admin-token-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
WORDS = "red blue green wool leather trail running hat shoe boot scarf warm light".split()
QUERY, SPEC = "red wool hat", "bm25(k=20, where='price < 60')"


def _product(rng: random.Random, pid: str) -> dict:
    return {"id": pid, "type": "product", "name": " ".join(rng.sample(WORDS, 2)),
            "description": " ".join(rng.choices(WORDS, k=6)), "price": rng.randint(5, 100)}


def _updates(n: int, seed: int = 0) -> tuple[list[dict], list[dict], list[dict]]:
    """Base nodes and edges, and ``n`` update bodies (upserts, deletions, new edges)."""
    rng = random.Random(seed)
    nodes = [_product(rng, f"p{i}") for i in range(30)] + [{"id": "b0", "type": "brand", "name": "Acme"}]
    edges = [{"source": f"p{i}", "relation": "brand", "target": "b0"} for i in range(0, 30, 3)]
    bodies, live, nxt = [], {n["id"] for n in nodes if n["type"] == "product"}, 30
    for _ in range(n):
        body: dict = {"nodes": [_product(rng, rng.choice(sorted(live)))]}
        if rng.random() < 0.5:
            body["nodes"].append(_product(rng, f"p{nxt}"))
            body["edges"] = [{"source": f"p{nxt}", "relation": "brand", "target": "b0"}]
            live.add(f"p{nxt}")
            nxt += 1
        if rng.random() < 0.3:
            gone = rng.choice(sorted(live - {x["id"] for x in body["nodes"]}))
            body["delete_nodes"] = [gone]
            live.discard(gone)
        bodies.append(body)
    return nodes, edges, bodies


def _answer(skb_dir: Path) -> list[tuple[str, float]]:
    ctx = StageContext(SKB.load(skb_dir), notify=lambda m: None)
    return pipeline(SPEC, ctx).search(QUERY, 20)


@pytest.fixture
def live_skb(tmp_path: Path) -> tuple[Path, list[dict], list[dict], list[dict]]:
    nodes, edges, bodies = _updates(100)
    skb_dir = tmp_path / "skb"
    build(tmp_path / "src", nodes, edges, skb_dir)
    BM25Index.from_skb(SKB.load(skb_dir)).save(skb_dir / "indexes" / "bm25")
    return skb_dir, nodes, edges, bodies


def test_admin_update_is_off_without_a_token_and_checks_it(live_skb, monkeypatch) -> None:
    skb_dir, _, _, bodies = live_skb
    monkeypatch.delenv("SKB_ADMIN_TOKEN", raising=False)
    with ThreadServer(create_app(skb_dir)) as srv:
        assert httpx.post(srv.base + "/admin/update", json=bodies[0], headers=AUTH).status_code in (404, 405)
    with ThreadServer(create_app(skb_dir, admin_token=TOKEN)) as srv:
        for headers in ({}, {"Authorization": "Bearer " + TOKEN[:-1] + "x"}, {"Authorization": TOKEN + "x"}):
            assert httpx.post(srv.base + "/admin/update", json=bodies[0], headers=headers).status_code == 401
        bad = {"nodes": [bodies[0]["nodes"][0], {"id": "p99", "type": "product", "price": "cheap"}]}
        r = httpx.post(srv.base + "/admin/update", json=bad, headers=AUTH)
        assert r.status_code == 422 and "nodes[1]" in r.json()["detail"] and "price" in r.json()["detail"]
        big = {"nodes": [{"id": f"x{i}", "type": "t", "name": "y" * 1000} for i in range(2000)]}
        assert httpx.post(srv.base + "/admin/update", json=big, headers=AUTH).status_code == 413
        assert httpx.get(srv.base + "/health").json()["generation"] == 0
        r = httpx.post(srv.base + "/admin/update", json=bodies[0], headers=AUTH)
        assert r.status_code == 200 and r.json()["generation"] == 1
        assert httpx.get(srv.base + "/health").json()["generation"] == 1


#: Searching clients and updates of the test below. Every update now answers only once the
#: service serves its generation, and the clients here share the server's GIL (same process),
#: so each update waits out their contention: 20 clients x 100 updates ran over 10 minutes.
CLIENTS, UPDATES = 8, 15


@pytest.mark.slow
def test_clients_query_while_updates_land(live_skb, tmp_path: Path) -> None:
    skb_dir, nodes, edges, bodies = live_skb
    bodies = bodies[:UPDATES]
    expected: dict[str, int] = {}  # snapshot identity -> generation
    seen: list[tuple[str, list]] = []
    errors: list[str] = []
    done = threading.Event()

    def client() -> None:
        with httpx.Client(timeout=60) as c:
            while not done.is_set():
                r = c.post(srv.base + "/search", json={"query": QUERY, "pipeline": SPEC, "k": 20, "evidence": 0})
                if r.status_code != 200:
                    errors.append(f"{r.status_code} {r.text[:200]}")
                    continue
                d = r.json()
                seen.append((d["snapshot"], [(h["id"], h["score"]) for h in d["results"]["hits"]]))

    with ThreadServer(create_app(skb_dir, admin_token=TOKEN)) as srv:
        expected[str(SKB.load(skb_dir).meta["content_hash"])[:16]] = 0
        threads = [threading.Thread(target=client) for _ in range(CLIENTS)]
        for t in threads:
            t.start()
        try:
            with httpx.Client(timeout=120) as c:
                for k, body in enumerate(bodies, start=1):
                    r = c.post(srv.base + "/admin/update", json=body, headers=AUTH)
                    assert r.status_code == 200, r.text
                    assert r.json()["generation"] == k
                    expected[r.json()["content_hash"][:16]] = k
        finally:
            done.set()
            for t in threads:
                t.join()
    assert not errors, errors[:3]
    gens = {expected[s] for s, _ in seen}
    assert len(seen) >= 100 and len(gens) >= 10  # answers came from many generations
    state, refs = (nodes, edges), {}
    for k in range(max(gens) + 1):
        if k:
            b = bodies[k - 1]
            state = apply(*state, upsert=b.get("nodes", ()), add_edges=b.get("edges", ()),
                          delete_nodes=b.get("delete_nodes", ()))
        if k in gens:
            build(tmp_path / f"f{k}", *state, tmp_path / f"r{k}")
            BM25Index.from_skb(SKB.load(tmp_path / f"r{k}")).save(tmp_path / f"r{k}" / "indexes" / "bm25")
            refs[k] = _answer(tmp_path / f"r{k}")
    for snap, hits in seen:
        ref = refs[expected[snap]]
        assert [d for d, _ in hits] == [d for d, _ in ref], expected[snap]
        assert all(abs(a - b) <= 1e-6 for (_, a), (_, b) in zip(hits, ref, strict=True))
