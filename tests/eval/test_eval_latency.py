"""LatencyRecorder: context manager, decorator, percentiles."""

from __future__ import annotations

import pytest

from skbsearch.eval import LatencyRecorder


class FakeClock:
    """A controllable clock (seconds), so timings are exact."""

    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def test_stage_records_per_query_ms() -> None:
    clock = FakeClock()
    rec = LatencyRecorder(clock=clock)
    with rec.stage("retrieve", n_queries=4):
        clock.t += 0.2  # 200 ms for 4 queries
    assert rec.samples("retrieve") == [50.0] * 4
    for ms in range(1, 101):
        rec.record("rerank", float(ms))
    s = rec.summary()
    assert s["retrieve"]["queries"] == 4 and s["retrieve"]["calls"] == 1
    assert s["rerank"]["p50_ms"] == pytest.approx(50.5)
    assert s["rerank"]["p95_ms"] == pytest.approx(95.05)
    assert rec.stages == ["retrieve", "rerank"]
    assert rec.rows()[0]["stage"] == "retrieve"


def test_decorator_counts_queries_and_skips_failures() -> None:
    clock = FakeClock()
    rec = LatencyRecorder(clock=clock)

    class Stage:
        @rec.timed("stage")
        def __call__(self, queries: list[str]) -> int:
            clock.t += 0.03
            if not queries:
                raise RuntimeError("boom")
            return len(queries)

    assert Stage()(["a", "b", "c"]) == 3
    assert rec.samples("stage") == pytest.approx([10.0] * 3)
    with pytest.raises(RuntimeError):
        Stage()([])
    assert len(rec.samples("stage")) == 3
    with pytest.raises(ValueError):
        rec.record("x", 1.0, n_queries=0)
    rec.reset()
    assert rec.summary() == {}


def test_real_clock_is_nonnegative() -> None:
    rec = LatencyRecorder()
    with rec.stage("noop"):
        pass
    assert rec.samples("noop")[0] >= 0.0
