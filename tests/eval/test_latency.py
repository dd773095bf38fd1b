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


def test_latency_ms_per_stage_and_overall() -> None:
    rec = LatencyRecorder()
    for ms in (10.0, 20.0, 30.0):
        rec.record("first", ms)
        rec.record("second", 1.0)
    out = rec.latency_ms()  # stages in sequence: a query's total is the sum
    assert out["first.p50"] == 20.0 and out["second.p95"] == 1.0
    assert (out["p50"], out["p95"]) == (21.0, pytest.approx(30.0))
    pooled = rec.latency_ms("pooled")  # stages as disjoint groups: all samples together
    assert pooled["p50"] == pytest.approx(5.5)
    assert set(rec.latency_ms("none")) == {"first.p50", "first.p95", "second.p50", "second.p95"}
    assert LatencyRecorder().latency_ms() == {}
    with pytest.raises(ValueError):
        rec.latency_ms("mean")


def test_run_timed_records_each_part_of_a_chain() -> None:
    from skbsearch.core.operators import FunctionStage
    from skbsearch.core.types import Query, Run
    from skbsearch.eval.latency import run_timed

    clock = FakeClock()

    def step(ms: float) -> FunctionStage:
        def fn(queries, run):  # noqa: ANN001, ANN202
            clock.t += ms / 1000
            return Run({q.id: {"d": ms} for q in queries})
        return FunctionStage(fn, name="step")

    rec = LatencyRecorder(clock=clock)
    out = run_timed(step(40) >> step(80) % 1, [Query("a", "x"), Query("b", "y")], None, rec)
    assert out == Run({"a": {"d": 80}, "b": {"d": 80}})
    assert rec.samples("step") == pytest.approx([20.0, 20.0])
    assert rec.samples("step#2") == pytest.approx([40.0, 40.0])
    assert rec.stages == ["step", "step#2"]  # the cut-off is not timed
