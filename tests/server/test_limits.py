"""Service limits against a real ``skb serve`` (default limits): refused early, with reasons."""

from __future__ import annotations

import json
import time

import pytest

from skbsearch.server.limits import Limits

httpx = pytest.importorskip("httpx")

LIMITS = Limits()


def post(served, body, **kw):
    return httpx.post(served.base + "/search", json=body, timeout=60, **kw)


def test_body_over_the_limit_is_413_before_parsing(served):
    big = {"queries": ["x" * 500] * 3000, "k": 1}  # ~1.5 MB
    t0 = time.monotonic()
    r = post(served, big)
    assert r.status_code == 413 and "body" in r.json()["detail"]
    assert time.monotonic() - t0 < 10


def test_streamed_body_without_length_is_counted(served):
    payload = json.dumps({"queries": ["y" * 500] * 3000, "k": 1}).encode()

    def chunks():
        for i in range(0, len(payload), 64_000):
            yield payload[i:i + 64_000]

    r = httpx.post(served.base + "/search", content=chunks(), timeout=60,
                   headers={"content-type": "application/json"})
    assert r.status_code == 413


def test_batch_over_the_limit_is_413(served):
    r = post(served, {"queries": ["blue"] * (LIMITS.max_batch + 1), "k": 1})
    assert r.status_code == 413 and str(LIMITS.max_batch) in r.json()["detail"]


def test_largest_allowed_batch_is_answered_and_bounded(served):
    k = LIMITS.max_results // LIMITS.max_batch
    r = post(served, {"queries": ["blue product"] * LIMITS.max_batch, "k": k})
    assert r.status_code == 200
    results = r.json()["results"]
    assert len(results) == LIMITS.max_batch and all(len(x["hits"]) <= k for x in results)
    assert len(r.content) < 5_000_000


def test_long_query_is_422_quickly_and_not_echoed(served):
    text = "blue " * 200_000  # 1 MB
    t0 = time.monotonic()
    r = post(served, {"query": text[: LIMITS.max_body_bytes - 100]})
    assert r.status_code == 422 and "characters" in r.json()["detail"]
    assert time.monotonic() - t0 < 5 and len(r.content) < 2_000
    r = post(served, {"query": "b" * (LIMITS.max_query_chars + 1)})
    assert r.status_code == 422 and len(r.content) < 2_000


@pytest.mark.parametrize("k", [0, -3, LIMITS.max_k + 1])
def test_k_out_of_range_is_422(served, k):
    r = post(served, {"query": "blue", "k": k})
    assert r.status_code == 422 and "k must be" in r.json()["detail"]


def test_k_times_batch_over_the_limit_is_422(served):
    n = LIMITS.max_results // LIMITS.max_k + 1
    r = post(served, {"queries": ["blue"] * n, "k": LIMITS.max_k})
    assert r.status_code == 422 and "results" in r.json()["detail"]


def test_long_predicate_and_many_types_are_422(served):
    where = " OR ".join(["price < 1"] * 200)
    assert len(where) > LIMITS.max_where_chars
    assert post(served, {"query": "blue", "where": where}).status_code == 422
    types = ["product"] * (LIMITS.max_types + 1)
    assert post(served, {"query": "blue", "types": types}).status_code == 422


def test_limits_are_checked():
    with pytest.raises(ValueError, match="max_k"):
        Limits(max_k=0)
