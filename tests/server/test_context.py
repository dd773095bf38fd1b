"""What the service's routes share (server/context.py): the context made from the limits and
named pipelines, the refusals run on the event loop before a request queues (unknown node,
bad text, a limit broken) with the lane a request runs on, a full lane as 503, and work
retried on the new snapshot when a rebuild removed the files it needed."""

from __future__ import annotations

import asyncio
import threading

import pytest

pytest.importorskip("fastapi")
from fastapi import HTTPException  # noqa: E402

from skbsearch.server.context import SNAPSHOT_RETRIES, ServerContext  # noqa: E402
from skbsearch.server.errors import SnapshotChanged, UnknownNode  # noqa: E402
from skbsearch.server.limits import Limits  # noqa: E402
from skbsearch.server.pipelines import PipelineRequest  # noqa: E402


@pytest.fixture(scope="module")
def ctx(small_skb) -> ServerContext:  # noqa: ANN001
    skb_dir, _ = small_skb
    return ServerContext.create(skb_dir, Limits(max_k=50, max_batch=4, max_pending=1, search_workers=1,
                                                heavy_workers=1), {"top": "bm25 % 5"}, False)


def test_the_context_follows_the_limits_and_warms_the_named_pipelines(ctx) -> None:  # noqa: ANN001
    assert ctx.policy.max_k == 50 and ctx.policy.named == {"top": "bm25 % 5"}
    assert not ctx.policy.allow_files and ctx.lanes.timeout == ctx.limits.request_timeout
    assert PipelineRequest("top").key() in ctx.holder.current.pipelines  # warmed at load


def test_early_refusals_and_the_lane_a_request_runs_on(ctx) -> None:  # noqa: ANN001
    assert ctx.refuse_early() == "light"
    assert ctx.refuse_early(node_id="p0") == "light"
    with pytest.raises(UnknownNode):
        ctx.refuse_early(node_id="nope")
    assert ctx.refuse_early(PipelineRequest("bm25(k=10)")) == "light"
    assert ctx.refuse_early(PipelineRequest("bm25(k=200)")) == "heavy"  # a size over max_k
    assert ctx.refuse_early(PipelineRequest("bm25(k=10)"), n_queries=40) == "normal"  # a big batch
    assert ctx.refuse_early(PipelineRequest("graph")) in ("normal", "heavy")


def test_bad_text_and_broken_limits_are_http_errors(ctx) -> None:  # noqa: ANN001
    with pytest.raises(HTTPException) as e:
        ctx.refuse_text(query="fine", queries=["ok", "bad \ud800"])
    assert e.value.status_code == 400 and "'queries[1]'" in e.value.detail
    ctx.refuse_text(query="fine")
    with pytest.raises(HTTPException) as e:
        ctx.refuse_request(5, 10, 3, None, 0, None)
    assert e.value.status_code == 413 and "batch of 5 queries" in e.value.detail
    with pytest.raises(HTTPException) as e:
        ctx.refuse_request(1, 10, 51, None, 0, None)
    assert e.value.status_code == 422 and "k must be between 1 and 50" in e.value.detail
    ctx.refuse_request(4, 10, 50, "price < 3", 2, "bm25")


def test_a_full_lane_is_503_with_retry_after(ctx) -> None:  # noqa: ANN001
    gate = threading.Event()
    ctx.lanes.pools["light"].submit(gate.wait)
    try:
        with pytest.raises(HTTPException) as e:
            asyncio.run(ctx.offload(lambda: 1, "light"))
        assert e.value.status_code == 503 and e.value.headers == {"Retry-After": "1"}
        assert asyncio.run(ctx.offload(lambda: 2, "normal")) == 2
    finally:
        gate.set()


def test_work_is_retried_on_a_new_snapshot_a_few_times(ctx) -> None:  # noqa: ANN001
    seen = []

    def flaky(snap):  # noqa: ANN001, ANN202
        seen.append(snap)
        if len(seen) < 2:
            raise SnapshotChanged("files gone")
        return snap.identity

    assert ctx.on_snapshot(flaky) == ctx.holder.current.identity and len(seen) == 2
    tries = []

    def never(_snap):  # noqa: ANN001, ANN202
        tries.append(1)
        raise SnapshotChanged("files gone")

    with pytest.raises(SnapshotChanged):
        ctx.on_snapshot(never)
    assert len(tries) == SNAPSHOT_RETRIES
