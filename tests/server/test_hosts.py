"""The Host header check (DNS rebinding), ``/kb`` without server paths, pickled models refused."""

from __future__ import annotations

import pytest

from skbsearch.server.hosts import AllowedHosts, default_hosts, host_name

httpx = pytest.importorskip("httpx")


def test_foreign_host_headers_are_refused(served):
    port = served.base.rsplit(":", 1)[1]
    assert httpx.get(served.base + "/health", headers={"host": ""}, timeout=10).status_code == 400
    for host in ("evil.example", f"evil.example:{port}", "127.0.0.1.evil.example",
                 "localhost.evil.example"):
        r = httpx.get(served.base + "/health", headers={"host": host}, timeout=10)
        assert r.status_code == 400, (host, r.status_code)
        r = httpx.post(served.base + "/search", json={"query": "mug"}, headers={"host": host},
                       timeout=10)
        assert r.status_code == 400 and "--allowed-hosts" in r.json()["detail"]


def test_the_loopback_names_are_accepted(served):
    port = served.base.rsplit(":", 1)[1]
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", "LOCALHOST"):
        r = httpx.get(served.base + "/health", headers={"host": host}, timeout=10)
        assert r.status_code == 200, host


def test_host_names_and_defaults():
    assert host_name("Example.org:8000") == "example.org"
    assert host_name("[::1]:8000") == "::1" and host_name("::1") == "::1"
    assert set(default_hosts("127.0.0.1")) == {"localhost", "127.0.0.1", "::1"}
    assert "127.0.0.2" in default_hosts("127.0.0.2") and default_hosts("0.0.0.0") == ("*",)
    mw = AllowedHosts(None, [".example.org", "search.local"])  # type: ignore[arg-type]
    assert mw.allowed("a.example.org:1") and mw.allowed("example.org")
    assert mw.allowed("search.local") and not mw.allowed("evilexample.org")
    assert not mw.allowed("") and AllowedHosts(None, ["*"]).allowed("x")  # type: ignore[arg-type]


def test_kb_does_not_show_the_server_path(served):
    r = httpx.get(served.base + "/kb", timeout=30)
    assert r.status_code == 200
    assert str(served.skb_dir) not in r.text and str(served.skb_dir.parent) not in r.text
    assert r.json()["name"] == served.skb_dir.name
