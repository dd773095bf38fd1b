"""Per-stage latency: record milliseconds per query for each pipeline stage, report p50/p95.

    rec = LatencyRecorder()
    with rec.stage("retrieve", n_queries=len(queries)):
        run = retriever(queries)

    @rec.timed("rerank")
    def rerank(queries, run): ...

    rec.summary()  # {"retrieve": {"calls": 1, "queries": 43, "p50_ms": …, "p95_ms": …}, …}

A batch call over ``n`` queries records ``n`` samples of ``elapsed / n`` ms each (the
per-query cost of batch processing). Percentiles use linear interpolation (numpy default).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

import numpy as np

F = TypeVar("F", bound=Callable[..., Any])


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
            out[name] = {
                "calls": self._calls[name],
                "queries": int(a.size),
                "mean_ms": float(a.mean()),
                "p50_ms": float(np.percentile(a, 50)),
                "p95_ms": float(np.percentile(a, 95)),
                "total_ms": float(a.sum()),
            }
        return out

    def rows(self) -> list[dict[str, Any]]:
        """The summary as table rows (``stage`` first), e.g. for ``print_table``."""
        return [{"stage": k, **v} for k, v in self.summary().items()]

    def reset(self) -> None:
        """Forget every sample."""
        self._samples.clear()
        self._calls.clear()


def _default_count(args: tuple[Any, ...]) -> int:
    # The first list/tuple/dict-like positional argument (skips ``self`` of a method).
    for a in args:
        if isinstance(a, (Sequence, Mapping)) and not isinstance(a, (str, bytes)):
            return len(a)
    return 1
