"""Worker lanes by cost class (server/lanes.py): a bounded pool refuses work past
``max_pending``, a lane runs a job under its deadline and stops waiting for one that runs past
it (or whose client went away), and a shut-down set of lanes keeps working."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from skbsearch.core.deadline import check_deadline, current_deadline
from skbsearch.core.errors import DeadlineExceeded
from skbsearch.server.lanes import BoundedExecutor, Busy, Lanes
from skbsearch.server.limits import Limits


def test_a_full_pool_refuses_new_work_until_a_job_ends() -> None:
    pool = BoundedExecutor(workers=1, max_pending=2, name="t")
    gate = threading.Event()
    running = pool.submit(gate.wait)
    queued = pool.submit(lambda: "second")
    assert pool.pending == 2
    with pytest.raises(Busy):
        pool.submit(lambda: "third")
    gate.set()
    assert running.result(timeout=5) is True and queued.result(timeout=5) == "second"
    deadline = time.monotonic() + 5
    while pool.pending and time.monotonic() < deadline:  # done callbacks run just after
        time.sleep(0.01)
    assert pool.pending == 0 and pool.submit(lambda: 3).result(timeout=5) == 3
    pool.shutdown()


def _lanes(request_timeout: float) -> Lanes:
    return Lanes(Limits(search_workers=1, heavy_workers=1, max_pending=4,
                        request_timeout=request_timeout))


def test_a_job_runs_on_its_lane_under_the_request_deadline() -> None:
    lanes = _lanes(request_timeout=5.0)

    def job() -> tuple[str, float]:
        d = current_deadline()
        check_deadline()
        assert d is not None and d.seconds is not None
        return threading.current_thread().name, d.seconds

    name, seconds = asyncio.run(lanes.run("heavy", job))
    assert name.startswith("skb-heavy") and seconds == 5.0
    assert asyncio.run(lanes.run("light", lambda: 7)) == 7
    lanes.shutdown()


def test_work_past_its_time_stops_at_its_next_check(monkeypatch: pytest.MonkeyPatch) -> None:
    import skbsearch.server.lanes as lanes_mod

    monkeypatch.setattr(lanes_mod, "GRACE", 0.1)
    monkeypatch.setattr(lanes_mod, "POLL", 0.02)
    lanes = _lanes(request_timeout=0.2)
    checks: list[str] = []

    def slow() -> None:
        for _ in range(200):
            time.sleep(0.01)
            try:
                check_deadline()
            except DeadlineExceeded:
                checks.append("stopped")
                raise

    t = time.monotonic()
    with pytest.raises(DeadlineExceeded, match="time limit of 0.2 s"):
        asyncio.run(lanes.run("normal", slow))
    assert time.monotonic() - t < 1.5
    deadline = time.monotonic() + 5
    while not checks and time.monotonic() < deadline:
        time.sleep(0.01)
    assert checks == ["stopped"]  # the job itself stopped, it did not run to its end
    lanes.shutdown()


def test_a_client_that_goes_away_cancels_its_job() -> None:
    lanes = _lanes(request_timeout=30.0)
    started = threading.Event()

    def wait_cancelled() -> str:
        started.set()
        for _ in range(500):
            time.sleep(0.01)
            check_deadline()
        return "ran to the end"

    async def gone() -> dict:
        while not started.is_set():
            await asyncio.sleep(0.01)
        return {"type": "http.disconnect"}

    with pytest.raises(DeadlineExceeded, match="the client went away"):
        asyncio.run(lanes.run("light", wait_cancelled, disconnected=gone))
    lanes.shutdown()


def test_a_full_lane_is_busy_and_shutdown_leaves_fresh_pools() -> None:
    lanes = Lanes(Limits(search_workers=1, heavy_workers=1, max_pending=1))
    gate = threading.Event()
    lanes.pools["light"].submit(gate.wait)
    with pytest.raises(Busy):
        asyncio.run(lanes.run("light", lambda: 1))
    assert asyncio.run(lanes.run("normal", lambda: 2)) == 2  # other lanes are free
    old = lanes.pools["light"]
    lanes.shutdown()
    gate.set()
    assert lanes.pools["light"] is not old and lanes.pools["light"].pending == 0
    assert asyncio.run(lanes.run("light", lambda: 3)) == 3
    lanes.shutdown()
