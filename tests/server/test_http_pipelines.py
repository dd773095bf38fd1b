"""Abuse of the pipeline, explain and node-page endpoints over real HTTP (``skb serve``).

Bounded requests, unknown and path-like ids, engine errors, specs that name files: every
one is refused with a 4xx that leaks nothing, and the server never answers 5xx.
"""

from __future__ import annotations

import http.client
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

httpx = pytest.importorskip("httpx")

from serving import SAVED_RUN_IDS, Served, start_skb_serve, stop  # noqa: E402
from test_http_security import READ_FILE, WRITE_FILE, assert_leaks_nothing, no_evil_file  # noqa: E402

FILE_SPECS = [
    "run('/etc/passwd')",
    "bm25 >> cross-encoder(model='/etc/passwd')",
    "bm25 >> gnn(model='/etc')",
    "bm25 >> llm(model='http://127.0.0.1:9/v1')",
    "bm25 >> llm",
    "dense(encoder='/etc/passwd')",
    "bm25 + run('../../../../etc/passwd')",
    "bm25(index='/etc')",
]


def post(served: Served, path: str, body: dict, **kw) -> httpx.Response:
    return httpx.post(served.base + path, json=body, timeout=60, **kw)


def raw_get(base: str, path: str) -> tuple[int, str]:
    """GET ``path`` exactly as written (httpx would normalise dot segments away)."""
    url = urlsplit(base)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    try:
        conn.request("GET", path)
        resp = conn.getresponse()
        return resp.status, resp.read().decode("utf-8", "replace")
    finally:
        conn.close()


@pytest.mark.parametrize("spec", FILE_SPECS)
@pytest.mark.parametrize("endpoint", ["/search", "/explain"])
def test_specs_naming_files_are_refused(served, spec, endpoint):
    body = {"query": "root", "pipeline": spec, "id": "p0"}
    r = post(served, endpoint, body)
    assert r.status_code == 400, r.text
    assert "file, model or URL" in r.json()["detail"] and "graph" in r.json()["stages"]
    assert_leaks_nothing(r.text, served)


def test_named_pipelines_may_load_files(served):
    r = post(served, "/search", {"query": "anything", "pipeline": "saved", "k": 5})
    assert r.status_code == 200, r.text
    assert [h["id"] for h in r.json()["results"]["hits"]] == list(SAVED_RUN_IDS)
    spec = r.json()["pipeline"]  # the normalised spec, sent back verbatim: the same pipeline
    assert post(served, "/search", {"query": "x", "pipeline": spec}).status_code == 200
    other = spec.replace("saved.trec", "other.trec")
    assert post(served, "/search", {"query": "x", "pipeline": other}).status_code == 400
    names = [p["name"] for p in httpx.get(served.base + "/pipelines", timeout=30).json()["pipelines"]]
    assert names == ["bm25", "graph", "bm25+graph", "saved", "fused"]
    fused = post(served, "/search", {"query": served.ds.queries[0].text, "pipeline": "fused", "k": 30})
    assert fused.status_code == 200 and len(fused.json()["results"]["hits"]) == 20


@pytest.mark.parametrize("where", [READ_FILE, WRITE_FILE, "price < 20) OR (1=1", "nonsense((("])
def test_engine_errors_never_reach_the_client(served, where):
    for spec in (f"bm25(where={where!r})", f"bm25 >> filter(where={where!r})"):
        for endpoint in ("/search", "/explain"):
            r = post(served, endpoint, {"query": "blue", "id": "p0", "pipeline": spec})
            assert 400 <= r.status_code < 500, r.text
            assert_leaks_nothing(r.text, served)
    r = post(served, "/explain", {"query": "blue", "id": "p0", "where": where, "types": ["product"]})
    assert 400 <= r.status_code < 500
    assert_leaks_nothing(r.text, served)
    no_evil_file(served)


@pytest.mark.parametrize(("body", "status"), [
    ({"query": "x", "pipeline": "graph", "k": 1001}, 422),
    ({"query": "x", "pipeline": "graph", "k": 0}, 422),
    ({"queries": ["x"] * 101, "pipeline": "graph"}, 413),
    ({"queries": ["x"] * 20, "pipeline": "graph", "k": 1000}, 422),
    ({"query": "x" * 1001, "pipeline": "graph"}, 422),
    ({"query": "x", "pipeline": "bm25 + " * 200 + "bm25"}, 422),
    ({"query": "x", "pipeline": "(" * 40 + "bm25" + ")" * 40}, 400),
    ({"query": "x", "pipeline": " + ".join(["bm25"] * 17)}, 400),
    ({"query": "x", "pipeline": "bm25(k=100000000)"}, 400),
    ({"query": "x", "pipeline": "graph(w_rel=1e999)"}, 400),
    ({"query": "x", "pipeline": "bm25", "evidence": 11}, 422),
])
def test_search_requests_are_bounded(served, body, status):
    r = post(served, "/search", body)
    assert r.status_code == status, r.text
    assert_leaks_nothing(r.text, served)


@pytest.mark.parametrize(("body", "status"), [
    ({"query": "x" * 1001, "id": "p0"}, 422),
    ({"query": "x", "id": "p" * 1001}, 422),
    ({"query": "", "id": "p0"}, 422),
    ({"query": "x"}, 422),
    ({"query": "x", "id": "p0", "pipeline": "nope"}, 400),
])
def test_explain_requests_are_bounded(served, body, status):
    r = post(served, "/explain", body)
    assert r.status_code == status, r.text
    assert_leaks_nothing(r.text, served)


def test_bodies_over_the_limit_are_413(served):
    big = {"query": "x", "id": "p0", "pipeline": "bm25", "where": "a" * 1_100_000}
    for endpoint in ("/search", "/explain"):
        assert post(served, endpoint, big).status_code == 413


@pytest.mark.parametrize("node_id", ["nope", "../../etc/passwd", "/etc/passwd", "p0/../../meta.json",
                                     "..%2F..%2Fmeta.json", "\x00", "p0' OR '1'='1"])
def test_unknown_and_path_like_ids_are_404(served, node_id):
    r = post(served, "/explain", {"query": "blue", "id": node_id, "pipeline": "graph"})
    assert r.status_code == 404, r.text
    assert_leaks_nothing(r.text, served)
    assert '"format_version"' not in r.text


def test_node_pages_over_raw_paths(served):
    for path in ("/nodes/../../../../etc/passwd?limit=5", "/nodes/p0/../../meta.json?offset=1",
                 "/nodes/nope?relation=has_brand"):
        status, text = raw_get(served.base, path)
        assert status == 404, path
        assert_leaks_nothing(text, served)
    status, text = raw_get(served.base, "/node/../../../../etc/passwd")
    assert status == 200 and "<title>skbsearch explorer</title>" in text  # the page only
    assert_leaks_nothing(text, served)
    for path, want in (("/nodes/p0?limit=100000", 422), ("/nodes/p0?offset=-5", 422),
                       ("/nodes/p0?relation=../../x", 400), ("/static/../../etc/passwd", 404)):
        status, text = raw_get(served.base, path)
        assert status == want, path
        assert_leaks_nothing(text, served)


def test_no_request_made_the_server_fail(served):
    """Run last in this module: every refusal above was a 4xx, never a crash."""
    assert httpx.get(served.base + "/health", timeout=30).status_code == 200
    log = "".join(p.read_text(errors="replace") for p in served.cwd.parent.glob("server-*.log"))
    assert " 500 " not in log and "Traceback" not in log


@pytest.fixture(scope="module")
def open_server(tmp_path_factory, served) -> Iterator[tuple[str, Path]]:
    """``skb serve --allow-spec-files`` over the same SKB (the operator lets specs name files)."""
    root = tmp_path_factory.mktemp("open")
    cwd = root / "cwd"
    cwd.mkdir()
    run = root / "mine.trec"
    run.write_text("q0 Q0 p5 1 2.0 t\nq0 Q0 p6 2 1.0 t\n")
    proc, base = start_skb_serve(served.skb_dir, cwd, "--allow-spec-files")
    try:
        yield base, run
    finally:
        stop(proc)


def test_allow_spec_files_reads_files_but_leaks_none(open_server, served):
    base, run = open_server
    r = httpx.post(base + "/search", json={"query": "x", "pipeline": f"run('{run}')"}, timeout=60)
    assert r.status_code == 200 and [h["id"] for h in r.json()["results"]["hits"]] == ["p5", "p6"]
    assert httpx.get(base + "/pipelines", timeout=30).json()["allow_spec_files"] is True
    for spec in ("run('/etc/passwd')", "run('/nonexistent/x.trec')", "run('/etc')"):
        r = httpx.post(base + "/search", json={"query": "x", "pipeline": spec}, timeout=60)
        assert r.status_code == 400, (spec, r.text)
        assert r.json()["detail"] in ("field 'pipeline': a file named by the pipeline could not be read",
                                      "invalid 'pipeline': it could not be evaluated")
        assert_leaks_nothing(r.text, served)
