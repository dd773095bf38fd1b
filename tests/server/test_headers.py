"""Issue 31, item 7: the interactive API docs are off unless asked for, and then carry a CSP
that allows the CDN's scripts and the page's own inline script only; every response says
``X-Content-Type-Options: nosniff``."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from skbsearch.server import create_app  # noqa: E402


def test_docs_are_off_by_default_and_answers_say_nosniff(small_skb) -> None:
    skb_dir, _ = small_skb
    client = TestClient(create_app(skb_dir, allowed_hosts=["testserver"]))
    for path in ("/docs", "/redoc"):
        r = client.get(path)
        assert r.status_code == 404 and "cdn" not in r.text.lower()
    answers = [client.get("/health"), client.post("/search", json={"query": "blue", "k": 2}),
               client.post("/search", json={"query": "blue", "k": 10**9}), client.get("/nodes/nope"),
               client.post("/search", content=b"{bad"), client.get("/", headers={"host": "evil.example"}),
               client.get("/openapi.json")]
    for r in answers:
        assert r.headers.get("x-content-type-options") == "nosniff", (r.request.url, r.status_code)


def test_docs_when_asked_for_carry_a_csp(small_skb) -> None:
    skb_dir, _ = small_skb
    client = TestClient(create_app(skb_dir, allowed_hosts=["testserver"], api_docs=True))
    for path in ("/docs", "/redoc"):
        r = client.get(path)
        assert r.status_code == 200 and "cdn.jsdelivr.net" in r.text
        csp = r.headers["content-security-policy"]
        script_src = next(p for p in csp.split(";") if p.strip().startswith("script-src"))
        assert "'unsafe-inline'" not in script_src
        assert ("'sha256-" in script_src) == (path == "/docs")  # Swagger's inline script, by hash
        assert "default-src 'none'" in csp and r.headers["x-content-type-options"] == "nosniff"
