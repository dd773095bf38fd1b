"""Filters by cost (issue 31, item 2): a ``where`` predicate's estimated cost picks the lane
(heavy above ``light_filter_cost``) or refuses the request (400 above ``max_filter_cost``),
before it queues; a cheap filter stays on the light lane."""

from __future__ import annotations

import pytest

from skbsearch.server.context import ServerContext
from skbsearch.server.errors import FilterTooCostly
from skbsearch.server.limits import Limits
from skbsearch.server.pipelines import PipelineRequest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from skbsearch.server import create_app  # noqa: E402

#: A 1,000-character ILIKE chain: a regular expression, but a small automaton (heavy lane).
CHAIN = "description ILIKE '%" + "%".join("ab"[i % 2] for i in range(480)) + "%'"
#: A run of 60 '_' after a wildcard: RE2 simulates it, ~100x dearer a byte (refused).
BLOWUP = "description ILIKE '%a" + "_" * 60 + "b%'"


def test_filter_cost_picks_the_lane_or_refuses(small_skb) -> None:
    skb_dir, _ = small_skb
    ctx = ServerContext.create(skb_dir, Limits(light_filter_cost=50_000, max_filter_cost=5_000_000),
                               None, False)
    assert ctx.refuse_early(PipelineRequest("bm25", where="price < 50")) == "light"
    assert ctx.refuse_early(PipelineRequest("bm25", where="description ILIKE '%a%b%c%'")) == "heavy"
    assert ctx.refuse_early(PipelineRequest("bm25", where=CHAIN)) == "heavy"
    assert ctx.refuse_early(PipelineRequest("bm25 >> filter(where='description ILIKE \\'%a_b%\\'')")) == "heavy"
    with pytest.raises(FilterTooCostly):
        ctx.refuse_early(PipelineRequest("bm25", where=BLOWUP))
    with pytest.raises(FilterTooCostly):  # the same predicate inside the spec
        ctx.refuse_early(PipelineRequest(f"bm25(where=\"{BLOWUP}\")"))


def test_a_filter_over_budget_is_a_clear_400(small_skb) -> None:
    skb_dir, _ = small_skb
    client = TestClient(create_app(skb_dir, Limits(max_filter_cost=5_000_000), allowed_hosts=["testserver"]))
    r = client.post("/search", json={"query": "blue", "where": BLOWUP})
    assert r.status_code == 400 and "--max-filter-cost" in r.json()["detail"], r.text
    assert r.headers["x-content-type-options"] == "nosniff"
    assert client.post("/search", json={"query": "blue", "where": "price < 50"}).status_code == 200
    assert client.post("/search", json={"query": "blue", "where": CHAIN}).status_code == 200
    # the default budget lets a 1,000-character chain through on a small SKB (heavy lane)
    client = TestClient(create_app(skb_dir, allowed_hosts=["testserver"]))
    assert client.post("/search", json={"query": "blue", "where": CHAIN}).status_code == 200
