"""The cost budget over HTTP: size caps, the request deadline, lanes by cost, enrich's index."""

from __future__ import annotations

import threading
import time

import pytest

from skbsearch.retrieve.constrained import ConstrainedRetriever
from skbsearch.server import create_app
from skbsearch.server.limits import Limits
from skbsearch.stages import StageContext, pipeline

httpx = pytest.importorskip("httpx")

ABUSIVE = "bm25(k=1000000) + graph(n_text=1000000, n_graph=1000000)"


def enriched(snap) -> list:
    """The enriched indexes the snapshot's context keeps (built by an ``enrich`` stage)."""
    return [v for v in snap.context.shared_values() if isinstance(v, ConstrainedRetriever)]


def test_the_abusive_spec_is_refused_naming_the_cap(served):
    body = {"queries": ["blue mug"] * 3, "k": 10, "pipeline": ABUSIVE}
    t0 = time.monotonic()
    r = httpx.post(served.base + "/search", json=body, timeout=60)
    assert r.status_code == 400, r.text
    detail = r.json()["detail"]
    assert "k=1,000,000 exceeds the cap of" in detail and "ask for at most" in detail
    assert time.monotonic() - t0 < 10


@pytest.mark.parametrize("spec,field", [
    ("graph(n_graph=999999)", "n_graph"), ("bm25 >> graph(n_text=50000)", "n_text"),
    ("(bm25 + graph(top_paths=100000)) % 10", "top_paths"), ("enrich(k=20000)", "k")])
def test_every_size_parameter_is_capped(served, spec, field):
    r = httpx.post(served.base + "/search", json={"query": "blue", "pipeline": spec}, timeout=60)
    assert r.status_code == 400 and f"{field}=" in r.json()["detail"], r.text


def test_sizes_up_to_the_cap_are_served(served):
    spec = "bm25(k=1000) + graph(n_text=1000, n_graph=1000)"  # the cap on a small SKB: max_k
    r = httpx.post(served.base + "/search", json={"query": "blue mug", "pipeline": spec}, timeout=60)
    assert r.status_code == 200, r.text


def test_enrich_k_does_not_rebuild_the_enriched_index(small_skb):
    skb_dir, _ = small_skb
    ctx = StageContext(skb_dir, notify=lambda _m: None)
    a, b = pipeline("enrich(k=5)", ctx), pipeline("enrich(k=7, mode='text')", ctx)
    assert a.inner.index is b.inner.index and a.inner.facts is b.inner.facts
    assert (a.inner.k, b.inner.k, b.inner.mode) == (5, 7, "text")


def test_past_the_deadline_the_work_stops_and_the_client_gets_504(small_skb, thread_server):
    skb_dir, _ = small_skb
    app = create_app(skb_dir, Limits(request_timeout=0.3, heavy_workers=1))
    with thread_server(app) as srv:
        t0 = time.monotonic()
        r = httpx.post(srv.base + "/search", json={"query": "mug under $20", "pipeline": "enrich"},
                       timeout=60)
        assert r.status_code == 504, r.text
        assert "time limit of 0.3 s" in r.json()["detail"]
        assert time.monotonic() - t0 < 5
        pool = app.state.lanes.pools["heavy"]
        for _ in range(100):  # the work itself stopped: the heavy lane is free again
            if pool.pending == 0:
                break
            time.sleep(0.05)
        assert pool.pending == 0
        snap = app.state.snapshots.current
        assert not enriched(snap)  # the half-built index was dropped
        r = httpx.post(srv.base + "/search", json={"query": "blue", "pipeline": "bm25"}, timeout=30)
        assert r.status_code == 200


def test_heavy_requests_do_not_hold_up_light_ones(small_skb, thread_server):
    skb_dir, _ = small_skb
    app = create_app(skb_dir, Limits(search_workers=1, heavy_workers=1, max_pending=2,
                                     request_timeout=60))
    release = threading.Event()
    with thread_server(app) as srv:
        heavy = app.state.lanes.pools["heavy"]
        heavy.submit(lambda: release.wait(60))  # the heavy lane is busy...
        try:
            statuses: list[int] = []
            t = threading.Thread(target=lambda: statuses.append(httpx.post(
                srv.base + "/search", json={"query": "blue", "pipeline": "enrich(k=3)"},
                timeout=60).status_code))
            t.start()  # ...and an enrich request waits in its queue
            time.sleep(0.3)
            r = httpx.post(srv.base + "/search", json={"query": "blue", "k": 3, "pipeline": "bm25"},
                           timeout=10)
            assert r.status_code == 200  # a BM25 search does not queue behind them
            r = httpx.post(srv.base + "/search", json={"query": "blue", "pipeline": "enrich"},
                           timeout=10)
            assert r.status_code == 503  # the heavy lane's queue is full
        finally:
            release.set()
        t.join(timeout=60)
        assert statuses == [200]


def test_an_abandoned_request_stops_its_work(small_skb, thread_server):
    skb_dir, _ = small_skb
    app = create_app(skb_dir, Limits(request_timeout=120, heavy_workers=1))
    with thread_server(app) as srv:
        with pytest.raises(httpx.TimeoutException):  # the client gives up and disconnects
            httpx.post(srv.base + "/search", json={"query": "mug", "pipeline": "enrich(k=9)"},
                       timeout=0.05)  # well under the enrich build
        pool = app.state.lanes.pools["heavy"]
        for _ in range(600):
            if pool.pending == 0:
                break
            time.sleep(0.05)
        assert pool.pending == 0  # long before the 120 s deadline
        # the enriched index was being built when the client left: dropped, not finished
        assert not enriched(app.state.snapshots.current)


def test_named_pipelines_are_prepared_when_the_snapshot_loads(small_skb, thread_server):
    skb_dir, _ = small_skb
    app = create_app(skb_dir, pipelines={"dated": "enrich"})
    snap = app.state.snapshots.current
    assert enriched(snap)  # built at load, outside any request's deadline
    keys = {k[1] for k in list(snap.pipelines._items)}
    assert {"bm25", "graph", "bm25+graph", "dated"} <= keys
