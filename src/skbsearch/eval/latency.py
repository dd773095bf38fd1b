"""Per-stage latency: record milliseconds per query for each pipeline stage, report p50/p95.

    rec = LatencyRecorder()
    with rec.stage("retrieve", n_queries=len(queries)):
        run = retriever(queries)

    @rec.timed("rerank")
    def rerank(queries, run): ...

    rec.summary()  # {"retrieve": {"calls": 1, "queries": 43, "p50_ms": …, "p95_ms": …}, …}
    rec.latency_ms()  # {"retrieve.p50": …, "retrieve.p95": …, "p50": …, "p95": …}

    run = run_timed(pipeline, queries, run, rec)  # one timed call per stage of a chain

A batch call over ``n`` queries records ``n`` samples of ``elapsed / n`` ms each (the
per-query cost of batch processing). Percentiles use linear interpolation (numpy default).
This is the one latency recorder of the package: benchmarks report
:meth:`LatencyRecorder.latency_ms` as :attr:`BenchmarkResult.latency_ms`.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

import numpy as np

from skbsearch.core.operators import Cutoff, Pipeline
from skbsearch.core.types import Query, Run

F = TypeVar("F", bound=Callable[..., Any])
#: How :meth:`LatencyRecorder.latency_ms` forms the overall ``p50``/``p95``.
OVERALL = ("sum", "pooled", "none")


def percentiles(samples_ms: Sequence[float]) -> tuple[float, float]:
    """``(p50, p95)`` of millisecond samples (linear interpolation)."""
    a = np.asarray(samples_ms, dtype=np.float64)
    return float(np.percentile(a, 50)), float(np.percentile(a, 95))


class LatencyRecorder:
    """Collects per-query latency samples (milliseconds) per named stage."""

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        self._clock = clock
        self._samples: dict[str, list[float]] = {}
        self._calls: dict[str, int] = {}

    def record(self, stage: str, elapsed_ms: float, n_queries: int = 1) -> None:
        """Add one call of ``stage`` that took ``elapsed_ms`` for ``n_queries`` queries."""
        if n_queries < 1:
            raise ValueError(f"n_queries must be >= 1, got {n_queries}")
        if elapsed_ms < 0:
            raise ValueError(f"elapsed_ms must be >= 0, got {elapsed_ms}")
        self._samples.setdefault(stage, []).extend([elapsed_ms / n_queries] * n_queries)
        self._calls[stage] = self._calls.get(stage, 0) + 1

    @contextmanager
    def stage(self, name: str, n_queries: int = 1) -> Iterator[None]:
        """Time the ``with`` block as one call of stage ``name`` over ``n_queries`` queries.

        Nothing is recorded when the block raises.
        """
        start = self._clock()
        yield
        self.record(name, (self._clock() - start) * 1000.0, n_queries)

    def timed(self, name: str, count: Callable[..., int] | None = None) -> Callable[[F], F]:
        """Decorator timing every call of a function as stage ``name``.

        ``count(*args, **kwargs)`` gives the number of queries of a call (default: the
        length of the first list/tuple/mapping positional argument, else 1).
        """

        def decorate(fn: F) -> F:
            @functools.wraps(fn)
            def wrapper(*args: Any, **kwargs: Any) -> Any:
                n = count(*args, **kwargs) if count else _default_count(args)
                with self.stage(name, n_queries=max(1, n)):
                    return fn(*args, **kwargs)

            return wrapper  # type: ignore[return-value]

        return decorate

    def samples(self, stage: str) -> list[float]:
        """The per-query millisecond samples of one stage."""
        return list(self._samples.get(stage, []))

    @property
    def stages(self) -> list[str]:
        """Stage names in the order they were first recorded."""
        return list(self._samples)

    def summary(self) -> dict[str, dict[str, float]]:
        """``{stage: {calls, queries, mean_ms, p50_ms, p95_ms, total_ms}}``."""
        out: dict[str, dict[str, float]] = {}
        for name, xs in self._samples.items():
            a = np.asarray(xs, dtype=np.float64)
            p50, p95 = percentiles(a)
            out[name] = {
                "calls": self._calls[name],
                "queries": int(a.size),
                "mean_ms": float(a.mean()),
                "p50_ms": p50,
                "p95_ms": p95,
                "total_ms": float(a.sum()),
            }
        return out

    def latency_ms(self, overall: str = "sum") -> dict[str, float]:
        """``{"<stage>.p50": ms, "<stage>.p95": ms, ..., "p50": ms, "p95": ms}``.

        ``overall``: ``"sum"`` when the stages run one after another on the same queries
        (a query's total is the sum of its samples across stages, aligned by order);
        ``"pooled"`` when stages are disjoint groups of queries (all samples together);
        ``"none"``: per stage only.
        """
        if overall not in OVERALL:
            raise ValueError(f"overall must be one of {OVERALL}, got {overall!r}")
        out: dict[str, float] = {}
        for name in self.stages:
            out[f"{name}.p50"], out[f"{name}.p95"] = percentiles(self._samples[name])
        if not self._samples or overall == "none":
            return out
        if overall == "pooled":
            total = [x for xs in self._samples.values() for x in xs]
        else:
            total = [sum(x) for x in zip(*self._samples.values(), strict=False)]
        out["p50"], out["p95"] = percentiles(total)
        return out

    def rows(self) -> list[dict[str, Any]]:
        """The summary as table rows (``stage`` first), e.g. for ``print_table``."""
        return [{"stage": k, **v} for k, v in self.summary().items()]

    def reset(self) -> None:
        """Forget every sample."""
        self._samples.clear()
        self._calls.clear()


def stage_label(stage: Any) -> str:
    """A stage's short name for latency tables (its registered name, else its class)."""
    name = getattr(stage, "name", None)
    return name if isinstance(name, str) and name else type(stage).__name__


def run_timed(stage: Any, queries: Sequence[Query], run: Run | None,
              recorder: LatencyRecorder) -> Run:
    """Run ``stage`` (a chain is run part by part) and record each part as one call.

    Parts are named by :func:`stage_label` (a repeated name gets ``#2``, ``#3``...);
    cut-offs are not timed. Returns the final Run.
    """
    queries = list(queries)
    parts = stage.stages if isinstance(stage, Pipeline) else [stage]
    seen: dict[str, int] = {}
    for part in parts:
        if isinstance(part, Cutoff):
            run = part(queries, run)
            continue
        label = stage_label(part)
        seen[label] = seen.get(label, 0) + 1
        if seen[label] > 1:
            label = f"{label}#{seen[label]}"
        with recorder.stage(label, n_queries=max(1, len(queries))):
            run = part(queries, run)
    assert run is not None
    return run


def _default_count(args: tuple[Any, ...]) -> int:
    # The first list/tuple/dict-like positional argument (skips ``self`` of a method).
    for a in args:
        if isinstance(a, (Sequence, Mapping)) and not isinstance(a, (str, bytes)):
            return len(a)
    return 1
