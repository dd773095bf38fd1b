"""Any text in: unpaired surrogates in every text field of every endpoint get a 400 naming it."""

from __future__ import annotations

import json

import pytest

httpx = pytest.importorskip("httpx")

BAD = "\ud800"


def post(url: str, body: dict) -> httpx.Response:
    """POST ``body`` as JSON with ``\\uXXXX`` escapes (as browsers' JSON.stringify may send)."""
    return httpx.post(url, content=json.dumps(body).encode("ascii"), timeout=30,
                      headers={"content-type": "application/json"})

SEARCH_CASES = [
    ({"query": BAD + " mug"}, "query"),
    ({"queries": ["mug", "\udfff"]}, "queries[1]"),
    ({"query": "mug", "where": f"name = '{BAD}'"}, "where"),
    ({"query": "mug", "types": ["product", BAD]}, "types[1]"),
    ({"query": "mug", "pipeline": f"bm25 >> filter(where='name = \"{BAD}\"')"}, "pipeline"),
    ({"query": "mug", "pipeline": BAD}, "pipeline"),
    ({"query": "mug", "retriever": "bm25" + BAD}, "retriever"),
]


@pytest.mark.parametrize("body,field", SEARCH_CASES)
def test_search_refuses_surrogates_naming_the_field(served, body, field):
    r = post(served.base + "/search", body)
    assert r.status_code == 400, r.text
    assert f"field '{field}'" in r.json()["detail"] and "surrogate" in r.json()["detail"]


@pytest.mark.parametrize("body,field", [
    ({"query": BAD, "id": "p1"}, "query"), ({"query": "mug", "id": "p1" + BAD}, "id"),
    ({"query": "mug", "id": "p1", "where": BAD}, "where"),
    ({"query": "mug", "id": "p1", "pipeline": f"graph(target=['{BAD}'])"}, "pipeline")])
def test_explain_refuses_surrogates_naming_the_field(served, body, field):
    r = post(served.base + "/explain", body)
    assert r.status_code == 400 and f"field '{field}'" in r.json()["detail"], r.text


def test_raw_escapes_in_the_body_are_refused_too(served):
    raw = b'{"query": "mug", "queries": ["a", "\\udfff\\ud800"], "k": 3}'
    r = httpx.post(served.base + "/search", content=raw, timeout=30,
                   headers={"content-type": "application/json"})
    assert r.status_code == 400 and "queries[1]" in r.json()["detail"]


def test_node_paths_with_bad_bytes_are_not_a_500(served):
    for path in ("/nodes/%ED%A0%80", "/nodes/p1?relation=%ED%A0%80", "/nodes/%FF%FE"):
        r = httpx.get(served.base + path, timeout=30)
        assert r.status_code in (400, 404, 422), (path, r.status_code, r.text)


def test_valid_non_ascii_text_still_works(served):
    r = httpx.post(served.base + "/search", json={"query": "tasse bleue ☕ 𝄞", "k": 3}, timeout=30)
    assert r.status_code == 200
