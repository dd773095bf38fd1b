"""The web explorer's page and assets (server/web.py): served from the package's allow-list
with their security headers and ETags; no other path reaches a file."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")
from fastapi import FastAPI  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402

from skbsearch.server.web import ASSETS, SECURITY_HEADERS, install_web, load_assets  # noqa: E402


@pytest.fixture(scope="module")
def client() -> tuple[TestClient, None]:
    """The explorer's routes on an app of their own (no SKB: they read none)."""
    app = FastAPI()
    install_web(app)
    return TestClient(app), None


def test_explorer_page_and_assets(client):
    c, _ = client
    for path in ("/", "/node/p0", "/node/p0%2F..%2F..%2Fmeta.json"):
        r = c.get(path)
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
        assert "script-src 'self'" in r.headers["content-security-policy"]
        assert '<script src="/static/app.js" defer>' in r.text
    js = c.get("/static/app.js")
    assert js.status_code == 200 and "javascript" in js.headers["content-type"]
    assert ".innerHTML" not in js.text and "insertAdjacentHTML" not in js.text
    assert c.get("/static/app.js", headers={"If-None-Match": js.headers["etag"]}).status_code == 304
    for bad in ("/static/index.html", "/static/app.py", "/static/..%2Fapp.py", "/static/%2e%2e"):
        assert c.get(bad).status_code == 404, bad
    total = sum(len(c.get(f"/static/{n}").content) for n in ("app.js", "app.css")) + len(c.get("/").content)
    assert total < 60_000  # small: first paint needs the page and the style sheet only


def test_assets_are_the_allow_list_with_content_etags() -> None:
    assets = load_assets()
    assert set(assets) == set(ASSETS)
    for name, (data, media, etag) in assets.items():
        assert data and media == ASSETS[name] and etag.startswith('"') and len(etag) == 18
    assert len({etag for _, _, etag in assets.values()}) == len(assets)


def test_every_answer_carries_the_security_headers(client) -> None:  # noqa: ANN001
    c, _ = client
    for path in ("/", "/static/app.css", "/node/a%20b"):
        r = c.get(path)
        assert all(r.headers[k] == v for k, v in SECURITY_HEADERS.items()), path
        assert r.headers["cache-control"] == "no-cache"
    not_modified = c.get("/", headers={"If-None-Match": c.get("/").headers["etag"]})
    assert not_modified.status_code == 304 and not_modified.content == b""
    assert not_modified.headers["x-frame-options"] == "DENY"
    assert c.get("/static/app.css", headers={"If-None-Match": '"stale"'}).status_code == 200
