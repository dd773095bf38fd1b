"""What ``POST /admin/update`` promises (issue 31, item 4 and 5): the deadline applies before
the commit point only (never a 504 after it); the answer comes once the service serves the
new generation (read-your-writes, under concurrent searches); bad text, deep or non-standard
JSON is a 422 naming no server path; ``Authorization`` per RFC 6750; a refused update leaves a
never-updated SKB untouched; the new generation is opened by the background loader, never by
a request or on a search lane."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import httpx
import pytest
from serving import ThreadServer

from skbsearch.index.sparse import BM25Index
from skbsearch.kb import SKB
from skbsearch.server import context as server_context
from skbsearch.server import create_app
from skbsearch.server.limits import Limits

TOKEN = "s3cret-admin-token-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def _node(i: int, name: str = "red wool hat") -> dict:
    return {"id": f"n{i}", "type": "product", "name": name, "description": "warm", "price": 10}


@pytest.fixture
def skb_dir(tmp_path: Path) -> Path:
    import sys
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "kb"))
    from live_data import build

    out = tmp_path / "skb"
    build(tmp_path / "src", [_node(i) for i in range(20)], [], out)
    BM25Index.from_skb(SKB.load(out)).save(out / "indexes" / "bm25")
    return out


@pytest.fixture
def slow_reload(monkeypatch) -> list[str]:
    """Every snapshot load warms 1.5 s longer (a big SKB's reload); records the threads."""
    threads: list[str] = []
    real = server_context.warm_pipelines

    def warm(snap, policy):
        threads.append(threading.current_thread().name)
        if snap.generation:
            time.sleep(1.5)
        real(snap, policy)

    monkeypatch.setattr(server_context, "warm_pipelines", warm)
    return threads


def test_bad_bodies_are_422_without_paths_and_leave_the_skb_untouched(skb_dir: Path) -> None:
    with ThreadServer(create_app(skb_dir, admin_token=TOKEN)) as srv:
        post = lambda content, headers=AUTH: httpx.post(  # noqa: E731
            srv.base + "/admin/update", content=content, headers={**headers, "content-type": "application/json"})
        assert post(b'{"nodes": []}', {"Authorization": TOKEN}).status_code == 401  # a bare token
        assert post(b'{"nodes": []}', {"Authorization": f"bearer {TOKEN}"}).status_code == 200
        bodies = {
            "surrogate name": b'{"nodes": [{"id": "n1", "type": "product", "name": "a\\ud800b"}]}',
            "surrogate id": b'{"delete_nodes": ["n\\udc00"]}',
            "surrogate relation": b'{"edges": [{"source": "n1", "relation": "r\\ud800", "target": "n2"}]}',
            "deep": b'{"nodes": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
            "NaN": b'{"nodes": [{"id": "n1", "type": "product", "price": NaN}]}',
            "Infinity": b'{"nodes": [{"id": "n1", "type": "product", "price": -Infinity}]}',
            "bad record": b'{"nodes": [{"id": "n1", "type": "product", "price": "cheap"}]}',
        }
        for what, body in bodies.items():
            r = post(body)
            assert r.status_code == 422, (what, r.status_code, r.text[:300])
            assert "skb-admin-" not in r.text and str(skb_dir) not in r.text and "/tmp" not in r.text, r.text
        assert "price" in post(bodies["bad record"]).json()["detail"]
        assert httpx.get(srv.base + "/health").json()["generation"] == 0
    assert not (skb_dir / "generations").exists()  # no lock file left in a never-updated SKB


def test_deadline_applies_before_the_commit_only(skb_dir: Path, slow_reload: list[str]) -> None:
    # The reload after the commit (1.5 s) outlasts the 0.5 s deadline: still a 200.
    app = create_app(skb_dir, Limits(request_timeout=0.5), admin_token=TOKEN)
    with ThreadServer(app) as srv:
        r = httpx.post(srv.base + "/admin/update", json={"nodes": [_node(50)]}, headers=AUTH, timeout=60)
        assert r.status_code == 200, r.text
        assert r.json()["generation"] == 1 and r.json()["served_generation"] == 1
        assert httpx.get(srv.base + "/health").json()["generation"] == 1
    # A deadline that passes before the commit point: 504, and nothing was committed.
    app = create_app(skb_dir, Limits(request_timeout=0.001), admin_token=TOKEN)
    with ThreadServer(app) as srv:
        r = httpx.post(srv.base + "/admin/update", json={"nodes": [_node(51)]}, headers=AUTH, timeout=60)
        assert r.status_code == 504 and "nothing changed" in r.json()["detail"], r.text
        assert httpx.get(srv.base + "/health").json()["generation"] == 1
    assert SKB.load(skb_dir).meta["generation"] == 1


def test_read_your_writes_under_concurrent_searches(skb_dir: Path, slow_reload: list[str]) -> None:
    done, errors, slow = threading.Event(), [], []

    def searcher() -> None:
        with httpx.Client(timeout=60) as c:
            while not done.is_set():
                t0 = time.perf_counter()
                r = c.post(srv.base + "/search", json={"query": "red hat", "k": 5, "evidence": 0})
                if r.status_code != 200:
                    errors.append(r.text[:200])
                slow.append(time.perf_counter() - t0)

    with ThreadServer(create_app(skb_dir, admin_token=TOKEN)) as srv:
        threads = [threading.Thread(target=searcher) for _ in range(6)]
        for t in threads:
            t.start()
        try:
            with httpx.Client(timeout=60) as c:
                for k in range(1, 4):
                    r = c.post(srv.base + "/admin/update", json={"nodes": [_node(100 + k, "blue scarf")]},
                               headers=AUTH)
                    assert r.status_code == 200, r.text
                    gen, ident = r.json()["generation"], r.json()["content_hash"][:16]
                    assert gen == k
                    health = c.get(srv.base + "/health").json()
                    assert health["generation"] == k and health["snapshot"] == ident
                    hit = c.post(srv.base + "/search", json={"query": "blue scarf", "k": 5}).json()
                    assert hit["snapshot"] == ident and {h["id"] for h in hit["results"]["hits"]} == {
                        f"n{100 + j}" for j in range(1, k + 1)}
        finally:
            done.set()
            for t in threads:
                t.join()
    assert not errors, errors[:3]
    # Searches never waited for a 1.5 s reload: it ran in the background loader thread.
    assert slow and max(slow) < 1.2, max(slow)
    assert slow_reload[0] == "MainThread" and set(slow_reload[1:]) == {"skb-snapshot-loader"}, slow_reload
