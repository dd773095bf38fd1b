"""Predicate attacks and path tricks against a real ``skb serve``: refused, nothing leaked."""

from __future__ import annotations

import http.client
from pathlib import Path
from urllib.parse import urlsplit

import pytest

httpx = pytest.importorskip("httpx")

READ_FILE = "CAST((SELECT content FROM read_text('/etc/passwd')) AS INTEGER) = 1"
WRITE_FILE = ("1=1); COPY (SELECT 'echo pwned' AS x) TO 'evil.sh' (HEADER false, QUOTE ''); "
              "SELECT id FROM nodes WHERE (1=1")
ESCAPE_TYPES = "price < 20) OR (1=1"
ENGINE_TEXT = ("Conversion Error", "Binder Error", "Parser Error", "Catalog Error", "IO Error",
               "Invalid Input Error", "duckdb", "DuckDB", "Traceback", 'File "')
PASSWD = Path("/etc/passwd")


def secret_lines() -> list[str]:
    """Lines of /etc/passwd long enough to recognise in a response."""
    if not PASSWD.is_file():
        return ["root:x:0:0"]
    return [ln for ln in PASSWD.read_text(errors="replace").splitlines() if len(ln) > 8]


def assert_leaks_nothing(text: str, served) -> None:
    for line in secret_lines():
        assert line not in text
    for marker in ENGINE_TEXT:
        assert marker not in text, marker
    assert str(served.skb_dir) not in text and str(served.cwd) not in text


def no_evil_file(served) -> None:
    places = [Path.cwd(), served.cwd, served.skb_dir, served.skb_dir.parent]
    for place in places:
        assert not (place / "evil.sh").exists(), place
    assert not list(served.skb_dir.parent.rglob("evil.sh"))


@pytest.mark.parametrize(("where", "types"), [
    (READ_FILE, ["product"]),
    (WRITE_FILE, ["product"]),
    (ESCAPE_TYPES, ["brand"]),
])
@pytest.mark.parametrize("batch", [False, True])
def test_predicate_attacks_are_refused(served, where, types, batch):
    body = {"k": 50, "types": types, "where": where}
    body.update({"queries": ["blue", "acme"]} if batch else {"query": "blue"})
    r = httpx.post(served.base + "/search", json=body, timeout=30)
    assert 400 <= r.status_code < 500, r.text
    assert_leaks_nothing(r.text, served)
    no_evil_file(served)
    # The service is still up and still honours a plain type filter.
    ok = httpx.post(served.base + "/search", json={"query": "blue", "k": 50, "types": ["brand"]},
                    timeout=30)
    assert ok.status_code == 200
    assert all(h["id"].startswith("b") for h in ok.json()["results"]["hits"])


def test_valid_predicate_still_filters(served):
    r = httpx.post(served.base + "/search", timeout=30,
                   json={"query": "product", "k": 20, "types": ["product"], "where": "price < 30"})
    assert r.status_code == 200
    prices = dict(zip(served.ds.skb.ids, served.ds.skb.column("price"), strict=True))
    hits = r.json()["results"]["hits"]
    assert hits and all(prices[h["id"]] < 30 for h in hits)


def test_unknown_node_is_404_and_paths_never_reach_the_disk(served):
    for node_id in ("nope", "..%2F..%2F..%2F..%2Fetc%2Fpasswd", "%2Fetc%2Fpasswd",
                    "p0%2F..%2F..%2Fmeta.json"):
        r = httpx.get(f"{served.base}/nodes/{node_id}", timeout=30)
        assert r.status_code == 404, node_id
        assert_leaks_nothing(r.text, served)
        assert '"format_version"' not in r.text
    # Raw dot segments, sent as-is (httpx would normalise them away).
    url = urlsplit(served.base)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    try:
        conn.request("GET", "/nodes/../../../../etc/passwd")
        resp = conn.getresponse()
        text = resp.read().decode("utf-8", "replace")
    finally:
        conn.close()
    assert resp.status == 404
    assert_leaks_nothing(text, served)


def test_validation_errors_do_not_echo_input(served):
    r = httpx.post(served.base + "/search", json={"query": "x", "k": "root:x:0:0:secret"}, timeout=30)
    assert r.status_code == 422
    assert "root:x:0:0:secret" not in r.text


def test_unknown_retriever_and_missing_index_name_no_server_paths(served):
    r = httpx.post(served.base + "/search", json={"query": "x", "retriever": "dense"}, timeout=30)
    assert r.status_code == 404 and "skb index" in r.json()["detail"]
    assert_leaks_nothing(r.text, served)
    r = httpx.post(served.base + "/search", json={"query": "x", "retriever": "nope"}, timeout=30)
    assert r.status_code == 400
